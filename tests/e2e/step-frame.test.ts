/**
 * Steps on a real window, as a user runs them (`gamepilot run --window`): a pointer step (a
 * CLICK that is sent) asks the window system where its window is at most once, and the frame
 * each step captured (handed from the X server's shared memory straight to the encoder) is the
 * window's content: the same pixels a reference grab sees — nut-js on its own X connection, and
 * a copied-out grab at the size the X server scaled the frames to.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, runCli, testModelArgs } from '../helpers/cli.ts';
import { clickProbeWindow, placeWindow, settled, stop } from '../helpers/windows.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { NutCapturer } from '../../electron/capture/nut-capturer.ts';
import { X11Capturer } from '../../electron/capture/x11-capturer.ts';
import { encodeFrame, type EncodeOptions } from '../../electron/capture/encode.ts';
import type { WindowInfo } from '../../native/index.ts';
import type { SessionStepRecord } from '../../electron/session/session-types.ts';

const TITLE = 'gp-step';
/** The probe's green square, in page (= window) pixels, and its centre. */
const SQUARE = { x: 200, y: 150 };
const CENTRE = { x: SQUARE.x + 20, y: SQUARE.y + 20 };
const STEPS = 3;

let probe: { child: ChildProcess; window: WindowInfo };
let win: WindowInfo;
let server: FakeOpenAI;
/** The long side of the frames the current run sends: the model clicks the square's centre in them. */
let longSide = 1280;

beforeAll(async () => {
  probe = await clickProbeWindow(TITLE, { x: 300, y: 150, width: 500, height: 400 }, SQUARE);
  win = await placeWindow(probe.window.id, 300, 150);
  server = await new FakeOpenAI(() => {
    const scale = Math.min(1, longSide / Math.max(win.bounds.width, win.bounds.height));
    const at = { x: Math.round(CENTRE.x * scale), y: Math.round(CENTRE.y * scale) };
    return { text: answer('click the green square', [{ action_type: 'CLICK', parameters: at }]) };
  }).start();
});

afterAll(async () => {
  await server?.close();
  if (probe) await stop(probe.child);
});

/** `STEPS` steps of clicks on the probe, its frames sent (and kept) at long side `imageSize`. */
async function clicks(imageSize: number) {
  longSide = imageSize;
  const r = await runCli([
    'run',
    '--window-id',
    win.id,
    ...testModelArgs(server.baseURL),
    '--max-steps',
    String(STEPS),
    '--image-size',
    String(imageSize),
    '--quality',
    '80',
    '--runs-dir',
    mkdtempSync(path.join(tmpdir(), 'gp-step-frame-')),
    '--json',
  ]);
  expect(r.code, r.stderr).toBe(0);
  const { run_dir } = json(r);
  const steps = readRun(run_dir).steps as SessionStepRecord[];
  expect(steps).toHaveLength(STEPS);
  return steps.map((s) => ({ ...s, jpeg: readFileSync(path.join(run_dir, s.frame!)) }));
}

const encoding = (imageSize: number): EncodeOptions => ({ imageSize, format: 'jpeg', quality: 80 });

describe('a pointer step on a real window', () => {
  it('locates the window at most once, sends its click, and captures what the window shows', async () => {
    const before = (await settled(win.id)).title;
    const steps = await clicks(1280);
    for (const s of steps) {
      expect(s.outcomes).toEqual([expect.objectContaining({ action: 'CLICK', ok: true })]);
      expect(s.errors).toEqual([]);
      // Its look (reused unless the window's events said it changed: the click retitles the
      // page) and the check before the click together asked at most once.
      expect(s.window_lookups).toBeLessThanOrEqual(1);
    }
    expect(before).toBe(TITLE);
    // Every click reached the square.
    await expect.poll(async () => (await settled(win.id)).title).toMatch(new RegExp(`^${TITLE} hit ${STEPS} `));

    // The page does not change when clicked: each step's frame is what the window shows now, as
    // nut-js reads it, encoded the same way.
    const reference = await encodeFrame(await new NutCapturer().grab(win.bounds), encoding(1280));
    expect([reference.width, reference.height]).toEqual([win.bounds.width, win.bounds.height]);
    for (const s of steps) {
      expect(s.window).toEqual(win.bounds);
      expect(s.jpeg.equals(reference.data), `step ${s.step}'s frame`).toBe(true);
    }
  });

  it('frames scaled by the X server are those pixels too', async () => {
    const steps = await clicks(300);
    for (const s of steps) expect(s.outcomes).toEqual([expect.objectContaining({ action: 'CLICK', ok: true })]);
    // A grab of its own (copied out of the shared memory), scaled to the same size.
    const raw = await new X11Capturer().grab(win.bounds, { maxLongSide: 300 });
    const reference = await encodeFrame(raw, encoding(300));
    expect(Math.max(reference.width, reference.height)).toBe(300);
    for (const s of steps) {
      expect(s.frame_size).toMatchObject({ width: reference.width, height: reference.height });
      expect(s.jpeg.equals(reference.data), `step ${s.step}'s frame`).toBe(true);
    }
  });
});
