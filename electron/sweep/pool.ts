/**
 * A sweep on one machine: a pool of workers, each with its own private display, taking the
 * sweep's jobs one at a time. Finished jobs (their outcome and run in the out folder) are not
 * run again, so a sweep that was stopped or killed resumes where it was; a failed attempt is
 * retried (by whichever worker is free) up to the sweep's `retries`, then the job is marked
 * failed with its error. With a cost budget, each job is handed a share of what is left as its
 * run's own cap (budget-share.ts); no new job starts once it is spent or a job stopped at its share.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { tryLock } from '../util/file-lock.ts';
import { CodedError } from '../domain.ts';
import { groupAlive, startPrivateDisplay, type PrivateDisplay } from './display.ts';
import { emptyOutcome, runJobAttempt, type JobOutcome } from './job-run.ts';
import type { Sweep, SweepJob } from './spec.ts';
import { DirStorage } from './storage.ts';
import { ModelGate } from './model-gate.ts';
import { LocalRateLimiter } from './rate-limit.ts';
import { jobEndEvent, Progress, type SweepEvent, type SweepSummary } from './progress.ts';
import { BudgetShares } from './budget-share.ts';

export interface LocalSweepOptions {
  sweep: Sweep;
  out: string;
  workers: number;
  budgetUsd?: number;
  signal?: AbortSignal;
  onEvent?: (e: SweepEvent) => void;
  /** Extra environment for each run (API key, config folder). */
  env?: NodeJS.ProcessEnv;
  displaySize?: string;
}

/**
 * Refuses a second sweep on the same out folder while the first one lives: `<out>/.sweep/lock.json`,
 * created exclusively and holding its owner (pid + start time + host). A dead owner's lock (a
 * sweep SIGKILLed, a machine rebooted) is taken over.
 */
export function takeSweepLock(dir: string): () => void {
  const r = tryLock(path.join(dir, 'lock.json'));
  if ('release' in r) return () => r.release();
  const who = r.held ? `pid ${r.held.pid} on ${r.held.host}` : 'another process';
  throw new CodedError(
    'bad-input',
    `another sweep (${who}) is running in ${path.dirname(dir)}; wait for it or stop it`,
  );
}

