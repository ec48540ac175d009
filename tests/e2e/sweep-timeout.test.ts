/**
 * A sweep's `job_timeout_s`: a job whose run hangs (a model run against a local server that
 * takes the request and never answers) is stopped after that long, fails `timed out after N s`
 * without a retry (`retries: 0`), leaves no process of its own behind (the run, its game window
 * and the window's helpers: every process whose environment names the job), and the worker goes
 * on to its next job on a fresh display, which completes.
 *
 * The timeout is 20 s, not 5: it bounds every job of the sweep, and the job after the hung one
 * (a Node start, a Chromium window, two steps) takes 4–7 s on a loaded 2-core machine.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../helpers/fake-openai.ts';
import { spawnCli } from '../helpers/cli.ts';
import { onJsonLines } from '../helpers/json-lines.ts';

const TIMEOUT_S = 20;
const tmp = mkdtempSync(path.join(tmpdir(), 'gp-sweep-timeout-'));
let server: FakeOpenAI;

beforeAll(async () => {
  // Takes every chat request and never answers it.
  server = await new FakeOpenAI(() => new Promise(() => {})).start();
});
afterAll(async () => {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
});

interface Proc {
  pid: number;
  pgid: number;
  /** Start time (clock ticks since boot): tells the process from a later one with its pid. */
  start: string;
  cmd: string;
}

/** A live process's group and start time; undefined once it is gone (a zombie counts as gone: it runs nothing). */
function stat(pid: number): { pgid: number; start: string } | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    if (f[0] === 'Z') return undefined;
    return { pgid: Number(f[2]), start: f[19]! };
  } catch {
    return undefined;
  }
}

/** Every live process whose environment names the job (GAMEPILOT_JOB, inherited by all it starts). */
function processesOf(jobId: string): Proc[] {
  const found: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'latin1').includes(`"id":"${jobId}"`)) continue;
      const st = stat(pid);
      if (!st) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ');
      found.push({ pid, ...st, cmd });
    } catch {
      /* gone meanwhile, or not ours */
    }
  }
  return found;
}

const sameProcessAlive = (p: Proc) => stat(p.pid)?.start === p.start;
/** Whether any live process is in the group (scanned, so that an unreaped zombie does not count). */
const groupAlive = (pgid: number) =>
  readdirSync('/proc').some((n) => /^\d+$/.test(n) && stat(Number(n))?.pgid === pgid);

describe('sweep job timeout', () => {
  it('stops a hung job, fails it with the reason, leaves nothing behind and runs the next job', async () => {
    const file = path.join(tmp, 'hang.yaml');
    writeFileSync(
      file,
      [
        'games: [2048]',
        'agents: [vlm, random]', // the model job first: it hangs; the random one must still run after it
        'models: [test-vlm]',
        `base_url: ${server.baseURL}`,
        'max_steps: 2',
        `job_timeout_s: ${TIMEOUT_S}`,
        'retries: 0',
        '',
      ].join('\n'),
    );
    const out = path.join(tmp, 'runs');
    const t0 = Date.now();
    const child = spawnCli(
      ['sweep', file, '--runs-dir', out, '--workers', '1', '--json', '--allow-endpoint', server.baseURL],
      { OPENAI_API_KEY: 'sk-timeout-test' },
    );
    const lines: any[] = [];
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    // The hung job's processes, as seen while it runs.
    const seen = new Map<number, Proc>();
    let hungJob: string | undefined;
    const watch = setInterval(() => {
      if (hungJob) for (const p of processesOf(hungJob)) seen.set(p.pid, p);
    }, 200);
    onJsonLines(child.stdout!, (e) => {
      lines.push(e);
      if (e.type === 'job-start' && e.job.includes('-vlm-')) hungJob = e.job;
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    clearTimeout(killer);
    clearInterval(watch);
    const wall = Date.now() - t0;
    expect(lines.at(-1)?.type, stderr).toBe('end');

    // Ended within a bounded time, with one job failed and one completed.
    expect(code).toBe(1);
    expect(wall).toBeLessThan(200_000);
    const summary = lines.at(-1).summary;
    expect([summary.total, summary.completed, summary.failed]).toEqual([2, 1, 1]);

    // The model job hung at its first request, timed out, was not retried.
    expect(hungJob).toBeDefined();
    expect(server.requests.length).toBeGreaterThanOrEqual(1);
    const ends = lines.filter((e) => e.type === 'job-end');
    const hungEnds = ends.filter((e) => e.job === hungJob);
    expect(hungEnds).toHaveLength(1);
    expect(hungEnds[0]).toMatchObject({ status: 'failed', attempt: 1, error: `timed out after ${TIMEOUT_S} s` });
    const record = JSON.parse(readFileSync(path.join(out, '.jobs', `${hungJob}.failed.json`), 'utf8'));
    expect(record.error).toBe(`timed out after ${TIMEOUT_S} s`);
    const took = Date.parse(record.ended) - Date.parse(record.started);
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_S * 1000 - 500);
    expect(took).toBeLessThan((TIMEOUT_S + 45) * 1000); // + the run's 10 s to stop, then its kill

    // Nothing of the hung job is left: no process naming it, none of the ones seen, none of their groups.
    const cmds = [...seen.values()].map((p) => p.cmd);
    expect(
      cmds.some((c) => / run /.test(c) && c.includes('--game 2048')),
      cmds.join('\n'),
    ).toBe(true);
    const groups = new Set([...seen.values()].map((p) => p.pgid));
    expect(groups.size, cmds.join('\n')).toBeGreaterThanOrEqual(2); // the run's group and its game window's
    await expect.poll(() => processesOf(hungJob!).map((p) => p.cmd), { timeout: 10_000 }).toEqual([]);
    expect([...seen.values()].filter(sameProcessAlive).map((p) => p.cmd)).toEqual([]);
    expect([...groups].filter(groupAlive)).toEqual([]);

    // The worker went on: a fresh display, then the next job started after the hung one ended, and completed.
    const workerEvents = lines.filter((e) => e.type === 'worker');
    expect(workerEvents).toHaveLength(2);
    const order = lines.map((e) => `${e.type}:${e.job ?? ''}`);
    const next = ends.find((e) => e.job !== hungJob);
    expect(next).toMatchObject({ status: 'completed' });
    expect(order.indexOf(`job-start:${next.job}`)).toBeGreaterThan(order.indexOf(`job-end:${hungJob}`));
    expect(lines.indexOf(workerEvents[1])).toBeGreaterThan(lines.indexOf(hungEnds[0]));
    const runs = readdirSync(out).filter((n) => existsSync(path.join(out, n, 'run.json')));
    expect(runs).toHaveLength(1);
    expect(JSON.parse(readFileSync(path.join(out, runs[0]!, 'run.json'), 'utf8')).status).toBe('completed');
    console.log(
      `sweep timeout figures: hung job ended after ${(took / 1000).toFixed(1)} s (timeout ${TIMEOUT_S} s); ` +
        `sweep ${(wall / 1000).toFixed(1)} s; ${seen.size} processes in ${groups.size} groups seen, none left`,
    );
  }, 300_000);
});
