/** `gamepilot sweep` and `gamepilot worker`: a matrix of runs, locally or through a Redis queue. */
import { loadSweepFile } from '../sweep/spec.ts';
import { runLocalSweep } from '../sweep/pool.ts';
import { formatEvent, type SweepEvent, type SweepSummary } from '../sweep/progress.ts';
import { io } from './io.ts';
import { UsageError } from './options.ts';
import type { SweepFlags, WorkerFlags } from './program.ts';

function printer(json: boolean | undefined) {
  return (e: SweepEvent) => {
    if (json) io.out(JSON.stringify(e));
    else {
      const line = formatEvent(e);
      if (line) io.progress(line);
    }
  };
}

/** Ctrl+C / SIGTERM stop the sweep: running jobs stop (their runs end `stopped`), nothing new starts. */
function stopOnSignal(): { signal: AbortSignal; dispose: () => void } {
  const ctl = new AbortController();
  const onSignal = () => {
    if (!ctl.signal.aborted) io.log('stopping the sweep: running jobs stop, finished ones are kept');
    ctl.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: ctl.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

function exitCode(s: SweepSummary): number {
  return s.stopped || s.failed > 0 || s.completed < s.total ? 1 : 0;
}

export async function sweepCommand(file: string, o: SweepFlags): Promise<number> {
  if (o.wait && !o.queue) throw new UsageError('--wait needs --queue');
  const sweep = loadSweepFile(file);
  const budgetUsd = o.budgetUsd ?? sweep.spec.budget_usd;
  if (o.queue) {
    const { enqueueSweep } = await import('./queue-command.ts');
    return enqueueSweep(sweep, o, printer(o.json));
  }
  const { signal, dispose } = stopOnSignal();
  try {
    const summary = await runLocalSweep({
      sweep,
      out: o.out,
      workers: o.workers,
      ...(budgetUsd !== undefined ? { budgetUsd } : {}),
      signal,
      onEvent: printer(o.json),
    });
    return exitCode(summary);
  } finally {
    dispose();
  }
}

export async function workerCommand(o: WorkerFlags): Promise<number> {
  const { runQueueWorker } = await import('./queue-command.ts');
  return runQueueWorker(o, printer(o.json));
}
