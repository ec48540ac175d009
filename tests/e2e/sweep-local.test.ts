/**
 * `gamepilot sweep` on one machine: 2 built-in games × 2 agents (random, solver) × 3 trials on
 * 2 workers, each worker on its own private Xvfb the sweep starts. Both displays are used at
 * once (run intervals from run.json overlap on different displays); the sweep is interrupted
 * (SIGINT, then SIGKILL) and resumed, and no finished job runs twice.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.ts';
import { onJsonLines } from '../helpers/json-lines.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-sweep-'));
const out = path.join(tmp, 'runs');
const file = path.join(tmp, 'pair.yaml');
writeFileSync(file, 'games: [2048, tictactoe]\nagents: [random, solver]\ntrials: 3\nmax_steps: 8\n');

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Events {
  lines: any[];
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Runs the sweep with --json; `until` may end it early (SIGINT/SIGKILL) once it has seen enough. */
function sweep(until?: { completions: number; signal: NodeJS.Signals }): Promise<Events> {
  return new Promise((resolve) => {
    const child = spawnCli(['sweep', file, '--runs-dir', out, '--workers', '2', '--json']);
    const lines: any[] = [];
    let sent = false;
    onJsonLines(child.stdout!, (e) => {
      lines.push(e);
      const done = lines.filter((x) => x.type === 'job-end' && x.status === 'completed').length;
      if (until && !sent && done >= until.completions) {
        sent = true;
        child.kill(until.signal);
      }
    });
    child.stderr!.resume();
    child.on('exit', (code, signal) => resolve({ lines, code, signal }));
  });
}

function runMetas() {
  return readdirSync(out)
    .filter((n) => existsSync(path.join(out, n, 'run.json')))
    .map((n) => JSON.parse(readFileSync(path.join(out, n, 'run.json'), 'utf8')));
}

async function displaysGone(displays: string[]) {
  await expect
    .poll(() => displays.filter((d) => existsSync(`/tmp/.X11-unix/X${d.slice(1)}`)), { timeout: 15_000 })
    .toEqual([]);
}

