/**
 * Latency modes against a model that takes its time. Snake (built-in, real time on its own
 * clock): in stop no engine tick passes between the capture the model saw and its action; in
 * normal about two seconds of ticks do. An external animated window is suspended during each
 * inference in stop, and never left stopped: not after the run, the stop hotkey, SIGTERM —
 * and after SIGKILL the next start resumes it.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { prepareRun } from '../../electron/session/compose.ts';
import { parseRunSpec } from '../../electron/run-spec.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { spawnCli, runCli, testModelSpec } from '../helpers/cli.ts';
import { stop } from '../helpers/windows.ts';
import { processState } from '../../native/process.ts';
import { NutCapturer } from '../../electron/capture/nut-capturer.ts';
import type { WindowInfo } from '../../native/index.ts';
import { startWindow } from '../helpers/windows.ts';
import { CHROMIUM_FLAGS, findBrowser } from '../../electron/games/launcher.ts';

const DIRS = ['up', 'right', 'down', 'left'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-lat-'));

describe('Snake with a model that answers after 2 s', () => {
  let server: FakeOpenAI;
  beforeAll(async () => {
    server = await new FakeOpenAI((_b, i) => ({
      text: answer('turn', [{ action_type: 'PRESS', parameters: { key: DIRS[i % 4] } }]),
      delayMs: 2000,
    })).start();
  });
  afterAll(() => server.close());

  async function play(latency: 'stop' | 'normal', steps: number) {
    const { session, target } = await prepareRun(
      parseRunSpec({
        game: 'snake',
        ...testModelSpec(server.baseURL),
        episodes: 1,
        maxSteps: steps,
        seed: 4,
        capture: 'nut',
        latency,
        stopIntervalMs: 500,
      }),
      { outDir: tmp() },
    );
    try {
      await session.run();
    } finally {
      await target.close();
    }
    return readRun(session.store.dir).steps;
  }

  it('stop: drift_ticks is 0 on every step and the world was paused for the call', async () => {
    const steps = await play('stop', 3);
    expect(steps.length).toBeGreaterThanOrEqual(3);
    for (const s of steps) {
      expect(s.latency_mode).toBe('stop');
      expect(s.world).toBe('engine');
      expect(s.drift_ticks).toBe(0);
      expect(s.paused_ms as number).toBeGreaterThan(1900);
    }
  });

  it('normal: about 2 s of ticks pass between capture and action', async () => {
    const steps = await play('normal', 3);
    const drifts = steps.map((s) => s.drift_ticks as number);
    expect(steps.every((s) => s.latency_mode === 'normal' && (s.paused_ms as number) === 0)).toBe(true);
    expect(drifts.filter((d) => d >= 17 && d <= 30).length).toBeGreaterThanOrEqual(steps.length - 1);
  });
});

describe('lcrt with a provider that reports no compute time', () => {
  let server: FakeOpenAI;
  beforeAll(async () => {
    server = await new FakeOpenAI((_b, i) => ({
      text: answer('turn', [{ action_type: 'PRESS', parameters: { key: DIRS[i % 4] } }]),
      delayMs: 800,
    })).start();
    server.networkMs = 600; // each request and answer spends 600 ms on the network
  });
  afterAll(() => server.close());

  it('advances the world by the estimated compute time, not the network time, and records how it was estimated', async () => {
    const { session, target } = await prepareRun(
      parseRunSpec({
        game: 'snake',
        ...testModelSpec(server.baseURL),
        episodes: 1,
        maxSteps: 3,
        seed: 4,
        capture: 'nut',
        latency: 'lcrt',
      }),
      { outDir: tmp() },
    );
    try {
      await session.run();
    } finally {
      await target.close();
    }
    const steps = readRun(session.store.dir).steps;
    expect(steps.length).toBeGreaterThanOrEqual(2);
    for (const s of steps) {
      expect(s).toMatchObject({ latency_mode: 'lcrt', world: 'engine', compute_source: 'estimated' });
      const [compute, rtt, model] = [s.compute_ms as number, s.rtt_ms as number, s.latency_ms.model];
      expect(rtt).toBeGreaterThanOrEqual(600);
      expect(compute).toBeLessThanOrEqual(model - 600); // the network's share is not charged
      expect(compute).toBeGreaterThan(300);
      // The engine ran exactly the charged time (100 ms ticks) between the capture and the action.
      expect(Math.abs((s.drift_ticks as number) - compute / 100)).toBeLessThanOrEqual(1);
    }
  });
});

describe('an external animated window in stop mode', () => {
  let server: FakeOpenAI;
  let win: { child: ChildProcess; window: WindowInfo };
  const observed: { state?: string; still?: boolean }[] = [];

  beforeAll(async () => {
    // A test program that animates: a page that repaints a moving bar and a counter every frame.
    const html = `<title>gp-animated</title><body style="margin:0;background:#123"><div id=b style="position:absolute;top:40px;height:80px;width:60px;background:#fc0"></div><h1 id=n style="color:#fff;margin-top:160px"></h1><script>let i=0;(function f(){i++;b.style.left=(i*7%400)+'px';n.textContent=i;requestAnimationFrame(f)})()</script></body>`;
    const profile = mkdtempSync(path.join(tmpdir(), 'gp-anim-'));
    win = await startWindow(
      findBrowser()!,
      [
        ...CHROMIUM_FLAGS,
        `--user-data-dir=${profile}`,
        '--window-size=480,320',
        '--window-position=700,300',
        `--app=data:text/html,${encodeURIComponent(html)}`,
      ],
      /^gp-animated$/,
    );
    server = await new FakeOpenAI(async () => {
      // While the model "thinks": is the game's process stopped, and does its window stand still?
      await sleep(300);
      const cap = new NutCapturer();
      const a = await cap.grab(win.window.bounds);
      await sleep(300);
      const b = await cap.grab(win.window.bounds);
      observed.push({ state: processState(win.window.pid), still: a.data.equals(b.data) });
      return { text: answer('wait', [{ action_type: 'WAIT', parameters: { duration: 0.1 } }]), delayMs: 400 };
    }).start();
  });

  afterAll(async () => {
    await server.close();
    await stop(win.child);
  });

  it('is animating when left alone', async () => {
    const cap = new NutCapturer();
    const a = await cap.grab(win.window.bounds);
    await sleep(200);
    const b = await cap.grab(win.window.bounds);
    expect(a.data.equals(b.data)).toBe(false);
  });

  it('is suspended during each inference and running afterwards', async () => {
    observed.length = 0;
    const r = await runCli(
      [
        'run',
        '--window',
        '^gp-animated$',
        '--agent',
        'vlm',
        '--model',
        'test-vlm',
        '--base-url',
        server.baseURL,
        '--latency',
        'stop',
        '--stop-interval-ms',
        '300',
        '--max-steps',
        '3',
        '--runs-dir',
        tmp(),
        '--json',
      ],
      { env: { GAMEPILOT_CONFIG_DIR: tmp() } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(observed).toHaveLength(3);
    for (const o of observed) expect(o).toEqual({ state: 'T', still: true });
    const { steps } = readRun(JSON.parse(r.stdout).run_dir);
    expect(steps.every((s) => s.world === 'process' && s.latency_mode === 'stop')).toBe(true);
    expect(steps[0]!.freeze_verified).toBe(true);
    expect(processState(win.window.pid)).not.toBe('T');
  });

  async function whileFrozen(args: string[], env: Record<string, string>, then: (child: ChildProcess) => void) {
    server.setResponder(async () => ({
      text: answer('wait', [{ action_type: 'WAIT', parameters: { duration: 0.1 } }]),
      delayMs: 20000,
    }));
    const child = spawnCli(
      [
        'run',
        '--window',
        '^gp-animated$',
        '--agent',
        'vlm',
        '--model',
        'test-vlm',
        '--base-url',
        server.baseURL,
        '--latency',
        'stop',
        '--max-steps',
        '5',
        '--runs-dir',
        tmp(),
        ...args,
      ],
      env,
    );
    const t0 = Date.now();
    while (processState(win.window.pid) !== 'T') {
      if (Date.now() - t0 > 20000) throw new Error('the window was never suspended');
      await sleep(50);
    }
    const t1 = Date.now();
    then(child);
    const code = await new Promise((r) => child.on('exit', r));
    expect(Date.now() - t1).toBeLessThan(5000); // at once, not when the model would have answered
    return code;
  }

  it('is resumed when the stop hotkey ends the run', async () => {
    const code = await whileFrozen([], { GAMEPILOT_CONFIG_DIR: tmp() }, () =>
      execFileSync('xdotool', ['key', 'ctrl+shift+F12']),
    );
    expect(code).toBe(0);
    expect(processState(win.window.pid)).not.toBe('T');
  });

  it('is resumed when the CLI gets SIGTERM', async () => {
    const code = await whileFrozen([], { GAMEPILOT_CONFIG_DIR: tmp() }, (c) => c.kill('SIGTERM'));
    expect(code).toBe(0);
    expect(processState(win.window.pid)).not.toBe('T');
  });

  it('after SIGKILL, the next start resumes what the crashed run left stopped', async () => {
    const config = tmp();
    await whileFrozen([], { GAMEPILOT_CONFIG_DIR: config }, (c) => c.kill('SIGKILL'));
    expect(processState(win.window.pid)).toBe('T'); // nothing could run in the killed process
    const r = await runCli(
      ['run', '--game', 'tictactoe', '--agent', 'random', '--max-steps', '1', '--runs-dir', tmp(), '--quiet'],
      { env: { GAMEPILOT_CONFIG_DIR: config } },
    );
    expect(r.stderr).toMatch(/resumed process\(es\) \d+/);
    expect(processState(win.window.pid)).not.toBe('T');
  });

  it('a second run does not resume the game a live run froze, and that run keeps an honest paused_ms', async () => {
    const config = tmp();
    // Run A's first call stalls until run B has come and gone; meanwhile the game's state is sampled.
    let letGo = () => {};
    const released = new Promise<void>((r) => (letGo = r));
    const states: string[] = [];
    let stallMs = 0;
    let calls = 0;
    const wait = { text: answer('wait', [{ action_type: 'WAIT', parameters: { duration: 0.1 } }]) };
    server.setResponder(async () => {
      if (calls++ > 0) return wait;
      const t0 = performance.now();
      let done = false;
      void Promise.race([released, sleep(90_000)]).then(() => (done = true));
      while (!done) {
        states.push(processState(win.window.pid) ?? '?');
        await sleep(50);
      }
      stallMs = performance.now() - t0;
      return wait;
    });
    const a = spawnCli(
      [
        'run',
        '--window',
        '^gp-animated$',
        '--agent',
        'vlm',
        '--model',
        'test-vlm',
        '--base-url',
        server.baseURL,
        '--latency',
        'stop',
        '--stop-interval-ms',
        '300',
        '--max-steps',
        '1',
        '--runs-dir',
        tmp(),
        '--json',
      ],
      { GAMEPILOT_CONFIG_DIR: config },
    );
    let stdout = '';
    a.stdout!.on('data', (d) => (stdout += d));
    let b: Awaited<ReturnType<typeof runCli>>;
    let stateAfterB: string | undefined;
    try {
      const t0 = Date.now();
      while (states.length < 3) {
        if (a.exitCode !== null) throw new Error(`run A ended early (${a.exitCode})`);
        if (Date.now() - t0 > 30_000) throw new Error('run A never reached its stalled call');
        await sleep(50);
      }
      b = await runCli(
        ['run', '--game', 'tictactoe', '--agent', 'random', '--max-steps', '1', '--runs-dir', tmp(), '--quiet'],
        { env: { GAMEPILOT_CONFIG_DIR: config } },
      );
      stateAfterB = processState(win.window.pid);
    } finally {
      letGo();
    }
    const code = await new Promise((r) => a.on('exit', r));
    const running = states.filter((st) => st !== 'T').length;
    const { steps } = readRun(JSON.parse(stdout).run_dir);
    console.log(
      `run A stalled ${Math.round(stallMs)} ms while run B started and ended; game state samples: ${states.length}, not stopped: ${running}; state after B: ${stateAfterB}; A's paused_ms for that step: ${steps[0]?.paused_ms}`,
    );
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).not.toMatch(/resumed process/);
    expect(stateAfterB).toBe('T');
    expect(code).toBe(0);
    expect(running).toBe(0);
    expect(steps[0]!.paused_ms as number).toBeGreaterThanOrEqual(stallMs - 50);
    expect(processState(win.window.pid)).not.toBe('T');
  });

  it('refuses to suspend Gamepilot itself or system processes', async () => {
    const { refusal } = await import('../../native/process.ts');
    expect(refusal(process.pid)).toMatch(/Gamepilot itself/);
    expect(refusal(1)).toMatch(/not a game process/);
    // (The CLI runs above suspended this window's browser: to them it is a foreign game process.)
  });
});
