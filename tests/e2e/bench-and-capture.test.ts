/**
 * `gamepilot bench --json` prints every figure it promises (timing itself is not judged here
 * beyond generous bounds), the machine's limit measured in the same run consistent with itself
 * and with the ratio to it, `--compare` beside the Python yardstick on the same region, and the
 * screenshot-desktop fallback captures the same window.
 */
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { json, runCli } from '../helpers/cli.ts';
import { solidWindow, stop } from '../helpers/windows.ts';
import { ScreenshotDesktopCapturer } from '../../electron/capture/screenshot-desktop-capturer.ts';
import { NutCapturer } from '../../electron/capture/nut-capturer.ts';
import { encodeFrame, SHARP_ENCODER } from '../../electron/capture/encode.ts';
import { PREBUILT_JPEG_NAME } from '../../native/jpeg-prebuilt.ts';
import type { BenchResult } from '../../electron/cli/bench.ts';

/**
 * The machine's limit of a bench result: every stage measured, each iteration's total the sum of
 * its stages (so the total's median is at least each stage's, and at most the sum of their p95s:
 * at most 5 % of iterations exceed each), and overhead / limit as the two p50s say.
 */
function expectLimit(b: BenchResult) {
  expect(b.limit_skipped).toBeUndefined();
  const { grab_ms: grab, encode_ms: encode, key_ms: key, total_ms: total } = b.limit!;
  for (const s of [grab, encode, total]) expect(s.p50).toBeGreaterThan(0);
  expect(key.p50).toBeGreaterThanOrEqual(0); // a key is a few µs: it may round to 0.00
  for (const s of [grab, encode, key, total]) expect(s.p95).toBeGreaterThanOrEqual(s.p50);
  expect(total.p50).toBeGreaterThanOrEqual(Math.max(grab.p50, encode.p50, key.p50));
  expect(total.p50).toBeLessThanOrEqual(grab.p95 + encode.p95 + key.p95 + 0.02); // + the rounding to 0.01 ms
  expect(b.limit_p50_ms).toBe(total.p50);
  expect(b.overhead_to_limit).toBeCloseTo(b.overhead_p50_ms / b.limit_p50_ms!, 2);
}

describe('gamepilot bench', () => {
  it('reports per-stage p50/p95, step overhead and loop speed', async () => {
    const r = await runCli(['bench', '--json', '--iterations', '10', '--loop-steps', '10']);
    expect(r.code, r.stderr).toBe(0);
    const b = json(r);
    expect(b.region).toEqual({ width: 1280, height: 800 });
    expect(b.encoded).toMatchObject({ width: 1024, height: 640 });
    for (const k of ['capture_ms', 'encode_ms', 'input_ms']) {
      expect(b[k].p50).toBeGreaterThan(0);
      expect(b[k].p95).toBeGreaterThanOrEqual(b[k].p50);
    }
    expect(b.locate_ms.p50).toBeGreaterThanOrEqual(0); // a window that holds still is not asked about: µs
    expect(b.step_overhead_p50_ms).toBeGreaterThan(0);
    expect(b.step_overhead_p50_ms).toBeLessThan(1000);
    expect(b.iterations).toBe(10);
    expectLimit(b);
    expect(b.loop.steps).toBe(10);
    expect(b.loop.steps_per_second).toBeGreaterThan(0.5);
    expect(b.backends).toEqual({ windows: 'linux-x11', capture: 'x11-shm', input: 'xtest' });
    // The frames come scaled from the server, so they go straight to libjpeg-turbo: the copy
    // inside the npm package, whatever the system has.
    expect(b.encoder).toBe(PREBUILT_JPEG_NAME);
    expect(b.encoder_skipped).toEqual([]);
  });

  it('says which encoder it used in its own words too, and GAMEPILOT_JPEG=sharp makes it sharp', async () => {
    const env = { GAMEPILOT_JPEG: 'sharp' };
    const r = await runCli(['bench', '--json', '--iterations', '5', '--loop-steps', '5'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(json(r).encoder).toBe(SHARP_ENCODER);
    const text = await runCli(['bench', '--iterations', '5', '--loop-steps', '5']);
    expect(text.code, text.stderr).toBe(0);
    const name = PREBUILT_JPEG_NAME.replace(/[()]/g, '\\$&');
    expect(text.stdout).toMatch(new RegExp(`^harness cost per step \\(.*, encoder ${name}\\)$`, 'm'));
    expect(text.stdout).toMatch(new RegExp(`^machine limit \\(.*, ${name} from the shared memory, .*\\)$`, 'm'));
    expect(text.stdout).toMatch(/^ {2}grab +p50 +[\d.]+ ms +p95 +[\d.]+ ms$/m);
    expect(text.stdout).toMatch(/^overhead \/ limit \(p50\): [\d.]+$/m);
  });

  it('--compare runs bench/reference.py on the same region and gives the ratio', async () => {
    const r = await runCli(['bench', '--compare', '--json', '--iterations', '9', '--loop-steps', '5']);
    expect(r.code, r.stderr).toBe(0);
    const b = json(r);
    expect(b.overhead_p50_ms).toBeGreaterThan(0);
    expect(b.reference_p50_ms).toBeGreaterThan(0);
    expect(b.ratio).toBeCloseTo(b.overhead_p50_ms / b.reference_p50_ms, 2);
    expect(b.reference.command).toMatch(/bench\/reference\.py --region 0,0,1280,800 --iterations 3$/);
    expect(b.reference.tools).toMatchObject({ pillow: expect.any(String), 'python-xlib': expect.any(String) });
    for (const k of ['capture_ms', 'encode_ms', 'input_ms', 'total_ms']) expect(b.reference[k].p50).toBeGreaterThan(0);
    expect(b.iterations).toBe(9);
    expectLimit(b); // measured in the same rounds as the yardstick
  });

  it('--compare says what it needs when the interpreter lacks Pillow or python-xlib', async () => {
    const r = await runCli(['bench', '--compare', '--python', '/nonexistent/python3', '--iterations', '5']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/python3-pil python3-xlib/);
  });
});

describe('capture backends', () => {
  it('nut-js and screenshot-desktop see the same window pixels, in the right colours', async () => {
    const w = await solidWindow('#20a040', 'gp-colour', { x: 100, y: 120, width: 200, height: 150 });
    try {
      await new Promise((r) => setTimeout(r, 500));
      for (const capturer of [new NutCapturer(), new ScreenshotDesktopCapturer()]) {
        const raw = await capturer.grab(w.window.bounds);
        expect([raw.width, raw.height]).toEqual([w.window.bounds.width, w.window.bounds.height]);
        const png = await encodeFrame(raw, { imageSize: 1280, format: 'png', quality: 80 });
        const { data } = await sharp(png.data).raw().toBuffer({ resolveWithObject: true });
        const mid = (Math.floor(png.height / 2) * png.width + Math.floor(png.width / 2)) * 3;
        expect([data[mid], data[mid + 1], data[mid + 2]], capturer.name).toEqual([0x20, 0xa0, 0x40]);
      }
    } finally {
      await stop(w.child);
    }
  });
});
