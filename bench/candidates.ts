/**
 * The Linux candidates measured side by side (the README's Speed tables come from here):
 * capture of a 1280×800 region, encode to a JPEG of long side 1024 at quality 80, one key,
 * one window lookup; built-in 2048 fills the region, as in `gamepilot bench`.
 *
 *     npx tsx bench/candidates.ts [--rounds 60]      (on an X display; not a test, a yardstick)
 *
 * Prints a Markdown table: p50 and p95 in ms per candidate, and the machine's load.
 */
import { loadavg } from 'node:os';
import sharp from 'sharp';
import { getGame } from '../games/index.ts';
import { BuiltinTarget } from '../electron/session/targets.ts';
import { NutCapturer } from '../electron/capture/nut-capturer.ts';
import { ScreenshotDesktopCapturer } from '../electron/capture/screenshot-desktop-capturer.ts';
import { toRgb } from '../electron/capture/encode.ts';
import { NutInputBackend } from '../electron/input/input-backend.ts';
import { percentile } from '../electron/util/time.ts';
import { GetImageGrabber, ShmGrabber } from '../native/x11/capture.ts';
import { XlibWindowManager } from '../native/x11/windows.ts';
import { X11ToolsWindowManager } from '../native/x11-tools.ts';
import { X11InputBackend } from '../native/x11-input.ts';
import { jpegEncoder } from '../native/jpeg.ts';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 60;
const region = { x: 0, y: 0, width: 1280, height: 800 };
const small = { width: 1024, height: 640 };

interface Row {
  stage: string;
  candidate: string;
  p50: number;
  p95: number;
}
const rows: Row[] = [];

async function time(stage: string, candidate: string, f: () => unknown, n = rounds) {
  for (let i = 0; i < 3; i++) await f(); // warm-up
  const t: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await f();
    t.push(performance.now() - t0);
  }
  const r2 = (v: number) => Math.round(v * 100) / 100;
  rows.push({ stage, candidate, p50: r2(percentile(t, 50)), p95: r2(percentile(t, 95)) });
}

