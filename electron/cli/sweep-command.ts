/** `gamepilot sweep` and `gamepilot worker`: a matrix of runs, locally or through a Redis queue. */
import { cellUsesModel, loadSweepFile, type Sweep } from '../sweep/spec.ts';
import { loadCatalog } from '../profiles/registry.ts';
import { defaultConfigDir } from '../util/paths.ts';
import { allowedEndpoint, EndpointRefused, envEndpoint } from '../util/endpoint.ts';
import { runLocalSweep } from '../sweep/pool.ts';
import { formatEvent, type SweepEvent, type SweepSummary } from '../sweep/progress.ts';
import { io } from './io.ts';
import { stopOnSignal } from './stop-signal.ts';
import { UsageError } from './options.ts';
import type { SweepFlags, WorkerFlags } from './command-flags.ts';

function printer(json: boolean | undefined) {
  return (e: SweepEvent) => {
    if (json) io.out(JSON.stringify(e));
    else {
      const line = formatEvent(e);
      if (line) io.progress(line);
    }
  };
}

function exitCode(s: SweepSummary): number {
  return s.stopped || s.failed > 0 || s.completed < s.total ? 1 : 0;
}

/**
 * The endpoint this machine's key goes to for the sweep's model jobs: the file's base_url only
 * when it is OPENAI_BASE_URL's or given with --allow-endpoint (a file must not collect keys).
 */
function localEndpoint(sweep: Sweep, o: SweepFlags): string {
  try {
    return allowedEndpoint(
      sweep.spec.base_url,
      envEndpoint(),
      o.allowEndpoint ?? [],
      `${sweep.file}: base_url`,
      `run with --allow-endpoint ${sweep.spec.base_url} to send it there`,
    );
  } catch (err) {
    if (err instanceof EndpointRefused) throw new UsageError(err.message);
    throw err;
  }
}

export async function sweepCommand(file: string, o: SweepFlags): Promise<number> {
  if (o.wait && !o.queue) throw new UsageError('--wait needs --queue');
  // The user's own profiles count, as they do for `run`: their ids are games of the sweep.
  const sweep = loadSweepFile(file, loadCatalog({ configDir: defaultConfigDir() }), o.jobLimit);
  const budgetUsd = o.budgetUsd ?? sweep.spec.budget_usd;
  if (o.dryRun) return dryRun(sweep, o.json);
  if (o.queue) {
    const { enqueueSweep } = await import('./queue-command.ts');
    return enqueueSweep(sweep, o, printer(o.json));
  }
  const models = sweep.jobs.some((j) => cellUsesModel(j.cell));
  const endpoint = models ? localEndpoint(sweep, o) : undefined;
  // Ctrl+C / SIGTERM stop the sweep: running jobs stop (their runs end `stopped`), nothing new starts.
  const { signal, dispose } = stopOnSignal('stopping the sweep: running jobs stop, finished ones are kept');
  try {
    const summary = await runLocalSweep({
      sweep,
      out: o.runsDir,
      workers: o.workers,
      ...(endpoint ? { env: { OPENAI_BASE_URL: endpoint } } : {}),
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

/** What `--dry-run` prints: the file checked and expanded, its jobs counted; nothing is run or queued. */
function dryRun(sweep: Sweep, json?: boolean): number {
  const models = sweep.jobs.filter((j) => cellUsesModel(j.cell)).length;
  if (json) io.out(JSON.stringify({ type: 'dry-run', sweep: sweep.name, jobs: sweep.jobs.length, model_jobs: models }));
  else io.out(`sweep ${sweep.name}: ${sweep.jobs.length} job(s), ${models} of them ask a model; nothing was run`);
  return 0;
}
