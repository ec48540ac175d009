/**
 * Every step records what its actions did to the window, observed, not assumed (issue 37): a
 * real X window that ignores input gives `effect: "none"` on every step and the run warns after
 * the set number of them, saying what it checked; a built-in played by its solver changes the
 * game on (nearly) every step, with the time to its first draw; a run whose model was never
 * reached ends failed and stays out of the leaderboard; and `npm start`'s demo on a bare X
 * server with no window manager moves the game in its first seconds.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer, FakeOpenAI } from '../helpers/fake-openai.ts';
import { json, ROOT, runCli, testModelArgs } from '../helpers/cli.ts';
import { drawerWindow, stop } from '../helpers/windows.ts';
import { startPrivateDisplay } from '../../electron/sweep/display.ts';

const tmp = (p: string) => mkdtempSync(path.join(tmpdir(), p));
const stepsOf = (dir: string): any[] =>
  readFileSync(path.join(dir, 'steps.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const metaOf = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'));

/** A port nothing listens on: one the OS handed out and was let go. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

let server: FakeOpenAI;
beforeAll(async () => {
  server = await new FakeOpenAI(() => ({
    text: answer('press', [{ action_type: 'PRESS', parameters: { key: 'space' } }]),
  })).start();
});
afterAll(() => server.close());

describe('the effect of every step', () => {
  it('a window that ignores input: every step has no effect, and the run says so after 5', async () => {
    const t0 = performance.now();
    // An X window that draws once when it appears and never again (its timer is a day away).
    const deaf = await drawerWindow('gp-deaf', { x: 100, y: 80, width: 320, height: 240 }, 86_400_000);
    try {
      const out = tmp('gp-effect-deaf-');
      const r = await runCli([
        'run',
        '--window',
        '^gp-deaf$',
        ...testModelArgs(server.baseURL),
        '--no-profile',
        '--max-steps',
        '7',
        '--effect-warn-after',
        '5',
        '--runs-dir',
        out,
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      const dir = json(r).run_dir as string;
      const steps = stepsOf(dir);
      expect(steps).toHaveLength(7);
      expect(steps.map((s) => s.effect)).toEqual(Array(7).fill('none'));
      expect(steps.every((s) => s.effect_ms === null)).toBe(true);
      const warnings = r.stderr.split('\n').filter((l) => /steps in a row acted and changed nothing/.test(l));
      expect(warnings, r.stderr).toHaveLength(1);
      // After the fifth step's line, before the sixth's.
      const lines = r.stderr.split('\n');
      const at = lines.indexOf(warnings[0]!);
      expect(lines.slice(0, at).some((l) => /^ep 1 step 5:.*no effect/.test(l))).toBe(true);
      expect(lines.slice(0, at).some((l) => /^ep 1 step 6:/.test(l))).toBe(false);
      expect(metaOf(dir).quality).toMatchObject({
        steps: 7,
        no_effect_steps: 7,
        no_effect_rate: 1,
        invalid_actions: 0,
      });
    } finally {
      await stop(deaf.child);
    }
    console.log(`deaf window: ${Math.round(performance.now() - t0)} ms`);
  });

  it('a built-in played by its solver changes the game on at least 90 % of steps, with effect_ms', async () => {
    const out = tmp('gp-effect-solver-');
    const r = await runCli([
      'run',
      '--game',
      '2048',
      '--agent',
      'solver',
      '--max-steps',
      '30',
      '--runs-dir',
      out,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const steps = stepsOf(json(r).run_dir);
    const changed = steps.filter((s) => s.effect === 'changed');
    expect(changed.length / steps.length).toBeGreaterThanOrEqual(0.9);
    for (const s of changed) {
      expect(s.effect_ms, JSON.stringify(s.settle)).toBeTypeOf('number');
      expect(s.effect_ms).toBeGreaterThanOrEqual(0);
      expect(s.effect_ms).toBeLessThan(3000);
    }
    const q = metaOf(json(r).run_dir).quality;
    expect(q.steps).toBe(steps.length);
    expect(q.no_effect_steps).toBe(steps.filter((s) => s.effect === 'none').length);
  });

  it('a run whose model was never reached ends failed (exit 1) and is left out of the leaderboard', async () => {
    const out = tmp('gp-effect-unreached-');
    const r = await runCli([
      'run',
      '--game',
      '2048',
      ...testModelArgs(`http://127.0.0.1:${await closedPort()}/v1`),
      '--no-preflight',
      '--max-retries',
      '0',
      '--episodes',
      '1',
      '--max-steps',
      '2',
      '--runs-dir',
      out,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(1);
    const res = json(r);
    expect(res.status).toBe('failed');
    const meta = metaOf(res.run_dir);
    expect(meta.status).toBe('failed');
    expect(meta.error).toMatch(/never answered/);
    expect(res.error).toMatch(/never answered/);
    expect(meta.episodes[0].invalid).toBe('2 of 2 steps had no model answer');
    expect(meta.quality).toMatchObject({ steps: 2, model_call_failures: 2 });
    const board = await runCli(['leaderboard', '--runs-dir', out, '--json']);
    expect(board.code, board.stderr).toBe(0);
    expect(JSON.stringify(json(board))).not.toContain('test-vlm');
  });
});

describe('npm start on a bare X server (no window manager)', () => {
  it('the demo moves the game in its first 5 seconds, and again after another window took the focus', {
    timeout: 240_000,
  }, async () => {
    const bare = await startPrivateDisplay({ windowManager: false, from: 150 });
    const env = { ...process.env, DISPLAY: bare.display };
    // With nobody giving the focus it follows the pointer: put the pointer where no window will be.
    execFileSync('xdotool', ['mousemove', '1279', '799'], { env });
    const cwd = tmp('gp-effect-bare-');
    let child: ChildProcess | undefined;
    let thief: ChildProcess | undefined;
    try {
      child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.mjs')], {
        cwd,
        env: { ...env, GAMEPILOT_CONFIG_DIR: path.join(cwd, 'config') },
        stdio: 'ignore',
      });
      const runs = path.join(cwd, 'runs');
      const demoSteps = (): any[] => {
        try {
          const [dir] = readdirSync(runs);
          return dir ? stepsOf(path.join(runs, dir)) : [];
        } catch {
          return [];
        }
      };
      /** The demo's steps from `from` (epoch ms) on, once it has played at least 5 s of them. */
      const fiveSeconds = async (from: number) => {
        await expect
          .poll(() => demoSteps().filter((s) => s.t_capture - from > 5000).length, { timeout: 60_000, interval: 250 })
          .toBeGreaterThan(0);
        return demoSteps().filter((s) => s.t_capture >= from && s.t_capture - from <= 5000);
      };
      // Play starts once the browser windows are up (slow on a busy machine); from its first step
      // on, the game must move within 5 s: every step's effect is observed in the game's own state.
      await expect.poll(() => demoSteps().length, { timeout: 180_000, interval: 250 }).toBeGreaterThan(0);
      const early = await fiveSeconds(demoSteps()[0].t_capture);
      expect(
        early.some((s) => s.effect === 'changed'),
        JSON.stringify(early.map((s) => [s.effect, s.settle])),
      ).toBe(true);
      // Another window appears and takes the keyboard focus (what a window manager would have
      // refused or undone): the harness gives it back to the game, whose next moves still land.
      thief = spawn(
        process.execPath,
        [path.join(ROOT, 'tests', 'helpers', 'x-drawer.ts'), 'gp-thief', '0', '0', '200', '150', '86400000'],
        { env, stdio: 'ignore' },
      );
      await expect
        .poll(() => execFileSync('xdotool', ['search', '--name', '^gp-thief$'], { env, encoding: 'utf8' }).trim(), {
          timeout: 20_000,
          interval: 200,
        })
        .not.toBe('');
      const thiefId = execFileSync('xdotool', ['search', '--name', '^gp-thief$'], { env, encoding: 'utf8' }).trim();
      execFileSync('xdotool', ['windowfocus', thiefId], { env });
      const later = await fiveSeconds(Date.now());
      expect(
        later.some((s) => s.effect === 'changed'),
        JSON.stringify(later.map((s) => [s.effect, s.settle])),
      ).toBe(true);
    } finally {
      thief?.kill('SIGKILL');
      // npm start ends the shell and the windows it opened when it is told to stop.
      if (child && child.exitCode === null) {
        const exited = new Promise((r) => child!.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      }
      await bare.close();
    }
  });
});
