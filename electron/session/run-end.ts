/**
 * The run's end: the work that must finish before run.json is final (the milestone judge adds
 * its scores to the episodes), then run.json closed with the episodes and their mean.
 */
import type { RunStatus } from '../domain.ts';
import type { EpisodeSummary, RunMeta, RunStore } from '../store/run-store.ts';
import type { RunFinisher, SessionResult } from './session-types.ts';
import { scoreSummary } from './step-outcomes.ts';

export async function closeRun(
  store: RunStore,
  finishers: readonly RunFinisher[],
  end: { status: RunStatus; error: string | undefined; episodes: EpisodeSummary[] },
  warn: (message: string) => void,
): Promise<SessionResult> {
  const { status, error, episodes } = end;
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
  store.close(status, error, { episodes, ...scoreSummary(episodes), ...patch }); // never throws, even on a full disk
  return { runDir: store.dir, status, episodes, ...scoreSummary(episodes), ...(error ? { error } : {}) };
}
