/**
 * Chaos (`npm run test:chaos`, also part of `npm test`): a local sweep and a queued sweep on a
 * real Redis, storing to an S3-compatible bucket (s3rver), run while a driver kills the jobs' run
 * processes, the sweep process, the workers, the queue follower, Redis and the storage server
 * (SIGKILL and SIGTERM), and starts again whatever it killed. The kills follow a plan drawn from a fixed seed and are made at points of the
 * sweep's own progress — a job started, a job's result stored — not at moments on the clock,
 * so a fast and a slow machine see the same number and kinds of kills (tests/helpers/
 * chaos-driver.ts); the time limit is only a safety net, scaled to the reference sweep's time.
 * At the end every job has exactly one completed run folder (the bucket's, downloaded by the
 * test's own reader), no run folder is torn (run.json
 * and steps.jsonl parse, totals match the steps), no Xvfb outlives its owner and no key is held
 * on any display still up, no process is left stopped (SIGSTOP'd), and each job's scores equal
 * those of the same sweep run without chaos.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { heldInput } from '../helpers/xinput.ts';
import { seededRng } from '../../games/shared/rng.ts';
import { ChaosDriver, planKills, runProcessOf } from '../helpers/chaos-driver.ts';
import { runCli, spawnCli } from '../helpers/cli.ts';
import { followJson, type JsonChild } from '../helpers/json-lines.ts';
import { freePort, RedisServer } from '../helpers/redis.ts';
import { downloadBucket, S3Server } from '../helpers/s3-server.ts';

const SEED = 20261202;
const tmp = mkdtempSync(path.join(tmpdir(), 'gp-chaos-'));
const file = path.join(tmp, 'chaos.yaml');
// Deterministic agents and games, so scores can be compared job by job; retries enough for the kills.
writeFileSync(
  file,
  'name: chaos\ngames: [2048, tictactoe]\nagents: [random, solver]\ntrials: 3\nmax_steps: 6\nretries: 10\n',
);
const JOBS = 12;
const alive: ChildProcess[] = [];
let redis: RedisServer | undefined;
const s3 = new S3Server(path.join(tmp, 's3-data'), 'lab');
/** Each chaos sweep's kills and its results against the chaos-free sweep's, for the summary line. */
const summaries: string[] = [];
let referenceMs = 0;

afterAll(async () => {
  for (const c of alive) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await redis?.stop().catch(() => {});
  await s3.kill().catch(() => {});
  if (process.env.GAMEPILOT_CHAOS_KEEP !== '1') rmSync(tmp, { recursive: true, force: true });
  process.stdout.write(`chaos: seed ${SEED}; ${summaries.join('; ') || 'no sweep compared'}\n`);
});

const random = seededRng(SEED);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const record = (sweep: string, driver: Pick<ChaosDriver<string>, 'count' | 'plan' | 'describe'>) =>
  summaries.push(`${sweep}: ${driver.count} of ${driver.plan.length} kills made (${driver.describe()})`);

/**
 * The safety net for one chaos sweep: generous against the chaos-free sweep's time (each kill
 * costs at most a restart and a job's rerun, a killed worker's job a lock's expiry). The kills
 * themselves do not depend on it.
 */
const safetyNetMs = (kills: number) => Math.max(300_000, 4 * referenceMs + kills * 25_000);

type Follow = JsonChild;
/** A child whose stdout is JSON lines, collected as they come and each shown to `onEvent`. */
function follow(args: string[], onEvent: (e: any) => void = () => {}): Follow {
  const child = spawnCli(args);
  alive.push(child);
  return followJson(child, onEvent);
}
const running = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;

/**
 * Sends `signal` to the run process of the job attempt `e` started, once it exists under
 * `under`; false when the attempt ended before it could be signalled.
 */
async function killRun(
  driver: Pick<ChaosDriver<string>, 'hasEnded'>,
  under: string,
  e: { job: string; attempt?: number },
  signal: NodeJS.Signals,
): Promise<boolean> {
  const attempt = e.attempt ?? 1;
  const pid = await runProcessOf(under, e.job, attempt, () => driver.hasEnded(e.job, attempt));
  if (pid === null) return false;
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false; // it had already gone
  }
}

/**
 * Starts a sweep process with `start`, and again each time one ends without finishing (killed,
 * or ended early because its jobs were killed under it), until one exits 0 with a summary that
 * was not stopped: that summary. Fails naming `what` once `deadline` passes.
 */
async function untilFinished(
  start: () => Follow,
  deadline: number,
  what: string,
  beforeRestart: () => Promise<void> = async () => {},
): Promise<any> {
  for (;;) {
    const f = start();
    const code = await exitBefore(f, deadline, what);
    const summary = f.events.at(-1)?.summary;
    if (code === 0 && summary && !summary.stopped) return summary;
    await beforeRestart();
  }
}

/** A server down for a seeded 0.5–2 s (ended with `signal`), then started again on its port and data. */
async function outage(
  server: { kill(s: NodeJS.Signals): Promise<void>; start(): Promise<void> },
  signal: NodeJS.Signals,
) {
  await server.kill(signal);
  await sleep(500 + random() * 1500);
  await server.start();
}

