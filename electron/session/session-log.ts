/**
 * A session's life in the log file: how it started, each step in a line, episode ends,
 * warnings, released input and how it ended — every line carrying the run id, so the lines of
 * one run can be picked out of a log shared by several runs and shells.
 */
import type { EventEmitter } from 'node:events';
import type { RunStore, StepRecord } from '../store/run-store.ts';
import { log } from '../util/log.ts';

const FINAL = new Set(['completed', 'stopped', 'failed']);

export function logSession(session: EventEmitter, store: RunStore): void {
  const m = store.meta;
  const l = log().child({ run: m.id });
  if (!l.isLevelEnabled('info')) return;
  l.info(
    {
      dir: store.dir,
      game: m.game,
      target: m.target.label,
      agent: m.agent,
      model: m.model,
      space: m.action_space,
      latency: m.config.latency,
    },
    'run started',
  );
  session.on('step', (r: StepRecord & { actionsText?: string[] }) => {
    l.info(
      {
        episode: r.episode + 1,
        step: r.step + 1,
        actions: r.actionsText,
        ms: r.latency_ms.total,
        ...(r.errors.length ? { errors: r.errors } : {}),
        ...(r.score !== undefined ? { score: r.score } : {}),
      },
      'step',
    );
  });
  session.on('episode', (e: { episode: number; score: number | null; steps: number; end: string }) =>
    l.info({ episode: e.episode + 1, score: e.score, steps: e.steps, end: e.end }, 'episode ended'),
  );
  session.on('warning', (w: string) => l.warn(w));
  session.on('released', (inputs: string[]) => l.info({ inputs }, 'released held input'));
  session.on('status', (status: string) => {
    if (!FINAL.has(status)) return;
    const fields = {
      status,
      mean: store.meta.mean,
      std: store.meta.std,
      steps: store.meta.totals.steps,
      ...(store.meta.error ? { error: store.meta.error } : {}),
    };
    if (status === 'failed') l.error(fields, 'run ended');
    else l.info(fields, 'run ended');
  });
}
