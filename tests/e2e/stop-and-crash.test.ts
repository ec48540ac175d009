/**
 * Every way a run ends releases held input, and a crash loses at most the step in flight:
 * stop() mid-action, SIGTERM to the CLI, SIGKILL to the CLI, process.exit() — and what a
 * SIGKILL left held is released by the next start, never what a live run holds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { ROOT, runCli, spawnCli, testModelArgs, testModelSpec } from '../helpers/cli.ts';
import { heldInput, keycodeOf, releaseKeysyms } from '../helpers/xinput.ts';
import { prepareRun } from '../../electron/session/compose.ts';
import { parseRunSpec } from '../../electron/run-spec.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { createWindowManager } from '../../native/index.ts';

// Hold a key and the left button inside the window, then wait for a long time.
const HOLD = answer('hold', [
  { action_type: 'MOVE_TO', parameters: { x: 200, y: 300 } },
  { action_type: 'KEY_DOWN', parameters: { key: 'shift' } },
  { action_type: 'KEY_DOWN', parameters: { key: 'w' } },
  { action_type: 'MOUSE_DOWN', parameters: { button: 'left' } },
  { action_type: 'WAIT', parameters: { duration: 30 } },
]);

// Registries of this test process (in-process runs) and of the CLIs it starts: never the user's own.
process.env.GAMEPILOT_CONFIG_DIR = mkdtempSync(path.join(tmpdir(), 'gp-stop-config-'));

let server: FakeOpenAI;
beforeAll(async () => {
  server = await new FakeOpenAI(() => ({ text: HOLD })).start();
});
afterAll(() => server.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const out = () => mkdtempSync(path.join(tmpdir(), 'gp-stop-'));

async function untilHeld(timeoutMs = 15000) {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    const h = heldInput();
    if (h.keys.length >= 2 && h.buttons.includes(1)) return h;
    await sleep(50);
  }
  throw new Error('the agent never held its keys');
}

function lines(file: string) {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
}

describe('ending a run', () => {
  it('stop() interrupts a long action at once and releases held keys and buttons', async () => {
    const { session, target } = await prepareRun(
      parseRunSpec({
        game: '2048',
        ...testModelSpec(server.baseURL),
        episodes: 1,
        maxSteps: 3,
        seed: 1,
        capture: 'nut',
      }),
      { outDir: out() },
    );
    try {
      const running = session.run();
      expect(heldInput().keys).toEqual([]);
      await untilHeld();
      const t0 = Date.now();
      session.stop();
      const result = await running;
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(result.status).toBe('stopped');
      expect(heldInput()).toEqual({ keys: [], buttons: [] });
      expect(readRun(result.runDir).meta.status).toBe('stopped');
    } finally {
      await target.close();
    }
  });

  it('SIGTERM to the CLI stops the run cleanly and releases input', async () => {
    const dir = out();
    const child = spawnCli([
      'run',
      '--game',
      '2048',
      ...testModelArgs(server.baseURL),
      '--max-steps',
      '3',
      '--runs-dir',
      dir,
      '--json',
    ]);
    let stdout = '';
    child.stdout!.on('data', (d) => (stdout += d));
    await untilHeld();
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(0);
    expect(heldInput()).toEqual({ keys: [], buttons: [] });
    const res = JSON.parse(stdout);
    expect(res.status).toBe('stopped');
    expect(readRun(res.run_dir).meta.status).toBe('stopped');
  });

  it('SIGKILL mid-run leaves run.json and steps.jsonl readable up to the last finished step', async () => {
    const dir = out();
    const child = spawnCli([
      'run',
      '--game',
      '2048',
      '--agent',
      'random',
      '--max-steps',
      '5000',
      '--runs-dir',
      dir,
      '--quiet',
    ]);
    let runDir = '';
    const t0 = Date.now();
    while (Date.now() - t0 < 30000) {
      const found = (await import('node:fs')).readdirSync(dir);
      if (found[0]) {
        runDir = path.join(dir, found[0]);
        if (lines(path.join(runDir, 'steps.jsonl')) >= 8) break;
      }
      await sleep(20);
    }
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));
    const { meta, steps, skippedLines } = readRun(runDir);
    expect(meta.status).toBe('running'); // it never got to say otherwise
    expect(meta.game).toBe('2048');
    expect(steps.length).toBeGreaterThanOrEqual(8);
    expect(skippedLines).toBeLessThanOrEqual(1);
    steps.forEach((s, i) => {
      expect(s.step).toBe(i);
      expect(existsSync(path.join(runDir, s.frame!))).toBe(true);
    });
    // The orphaned game window closes itself once the harness is gone.
    const wm = createWindowManager();
    let left = true;
    for (let i = 0; i < 50 && left; i++) {
      left = (await wm.list()).some((w) => w.title.startsWith('Gamepilot · 2048'));
      if (left) await sleep(100);
    }
    expect(left).toBe(false);
  });
});

describe('held keys and a crash', () => {
  // The model presses Ctrl and Shift down, then stalls on its next call until the test lets it go.
  const MODIFIERS = answer('hold the modifiers', [
    { action_type: 'KEY_DOWN', parameters: { key: 'ctrl' } },
    { action_type: 'KEY_DOWN', parameters: { key: 'shift' } },
  ]);
  let stallServer: FakeOpenAI;
  let unstall = () => {};
  let ctrl = 0;
  let shift = 0;

  beforeAll(async () => {
    ctrl = keycodeOf('Control_L');
    shift = keycodeOf('Shift_L');
    stallServer = await new FakeOpenAI(() => ({ text: MODIFIERS })).start();
  });
  afterAll(async () => {
    unstall();
    await stallServer.close();
    releaseKeysyms(['Control_L', 'Shift_L']); // in case an assertion failed with them down
  });
  beforeEach(() => {
    releaseKeysyms(['Control_L', 'Shift_L']); // each test starts from a clean keyboard, whatever the last one left
    expect(heldInput().keys).toEqual([]);
  });

  /** Answers the first call with the modifiers, then holds every later call until unstall(). */
  function holdThenStall() {
    let calls = 0;
    const stalled = new Promise<void>((r) => (unstall = r));
    stallServer.setResponder(async () => {
      if (calls++ === 0) return { text: MODIFIERS };
      await Promise.race([stalled, sleep(90_000)]);
      return { text: answer('wait', [{ action_type: 'WAIT', parameters: { duration: 0.1 } }]) };
    });
  }

  const bothDown = () => {
    const keys = heldInput().keys;
    return keys.includes(ctrl) && keys.includes(shift);
  };
  async function untilBothDown(child: ChildProcess) {
    const t0 = Date.now();
    while (!bothDown()) {
      if (child.exitCode !== null) throw new Error(`the run ended (${child.exitCode}) before holding its keys`);
      if (Date.now() - t0 > 30_000) throw new Error('the run never held Ctrl and Shift');
      await sleep(50);
    }
  }
  const modelRun = (config: string) =>
    spawnCli(
      [
        'run',
        '--game',
        '2048',
        '--agent',
        'vlm',
        '--model',
        'test-vlm',
        '--base-url',
        stallServer.baseURL,
        '--max-steps',
        '3',
        '--runs-dir',
        out(),
        '--quiet',
      ],
      { GAMEPILOT_CONFIG_DIR: config },
    );

  it('after SIGKILL the X server still has Ctrl and Shift down; the next start releases them', async () => {
    holdThenStall();
    const config = out();
    const child = modelRun(config);
    await untilBothDown(child);
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));
    unstall();
    const afterKill = heldInput().keys;
    expect(afterKill).toEqual(expect.arrayContaining([ctrl, shift])); // nothing could run in the killed process
    const next = await runCli(
      ['run', '--game', 'tictactoe', '--agent', 'random', '--max-steps', '1', '--runs-dir', out(), '--quiet'],
      { env: { GAMEPILOT_CONFIG_DIR: config } },
    );
    const afterNext = heldInput();
    console.log(
      `keys held after SIGKILL: ${afterKill.join(', ')} (Ctrl ${ctrl}, Shift ${shift}); after the next start: ${afterNext.keys.join(', ') || 'none'}`,
    );
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toMatch(/released LeftControl, LeftShift that a crashed run \(pid \d+\) had left held/);
    expect(afterNext).toEqual({ keys: [], buttons: [] });
  });

  it('a second start leaves the held keys of a live run alone; that run still releases them on SIGTERM', async () => {
    holdThenStall();
    const config = out();
    const child = modelRun(config);
    try {
      await untilBothDown(child);
      const second = await runCli(['games'], { env: { GAMEPILOT_CONFIG_DIR: config } });
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).not.toMatch(/released/);
      expect(bothDown()).toBe(true);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.on('exit', r));
      unstall();
    }
    expect(heldInput()).toEqual({ keys: [], buttons: [] });
  });

  it('process.exit() while a key is held releases it synchronously and clears the registry entry', async () => {
    const config = out();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'tests', 'helpers', 'hold-and-exit.ts')],
      {
        cwd: ROOT,
        env: { ...process.env, GAMEPILOT_CONFIG_DIR: config },
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    const line = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout!.on('data', (d) => {
        text += d;
        if (text.includes('\n')) resolve(text.trim());
      });
      child.on('exit', (code) => reject(new Error(`hold-and-exit ended early (${code})`)));
    });
    expect(JSON.parse(line)).toEqual([{ action: 'KEY_DOWN', ok: true }]);
    expect(heldInput().keys).toContain(shift);
    const registry = JSON.parse(readFileSync(path.join(config, 'held-input.json'), 'utf8'));
    expect(registry.entries).toEqual([{ owner: expect.objectContaining({ pid: child.pid }), items: ['LeftShift'] }]);
    child.stdin!.write('exit\n');
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(3);
    expect(heldInput()).toEqual({ keys: [], buttons: [] });
    expect(JSON.parse(readFileSync(path.join(config, 'held-input.json'), 'utf8')).entries).toEqual([]);
  });
});
