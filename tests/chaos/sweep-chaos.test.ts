/**
 * Chaos (`npm run test:chaos`, also part of `npm test`): a local sweep and a queued sweep on a
 * real Redis run while a driver, from a fixed seed, kills at random moments the jobs' run
 * processes, the sweep process, the workers, the queue follower and Redis itself (SIGKILL and
 * SIGTERM), and starts again whatever it killed. At the end every job has exactly one completed
 * run folder, no run folder is torn (run.json and steps.jsonl parse, totals match the steps),
 * no Xvfb outlives its owner and no key is held on any display still up, no process is left
 * stopped (SIGSTOP'd), and each job's scores equal those of the same sweep run without chaos.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.ts';
import { onJsonLines } from '../helpers/json-lines.ts';
import { freePort, RedisServer } from '../helpers/redis.ts';

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
const kills: Record<string, number> = {};
/** What each chaos sweep's results were against the chaos-free sweep's, for the summary line. */
const comparisons: string[] = [];

afterAll(async () => {
  for (const c of alive) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await redis?.stop().catch(() => {});
  if (process.env.GAMEPILOT_CHAOS_KEEP !== '1') rmSync(tmp, { recursive: true, force: true });
  const total = Object.values(kills).reduce((a, b) => a + b, 0);
  process.stdout.write(
    `chaos: ${total} kills survived (${Object.entries(kills)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}), seed ${SEED}; ${comparisons.join('; ') || 'no sweep compared'}\n`,
  );
});

/** mulberry32: the driver's choices, the same on every run. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const count = (kind: string) => {
  kills[kind] = (kills[kind] ?? 0) + 1;
};

interface Follow {
  child: ChildProcess;
  events: any[];
  exit: Promise<number | null>;
  stderr: () => string;
}
function follow(args: string[]): Follow {
  const child = spawnCli(args);
  alive.push(child);
  const events: any[] = [];
  let stderr = '';
  onJsonLines(child.stdout!, (e) => events.push(e));
  child.stderr!.on('data', (d) => (stderr += d));
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, events, exit, stderr: () => stderr };
}
const running = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;

/** The `gamepilot run` processes of jobs writing under `dir`, by their command lines. */
function jobPids(dir: string): number[] {
  const pids: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      if (argv.includes('run') && argv.some((a) => a.startsWith(dir))) pids.push(Number(p));
    } catch {
      /* gone */
    }
  }
  return pids;
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
    comparisons.push(`${sweep} ${same.length}/${reference.size} jobs scored as without chaos`);
    expect([...runs.keys()].sort()).toEqual([...reference.keys()].sort());
    for (const [id, scores] of runs) expect(scores, id).toEqual(reference.get(id));
  };

  it('the reference: the same sweep without chaos', async () => {
    const out = path.join(tmp, 'reference');
    const r = await runCli(['sweep', file, '--out', out, '--workers', '2'], { timeoutMs: 600_000 });
    expect(r.code, r.stderr).toBe(0);
    reference = checkRuns(out);
    expect(reference.size).toBe(JOBS);
  }, 660_000);

  it('a local sweep survives its jobs and itself being killed, and ends with the same results', async () => {
    const out = path.join(tmp, 'local');
    const start = () => follow(['sweep', file, '--out', out, '--workers', '2', '--json']);
    let sweep = start();
    let chaos = 16;
    const until = Date.now() + 480_000;
    for (;;) {
      if (!running(sweep.child)) {
        const code = await sweep.exit;
        if (code === 0 && chaos <= 0) break;
        expect(Date.now(), `the sweep did not finish: ${sweep.stderr().slice(-2000)}`).toBeLessThan(until);
        sweep = start(); // killed, or ended early because jobs were killed under it: go on
        continue;
      }
      if (chaos <= 0) {
        await sleep(300);
        continue;
      }
      await sleep(800 + random() * 2500);
      const jobs = jobPids(out);
      const kind = jobs.length && random() < 0.75 ? 'local job' : 'local sweep';
      const signal = pick(['SIGKILL', 'SIGTERM'] as const);
      if (kind === 'local job') process.kill(pick(jobs), signal);
      else if (running(sweep.child)) sweep.child.kill(signal);
      else continue;
      count(`${kind} ${signal}`);
      chaos--;
    }
    compareWithReference('local', checkRuns(out));
  }, 540_000);

  it('a queued sweep survives workers, jobs, the follower and Redis being killed', async () => {
    redis = new RedisServer(await freePort(), path.join(tmp, 'redis'));
    await redis.start();
    const q = ['--queue', redis.url, '--queue-name', 'chaos'];
    expect((await runCli(['sweep', file, ...q])).code).toBe(0);
    const shared = path.join(tmp, 'shared');
    const displays = new Set<string>();
    let n = 0;
    const worker = () => {
      const w = follow(['worker', ...q, '--out', path.join(tmp, `w${n++}`), '--storage', shared, '--json']);
      onJsonLines(w.child.stdout!, (e) => e.type === 'worker' && displays.add(e.display));
      return w;
    };
    const watcher = () => follow(['sweep', file, ...q, '--wait', '--out', shared, '--json']);
    const workers = [worker(), worker()];
    let watch = watcher();
    let chaos = 18;
    const until = Date.now() + 480_000;
    for (;;) {
      expect(Date.now(), `the queued sweep did not finish: ${watch.stderr().slice(-2000)}`).toBeLessThan(until);
      for (let i = 0; i < workers.length; i++) if (!running(workers[i]!.child)) workers[i] = worker();
      if (!running(watch.child)) {
        const code = await watch.exit;
        if (code === 0 && chaos <= 0) break;
        watch = watcher();
      }
      if (!(await redis.alive())) await redis.start();
      if (chaos <= 0) {
        await sleep(500);
        continue;
      }
      await sleep(1000 + random() * 2500);
      const kind = pick(['queue job', 'queue job', 'worker', 'follower', 'redis'] as const);
      const signal = pick(['SIGKILL', 'SIGTERM'] as const);
      if (kind === 'queue job') {
        const jobs = jobPids(path.join(tmp, 'w')); // the workers' staging folders: <tmp>/w0, w1, …
        if (!jobs.length) continue;
        process.kill(pick(jobs), signal);
      } else if (kind === 'worker') pick(workers).child.kill(signal);
      else if (kind === 'follower') watch.child.kill(signal);
      else {
        await redis.kill(signal);
        await sleep(500 + random() * 1500);
        await redis.start();
      }
      count(`${kind} ${signal}`);
      chaos--;
    }
    const summary = watch.events.at(-1)?.summary;
    expect(summary).toMatchObject({ total: JOBS, completed: JOBS, failed: 0 });
    for (const w of workers) w.child.kill('SIGINT');
    await Promise.all(workers.map((w) => w.exit));
    compareWithReference('queued', checkRuns(shared));

    // Nothing left behind: no Xvfb of ours, no key down on a display still up, nothing stopped.
    await expect.poll(() => [...xvfbPids()].filter((p) => !xvfbBefore.has(p)), { timeout: 20_000 }).toEqual([]);
    for (const d of displays) {
      if (!existsSync(`/tmp/.X11-unix/X${d.slice(1)}`)) continue;
      const state = execFileSync('xinput', ['query-state', 'Virtual core XTEST keyboard'], {
        encoding: 'utf8',
        env: { ...process.env, DISPLAY: d },
      });
      expect(state, d).not.toMatch(/=down/);
    }
    const stopped = [...stoppedProcesses()].filter(([p]) => !stoppedBefore.has(p));
    expect(stopped).toEqual([]);
    expect(Object.values(kills).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(30);
  }, 540_000);
});
