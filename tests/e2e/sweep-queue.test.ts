/**
 * The same jobs across machines: a real redis-server on a free loopback port, two `gamepilot
 * worker` processes, `gamepilot sweep --queue` enqueuing (idempotently) and following. One
 * worker is killed mid-job (SIGKILL) and its job is retried by the other; Redis is stopped and
 * restarted mid-sweep; every job ends with exactly one stored run, and the scores match a local
 * sweep of the same matrix (the agents and games are deterministic by seed).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.ts';
import { freePort, RedisServer } from '../helpers/redis.ts';
import { followJson } from '../helpers/json-lines.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-queue-'));
const file = path.join(tmp, 'pair.yaml');
writeFileSync(file, 'games: [2048, tictactoe]\nagents: [random, solver]\ntrials: 3\nmax_steps: 8\n');
const shared = path.join(tmp, 'shared');
const started: ChildProcess[] = [];
let redis: RedisServer | undefined;

afterAll(async () => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await redis?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/**
 * A child whose stdout is JSON lines, collected as they come; `onEvent` sees each one as it
 * arrives, so a test can act at a point of the child's own progress rather than after a sleep.
 */
function follow(args: string[], onEvent: (e: any, child: ChildProcess) => void = () => {}) {
  const child = spawnCli(args);
  started.push(child);
  return followJson(child, (e) => onEvent(e, child));
}

function outcomes(dir: string): Map<string, any> {
  const m = new Map<string, any>();
  for (const f of readdirSync(path.join(dir, '.jobs')).filter(
    (n) => /^[^.].*\.json$/.test(n) && !n.endsWith('.failed.json'),
  )) {
    const o = JSON.parse(readFileSync(path.join(dir, '.jobs', f), 'utf8'));
    m.set(o.job_id, o);
  }
  return m;
}

