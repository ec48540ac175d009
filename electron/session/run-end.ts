/**
 * The run's end: the work that must finish before run.json is final (the milestone judge adds
 * its scores to the episodes), then run.json closed with the episodes, their mean, the run's
 * quality and its times. A run that asked its model and never got an answer ends failed,
 * whatever it scored.
 */
import type { RunStatus } from '../domain.ts';
import type { EpisodeSummary, RunMeta, RunStore } from '../store/run-store.ts';
import type { RunAudit } from './run-audit.ts';
import type { RunFinisher, SessionResult } from './session-types.ts';
import { scoreSummary } from './step-outcomes.ts';
import { runLatencyMode } from '../store/run-timing.ts';

export async function closeRun(
  store: RunStore,
  finishers: readonly RunFinisher[],
  end: { status: RunStatus; error: string | undefined; episodes: EpisodeSummary[]; audit?: RunAudit },
  warn: (message: string) => void,
): Promise<SessionResult> {
  const { episodes, audit } = end;
  let { status, error } = end;
  let patch: Partial<RunMeta> = {};
  for (const work of finishers) {
    try {
      const done = await work(status === 'stopped', episodes);
      episodes.splice(0, episodes.length, ...done.episodes);
      patch = { ...patch, ...done.patch };
    } catch (err) {
      warn(`after the run: ${(err as Error).message}`);
    }
  }
  if (audit) {
    await audit.settled();
    if (status === 'completed' && audit.neverAnswered) {
      status = 'failed';
      error = 'the model never answered: every model call of every step failed (see model-calls.jsonl)';
    }
    patch = {
      ...patch,
      quality: audit.quality(store.meta.model_usage),
      timing: audit.timing(runLatencyMode(store.meta.config)),
    };
  }
  store.close(status, error, { episodes, ...scoreSummary(episodes), ...patch }); // never throws, even on a full disk
  return { runDir: store.dir, status, episodes, ...scoreSummary(episodes), ...(error ? { error } : {}) };
}