/** `f`'s exit code, or a failure naming `what` (with its stderr's tail) once `deadline` passes. */
async function exitBefore(f: Follow, deadline: number, what: string): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => {
    timer = setTimeout(() => r('late'), Math.max(0, deadline - Date.now()));
  });
  const code = await Promise.race([f.exit, late]);
  clearTimeout(timer);
  if (code === 'late') throw new Error(`${what} within its safety net: ${f.stderr().slice(-2000)}`);
  return code;
}

/** Processes started from this test and stopped by a signal (state T), with their command lines. */
function stoppedProcesses(): Map<number, string> {
  const out = new Map<number, string>();
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p) || !ours(Number(p))) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'T') out.set(Number(p), readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      /* gone */
    }
  }
  return out;
}

/**
 * Every process this test starts (sweeps, workers, their jobs and displays) inherits this mark in
 * its environment, so "an Xvfb of ours" is told from one that other work on the machine started.
 */
const MARK = `GAMEPILOT_CHAOS_RUN=${path.basename(tmp)}`;
process.env.GAMEPILOT_CHAOS_RUN = path.basename(tmp);
const ours = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(MARK);
  } catch {
    return false; // gone
  }
};
/** The Xvfb processes started from this test. */
const xvfbPids = () =>
  new Set(
    execFileSync('ps', ['-eo', 'pid=,comm='], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => /\bXvfb$/.test(l.trim()))
      .map((l) => Number(l.trim().split(/\s+/)[0]))
      .filter(ours),
  );

