/**
 * A queue worker over many jobs: its own resident memory stays flat (each run is a child
 * process that exits with its job), and no run process outlives its job.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.ts';
import { freePort, RedisServer } from '../helpers/redis.ts';
import { onJsonLines } from '../helpers/json-lines.ts';

const JOBS = Number(process.env.GAMEPILOT_MEMORY_JOBS ?? 30);
const tmp = mkdtempSync(path.join(tmpdir(), 'gp-worker-mem-'));
let redis: RedisServer | undefined;

afterAll(async () => {
  await redis?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** Processes whose environment says they run a job for `workerPid`. */
function runsOf(workerPid: number): number[] {
  const pids: number[] = [];
  for (const p of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const env = readFileSync(`/proc/${p}/environ`, 'utf8');
      if (env.includes(`GAMEPILOT_WORKER={"host"`) && env.includes(`"pid":${workerPid},`)) pids.push(Number(p));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return pids;
}

describe('gamepilot worker memory', () => {
  it(`stays flat over ${JOBS} jobs`, async () => {
    redis = new RedisServer(await freePort(), path.join(tmp, 'redis'));
    await redis.start();
    const file = path.join(tmp, 'many.yaml');
    writeFileSync(file, `name: many\ngames: [tictactoe]\nagents: [solver]\ntrials: ${JOBS}\n`);
    const enq = await runCli(['sweep', file, '--queue', redis.url]);
    expect(enq.code, enq.stderr).toBe(0);
    const worker = spawnCli([
      'worker',
      '--queue',
      redis.url,
      '--displays',
      '2',
      '--runs-dir',
      path.join(tmp, 'runs'),
      '--json',
    ]);
    const rss: number[] = [];
    onJsonLines(worker.stdout!, (e) => {
      if (e.type === 'job-end' && e.status === 'completed') rss.push(e.rss_mb);
    });
    worker.stderr!.resume();
    const exit = new Promise((r) => worker.on('exit', r));
    await expect.poll(() => rss.length, { timeout: JOBS * 15_000, interval: 500 }).toBe(JOBS);
    await expect.poll(() => runsOf(worker.pid!), { timeout: 15_000 }).toEqual([]);
    worker.kill('SIGINT');
    await exit;
    const first = Math.max(...rss.slice(0, 10));
    const last = Math.max(...rss.slice(-10));
    console.log(
      `worker RSS over ${JOBS} jobs: first 10 max ${first} MB, last 10 max ${last} MB, all max ${Math.max(...rss)} MB`,
    );
    expect(last).toBeLessThan(first * 1.25 + 15);
  }, 900_000);
});
