/**
 * Where finished runs go: a folder (the local sweep's --out, or a shared path) or an
 * S3-compatible bucket. Layout, the same in both: `<root>/<run id>/…` (the run folder, so
 * `gamepilot report --runs <root>` reads it) and `<root>/.jobs/<job id>.json` (the job's
 * outcome). The outcome is written last, after the whole run folder: a job counts as done only
 * when its run is there, and a retried job whose outcome exists is not run again.
 */
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { scanRuns } from '../store/run-library.ts';
import { parseOutcome, type JobOutcome, type JobTiming } from './job-run.ts';

export interface RunStorage {
  /** Where it is, for messages. */
  readonly where: string;
  /** The outcome of a job finished earlier (completed), or undefined. */
  finished(jobId: string): Promise<JobOutcome | undefined>;
  /** Stores the run folder, then the outcome. Returns the outcome as stored. */
  put(runDir: string, outcome: JobOutcome): Promise<JobOutcome>;
}

const JOBS = '.jobs';

const seconds = (ms: number) => Math.round(ms) / 1000;

/**
 * The outcome's timing (queued_s, run_s set by whoever ran it) with what storing it took, from
 * `startedMs` (the store began, right after the run ended) to now.
 */
export function storedTiming(
  outcome: JobOutcome,
  startedMs: number,
  moved: { files: number; bytes: number; uploadMs?: number; retries?: number },
): JobTiming {
  const { uploadMs, ...rest } = moved;
  return {
    ...outcome.timing,
    store_s: seconds(Date.now() - startedMs),
    ...rest,
    ...(uploadMs !== undefined ? { upload_s: seconds(uploadMs) } : {}),
  };
}

/** Files and bytes of a run folder (what storing it moves). */
export function folderSize(runDir: string): { files: number; bytes: number } {
  const files = runFiles(runDir);
  return { files: files.length, bytes: files.reduce((a, f) => a + statSync(path.join(runDir, f)).size, 0) };
}

/** A job id as it may appear in a key or file name (ids come from spec.ts; this guards hand-made ones). */
function safeId(id: string): string {
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(id) || id.startsWith('.')) throw new Error(`bad job id "${id}"`);
  return id;
}

export class DirStorage implements RunStorage {
  readonly where: string;
  constructor(readonly root: string) {
    this.where = path.resolve(root);
    mkdirSync(path.join(this.where, JOBS), { recursive: true });
  }

  async finished(jobId: string): Promise<JobOutcome | undefined> {
    const file = path.join(this.where, JOBS, `${safeId(jobId)}.json`);
    if (!existsSync(file)) return undefined;
    try {
      const parsed = parseOutcome(JSON.parse(readFileSync(file, 'utf8')));
      if (!('outcome' in parsed)) return undefined; // a damaged record: the job runs again
      const o = parsed.outcome;
      // The record counts only with its run folder beside it.
      return o.status === 'completed' && o.run_id && existsSync(path.join(this.where, o.run_id, 'run.json'))
        ? o
        : undefined;
    } catch {
      return undefined;
    }
  }

  async put(runDir: string, outcome: JobOutcome): Promise<JobOutcome> {
    const t0 = Date.now();
    const prior = await this.finished(outcome.job_id);
    if (prior) return prior; // another worker stored it first: keep one run per job
    const id = path.basename(runDir);
    const dest = path.join(this.where, id);
    const moved = folderSize(runDir);
    if (!existsSync(dest)) {
      // Into a hidden folder first, then renamed: a reader never sees half a run.
      const incoming = path.join(this.where, `.incoming-${id}-${randomBytes(3).toString('hex')}`);
      try {
        renameSync(runDir, incoming);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
        cpSync(runDir, incoming, { recursive: true, filter: (src) => !lstatSync(src).isSymbolicLink() });
      }
      renameSync(incoming, dest);
    }
    const stored = { ...outcome, run_id: id, timing: storedTiming(outcome, t0, moved) };
    writeFileAtomic(path.join(this.where, JOBS, `${safeId(outcome.job_id)}.json`), JSON.stringify(stored, null, 2));
    return stored;
  }

  /**
   * After a crash between moving a run in and writing its outcome: a completed run that names
   * its job but has no record gets one, so it is not run again.
   */
  reconcile(): number {
    let fixed = 0;
    for (const r of scanRuns(this.where).runs) {
      const job = r.meta.job;
      if (!job || r.meta.status !== 'completed') continue;
      const file = path.join(this.where, JOBS, `${safeId(job.id)}.json`);
      if (existsSync(file)) continue;
      const outcome: JobOutcome = {
        job_id: job.id,
        sweep: job.sweep,
        status: 'completed',
        attempt: job.attempt,
        run_id: r.id,
        mean: r.meta.mean,
        std: r.meta.std,
        scores: r.meta.episodes.map((e) => e.score),
        steps: r.meta.totals.steps,
        tokens_in: r.meta.totals.tokens_in,
        tokens_out: r.meta.totals.tokens_out,
        cost_usd: r.meta.totals.cost_usd,
        started: r.meta.created,
        ended: r.meta.updated,
        worker: r.meta.worker ?? { host: r.meta.owner?.host ?? '', pid: r.meta.owner?.pid ?? 0, display: null },
      };
      writeFileAtomic(file, JSON.stringify(outcome, null, 2));
      fixed++;
    }
    for (const name of readdirSync(this.where))
      if (name.startsWith('.incoming-')) rmSync(path.join(this.where, name), { recursive: true, force: true });
    return fixed;
  }
}

/** Every file of a run folder, relative, in a stable order (symlinks left out). */
export function runFiles(runDir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(runDir, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(path.join(runDir, r));
      if (st.isDirectory()) walk(r);
      else if (st.isFile()) out.push(r);
    }
  };
  walk('');
  return out;
}
