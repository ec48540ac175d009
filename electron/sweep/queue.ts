/**
 * The same jobs across machines, on an existing engine: BullMQ on Redis. The enqueuing sweep
 * adds one queue job per sweep job (its id = the cell's id, so adding again is a no-op);
 * workers on any machine take them and run them exactly as the local pool does
 * (runJobAttempt), store the run folder, then complete the queue job with the outcome. A worker
 * killed mid-job loses its lock; BullMQ hands the job to another worker. Redis going away
 * pauses both sides (ioredis reconnects with backoff); a job whose run already sits complete in
 * storage is never run again, so nothing is lost or counted twice.
 */
import { TITLE_TUTORIAL } from '../store/tutorials.ts';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { groupAlive, startPrivateDisplay, type PrivateDisplay } from './display.ts';
import { emptyOutcome, parseOutcome, runJobAttempt, stagedCompletedRun, type JobOutcome } from './job-run.ts';
import {
  cellUsesModel,
  RunSettingsSchema,
  SweepJobSchema,
  type RunSettings,
  type Sweep,
  type SweepJob,
} from './spec.ts';
import type { RunStorage } from './storage.ts';
import { ModelGate } from './model-gate.ts';
import { RedisRateLimiter, type ProviderLimits } from './rate-limit.ts';
import { jobEndEvent, Progress, type SweepEvent, type SweepSummary } from './progress.ts';
import { allowedEndpoint, EndpointRefused, envEndpoint } from '../util/endpoint.ts';

export interface QueueJobData {
  job: SweepJob;
  settings: RunSettings;
  rateLimits?: Record<string, ProviderLimits>;
  budgetUsd?: number;
}

/** What the sweep has spent so far, summed by the workers in Redis. */
export function costKey(sweep: string): string {
  return `gamepilot:sweep:${sweep}:cost_usd`;
}

/** The budget shares running jobs hold (budget-share.ts), and the mark that a job stopped at its share. */
const heldKey = (sweep: string) => `gamepilot:sweep:${sweep}:budget_held_usd`;
const budgetStoppedKey = (sweep: string) => `gamepilot:sweep:${sweep}:budget_stopped`;

/**
 * Takes a job's share of what is left, atomically across workers: the budget less what was spent
 * and what running jobs hold, split among this worker's idle displays (ARGV[2]), to a millionth
 * of a dollar; nothing once a job stopped at its share. Returns [share, held before].
 */
const TAKE_SHARE = `
if redis.call('EXISTS', KEYS[3]) == 1 then return {'0', '0'} end
local held = tonumber(redis.call('GET', KEYS[2]) or '0')
local left = tonumber(ARGV[1]) - tonumber(redis.call('GET', KEYS[1]) or '0') - held
if left <= 0 then return {'0', tostring(held)} end
local share = math.floor(left / tonumber(ARGV[2]) * 1e6) / 1e6
if share > 0 then redis.call('INCRBYFLOAT', KEYS[2], share) end
return {tostring(share), tostring(held)}
`;

/** A connection that waits out Redis restarts: backoff 0.2 s … 5 s, commands held meanwhile. */
export function connect(url: string, onState?: (s: 'down' | 'up', detail?: string) => void): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (n) => Math.min(200 * 2 ** Math.min(n, 5), 5000),
  });
  let down = false;
  redis.on('error', (err) => {
    if (!down) onState?.('down', err.message);
    down = true;
  });
  redis.on('ready', () => {
    if (down) onState?.('up');
    down = false;
  });
  return redis;
}

function settingsOf(sweep: Sweep): RunSettings {
  const { base_url, price_in, price_out, max_tokens, history, game_text, tutorial, job_timeout_s, preflight } =
    sweep.spec;
  return { base_url, price_in, price_out, max_tokens, history, game_text, tutorial, job_timeout_s, preflight };
}

