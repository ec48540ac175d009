/**
 * One attempt at one job, exactly as a person would run it: a child `gamepilot run` on the
 * worker's private display, writing its run folder into a staging folder. A child per job keeps
 * a crash (or a leak) of one run from taking the worker down, and the worker's own memory flat.
 * The local pool and the queue workers both call this.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILTIN_GAMES, TWO_SEAT_GAMES } from '../../games/index.ts';
import { loadCatalog, type ProfileCatalog } from '../profiles/registry.ts';
import { parseRunMeta, type RunWorker } from '../store/run-store.ts';
import { endListedWindowGroups, endProcessGroup } from '../games/window-groups.ts';
import { sweepEnv } from './job-env.ts';
import { providerOf, type ModelGate } from './model-gate.ts';
import { limitsFor, type ProviderLimits } from './rate-limit.ts';
import { cellUsesModel, runArgs, type RunSettings, type SweepJob } from './spec.ts';
import { cliCommand } from '../util/resources.ts';
import { envEndpoint } from '../util/endpoint.ts';
import { defaultConfigDir } from '../util/paths.ts';
import { textPattern, type TextPattern } from '../util/text-pattern.ts';
import { z } from 'zod';

/** What a job came to: the queue's result and the job's record in storage. */
export interface JobOutcome {
  job_id: string;
  sweep: string;
  status: 'completed' | 'failed';
  attempt: number;
  run_id: string | null;
  mean: number | null;
  std: number | null;
  scores: (number | null)[];
  steps: number;
  tokens_in: number;
  tokens_out: number;
  cost_usd: number | null;
  started: string;
  ended: string;
  worker: RunWorker;
  error?: string;
  /** The run stopped at its share of the sweep's budget (budget-share.ts): not retried, and no new job starts. */
  stopped_by?: 'budget';
  /** Where the job's time went outside play, and what storing it moved (storage.ts storedTiming). */
  timing?: JobTiming;
}

/**
 * A job's time outside play, in seconds, and its storage. `queued_s`: enqueued → this attempt
 * taken by a worker (queued sweeps; the enqueuing and the working machine's clocks; a retried
 * job's includes its earlier attempts); `run_s`: the run
 * process, start-up and play; `store_s`: the run ended → its folder stored and checked (the job
 * record, which holds these figures, goes up right after).
 */
export interface JobTiming {
  queued_s?: number;
  run_s?: number;
  store_s: number;
  files: number;
  bytes: number;
  /** A bucket: the time its file transfers took (store_s less the checks), and requests tried again. */
  upload_s?: number;
  retries?: number;
}

const score = z.number().min(0).max(100);
const count = z.number().int().nonnegative();
/**
 * An outcome read back from elsewhere (Redis, a storage record): checked, so a lost or damaged
 * one is a job without a result (retried or failed with a reason), never a crash downstream.
 */
export const JobOutcomeSchema = z.object({
  job_id: z.string(),
  sweep: z.string(),
  status: z.enum(['completed', 'failed']),
  attempt: count,
  run_id: z.string().nullable(),
  mean: score.nullable(),
  std: z.number().nonnegative().nullable(),
  scores: z.array(score.nullable()),
  steps: count,
  tokens_in: count,
  tokens_out: count,
  cost_usd: z.number().nonnegative().nullable(),
  started: z.string(),
  ended: z.string(),
  worker: z.object({ host: z.string(), pid: z.number(), display: z.string().nullable() }),
  error: z.string().optional(),
  stopped_by: z.literal('budget').optional(),
  timing: z
    .object({
      queued_s: z.number().optional(),
      run_s: z.number().nonnegative().optional(),
      store_s: z.number().nonnegative(),
      files: count,
      bytes: count,
      upload_s: z.number().nonnegative().optional(),
      retries: count.optional(),
    })
    .optional(),
});

/** The outcome in `v`, or why it is not one. */
export function parseOutcome(v: unknown): { outcome: JobOutcome } | { problem: string } {
  if (v === null || v === undefined) return { problem: 'no result recorded' };
  const r = JobOutcomeSchema.safeParse(v);
  if (r.success) return { outcome: r.data as JobOutcome };
  const i = r.error.issues[0]!;
  return { problem: `a malformed result (${i.path.join('.') || 'the record'}: ${i.message})` };
}

