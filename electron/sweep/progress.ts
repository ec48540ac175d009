/**
 * A sweep's progress: jobs done of total, failures, cost so far, ETA. The same events go to
 * the terminal (one line each) and, with --json, out as JSON lines; the last is the summary.
 */
import type { JobOutcome, JobTiming } from './job-run.ts';
import type { Sweep, SweepJob } from './spec.ts';

export type JobEventStatus = 'completed' | 'retry' | 'failed' | 'skipped' | 'interrupted';

export type SweepEvent =
  | { type: 'start'; sweep: string; out: string; total: number; done: number; workers: number; cost_usd: number }
  | { type: 'worker'; worker: number; display: string; pid: number }
  | { type: 'job-start'; job: string; attempt: number; worker: number; display: string }
  | {
      type: 'job-end';
      job: string;
      status: JobEventStatus;
      attempt: number;
      worker: number;
      run_id: string | null;
      mean: number | null;
      cost_usd: number | null;
      error?: string;
      /** Queue workers: the worker process's resident memory after the job (MB). */
      rss_mb?: number;
      /** Time outside play and what storing the run moved. */
      timing?: JobTiming;
    }
  | ProgressEvent
  | { type: 'end'; summary: SweepSummary };

export type JobEndEvent = Extract<SweepEvent, { type: 'job-end' }>;

/** A job's end as an event: its run, mean and cost from the outcome (none when it has none). */
export function jobEndEvent(
  job: string,
  status: JobEventStatus,
  attempt: number,
  worker: number,
  o: JobOutcome | null,
): JobEndEvent {
  return {
    type: 'job-end',
    job,
    status,
    attempt,
    worker,
    run_id: o?.run_id ?? null,
    mean: o?.mean ?? null,
    cost_usd: o?.cost_usd ?? null,
    ...(o?.error ? { error: o.error } : {}),
    ...(o?.timing && status === 'completed' ? { timing: o.timing } : {}),
  };
}

export interface ProgressEvent {
  type: 'progress';
  done: number;
  total: number;
  failed: number;
  running: number;
  cost_usd: number;
  /** The sweep's budget, if it has one. */
  budget_usd: number | null;
  elapsed_s: number;
  eta_s: number | null;
}

export interface SweepSummary {
  sweep: string;
  out: string;
  total: number;
  completed: number;
  failed: number;
  skipped: number;
  /** Done in earlier sessions of this sweep (not rerun). */
  resumed: number;
  cost_usd: number;
  budget_usd: number | null;
  budget_reached: boolean;
  stopped: boolean;
  wall_s: number;
  /** Over the completed jobs that recorded it (outsidePlay). */
  outside_play: OutsidePlay | null;
  jobs: {
    id: string;
    status: 'completed' | 'failed' | 'skipped';
    run_id: string | null;
    mean: number | null;
    error?: string;
    timing?: JobTiming;
  }[];
}

/** Median and largest of a set of seconds. */
export interface Spread {
  median: number;
  max: number;
}

/**
 * A sweep's time outside play: per job, enqueued → started (queued sweeps) and run ended →
 * stored; what went to storage, and its throughput (bytes over the uploads' own time).
 */
export interface OutsidePlay {
  jobs: number;
  queued_s: Spread | null;
  store_s: Spread;
  bytes: number;
  files: number;
  upload_s: number | null;
  upload_mb_s: number | null;
  retries: number;
}

/** Bytes over seconds, in MB/s to a hundredth. */
export function megabytesPerSecond(bytes: number, seconds: number): number {
  return Math.round((bytes / 1e6 / seconds) * 100) / 100;
}

function spread(xs: number[]): Spread | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median: Math.round(median * 1000) / 1000, max: s.at(-1)! };
}