/** Adds the sweep's jobs (existing ids are left alone; failed ones get another round). */
export async function enqueue(
  queue: Queue,
  sweep: Sweep,
  budgetUsd?: number,
): Promise<{ added: number; present: number; retried: number }> {
  let added = 0;
  let retried = 0;
  for (const job of sweep.jobs) {
    const existing = await queue.getJob(job.id);
    if (existing) {
      if ((await existing.getState()) === 'failed') {
        await existing.retry('failed');
        retried++;
      }
      continue;
    }
    const data: QueueJobData = {
      job,
      settings: settingsOf(sweep),
      ...(sweep.spec.rate_limits ? { rateLimits: sweep.spec.rate_limits } : {}),
      ...(budgetUsd !== undefined ? { budgetUsd } : {}),
    };
    await queue.add(sweep.name, data, {
      jobId: job.id,
      attempts: sweep.spec.retries + 1,
      backoff: { type: 'fixed', delay: 1000 },
      removeOnComplete: false,
      removeOnFail: false,
    });
    added++;
  }
  return { added, present: sweep.jobs.length - added - retried, retried };
}

/**
 * Follows the sweep's jobs in the queue until each is completed or failed: progress events as
 * they settle, each job counted once (by its id), paused while Redis is away.
 */
export async function follow(
  queue: Queue,
  sweep: Sweep,
  out: string,
  emit: (e: SweepEvent) => void,
  signal?: AbortSignal,
  pollMs = 500,
): Promise<SweepSummary> {
  const progress = new Progress(sweep, out, undefined);
  const open = new Set(sweep.jobs.map((j) => j.id));
  const unreadable = new Map<string, number>();
  emit(progress.startEvent(0));
  while (open.size && !signal?.aborted) {
    let running = 0;
    let changed = false;
    for (const id of [...open]) {
      let job: Job | undefined;
      let state: string;
      try {
        job = await queue.getJob(id);
        if (!job) continue;
        state = await job.getState();
      } catch {
        break; // a command cut off by Redis going away: look again on the next round, once it is back
      }
      if (state === 'active') running++;
      if (state === 'completed') {
        const read = parseOutcome(job.returnvalue);
        if ('problem' in read) {
          // Redis restarted between the state and the value, or something else wrote the job: look
          // again a few rounds, then count it failed with the reason.
          const n = (unreadable.get(id) ?? 0) + 1;
          unreadable.set(id, n);
          if (n < UNREADABLE_ROUNDS) continue;
          const o = { ...failed(job, sweep), error: `completed in the queue with ${read.problem}` };
          progress.failed(o);
          emit(jobEndEvent(id, 'failed', o.attempt, 0, o));
        } else {
          progress.completed(read.outcome);
          emit(jobEndEvent(id, 'completed', read.outcome.attempt, 0, read.outcome));
        }
      } else if (state === 'failed') {
        const o = failed(job, sweep);
        progress.failed(o);
        emit(jobEndEvent(id, 'failed', o.attempt, 0, o));
      } else continue;
      open.delete(id);
      changed = true;
    }
    if (changed) emit(progress.progressEvent(running));
    if (open.size) await new Promise((r) => setTimeout(r, pollMs));
  }
  const summary = progress.summary(!!signal?.aborted);
  emit({ type: 'end', summary });
  return summary;
}

/** Rounds a completed job's result may be unreadable before it counts as failed. */
const UNREADABLE_ROUNDS = 5;

function failed(job: Job, sweep: Sweep): JobOutcome {
  const worker = { host: '', pid: 0, display: null };
  const ids = { id: job.id!, sweep: sweep.name };
  return { ...emptyOutcome(ids, job.attemptsMade, new Date().toISOString(), worker), error: job.failedReason };
}

const QueueJobDataSchema = z.strictObject({
  job: SweepJobSchema,
  settings: RunSettingsSchema,
  rateLimits: z
    .record(
      z.string(),
      z.strictObject({ rpm: z.number().positive().optional(), tpm: z.number().positive().optional() }),
    )
    .optional(),
  budgetUsd: z.number().nonnegative().optional(),
});