const wm = new XlibWindowManager();
const target = await BuiltinTarget.open(getGame('2048'), wm, region);
try {
  const id = (await target.locate()).id;
  await wm.focus(id);
  const load = loadavg()[0]!.toFixed(2);

  const shm = new ShmGrabber();
  const plain = new GetImageGrabber();
  const nut = new NutCapturer();
  await time('capture 1280×800', 'nut-js grabRegion (libnut XGetImage, BGRA)', () => nut.grab(region));
  await time(
    'capture 1280×800',
    'screenshot-desktop (spawns ImageMagick import)',
    () => new ScreenshotDesktopCapturer().grab(region),
    5,
  );
  await time('capture 1280×800', 'XGetImage via koffi, 32-bit copy', () => plain.grab(region, { layout: 'native' }));
  await time('capture 1280×800', 'XGetImage via koffi, packed to RGB', () => plain.grab(region));
  await time('capture 1280×800', 'XShmGetImage via koffi, 32-bit copy', () => shm.grab(region, { layout: 'native' }));
  await time('capture 1280×800', 'XShmGetImage via koffi, packed to RGB', () => shm.grab(region));
  await time('capture → 1024×640', 'XRender bilinear in the server + XShmGetImage, copied into a new buffer', () =>
    shm.grab(region, { layout: 'native', size: small }),
  );
  await time('capture → 1024×640', 'XRender bilinear + XShmGetImage, left in the segment (two in turn)', () =>
    shm.grab(region, { layout: 'native', size: small, reuse: true }),
  );

  const full = shm.grab(region, { layout: 'native' });
  const fullRgb = toRgb({ data: full.data, width: 1280, height: 800, channels: 4, order: 'bgra' }).data;
  const scaled = shm.grab(region, { layout: 'native', size: small });
  const scaledRgb = toRgb({ data: scaled.data, ...small, channels: 4, order: 'bgra' }).data;
  const jpeg = { quality: 80, optimiseCoding: false };
  const resize = { ...small, kernel: 'linear' as const, fit: 'fill' as const };
  await time('encode → 1024×640 JPEG q80', 'sharp: BGRA→RGBA swap in JS, removeAlpha, resize, JPEG (before)', () => {
    const swapped = Buffer.allocUnsafe(full.data.length);
    const a = new Uint32Array(full.data.buffer, full.data.byteOffset, full.data.length >>> 2);
    const b = new Uint32Array(swapped.buffer, swapped.byteOffset, swapped.length >>> 2);
    for (let i = 0; i < a.length; i++) {
      const v = a[i]!;
      b[i] = (v & 0xff00ff00) | ((v & 0xff) << 16) | ((v >>> 16) & 0xff);
    }
    return sharp(swapped, { raw: { width: 1280, height: 800, channels: 4 } })
      .removeAlpha()
      .resize(resize)
      .jpeg(jpeg)
      .toBuffer();
  });
  await time('encode → 1024×640 JPEG q80', 'sharp: pack RGB in JS, resize, JPEG', () =>
    sharp(toRgb({ data: full.data, width: 1280, height: 800, channels: 4, order: 'bgra' }).data, {
      raw: { width: 1280, height: 800, channels: 3 },
    })
      .resize(resize)
      .jpeg(jpeg)
      .toBuffer(),
  );
  await time('encode → 1024×640 JPEG q80', 'sharp: resize + JPEG from packed RGB', () =>
    sharp(fullRgb, { raw: { width: 1280, height: 800, channels: 3 } })
      .resize(resize)
      .jpeg(jpeg)
      .toBuffer(),
  );
  await time('encode 1024×640 (scaled in the server) → JPEG q80', 'sharp from packed RGB', () =>
    sharp(scaledRgb, { raw: { ...small, channels: 3 } })
      .jpeg(jpeg)
      .toBuffer(),
  );
  await time('encode 1024×640 (scaled in the server) → JPEG q80', 'sharp from BGRA (removeAlpha in libvips)', () =>
    sharp(scaled.data, { raw: { ...small, channels: 4 } })
      .removeAlpha()
      .jpeg(jpeg)
      .toBuffer(),
  );
  const tj = jpegEncoder();
  if (tj)
    await time('encode 1024×640 (scaled in the server) → JPEG q80', `TurboJPEG (${tj.name}), straight from BGRX`, () =>
      tj.encode(scaled.data, small, 'bgrx', 80),
    );

  const tools = new X11ToolsWindowManager();
  await time('locate (window facts)', 'xwininfo + parse (a process a call)', () => tools.get(id), 20);
  await time('locate (window facts)', 'libX11 via koffi, one connection', () => wm.get(id));
  await time('locate (window facts)', 'the last look, the window watch silent (one XSync)', () =>
    target.locate({ reuse: true }),
  );
  await time('locate (active window)', 'xdotool getactivewindow', () => tools.activeId(), 20);
  await time('locate (active window)', 'libX11 via koffi (_NET_ACTIVE_WINDOW)', () => wm.activeId());

  const nutInput = new NutInputBackend();
  const xtest = new X11InputBackend();
  const press = (b: { keyDown(k: string): Promise<void>; keyUp(k: string): Promise<void> }) => async () => {
    await b.keyDown('LeftShift');
    await b.keyUp('LeftShift');
  };
  await time('one key (press + release)', 'nut-js (libnut XTest, autoDelayMs 0)', press(nutInput));
  await time('one key (press + release)', 'XTest via koffi on the same connection', press(xtest));

  console.log(`load average ${load} (1 min) at the start; ${rounds} rounds per candidate\n`);
  console.log('| stage | candidate | p50 ms | p95 ms |\n|---|---|---:|---:|');
  for (const r of rows) console.log(`| ${r.stage} | ${r.candidate} | ${r.p50} | ${r.p95} |`);
} finally {
  await target.close();
}