export interface JobContext {
  /** The sweep's run settings (provider, prices, …) the job's arguments come from. */
  spec: RunSettings;
  display: string;
  /** Folder for this worker's attempts; the run folder is made inside. */
  stagingDir: string;
  attempt: number;
  signal?: AbortSignal;
  /** Extra environment for the run (API key, config folder). */
  env?: NodeJS.ProcessEnv;
  catalog?: ProfileCatalog;
  /** The worker process's identity for run.json (default: this process). */
  workerPid?: number;
  /** Model requests go through this gate when the sweep sets rate limits for their provider. */
  gate?: Pick<ModelGate, 'route'>;
  rateLimits?: Record<string, ProviderLimits> | undefined;
  /** The job's share of the sweep's budget (budget-share.ts): the run's own cap, `--budget-usd`. */
  budgetUsd?: number;
}

/** The settings a job runs with: its provider reached through the gate when limits apply to it. */
function gated(job: SweepJob, ctx: JobContext, env: NodeJS.ProcessEnv): { spec: RunSettings; upstream?: string } {
  if (!ctx.gate || !cellUsesModel(job.cell)) return { spec: ctx.spec };
  const upstream = ctx.spec.base_url ?? envEndpoint(env);
  const limits = limitsFor(ctx.rateLimits, providerOf(upstream));
  if (!limits.rpm && !limits.tpm) return { spec: ctx.spec };
  return { spec: { ...ctx.spec, base_url: ctx.gate.route(upstream, limits) }, upstream };
}

export function workerIdentity(display: string | null, pid = process.pid): RunWorker {
  return { host: os.hostname(), pid, display };
}

/**
 * What an attempt came to. `freshDisplay`: the attempt was killed on the worker's display, so the
 * worker closes that display and starts a new one for its next job.
 */
export interface AttemptResult {
  outcome: JobOutcome;
  runDir?: string;
  freshDisplay?: boolean;
}

/**
 * Runs one attempt; never throws for a failed run: the outcome says why. With the sweep's
 * `job_timeout_s`, an attempt still going after that long is stopped as Ctrl+C stops it (SIGINT
 * to the run's process group: the run releases held input and ends), the run's group and the
 * launched game's are killed outright if they linger, and the attempt fails `timed out after N s`
 * (its tokens and cost still counted). It also asks for a fresh display: whatever the killed
 * processes may have left on this one (keys held down, a grab, a window of a process that left
 * its group) goes with its X server.
 */
export async function runJobAttempt(job: SweepJob, ctx: JobContext): Promise<AttemptResult> {
  const timeoutS = ctx.spec.job_timeout_s;
  if (!timeoutS) return attempt(job, ctx);
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutS * 1000);
  try {
    const signal = ctx.signal ? AbortSignal.any([ctx.signal, timeout.signal]) : timeout.signal;
    const r = await attempt(job, { ...ctx, signal });
    // A run that completed as the time ran out stands; a stop of the worker's own is not a timeout.
    if (!timeout.signal.aborted || ctx.signal?.aborted || r.outcome.status === 'completed') return r;
    return {
      ...r,
      outcome: {
        ...r.outcome,
        status: 'failed',
        ended: new Date().toISOString(),
        error: `timed out after ${timeoutS} s`,
      },
      freshDisplay: true,
    };
  } finally {
    clearTimeout(timer);
  }
}