/** Job data from Redis, checked before it becomes a command line; a bad job fails at once, never retried. */
export function checkJobData(data: unknown): QueueJobData {
  const r = QueueJobDataSchema.safeParse(data);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new UnrecoverableError(`the queue job is not a sweep job: ${i.path.join('.')}: ${i.message}`);
  }
  return r.data as QueueJobData;
}

/**
 * Why a queued job may not run on this worker, if so. Job data comes from whoever can write to
 * Redis: it names no file here (a tutorial other than "solver" or "title", the title's declared
 * tutorial in the worker's own runs folder), and it sends the worker's key
 * only to the worker's own endpoint (OPENAI_BASE_URL) or one the worker allowed.
 */
export function jobRefusal(job: SweepJob, settings: RunSettings, allowed: readonly string[]): string | undefined {
  if (settings.tutorial !== undefined && settings.tutorial !== 'solver' && settings.tutorial !== TITLE_TUTORIAL)
    return `the job names a file on this worker (tutorial "${settings.tutorial}"): queued jobs take only "solver" or "title"; nothing was run`;
  if (!cellUsesModel(job.cell)) return undefined;
  try {
    allowedEndpoint(
      settings.base_url,
      envEndpoint(),
      allowed,
      `queue job ${job.id}: settings.base_url`,
      'start the worker with --allow-endpoint for it to be used',
    );
  } catch (err) {
    if (err instanceof EndpointRefused) return err.message;
    throw err;
  }
  return undefined;
}

/** Timing before anything is stored (storage.ts storedTiming fills these in). */
const ZERO_MOVED = { store_s: 0, files: 0, bytes: 0 };

/** The worker process's resident memory (MB), reported with each job so its growth can be watched. */
function rssMb(): number {
  return Math.round(process.memoryUsage.rss() / 1e5) / 10;
}

export interface QueueWorkerOptions {
  url: string;
  queueName: string;
  displays: number;
  /** Local folder for runs in progress. */
  out: string;
  storage: RunStorage;
  maxJobs?: number;
  signal?: AbortSignal;
  emit: (e: SweepEvent | { type: 'redis'; state: 'down' | 'up'; detail?: string }) => void;
  /** Lock held on a running job; a worker silent this long (killed) loses the job to another. */
  lockMs?: number;
  displaySize?: string;
  /** Endpoints besides OPENAI_BASE_URL's that a job's base_url may name (--allow-endpoint). */
  allowEndpoints?: readonly string[];
}