/** Every completed run folder in `dir`, checked whole: one per job, none torn. */
function checkRuns(dir: string): Map<string, (number | null)[]> {
  const byJob = new Map<string, (number | null)[]>();
  const folders = readdirSync(dir).filter((n) => existsSync(path.join(dir, n, 'run.json')));
  for (const n of folders) {
    const meta = JSON.parse(readFileSync(path.join(dir, n, 'run.json'), 'utf8'));
    expect(meta.status, n).toBe('completed');
    const lines = readFileSync(path.join(dir, n, 'steps.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    for (const l of lines) JSON.parse(l); // no torn line
    expect(meta.totals.steps, `${n}: totals against steps.jsonl`).toBe(lines.length);
    expect(byJob.has(meta.job.id), `${meta.job.id} has two run folders`).toBe(false);
    byJob.set(
      meta.job.id,
      meta.episodes.map((e: { score: number | null }) => e.score),
    );
  }
  return byJob;
}

describe('sweeps under chaos', () => {
  const stoppedBefore = stoppedProcesses();
  const xvfbBefore = xvfbPids();
  let reference: Map<string, (number | null)[]>;
  /** Each chaos sweep's jobs against the chaos-free sweep: every job there, with the same scores. */
  const compareWithReference = (sweep: string, runs: Map<string, (number | null)[]>) => {
    const same = [...runs].filter(([id, scores]) => JSON.stringify(scores) === JSON.stringify(reference.get(id)));
    summaries.push(`${sweep} ${same.length}/${reference.size} jobs scored as without chaos`);
    expect([...runs.keys()].sort()).toEqual([...reference.keys()].sort());
    for (const [id, scores] of runs) expect(scores, id).toEqual(reference.get(id));
  };

  it('the reference: the same sweep without chaos', async () => {
    const out = path.join(tmp, 'reference');
    const t0 = Date.now();
    const r = await runCli(['sweep', file, '--runs-dir', out, '--workers', '2'], { timeoutMs: 600_000 });
    referenceMs = Date.now() - t0;
    expect(r.code, r.stderr).toBe(0);
    reference = checkRuns(out);
    expect(reference.size).toBe(JOBS);
  }, 660_000);

  it('a local sweep survives its jobs and itself being killed, and ends with the same results', async () => {
    const out = path.join(tmp, 'local');
    const plan = planKills(random, [
      { kind: 'local job', on: 'job-start', n: 12 },
      { kind: 'local sweep', on: 'job-start', n: 2 },
      { kind: 'local sweep', on: 'job-end', n: 2 }, // while it records the result
    ]);
    let sweep: Follow;
    const driver = new ChaosDriver(plan, async (kill, e): Promise<boolean> => {
      if (kill.kind === 'local sweep') {
        if (!running(sweep.child)) return false;
        sweep.child.kill(kill.signal);
        return true;
      }
      return killRun(driver, out, e, kill.signal);
    });
    await untilFinished(
      () =>
        (sweep = follow(['sweep', file, '--runs-dir', out, '--workers', '2', '--json'], (e) => driver.feed(e, null))),
      Date.now() + safetyNetMs(plan.length),
      'the local sweep did not finish',
    );
    if (driver.failure) throw driver.failure;
    record('local', driver);
    expect(driver.count, `kills made before the sweep finished (${driver.describe()})`).toBe(plan.length);
    compareWithReference('local', checkRuns(out));
  }, 900_000);

  it('a queued sweep survives workers, jobs, the follower, Redis and the storage server being killed', async () => {
    redis = new RedisServer(await freePort(), path.join(tmp, 'redis'));
    await redis.start();
    await s3.start();
    Object.assign(process.env, s3.env()); // the workers' bucket credentials, inherited
    const q = ['--queue', redis.url, '--queue-name', 'chaos'];
    expect((await runCli(['sweep', file, ...q])).code).toBe(0);
    const bucket = 's3://lab/chaos';
    const shared = path.join(tmp, 'shared');
    const displays = new Set<string>();
    const plan = planKills(random, [
      { kind: 'queue job', on: 'job-start', n: 9 },
      { kind: 'worker', on: 'job-start', n: 2 },
      { kind: 'worker', on: 'job-end', n: 2 }, // its result stored, the queue not yet told
      { kind: 'follower', on: 'job-start', n: 2 },
      { kind: 'redis', on: 'job-start', n: 3 }, // while a worker holds the job's lock
    ]);
    // The storage server's kills run on a plan of their own: in the one sequence above, a kill
    // waiting for an upload let job starts go by, and the last job-start kill once found none left.
    const storagePlan = planKills(random, [
      { kind: 'storage', on: 'upload', n: 2 }, // a run's first file stored, the rest of it to come
      { kind: 'storage', on: 'job-end', n: 1 }, // a job just stored, the next upload near
    ]);
    let finished = false;
    let n = 0;
    const workers: Follow[] = [];
    let watch: Follow;
    const driver = new ChaosDriver<(typeof plan)[number]['kind'], Follow>(
      plan,
      async (kill, e, from): Promise<boolean> => {
        // The workers' staging folders: <tmp>/w0, w1, …
        if (kill.kind === 'queue job') return killRun(driver, path.join(tmp, 'w'), e, kill.signal);
        const target = kill.kind === 'worker' ? from : kill.kind === 'follower' ? watch : undefined;
        if (target) {
          if (!running(target.child)) return false;
          target.child.kill(kill.signal);
          return true;
        }
        await outage(redis!, kill.signal);
        return true;
      },
    );
    const storageDriver = new ChaosDriver<'storage', Follow>(storagePlan, async (kill) => {
      await outage(s3, kill.signal);
      return true;
    });
    const worker = (slot: number) => {
      const w: Follow = follow(
        ['worker', ...q, '--runs-dir', path.join(tmp, `w${n++}`), '--storage', bucket, '--json'],
        (e) => {
          if (e.type === 'worker') displays.add(e.display);
          driver.feed(e, w);
          storageDriver.feed(e, w);
        },
      );
      workers[slot] = w;
      // A worker that ends (killed, or stopped) is replaced until the sweep is done.
      void w.exit.then(() => {
        if (!finished) worker(slot);
      });
    };
    worker(0);
    worker(1);
    // A run's first file answered (not its run.json): the storage server dies in the middle of its upload.
    const seenRuns = new Set<string>();
    s3.listen((e) => {
      const run = /^\/lab\/chaos\/([^./][^/]*)\/(?!run\.json$)/.exec(e.path ?? '')?.[1];
      if (e.req !== 'PUT' || e.status !== 200 || !run || seenRuns.has(run)) return;
      seenRuns.add(run);
      storageDriver.feed({ type: 'upload', job: run }, workers[0]!);
    });
    const summary = await untilFinished(
      () => (watch = follow(['sweep', file, ...q, '--wait', '--runs-dir', shared, '--json'])),
      Date.now() + safetyNetMs(plan.length),
      'the queued sweep did not finish',
      async () => {
        if (!(await redis!.alive())) await redis!.start();
      },
    );
    finished = true;
    if (driver.failure) throw driver.failure;
    if (storageDriver.failure) throw storageDriver.failure;
    record('queued', driver);
    record('queued storage', storageDriver);
    summaries.push(`queued: ${summary.outside_play?.retries ?? 0} storage requests retried`);
    expect(driver.count, `kills made before the sweep finished (${driver.describe()})`).toBe(plan.length);
    expect(storageDriver.count, `storage kills made (${storageDriver.describe()})`).toBe(storagePlan.length);
    expect(summary).toMatchObject({ total: JOBS, completed: JOBS, failed: 0 });
    for (const w of workers) w.child.kill('SIGINT');
    await Promise.all(workers.map((w) => w.exit));
    await downloadBucket(bucket, shared);
    compareWithReference('queued', checkRuns(shared));

    // Nothing left behind: no Xvfb of ours, no key down on a display still up, nothing stopped.
    await expect.poll(() => [...xvfbPids()].filter((p) => !xvfbBefore.has(p)), { timeout: 20_000 }).toEqual([]);
    for (const d of displays) {
      if (!existsSync(`/tmp/.X11-unix/X${d.slice(1)}`)) continue;
      expect(heldInput(d).keys, d).toEqual([]);
    }
    const stopped = [...stoppedProcesses()].filter(([p]) => !stoppedBefore.has(p));
    expect(stopped).toEqual([]);
  }, 900_000);
});