async function attempt(job: SweepJob, ctx: JobContext): Promise<AttemptResult> {
  const started = new Date().toISOString();
  const worker = workerIdentity(ctx.display, ctx.workerPid);
  const dir = path.join(ctx.stagingDir, job.id, `a${ctx.attempt}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const base = { ...process.env, ...ctx.env };
  const { spec, upstream } = gated(job, ctx, base);
  // The run's game windows live in process groups of their own; listed here, they end with the attempt.
  const windowGroups = path.join(dir, 'window-groups');
  const env: NodeJS.ProcessEnv = {
    ...base,
    DISPLAY: ctx.display,
    GAMEPILOT_WINDOW_GROUPS: windowGroups,
    ...sweepEnv(
      { id: job.id, sweep: job.sweep, cell: { ...job.cell }, attempt: ctx.attempt, ...(upstream ? { upstream } : {}) },
      worker,
    ),
  };
  delete env.WAYLAND_DISPLAY;
  const fail = (error: string, runDir?: string): { outcome: JobOutcome; runDir?: string } => ({
    outcome: { ...emptyOutcome(job, ctx.attempt, started, worker), error, ...(runDir ? readTotals(runDir) : {}) },
    ...(runDir ? { runDir } : {}),
  });
  let launched: ChildProcess | undefined;
  try {
    let target: string[];
    // A two-seat game's match is the same `gamepilot run`, with --seats (runArgs): a seated run.
    if (BUILTIN_GAMES[job.cell.game] || (job.cell.seats && TWO_SEAT_GAMES[job.cell.game]))
      target = ['--game', job.cell.game];
    else {
      // The run child gets the same config folder (env), so its profiles are the ones looked up here.
      const configDir = ctx.env?.GAMEPILOT_CONFIG_DIR ?? defaultConfigDir();
      const catalog = ctx.catalog ?? loadCatalog({ configDir });
      const entry = catalog.entries.find((e) => e.profile.id === job.cell.game);
      if (!entry?.profile.launch) return fail(`no profile "${job.cell.game}" with a launch command on this worker`);
      const title = entry.profile.match?.title ?? '.';
      const [cmd, ...args] = entry.profile.launch;
      launched = spawn(cmd!, args, { env, detached: true, stdio: 'ignore' });
      // A command that does not exist says so at once, not as a 20 s wait for its window.
      const notStarted = new AbortController();
      let launchError: NodeJS.ErrnoException | undefined;
      launched.on('error', (err: NodeJS.ErrnoException) => {
        launchError = err;
        notStarted.abort();
      });
      const found = await waitForWindow(
        textPattern(title),
        ctx.display,
        20_000,
        ctx.signal ? AbortSignal.any([ctx.signal, notStarted.signal]) : notStarted.signal,
      );
      if (launchError)
        return fail(
          launchError.code === 'ENOENT'
            ? `profile "${entry.profile.id}": launch command ${cmd} not found on this worker`
            : `profile "${entry.profile.id}": cannot start ${cmd}: ${launchError.message}`,
        );
      if (!found) return fail(`${entry.profile.launch.join(' ')} opened no window matching /${title}/ within 20 s`);
      target = ['--window-id', found, '--profile', entry.profile.id];
    }
    const cap = ctx.budgetUsd !== undefined ? ['--budget-usd', String(ctx.budgetUsd)] : [];
    const args = ['run', ...target, ...runArgs(job.cell, spec), ...cap, '--runs-dir', dir, '--json', '--quiet'];
    const { code, signal, stdout, stderrTail } = await runChild(args, env, path.join(dir, 'run.log'), ctx.signal);
    const runDir = findRunDir(dir);
    if (!runDir)
      return fail(`the run made no run folder (exit ${code ?? signal})${stderrTail ? `: ${stderrTail}` : ''}`);
    const meta = parseRunMeta(readFileSync(path.join(runDir, 'run.json'), 'utf8'), path.join(runDir, 'run.json'));
    if (meta.status === 'completed' && code === 0)
      return { outcome: { ...fromMeta(job, ctx.attempt, started, worker, meta), status: 'completed' }, runDir };
    if (meta.status === 'stopped' && meta.episodes.at(-1)?.end === 'budget')
      return { outcome: { ...fail(meta.error ?? 'budget', runDir).outcome, stopped_by: 'budget' }, runDir };
    const why =
      meta.error ??
      (signal ? `the run was killed (${signal})` : `the run ended ${meta.status} (exit ${code})`) +
        (stderrTail && !stdout ? `: ${stderrTail}` : '');
    return fail(why, runDir);
  } finally {
    await Promise.all([endListedWindowGroups(windowGroups), launched?.pid ? endProcessGroup(launched.pid) : undefined]);
  }
}

/** A job's outcome before (or without) a run: failed, nothing played. */
export function emptyOutcome(
  job: Pick<SweepJob, 'id' | 'sweep'>,
  attempt: number,
  started: string,
  worker: RunWorker,
): JobOutcome {
  return {
    job_id: job.id,
    sweep: job.sweep,
    status: 'failed',
    attempt,
    run_id: null,
    mean: null,
    std: null,
    scores: [],
    steps: 0,
    tokens_in: 0,
    tokens_out: 0,
    cost_usd: null,
    started,
    ended: new Date().toISOString(),
    worker,
  };
}

function fromMeta(
  job: SweepJob,
  attempt: number,
  started: string,
  worker: RunWorker,
  meta: ReturnType<typeof parseRunMeta>,
): JobOutcome {
  return {
    ...emptyOutcome(job, attempt, started, worker),
    run_id: meta.id,
    mean: meta.mean,
    std: meta.std,
    scores: meta.episodes.map((e) => e.score),
    steps: meta.totals.steps,
    tokens_in: meta.totals.tokens_in,
    tokens_out: meta.totals.tokens_out,
    cost_usd: spendOf(meta),
  };
}

/**
 * What a run spent: every role's calls as its cost meter counted them at its end, else (a run
 * killed before it, or an older one) its roles' sums, else its steps' cost.
 */
function spendOf(meta: ReturnType<typeof parseRunMeta>): number | null {
  if (meta.spent_usd !== undefined) return meta.spent_usd;
  const roles = Object.values(meta.model_usage ?? {}).filter((u) => u.cost_usd !== null);
  return roles.length ? roles.reduce((n, u) => n + u.cost_usd!, 0) : meta.totals.cost_usd;
}

/** Tokens and cost a failed attempt spent still count against the budget. */
function readTotals(runDir: string): Partial<JobOutcome> {
  try {
    const meta = parseRunMeta(readFileSync(path.join(runDir, 'run.json'), 'utf8'), runDir);
    return {
      run_id: meta.id,
      steps: meta.totals.steps,
      tokens_in: meta.totals.tokens_in,
      tokens_out: meta.totals.tokens_out,
      cost_usd: spendOf(meta),
    };
  } catch {
    return {};
  }
}

/** The one run folder an attempt made. */
/**
 * A completed run of `job` an earlier attempt left in this worker's staging folder because its
 * store did not finish (the worker was stopped while its bucket was away): to be stored instead
 * of played again. The newest such attempt's, or undefined.
 */
export function stagedCompletedRun(stagingDir: string, job: SweepJob): AttemptResult | undefined {
  const root = path.join(stagingDir, job.id);
  if (!existsSync(root)) return undefined;
  const attempts = readdirSync(root)
    .filter((n) => /^a\d+$/.test(n))
    .sort((a, b) => Number(b.slice(1)) - Number(a.slice(1)));
  for (const a of attempts) {
    const runDir = findRunDir(path.join(root, a));
    if (!runDir) continue;
    try {
      const file = path.join(runDir, 'run.json');
      const meta = parseRunMeta(readFileSync(file, 'utf8'), file);
      if (meta.status !== 'completed' || meta.job?.id !== job.id) continue;
      const worker = meta.worker ?? workerIdentity(null);
      return {
        outcome: { ...fromMeta(job, Number(a.slice(1)), meta.created, worker, meta), status: 'completed' },
        runDir,
      };
    } catch {
      // an unreadable run.json: not a run to store
    }
  }
  return undefined;
}

export function findRunDir(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  for (const name of readdirSync(dir)) if (existsSync(path.join(dir, name, 'run.json'))) return path.join(dir, name);
  return undefined;
}

function runChild(
  args: string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
  signal: AbortSignal | undefined,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderrTail: string }> {
  return new Promise((resolve, reject) => {
    const cli = cliCommand();
    if ('refused' in cli) return reject(new Error(cli.refused));
    const child = spawn(cli.command, [...cli.args, ...args], {
      env: { ...env, ...cli.env },
      detached: true, // its own process group: a stop reaches the run and whatever it started
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = createWriteStream(logFile);
    let stdout = '';
    let tail = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d));
    child.stderr!.on('data', (d: Buffer) => {
      log.write(d);
      tail = (tail + d).slice(-2000);
    });
    let killTimer: NodeJS.Timeout | undefined;
    const stop = () => {
      // SIGINT: the run stops at once, releasing held input; the group is killed if it lingers.
      if (child.pid) killGroupQuietly(child.pid, 'SIGINT');
      killTimer = setTimeout(() => child.pid && killGroupQuietly(child.pid, 'SIGKILL'), 10_000);
    };
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', stop, { once: true });
    child.on('error', reject);
    child.on('close', (code, sig) => {
      clearTimeout(killTimer);
      signal?.removeEventListener('abort', stop);
      log.end();
      if (child.pid) killGroupQuietly(child.pid, 'SIGKILL'); // anything the run left behind in its group
      resolve({ code, signal: sig, stdout, stderrTail: lastLines(tail, 3) });
    });
  });
}

function lastLines(text: string, n: number): string {
  return text.trim().split('\n').slice(-n).join(' | ');
}

function killGroupQuietly(pgid: number, sig: NodeJS.Signals = 'SIGTERM') {
  try {
    process.kill(-pgid, sig);
  } catch {
    /* already gone */
  }
}

/** Polls the display's window list (wmctrl) until a title matches; the window's id, or undefined. */
async function waitForWindow(
  title: TextPattern,
  display: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until && !signal?.aborted) {
    const list = await new Promise<string>((resolve) =>
      execFile('wmctrl', ['-l'], { env: { ...process.env, DISPLAY: display } }, (_e, out) => resolve(out ?? '')),
    );
    for (const line of list.split('\n')) {
      const m = /^(0x[0-9a-f]+)\s+\S+\s+\S+\s(.*)$/i.exec(line);
      if (m && title.test(m[2]!)) return m[1];
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return undefined;
}