export function outsidePlay(timings: JobTiming[]): OutsidePlay | null {
  if (!timings.length) return null;
  const sum = (f: (t: JobTiming) => number | undefined) => timings.reduce((a, t) => a + (f(t) ?? 0), 0);
  const uploads = timings.filter((t) => t.upload_s !== undefined);
  const uploadS = uploads.reduce((a, t) => a + t.upload_s!, 0);
  const uploadBytes = uploads.reduce((a, t) => a + t.bytes, 0);
  return {
    jobs: timings.length,
    queued_s: spread(timings.flatMap((t) => (t.queued_s !== undefined ? [t.queued_s] : []))),
    store_s: spread(timings.map((t) => t.store_s))!,
    bytes: sum((t) => t.bytes),
    files: sum((t) => t.files),
    upload_s: uploads.length ? Math.round(uploadS * 1000) / 1000 : null,
    upload_mb_s: uploads.length && uploadS > 0 ? megabytesPerSecond(uploadBytes, uploadS) : null,
    retries: sum((t) => t.retries),
  };
}

export class Progress {
  private readonly started = Date.now();
  private readonly jobs = new Map<string, SweepSummary['jobs'][number]>();
  private resumed = 0;
  private doneNow = 0;
  private failedCount = 0;
  private cost = 0;
  /** A job stopped at its share of the budget: no new job starts. */
  private budgetStopped = false;

  constructor(
    private readonly sweep: Sweep,
    private readonly out: string,
    private readonly budgetUsd: number | undefined,
  ) {}

  get total() {
    return this.sweep.jobs.length;
  }
  get done() {
    return this.resumed + this.doneNow;
  }
  get costUsd() {
    return this.cost;
  }

  previouslyDone(o: JobOutcome) {
    this.resumed++;
    this.cost += o.cost_usd ?? 0;
    this.jobs.set(o.job_id, { id: o.job_id, status: 'completed', run_id: o.run_id, mean: o.mean });
  }
  completed(o: JobOutcome) {
    this.doneNow++;
    this.cost += o.cost_usd ?? 0;
    this.jobs.set(o.job_id, {
      id: o.job_id,
      status: 'completed',
      run_id: o.run_id,
      mean: o.mean,
      ...(o.timing ? { timing: o.timing } : {}),
    });
  }
  /** A failed attempt that will be retried: its spending still counts. */
  spent(o: JobOutcome) {
    this.cost += o.cost_usd ?? 0;
  }
  interrupted(o: JobOutcome) {
    this.cost += o.cost_usd ?? 0;
    this.jobs.set(o.job_id, {
      id: o.job_id,
      status: 'skipped',
      run_id: null,
      mean: null,
      error: 'stopped while running',
    });
  }
  failed(o: JobOutcome) {
    this.failedCount++;
    this.cost += o.cost_usd ?? 0;
    this.jobs.set(o.job_id, {
      id: o.job_id,
      status: 'failed',
      run_id: o.run_id,
      mean: null,
      ...(o.error ? { error: o.error } : {}),
    });
  }
  /** A job that stopped at its share of the budget (not retried): its spending counts, and no new job starts. */
  stoppedByBudget(o: JobOutcome) {
    this.budgetStopped = true;
    this.cost += o.cost_usd ?? 0;
    this.jobs.set(o.job_id, {
      id: o.job_id,
      status: 'skipped',
      run_id: o.run_id,
      mean: null,
      error: o.error ?? 'stopped by the budget',
    });
  }
  skip(job: SweepJob, why: string) {
    if (!this.jobs.has(job.id))
      this.jobs.set(job.id, { id: job.id, status: 'skipped', run_id: null, mean: null, error: why });
  }
  budgetReached(): boolean {
    return this.budgetStopped || (this.budgetUsd !== undefined && this.cost >= this.budgetUsd);
  }