describe('gamepilot sweep --queue with gamepilot workers (BullMQ, real Redis)', () => {
  it('two workers take jobs, a killed worker’s job is retried, Redis restarts, results match a local sweep', async () => {
    // The reference: the same matrix as a local sweep.
    const local = path.join(tmp, 'local');
    const l = await runCli(['sweep', file, '--runs-dir', local, '--workers', '2'], { timeoutMs: 300_000 });
    expect(l.code, l.stderr).toBe(0);

    redis = new RedisServer(await freePort(), path.join(tmp, 'redis'));
    await redis.start();
    const enq = await runCli(['sweep', file, '--queue', redis.url, '--json']);
    expect(enq.code, enq.stderr).toBe(0);
    expect(JSON.parse(enq.stdout)).toMatchObject({ total: 12, added: 12, present: 0 });
    const again = await runCli(['sweep', file, '--queue', redis.url, '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ added: 0, present: 12 }); // idempotent: ids are the cells'

    // Worker A finishes one job, starts another, and is killed the moment it says so: a job
    // (a run process to start, a game to open, steps) cannot end in the time a line takes to
    // arrive, so the killed job is surely unfinished, however fast or slow the machine.
    let killedJob: string | undefined;
    const a = follow(
      ['worker', '--queue', redis.url, '--runs-dir', path.join(tmp, 'wa'), '--storage', shared, '--json'],
      (e, child) => {
        if (e.type !== 'job-start' || killedJob !== undefined) return;
        if (a.events.filter((x) => x.type === 'job-start').length < 2) return;
        killedJob = e.job;
        child.kill('SIGKILL');
      },
    );
    const b = follow([
      'worker',
      '--queue',
      redis.url,
      '--runs-dir',
      path.join(tmp, 'wb'),
      '--storage',
      shared,
      '--json',
    ]);
    const watch = follow(['sweep', file, '--queue', redis.url, '--wait', '--runs-dir', shared, '--json']);

    await Promise.race([a.exit, watch.exit]);
    expect(killedJob, 'worker A never started a second job').toBeDefined();
    expect(a.events.filter((e) => e.type === 'job-end' && e.status === 'completed').length).toBeGreaterThanOrEqual(1);

    // Redis goes away mid-sweep and comes back (same data: append-only file).
    await expect
      .poll(() => watch.events.filter((e) => e.type === 'job-end').length, { timeout: 120_000 })
      .toBeGreaterThanOrEqual(4);
    await redis.stop();
    await new Promise((r) => setTimeout(r, 3000));
    await redis.start();

    expect(await watch.exit, watch.stderr()).toBe(0);
    const summary = watch.events.at(-1).summary;
    expect(summary).toMatchObject({ total: 12, completed: 12, failed: 0 });
    expect(watch.stderr()).toMatch(/Redis is away/);
    expect(b.events.some((e) => e.type === 'redis' && e.state === 'down')).toBe(true);
    b.child.kill('SIGINT');
    expect(await b.exit).toBe(0);

    // Exactly one stored run per job; the killed worker's job was run by the other one.
    const stored = outcomes(shared);
    expect(stored.size).toBe(12);
    const runs = readdirSync(shared).filter((n) => existsSync(path.join(shared, n, 'run.json')));
    expect(runs).toHaveLength(12);
    const metas = runs.map((n) => JSON.parse(readFileSync(path.join(shared, n, 'run.json'), 'utf8')));
    expect(new Set(metas.map((m) => m.job.id)).size).toBe(12);
    expect(metas.every((m) => m.status === 'completed')).toBe(true);
    const retried = metas.find((m) => m.job.id === killedJob);
    expect(retried.worker.pid).toBe(b.child.pid);
    expect(retried.job.attempt).toBeGreaterThanOrEqual(2);
    const pids = new Set(metas.map((m) => m.worker.pid));
    expect(pids).toEqual(new Set([a.child.pid, b.child.pid]));

    // Same scores as the local sweep, job by job.
    const reference = outcomes(local);
    expect([...stored.keys()].sort()).toEqual([...reference.keys()].sort());
    for (const [id, o] of stored) expect(o.scores, id).toEqual(reference.get(id).scores);
  }, 500_000);

  it('a worker stopped with Ctrl+C gives its job back without using up an attempt', async () => {
    redis ??= new RedisServer(await freePort(), path.join(tmp, 'redis'));
    if (!(await redis.alive())) await redis.start();
    const grace = path.join(tmp, 'grace.yaml');
    // retries: 0 — one attempt only: were the stop counted as a failure, the job would fail.
    // The job cannot end before the stop arrives: in the stop latency mode each of its 5 steps
    // waits 2 s after acting, so it lasts over 8 s, and the worker is stopped the moment it
    // says the job started. (A 200-step Snake stopped 1.5 s in had sometimes already died.)
    writeFileSync(
      grace,
      'name: grace\ngames: [2048]\nagents: [random]\nlatency: [stop]\ntrials: 1\nmax_steps: 5\nretries: 0\n',
    );
    const q = ['--queue', redis.url, '--queue-name', 'grace'];
    expect((await runCli(['sweep', grace, ...q])).code).toBe(0);
    let stoppedAt = 0;
    const first = follow(
      ['worker', ...q, '--runs-dir', path.join(tmp, 'g1'), '--storage', path.join(tmp, 'gs'), '--json'],
      (e, child) => {
        if (e.type !== 'job-start' || stoppedAt) return;
        stoppedAt = Date.now();
        child.kill('SIGINT');
      },
    );
    expect(await first.exit).toBe(0);
    expect(stoppedAt).toBeGreaterThan(0);
    expect(first.events.some((e) => e.type === 'job-end')).toBe(false);
    const second = follow([
      'worker',
      ...q,
      '--runs-dir',
      path.join(tmp, 'g2'),
      '--storage',
      path.join(tmp, 'gs'),
      '--max-jobs',
      '1',
      '--json',
    ]);
    expect(await second.exit).toBe(0);
    const end = second.events.find((e) => e.type === 'job-end');
    expect(end).toMatchObject({ status: 'completed' });
    const meta = JSON.parse(readFileSync(path.join(tmp, 'gs', end.run_id, 'run.json'), 'utf8'));
    expect(meta.status).toBe('completed');
    expect(meta.worker.pid).toBe(second.child.pid);
  }, 300_000);
});