describe('gamepilot sweep (local pool)', () => {
  it('runs on two private displays at once, stops, is killed, and resumes without rerunning', async () => {
    // 1. Ctrl+C after two jobs: the sweep stops, keeps what finished, closes its displays.
    const first = await sweep({ completions: 2, signal: 'SIGINT' });
    expect(first.code).toBe(1);
    const end1 = first.lines.at(-1);
    expect(end1.type).toBe('end');
    expect(end1.summary.stopped).toBe(true);
    const done1 = first.lines.filter((e) => e.type === 'job-end' && e.status === 'completed').map((e) => e.job);
    expect(done1.length).toBeGreaterThanOrEqual(2);
    await displaysGone(first.lines.filter((e) => e.type === 'worker').map((e) => e.display));

    // 2. Killed outright (SIGKILL) after two more: nothing of the sweep survives it.
    const second = await sweep({ completions: 2, signal: 'SIGKILL' });
    expect(second.signal).toBe('SIGKILL');
    const start2 = second.lines.find((e) => e.type === 'start');
    expect(start2.done).toBe(done1.length);
    const done2 = second.lines.filter((e) => e.type === 'job-end' && e.status === 'completed').map((e) => e.job);
    expect(done2.filter((j: string) => done1.includes(j))).toEqual([]); // finished jobs were not rerun
    await displaysGone(second.lines.filter((e) => e.type === 'worker').map((e) => e.display));

    // 3. Resumed to the end.
    const third = await sweep();
    expect(third.code).toBe(0);
    const summary = third.lines.at(-1).summary;
    expect(summary.total).toBe(12);
    expect(summary.completed).toBe(12);
    expect(summary.failed).toBe(0);
    const done3 = third.lines.filter((e) => e.type === 'job-end' && e.status === 'completed').map((e) => e.job);
    expect(done3.filter((j: string) => done1.includes(j) || done2.includes(j))).toEqual([]);
    expect(summary.resumed).toBe(12 - done3.length);

    // Exactly one completed run per job, each recording its job and worker.
    const metas = runMetas();
    const completed = metas.filter((m) => m.status === 'completed');
    expect(completed).toHaveLength(12);
    expect(new Set(completed.map((m) => m.job.id)).size).toBe(12);
    for (const m of completed) {
      expect(m.worker.display).toMatch(/^:\d+$/);
      expect(m.worker.host).toBeTruthy();
    }
    // The solver wins every Tic-Tac-Toe game it plays first (as X).
    const ttt = completed.filter((m) => m.game === 'tictactoe' && m.agent === 'solver');
    expect(ttt).toHaveLength(3);

    // Both displays busy at once: in the last session, jobs on different displays overlap in time.
    // A job's span is its attempt (start of its run process to its end, from <out>/.jobs): the
    // runs' own play is under a second each here, so play spans alone may well not overlap.
    const jobSpans = done3.map((id) => {
      const o = JSON.parse(readFileSync(path.join(out, '.jobs', `${id}.json`), 'utf8'));
      return { d: o.worker.display as string, a: Date.parse(o.started), b: Date.parse(o.ended) };
    });
    const overlapping = jobSpans.some((x) => jobSpans.some((y) => x.d !== y.d && x.a < y.b && y.a < x.b));
    expect(new Set(jobSpans.map((s) => s.d)).size).toBe(2);
    expect(overlapping).toBe(true);
    const last = completed.filter((m) => done3.includes(m.job.id));
    const spans = last.map((m) => ({ d: m.worker.display, a: Date.parse(m.created), b: Date.parse(m.updated) }));
    console.log(
      `sweep figures: 12 jobs; last session ${done3.length} jobs in ${summary.wall_s} s on 2 workers; ` +
        `sum of those runs' own durations ${(spans.reduce((t, s) => t + (s.b - s.a), 0) / 1000).toFixed(1)} s`,
    );
  }, 400_000);

  it('starts a profile’s launch command on each worker’s own display and plays that window', async () => {
    const mines = path.join(tmp, 'mines.yaml');
    writeFileSync(mines, 'games: [sgt-mines]\nagents: [random]\ntrials: 2\nmax_steps: 4\n');
    const dir = path.join(tmp, 'mines');
    const r = await new Promise<number | null>((resolve) => {
      const c = spawnCli(['sweep', mines, '--runs-dir', dir, '--workers', '2']);
      c.stdout!.resume();
      c.stderr!.resume();
      c.on('exit', resolve);
    });
    expect(r).toBe(0);
    const metas = readdirSync(dir)
      .filter((n) => existsSync(path.join(dir, n, 'run.json')))
      .map((n) => JSON.parse(readFileSync(path.join(dir, n, 'run.json'), 'utf8')));
    expect(metas).toHaveLength(2);
    for (const m of metas) {
      expect(m.status).toBe('completed');
      expect(m.target.kind).toBe('window');
      expect(m.profile.id).toBe('sgt-mines');
    }
    expect(new Set(metas.map((m) => m.worker.display)).size).toBe(2);
  }, 200_000);

  it('refuses an unknown axis or value with its line, before running anything', async () => {
    const bad = path.join(tmp, 'bad.yaml');
    writeFileSync(bad, 'games: [2048]\nagents:\n  - random\n  - wizard\ntrials: 2\n');
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const c = spawnCli(['sweep', bad, '--runs-dir', path.join(tmp, 'never')]);
      let stderr = '';
      c.stderr!.on('data', (d) => (stderr += d));
      c.stdout!.resume();
      c.on('exit', (code) => resolve({ code, stderr }));
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bad}:4`);
    expect(r.stderr).toContain('agents.1');
    expect(existsSync(path.join(tmp, 'never'))).toBe(false);
  });
});