export async function runLocalSweep(opts: LocalSweepOptions): Promise<SweepSummary> {
  const { sweep } = opts;
  const storage = new DirStorage(opts.out);
  const work = path.join(storage.where, '.sweep');
  mkdirSync(work, { recursive: true });
  const unlock = takeSweepLock(work);
  const emit = (e: SweepEvent) => opts.onEvent?.(e);
  try {
    storage.reconcile();
    const gate = sweep.spec.rate_limits ? new ModelGate(new LocalRateLimiter()) : undefined;
    await gate?.start();
    const progress = new Progress(sweep, storage.where, opts.budgetUsd);
    const shares = new BudgetShares(opts.budgetUsd);
    const pending: { job: SweepJob; attempt: number }[] = [];
    for (const job of sweep.jobs) {
      const prior = await storage.finished(job.id);
      if (prior) progress.previouslyDone(prior);
      else pending.push({ job, attempt: 1 });
    }
    emit(progress.startEvent(opts.workers));
    let inFlight = 0;
    let wake: () => void = () => {};
    let changed = new Promise<void>((r) => (wake = r));
    const notify = () => {
      wake();
      changed = new Promise<void>((r) => (wake = r));
    };
    const maxAttempts = sweep.spec.retries + 1;

    const worker = async (n: number) => {
      let display: PrivateDisplay | undefined;
      try {
        while (!opts.signal?.aborted) {
          const next = pending.shift();
          if (!next) {
            if (inFlight === 0) return;
            await Promise.race([changed, aborted(opts.signal)]);
            continue;
          }
          const share = progress.budgetReached() ? 0 : shares.take(progress.costUsd, opts.workers - inFlight);
          if (share === 0) {
            shares.release(share);
            if (inFlight > 0 && !progress.budgetReached()) {
              // Running jobs hold the rest: what they leave unspent comes back when they end.
              pending.unshift(next);
              await Promise.race([changed, aborted(opts.signal)]);
              continue;
            }
            progress.skip(next.job, 'the cost budget was spent before it started');
            emit(jobEndEvent(next.job.id, 'skipped', next.attempt, n, null));
            continue;
          }
          inFlight++;
          try {
            if (!display || !groupAlive(display.pgid)) {
              await display?.close();
              display = await startPrivateDisplay({ ...(opts.displaySize ? { size: opts.displaySize } : {}) });
              emit({ type: 'worker', worker: n, display: display.display, pid: process.pid });
            }
            emit(progress.jobStart(next.job.id, next.attempt, n, display.display));
            const { outcome, runDir, freshDisplay } = await runJobAttempt(next.job, {
              spec: sweep.spec,
              display: display.display,
              stagingDir: path.join(work, 'work'),
              attempt: next.attempt,
              ...(opts.signal ? { signal: opts.signal } : {}),
              ...(opts.env ? { env: opts.env } : {}),
              ...(gate ? { gate, rateLimits: sweep.spec.rate_limits } : {}),
              ...(share !== undefined ? { budgetUsd: share } : {}),
            });
            // A job killed on its display (timed out) may have left keys held there: the next one gets a new display.
            if (freshDisplay) await display.close();
            if (outcome.status === 'completed' && runDir) {
              const stored = await storage.put(runDir, outcome);
              rmSync(path.join(work, 'work', next.job.id), { recursive: true, force: true });
              progress.completed(stored);
              emit(jobEndEvent(next.job.id, 'completed', next.attempt, n, stored));
            } else if (outcome.stopped_by === 'budget') {
              progress.stoppedByBudget(outcome);
              emit(jobEndEvent(next.job.id, 'skipped', next.attempt, n, outcome));
            } else if (opts.signal?.aborted) {
              progress.interrupted(outcome);
              emit(jobEndEvent(next.job.id, 'interrupted', next.attempt, n, outcome));
            } else if (next.attempt < maxAttempts) {
              progress.spent(outcome);
              emit(jobEndEvent(next.job.id, 'retry', next.attempt, n, outcome));
              pending.push({ job: next.job, attempt: next.attempt + 1 });
            } else {
              progress.failed(outcome);
              writeFileAtomic(
                path.join(storage.where, '.jobs', `${next.job.id}.failed.json`),
                JSON.stringify(outcome, null, 2),
              );
              emit(jobEndEvent(next.job.id, 'failed', next.attempt, n, outcome));
            }
          } catch (err) {
            // The worker's own machinery failed (its display would not start): the job goes back.
            const outcome = failedOutcome(next.job, next.attempt, (err as Error).message);
            if (next.attempt < maxAttempts && !opts.signal?.aborted) {
              pending.push({ job: next.job, attempt: next.attempt + 1 });
              emit(jobEndEvent(next.job.id, 'retry', next.attempt, n, outcome));
            } else {
              progress.failed(outcome);
              emit(jobEndEvent(next.job.id, 'failed', next.attempt, n, outcome));
            }
          } finally {
            shares.release(share);
            inFlight--;
            emit(progress.progressEvent(inFlight));
            notify();
          }
        }
      } finally {
        await display?.close();
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, opts.workers) }, (_, i) => worker(i + 1))).finally(() =>
      gate?.close(),
    );
    for (const p of pending) progress.skip(p.job, opts.signal?.aborted ? 'the sweep was stopped' : 'not started');
    const summary = progress.summary(!!opts.signal?.aborted);
    writeFileAtomic(path.join(work, `${sweep.name}.summary.json`), JSON.stringify(summary, null, 2));
    emit({ type: 'end', summary });
    return summary;
  } finally {
    unlock();
  }
}

function failedOutcome(job: SweepJob, attempt: number, error: string): JobOutcome {
  const worker = { host: '', pid: process.pid, display: null };
  return { ...emptyOutcome(job, attempt, new Date().toISOString(), worker), error };
}

function aborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((r) => {
    if (!signal) return;
    if (signal.aborted) r();
    else signal.addEventListener('abort', () => r(), { once: true });
  });
}
