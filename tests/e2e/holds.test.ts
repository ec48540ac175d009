/**
 * Timed holds (KEY_DOWN … WAIT … KEY_UP) are acting, not thinking: under stop the world is
 * frozen while the model thinks and runs while its actions apply. Built-in Snake: engine ticks
 * pass during a 1.5 s hold. An external real-time window frozen by process suspension (a test
 * page, then SuperTux from Debian): its process is stopped (state T) while the model thinks,
 * running during the hold, and the hold moves the game.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { prepareRun } from '../../electron/session/compose.ts';
import { parseRunSpec } from '../../electron/run-spec.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { runCli, testModelSpec } from '../helpers/cli.ts';
import { startWindow, stop } from '../helpers/windows.ts';
import { changedShare, startSuperTux } from '../helpers/supertux.ts';
import { processState } from '../../native/process.ts';
import { NutCapturer } from '../../electron/capture/nut-capturer.ts';
import type { Rect, WindowInfo } from '../../native/index.ts';
import { CHROMIUM_FLAGS, findBrowser } from '../../electron/games/launcher.ts';

type Latency = { locate: number; capture: number; encode: number; model: number; act: number; total: number };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-hold-'));
const HOLD = (key: string) => [
  { action_type: 'KEY_DOWN', parameters: { key } },
  { action_type: 'WAIT', parameters: { duration: 1.5 } },
  { action_type: 'KEY_UP', parameters: { key } },
];

describe('built-in Snake under stop: a 1.5 s hold', () => {
  let server: FakeOpenAI;
  beforeAll(async () => {
    server = await new FakeOpenAI(() => ({ text: answer('hold up', HOLD('up')), delayMs: 1000 })).start();
  });
  afterAll(() => server.close());

  it('lets engine ticks pass during the hold, none while the model thinks', async () => {
    const { session, target } = await prepareRun(
      parseRunSpec({
        game: 'snake',
        ...testModelSpec(server.baseURL),
        episodes: 1,
        maxSteps: 2,
        seed: 4,
        capture: 'nut',
        latency: 'stop',
        stopIntervalMs: 300,
      }),
      { outDir: tmp() },
    );
    try {
      await session.run();
    } finally {
      await target.close();
    }
    const { steps } = readRun(session.store.dir);
    expect(steps).toHaveLength(2);
    for (const s of steps) {
      const lat = s.latency_ms as Latency;
      console.log(
        `snake step ${s.step}: drift_ticks ${s.drift_ticks}, act_ticks ${s.act_ticks}, act ${lat.act} ms, paused ${s.paused_ms} ms, model ${lat.model} ms`,
      );
      expect(s.errors).toEqual([]);
      expect(s.latency_mode).toBe('stop');
      expect(s.drift_ticks).toBe(0); // frozen from the capture until the model answered
      expect(lat.act).toBeGreaterThanOrEqual(1450);
      expect(s.act_ticks as number).toBeGreaterThanOrEqual(12); // 100 ms ticks through a 1.5 s hold
      expect(s.paused_ms as number).toBeGreaterThan(900); // the model's second
      expect(s.paused_ms as number).toBeLessThan(lat.model + lat.capture + lat.encode + 500); // but not the hold
      expect((s.view_inputs as { key: string }[]).map((i) => i.key)).toEqual(['ArrowUp']);
    }
  });
});

interface Sample {
  t: number;
  state: string | undefined;
  frame: Buffer;
}

/** Samples a window's process state and pixels every `everyMs` until stopped. */
function sampleWindow(pid: number, bounds: Rect, everyMs = 100) {
  const samples: Sample[] = [];
  const cap = new NutCapturer();
  let running = true;
  const done = (async () => {
    while (running) {
      const t = Date.now();
      const state = processState(pid);
      const frame = (await cap.grab(bounds)).data;
      samples.push({ t, state, frame });
      await sleep(Math.max(0, everyMs - (Date.now() - t)));
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return samples;
    },
  };
}

/** When the step's actions ran (epoch ms), from its record: the hold is the act stage less its set-up. */
function actWindow(step: Record<string, unknown>) {
  const lat = step.latency_ms as Latency;
  const start = (step.t_capture as number) + lat.capture + lat.encode + lat.model;
  return { start, end: start + lat.act };
}

/**
 * Runs `gamepilot run` under stop on a window whose model holds `key` for 1.5 s after `thinkMs`,
 * sampling the window throughout. Returns the samples, the states seen while the model thought,
 * and the run's steps.
 */
async function holdRun(server: FakeOpenAI, win: WindowInfo, key: string, thinkMs: number, extraArgs: string[]) {
  const thinking: { state: string | undefined; still: boolean }[] = [];
  const thinkStates: string[] = [];
  server.setResponder(async (_b, i) => {
    if (i > 0) return { text: answer('look', [{ action_type: 'WAIT', parameters: { duration: 0.1 } }]), delayMs: 300 };
    const cap = new NutCapturer();
    const first = await cap.grab(win.bounds);
    const t0 = Date.now();
    while (Date.now() - t0 < thinkMs) {
      thinkStates.push(processState(win.pid) ?? '?');
      await sleep(50);
    }
    const last = await cap.grab(win.bounds);
    thinking.push({ state: processState(win.pid), still: changedShare(first.data, last.data) === 0 });
    return { text: answer('hold', HOLD(key)) };
  });
  const sampler = sampleWindow(win.pid, win.bounds);
  const r = await runCli(
    [
      'run',
      '--window-id',
      win.id,
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
      '--runs-dir',
      tmp(),
      '--json',
      ...extraArgs,
    ],
    { env: { GAMEPILOT_CONFIG_DIR: tmp() } },
  ).finally(() => sampler.stop());
  const samples = await sampler.stop();
  expect(r.code, r.stderr).toBe(0);
  const dir = JSON.parse(r.stdout).run_dir as string;
  return { samples, thinking, thinkStates, dir, steps: readRun(dir).steps as Record<string, unknown>[] };
}

/** The samples taken well inside the hold (250 ms in from either end). */
function duringHold(samples: Sample[], step: Record<string, unknown>) {
  const w = actWindow(step);
  const holdStart = w.end - 1500; // the WAIT ends the act stage, bar the key-up
  return samples.filter((s) => s.t >= holdStart + 250 && s.t <= w.end - 250);
}

describe('an external real-time page frozen by process suspension (stop)', () => {
  let server: FakeOpenAI;
  let win: { child: ChildProcess; window: WindowInfo };

  beforeAll(async () => {
    // A real-time game in a page: the bar moves right for as long as the right arrow is held.
    // Titled gp-hold once a frame is drawn (Chromium drops input a page gets before its first frame).
    const html = `<title>gp-hold loading</title><body style="margin:0;background:#123"><div id=b style="position:absolute;top:60px;left:0;width:40px;height:120px;background:#fc0"></div><script>let x=0,held=false,last=performance.now();addEventListener('keydown',(e)=>{if(e.key==='ArrowRight')held=true});addEventListener('keyup',(e)=>{if(e.key==='ArrowRight')held=false});(function f(t){if(held)x=(x+Math.max(0,t-last)*0.25)%420;last=t;b.style.left=Math.round(x)+'px';requestAnimationFrame(f)})(last);requestAnimationFrame(()=>requestAnimationFrame(()=>{document.title='gp-hold'}))</script></body>`;
    const profile = mkdtempSync(path.join(tmpdir(), 'gp-hold-page-'));
    win = await startWindow(
      findBrowser()!,
      [
        ...CHROMIUM_FLAGS,
        `--user-data-dir=${profile}`,
        '--window-size=480,320',
        '--window-position=700,300',
        `--app=data:text/html,${encodeURIComponent(html)}`,
      ],
      /^gp-hold$/,
    );
    server = await new FakeOpenAI(() => ({ text: '' })).start();
  });

  afterAll(async () => {
    await server.close();
    await stop(win.child);
  });

  it('a 1.5 s hold of the right arrow moves the game during the hold; the process is stopped only while the model thinks', async () => {
    const { samples, thinking, thinkStates, steps } = await holdRun(server, win.window, 'right', 1200, [
      '--max-steps',
      '1',
    ]);
    const step = steps[0]!;
    const hold = duringHold(samples, step);
    const moved = hold.length >= 2 ? changedShare(hold[0]!.frame, hold.at(-1)!.frame) : NaN;
    // Released, and the game running on: nothing moves.
    const cap = new NutCapturer();
    const a = await cap.grab(win.window.bounds);
    await sleep(500);
    const idle = changedShare(a.data, (await cap.grab(win.window.bounds)).data);
    console.log(
      `page: while thinking ${thinkStates.length} state samples: ${[...new Set(thinkStates)].join(',')}; during the hold ${hold.length} samples: ${[...new Set(hold.map((s) => s.state))].join(',')}, pixels changed ${(moved * 100).toFixed(1)} %; released and idle: ${(idle * 100).toFixed(2)} % changed; act ${(step.latency_ms as Latency).act} ms, paused ${step.paused_ms} ms`,
    );
    expect(step.errors).toEqual([]);
    expect(step.world).toBe('process');
    expect(thinkStates.length).toBeGreaterThan(10);
    expect(thinkStates.every((s) => s === 'T')).toBe(true);
    expect(thinking).toEqual([{ state: 'T', still: true }]);
    expect(hold.length).toBeGreaterThanOrEqual(3);
    expect(hold.every((s) => s.state !== 'T')).toBe(true);
    expect(moved).toBeGreaterThan(0.02); // the bar (40×120 of 480×320 pixels) moved
    expect(idle).toBe(0); // and moves only while the key is held
    expect(processState(win.window.pid)).not.toBe('T');
  });
});

describe('SuperTux (Debian package) under stop', () => {
  let server: FakeOpenAI;
  let game: { child: ChildProcess; window: WindowInfo };

  beforeAll(async () => {
    game = await startSuperTux();
    server = await new FakeOpenAI(() => ({ text: '' })).start();
  }, 90_000);

  afterAll(async () => {
    await server?.close();
    if (game) await stop(game.child);
  });

  it("is stopped while the model thinks, and the model's 1.5 s hold of the right arrow walks Tux while it runs", async () => {
    const { samples, thinking, thinkStates, dir, steps } = await holdRun(server, game.window, 'right', 2000, [
      '--max-steps',
      '2',
    ]);
    const [first, second] = steps;
    expect(first!.errors).toEqual([]);
    expect(first!.world).toBe('process');
    expect(first!.freeze_verified).toBe(true);
    const hold = duringHold(samples, first!);
    const moved = hold.length >= 2 ? changedShare(hold[0]!.frame, hold.at(-1)!.frame) : NaN;
    // The frames the model saw before and after the hold.
    const seen = await Promise.all(
      [first!, second!].map((s) =>
        sharp(path.join(dir, s.frame as string))
          .ensureAlpha()
          .raw()
          .toBuffer(),
      ),
    );
    const beforeAfter = changedShare(seen[0]!, seen[1]!);
    const lat = first!.latency_ms as Latency;
    console.log(
      `supertux: while thinking ${thinkStates.length} /proc/${game.window.pid}/stat samples: ${[...new Set(thinkStates)].join(',')} (still on screen: ${thinking[0]?.still}); during the hold ${hold.length} samples: ${[...new Set(hold.map((s) => s.state))].join(',')}, pixels changed ${(moved * 100).toFixed(1)} %; frames the model saw before/after the hold: ${(beforeAfter * 100).toFixed(1)} % of pixels differ; act ${lat.act} ms, model ${lat.model} ms, paused ${first!.paused_ms} ms`,
    );
    expect(thinkStates.length).toBeGreaterThan(20);
    expect(thinkStates.every((s) => s === 'T')).toBe(true);
    expect(thinking).toEqual([{ state: 'T', still: true }]);
    expect(hold.length).toBeGreaterThanOrEqual(3);
    expect(hold.every((s) => s.state !== 'T')).toBe(true);
    expect(moved).toBeGreaterThan(0.1); // Tux walks and the camera scrolls the level
    expect(beforeAfter).toBeGreaterThan(0.1);
    expect(processState(game.window.pid)).not.toBe('T');
  });
});