/** Runs jobs from the queue until stopped (or --max-jobs); returns how many it finished. */
export async function runWorker(opts: QueueWorkerOptions): Promise<number> {
  const displays: PrivateDisplay[] = [];
  for (let i = 0; i < opts.displays; i++) {
    const d = await startPrivateDisplay({ ...(opts.displaySize ? { size: opts.displaySize } : {}) });
    displays.push(d);
    opts.emit({ type: 'worker', worker: i + 1, display: d.display, pid: process.pid });
  }
  const free = displays.map((d, i) => ({ d, n: i + 1 }));
  const connection = connect(opts.url, (state, detail) =>
    opts.emit({ type: 'redis', state, ...(detail ? { detail } : {}) }),
  );
  const stop = new AbortController();
  opts.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  let taken = 0;
  let finished = 0;
  const staging = path.join(path.resolve(opts.out), '.sweep', 'work');

  const gate = new ModelGate(new RedisRateLimiter(connection));
  await gate.start();

  // Every job taken counts towards --max-jobs, a refused one too, or the worker would wait forever.
  const processor = async (job: Job<QueueJobData>, token?: string): Promise<JobOutcome> => {
    try {
      return await handle(job, token);
    } finally {
      finished++;
      if (opts.maxJobs !== undefined && finished >= opts.maxJobs) stop.abort();
    }
  };
  const handle = async (job: Job<QueueJobData>, token?: string): Promise<JobOutcome> => {
    const { job: sweepJob, settings, rateLimits, budgetUsd } = checkJobData(job.data);
    const refusal = jobRefusal(sweepJob, settings, opts.allowEndpoints ?? []);
    if (refusal) {
      opts.emit({ ...jobEndEvent(sweepJob.id, 'failed', job.attemptsStarted || 1, 0, null), error: refusal });
      throw new UnrecoverableError(refusal);
    }
    const slot = free.pop()!;
    const attempt = job.attemptsStarted || 1;
    let share: number | undefined;
    /**
     * Stopped while waiting on storage (a bucket that was away): the job goes back to the queue
     * without using up an attempt; a played run stays staged, stored when this worker takes it again.
     */
    const backIfStopped = async (err: unknown): Promise<never> => {
      if (!stop.signal.aborted) throw err;
      await job.moveToDelayed(Date.now(), token);
      throw new DelayedError();
    };
    /** Stores a completed run before the queue job completes. */
    const store = async (outcome: JobOutcome, runDir: string): Promise<JobOutcome> => {
      const stored = await opts.storage.put(runDir, outcome).catch(backIfStopped);
      rmSync(path.join(staging, sweepJob.id), { recursive: true, force: true });
      opts.emit({ ...jobEndEvent(sweepJob.id, 'completed', attempt, slot.n, stored), rss_mb: rssMb() });
      return stored;
    };
    try {
      if (!groupAlive(slot.d.pgid)) {
        // Its Xvfb died (it happens): a fresh display before the next job.
        await slot.d.close();
        slot.d = await startPrivateDisplay({ ...(opts.displaySize ? { size: opts.displaySize } : {}) });
        opts.emit({ type: 'worker', worker: slot.n, display: slot.d.display, pid: process.pid });
      }
      const prior = await opts.storage.finished(sweepJob.id).catch(backIfStopped);
      if (prior) {
        opts.emit({ ...jobEndEvent(sweepJob.id, 'completed', attempt, slot.n, prior), rss_mb: rssMb() });
        return prior; // a retried job whose run is already stored is not run again
      }
      // Played here before, its store cut short by a stop: stored now, not played again (its cost is counted).
      const staged = stagedCompletedRun(staging, sweepJob);
      if (staged?.runDir) {
        const timing = { queued_s: (Date.now() - job.timestamp) / 1000, ...ZERO_MOVED };
        return await store({ ...staged.outcome, timing }, staged.runDir);
      }
      if (budgetUsd !== undefined) {
        const [taken, held] = (await connection.eval(
          TAKE_SHARE,
          3,
          costKey(sweepJob.sweep),
          heldKey(sweepJob.sweep),
          budgetStoppedKey(sweepJob.sweep),
          budgetUsd,
          free.length + 1,
        )) as [string, string];
        share = Number(taken);
        if (!(share > 0)) {
          share = undefined;
          if (Number(held) > 0) {
            // Running jobs hold the rest: what they leave unspent comes back when they end.
            await job.moveToDelayed(Date.now() + 5000, token);
            throw new DelayedError();
          }
          throw new UnrecoverableError(`the sweep's budget of $${budgetUsd} is spent; not started`);
        }
      }
      opts.emit({ type: 'job-start', job: sweepJob.id, attempt, worker: slot.n, display: slot.d.display });
      const startedMs = Date.now();
      const {
        outcome: played,
        runDir,
        freshDisplay,
      } = await runJobAttempt(sweepJob, {
        spec: settings,
        display: slot.d.display,
        stagingDir: staging,
        attempt,
        signal: stop.signal,
        gate,
        rateLimits,
        ...(share !== undefined ? { budgetUsd: share } : {}),
      });
      // job.timestamp is the enqueuing machine's clock, startedMs this one's: across hosts they may differ.
      const outcome: JobOutcome = {
        ...played,
        timing: { queued_s: (startedMs - job.timestamp) / 1000, run_s: (Date.now() - startedMs) / 1000, ...ZERO_MOVED },
      };
      // A job killed on its display (timed out) may have left keys held there: the next one gets a new display.
      if (freshDisplay) await slot.d.close();
      if (outcome.cost_usd) await connection.incrbyfloat(costKey(sweepJob.sweep), outcome.cost_usd);
      if (outcome.stopped_by === 'budget') {
        await connection.set(budgetStoppedKey(sweepJob.sweep), '1');
        opts.emit(jobEndEvent(sweepJob.id, 'skipped', attempt, slot.n, outcome));
        throw new UnrecoverableError(outcome.error ?? 'stopped by the budget');
      }
      if (outcome.status === 'completed' && runDir) return await store(outcome, runDir);
      if (stop.signal.aborted) {
        // This worker is shutting down: the job goes back to the queue without using up an attempt.
        await job.moveToDelayed(Date.now(), token);
        throw new DelayedError();
      }
      const status = attempt < (job.opts.attempts ?? 1) ? 'retry' : 'failed';
      opts.emit(jobEndEvent(sweepJob.id, status, attempt, slot.n, { ...outcome, mean: null }));
      throw new Error(outcome.error ?? 'the run failed');
    } finally {
      if (share !== undefined) await connection.incrbyfloat(heldKey(sweepJob.sweep), -share);
      free.push(slot);
    }
  };

  const worker = new Worker<QueueJobData, JobOutcome>(opts.queueName, processor, {
    connection,
    concurrency: opts.displays,
    lockDuration: opts.lockMs ?? 15_000,
    stalledInterval: Math.max(1000, Math.floor((opts.lockMs ?? 15_000) / 3)),
    maxStalledCount: 3,
    autorun: false,
  });
  worker.on('active', () => {
    taken++;
    if (opts.maxJobs !== undefined && taken >= opts.maxJobs) void worker.pause(true);
  });
  worker.on('error', () => {}); // connection errors: reported through `connect`, retried by ioredis
  const done = worker.run();
  await new Promise<void>((r) =>
    stop.signal.aborted ? r() : stop.signal.addEventListener('abort', () => r(), { once: true }),
  );
  // Stopping must end: each step has a time limit, past which it is forced and the worker says
  // which step it was (a worker SIGINTed at the end of a chaos run once stayed up for minutes).
  await bounded('closing the worker', worker.close(), () => worker.close(true));
  await bounded('the job loop', done, () => {});
  await bounded('quitting Redis', connection.quit(), () => connection.disconnect());
  await bounded('closing the model gate', gate.close(), () => {});
  for (const slot of free) await slot.d.close();
  return finished;
}

/** How long one step of a worker's stop may take before it is forced. */
const STOP_STEP_MS = 15_000;

/** Waits for `step` at most STOP_STEP_MS, then says so on stderr and runs `force`. */
async function bounded(what: string, step: Promise<unknown>, force: () => unknown): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => {
    timer = setTimeout(() => r('late'), STOP_STEP_MS);
  });
  const outcome = await Promise.race([
    step.then(
      () => 'done' as const,
      () => 'done' as const,
    ),
    late,
  ]);
  clearTimeout(timer);
  if (outcome === 'done') return;
  process.stderr.write(`worker: ${what} took over ${STOP_STEP_MS / 1000} s while stopping: forced\n`);
  void Promise.resolve(force()).catch(() => {}); // not waited for: the stop goes on
}

export function openQueue(url: string, name: string, onState?: (s: 'down' | 'up', detail?: string) => void): Queue {
  const queue = new Queue(name, { connection: connect(url, onState) });
  queue.on('error', () => {}); // connection errors: reported through `connect`, retried by ioredis
  return queue;
}