  startEvent(workers: number): SweepEvent {
    return {
      type: 'start',
      sweep: this.sweep.name,
      out: this.out,
      total: this.total,
      done: this.done,
      workers,
      cost_usd: round(this.cost),
    };
  }
  jobStart(job: string, attempt: number, worker: number, display: string): SweepEvent {
    return { type: 'job-start', job, attempt, worker, display };
  }
  progressEvent(running: number): ProgressEvent {
    const elapsed = (Date.now() - this.started) / 1000;
    const left = this.total - this.done - this.failedCount;
    return {
      type: 'progress',
      done: this.done,
      total: this.total,
      failed: this.failedCount,
      running,
      cost_usd: round(this.cost),
      budget_usd: this.budgetUsd ?? null,
      elapsed_s: Math.round(elapsed),
      // Throughput of this session (parallel workers included) over what is left.
      eta_s:
        this.doneNow + this.failedCount > 0 ? Math.round((elapsed / (this.doneNow + this.failedCount)) * left) : null,
    };
  }
  summary(stopped: boolean): SweepSummary {
    const jobs = this.sweep.jobs.map(
      (j) =>
        this.jobs.get(j.id) ?? { id: j.id, status: 'skipped' as const, run_id: null, mean: null, error: 'not started' },
    );
    return {
      sweep: this.sweep.name,
      out: this.out,
      total: this.total,
      completed: this.done,
      failed: this.failedCount,
      skipped: jobs.filter((j) => j.status === 'skipped').length,
      resumed: this.resumed,
      cost_usd: round(this.cost),
      budget_usd: this.budgetUsd ?? null,
      budget_reached: this.budgetReached(),
      stopped,
      wall_s: Math.round((Date.now() - this.started) / 100) / 10,
      outside_play: outsidePlay(jobs.flatMap((j) => (j.timing ? [j.timing] : []))),
      jobs,
    };
  }
}

function round(usd: number) {
  return Math.round(usd * 1e6) / 1e6;
}

function duration(s: number | null): string {
  if (s === null) return '?';
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** One terminal line for an event (none for the ones that only matter as JSON). */
export function formatEvent(e: SweepEvent): string | undefined {
  switch (e.type) {
    case 'start':
      return `sweep ${e.sweep}: ${e.total} jobs (${e.done} done before), ${e.workers} worker(s), runs in ${e.out}`;
    case 'worker':
      return `worker ${e.worker}: display ${e.display}`;
    case 'job-start':
      return undefined;
    case 'job-end':
      return `  ${e.status.padEnd(11)} ${e.job} (attempt ${e.attempt}, worker ${e.worker})${e.mean !== null ? `  mean ${e.mean}` : ''}${e.timing ? `  ${formatTiming(e.timing)}` : ''}${e.error ? `  — ${e.error}` : ''}`;
    case 'progress':
      return `[${e.done}/${e.total}] failed ${e.failed}, running ${e.running}, cost $${e.cost_usd.toFixed(4)}${e.budget_usd !== null ? ` of $${e.budget_usd}` : ''}, elapsed ${duration(e.elapsed_s)}, ETA ${duration(e.eta_s)}`;
    case 'end': {
      const s = e.summary;
      const line = `sweep ${s.sweep} ${s.stopped ? 'stopped' : 'done'}: ${s.completed}/${s.total} completed (${s.resumed} from before), ${s.failed} failed, ${s.skipped} not run${s.budget_reached ? ' (budget reached)' : ''}; cost $${s.cost_usd.toFixed(4)}${s.budget_usd !== null ? ` of $${s.budget_usd}` : ''}; ${s.wall_s} s`;
      return s.outside_play ? `${line}\n${formatOutsidePlay(s.outside_play)}` : line;
    }
  }
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 1e6 ? 2 : 1)} MB`;

/** `queued 1.2 s, stored 3.4 MB in 0.5 s (2 retries)` */
function formatTiming(t: JobTiming): string {
  const queued = t.queued_s !== undefined ? `queued ${t.queued_s.toFixed(1)} s, ` : '';
  return `${queued}stored ${mb(t.bytes)} in ${t.store_s.toFixed(1)} s${t.retries ? ` (${t.retries} retried)` : ''}`;
}

function formatOutsidePlay(o: OutsidePlay): string {
  const queued = o.queued_s ? `queued median ${o.queued_s.median} s (max ${o.queued_s.max} s), ` : '';
  const upload =
    o.upload_mb_s !== null
      ? `; uploads ${o.upload_s} s, ${o.upload_mb_s} MB/s${o.retries ? `, ${o.retries} request(s) retried` : ''}`
      : '';
  return `time outside play, ${o.jobs} job(s): ${queued}storing median ${o.store_s.median} s (max ${o.store_s.max} s); stored ${mb(o.bytes)} in ${o.files} files${upload}`;
}
