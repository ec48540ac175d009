/**
 * The in-process X11 backends (libX11 through koffi, one connection): windows agree with the
 * command-line tools they replace, a closed window is "gone" and never an exit, the XShm capture
 * sees what nut-js sees (scaled in the server when asked), the TurboJPEG path (the libjpeg-turbo
 * shipped in @julusian/jpeg-turbo, chosen without any system package) encodes it in the right
 * colours, XTest keys, text, clicks and the wheel reach a real window, the damage watch tells a
 * window that drew from one that did not, and the window watch says when a real game window
 * moved, was minimized, retitled or closed.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { X11Capturer } from '../../electron/capture/x11-capturer.ts';
import { NutCapturer } from '../../electron/capture/nut-capturer.ts';
import { createCapturer } from '../../electron/capture/index.ts';
import { encodeFrame, frameEncoder, toRgb } from '../../electron/capture/encode.ts';
import { createInputBackend } from '../../electron/input/input-backend.ts';
import { createWindowManager, type WindowInfo } from '../../native/index.ts';
import { XlibWindowManager } from '../../native/x11/windows.ts';
import { X11ToolsWindowManager } from '../../native/x11-tools.ts';
import { GetImageGrabber, ShmGrabber, ShmImage } from '../../native/x11/capture.ts';
import { xConnection } from '../../native/x11/xlib.ts';
import { X11InputBackend } from '../../native/x11-input.ts';
import { jpegEncoder } from '../../native/jpeg.ts';
import { PREBUILT_JPEG_NAME } from '../../native/jpeg-prebuilt.ts';
import {
  activate,
  clickProbeWindow,
  decimal,
  drawerWindow,
  minimize,
  pageWindow,
  settled,
  solidWindow,
  startWindow,
  stop,
  xdo,
} from '../helpers/windows.ts';
import { heldInput } from '../helpers/xinput.ts';

type Started = { child: ChildProcess; window: WindowInfo };
const xlib = new XlibWindowManager();
const tools = new X11ToolsWindowManager();
const started: Started[] = [];

async function open(p: Promise<Started>): Promise<Started> {
  const w = await p;
  started.push(w);
  await new Promise((r) => setTimeout(r, 400)); // the first paint
  return w;
}

afterAll(async () => {
  for (const w of started) await stop(w.child);
});

/** The pixel at (x, y) of an encoded image, as RGB. */
async function pixelOf(image: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

describe('the backends chosen on Linux', () => {
  it('are the in-process ones when libX11 loads', () => {
    expect(createWindowManager()).toBeInstanceOf(XlibWindowManager);
    expect(createCapturer()).toBeInstanceOf(X11Capturer);
    expect(createInputBackend().name).toBe('xtest');
  });
});

describe('windows over one X connection', () => {
  let a: Started;
  let b: Started;
  beforeAll(async () => {
    a = await open(solidWindow('#3060c0', 'gp-native-a', { x: 60, y: 80, width: 320, height: 240 }));
    b = await open(solidWindow('#c06030', 'gp-native-b', { x: 500, y: 120, width: 301, height: 203 }));
  });

  it('lists, locates and orders windows as wmctrl/xwininfo/xprop/xdotool do', async () => {
    for (const w of [a, b]) expect(await xlib.get(w.window.id)).toEqual(await tools.get(w.window.id));
    const mine = (list: WindowInfo[]) => list.filter((w) => /^gp-native-/.test(w.title));
    expect(mine(await xlib.list())).toEqual(mine(await tools.list()));
    expect(await xlib.stacking()).toEqual(await tools.stacking());
    expect(await xlib.activeId()).toEqual(await tools.activeId());
    const got = await xlib.get(b.window.id);
    expect(got).toMatchObject({ title: 'gp-native-b', pid: expect.any(Number), minimized: false });
    expect(got!.bounds).toMatchObject({ width: 301, height: 203 });
  });

  it('sees a minimized window, and focus brings it back on top', async () => {
    minimize(a.window.id);
    await expect.poll(async () => (await tools.get(a.window.id))?.minimized).toBe(true);
    expect((await xlib.get(a.window.id))?.minimized).toBe(true);
    await xlib.focus(a.window.id);
    await expect.poll(() => xlib.activeId()).toBe(a.window.id);
    await expect.poll(async () => (await xlib.get(a.window.id))?.minimized).toBe(false);
    await expect.poll(async () => (await xlib.stacking()).at(-1)).toBe(a.window.id);
  });

  it('raises the active window when another one was raised above it without the focus', async () => {
    await xlib.focus(a.window.id);
    await expect.poll(async () => (await xlib.stacking()).at(-1)).toBe(a.window.id);
    // A client's own raise request: openbox honours it and leaves the focus where it was.
    execFileSync('xdotool', ['windowraise', b.window.id]);
    await expect.poll(async () => (await xlib.stacking()).at(-1)).toBe(b.window.id);
    expect(await xlib.activeId()).toBe(a.window.id);
    await xlib.focus(a.window.id);
    await expect.poll(async () => (await xlib.stacking()).at(-1)).toBe(a.window.id);
  });

  it('treats a closed window as gone: no X error ends the process', async () => {
    const c = await open(solidWindow('#808080', 'gp-native-closing', { x: 200, y: 200, width: 200, height: 150 }));
    const id = c.window.id;
    await stop(c.child);
    await expect.poll(async () => tools.get(id)).toBeUndefined();
    // Each of these makes requests about a window that no longer exists (BadWindow): Xlib's
    // default handler would print and exit().
    expect(await xlib.get(id)).toBeUndefined();
    await xlib.focus(id);
    expect(await xlib.get('0x00abcdef')).toBeUndefined();
    await xlib.focus('0x00abcdef');
    xlib.watchChanges(id)?.close();
    expect((await xlib.list()).map((w) => w.id)).not.toContain(id);
    expect(await xlib.get(b.window.id)).toBeDefined();
  });
});

describe('XShm capture', () => {
  let w: Started;
  beforeAll(async () => {
    w = await open(solidWindow('#20a040', 'gp-native-colour', { x: 100, y: 120, width: 402, height: 251 }));
    await xlib.focus(w.window.id);
    // Compared grabs must see a finished picture: wait until the whole window shows its colour
    // (under load Chromium painted it between two grabs once, after the 400 ms first-paint wait).
    const painted = async () => {
      const raw = toRgb(await new X11Capturer().grab((await xlib.get(w.window.id))!.bounds)).data;
      for (let i = 0; i < raw.length; i += 3)
        if (raw[i] !== 0x20 || raw[i + 1] !== 0xa0 || raw[i + 2] !== 0x40) return false;
      return true;
    };
    const deadline = Date.now() + 20_000;
    while (!(await painted())) {
      if (Date.now() > deadline) throw new Error('gp-native-colour never showed its colour');
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  it('grabs the same pixels as nut-js, and XGetImage the same as XShm', async () => {
    const bounds = (await xlib.get(w.window.id))!.bounds;
    const ours = await new X11Capturer().grab(bounds);
    const nut = await new NutCapturer().grab(bounds);
    expect([ours.width, ours.height]).toEqual([bounds.width, bounds.height]);
    expect(toRgb(ours).data.equals(toRgb(nut).data)).toBe(true);
    // An odd region (width not a multiple of 4, off the origin), both ways of reading.
    const odd = { x: bounds.x + 3, y: bounds.y + 5, width: 333, height: 77 };
    const shm = new ShmGrabber().grab(odd);
    const plain = new GetImageGrabber().grab(odd);
    expect(shm.data.length).toBe(333 * 77 * 3);
    expect(shm.data.equals(plain.data)).toBe(true);
    expect([...shm.data.subarray(0, 3)]).toEqual([0x20, 0xa0, 0x40]);
  });

  it('with reuseBuffers hands out two shared segments in turn, each holding its own grab, as a copy would', async () => {
    const bounds = (await xlib.get(w.window.id))!.bounds;
    // Half the window and half what lies beside it: other pixels than the window's alone.
    const beside = { ...bounds, x: bounds.x + Math.floor(bounds.width / 2) };
    const cap = new X11Capturer();
    const copy = (region: typeof bounds, o: { maxLongSide?: number } = {}) => cap.grab(region, o);
    const a = await cap.grab(bounds, { reuseBuffers: true });
    const b = await cap.grab(beside, { reuseBuffers: true });
    const c = await cap.grab(bounds, { reuseBuffers: true });
    expect(b.data.buffer).not.toBe(a.data.buffer);
    expect(c.data.buffer).toBe(a.data.buffer); // the second next grab writes where the first one's pixels were
    const own = await copy(bounds); // without the option: a buffer of its own
    expect(own.data.buffer).not.toBe(a.data.buffer);
    expect(own.data.buffer).not.toBe(b.data.buffer);
    expect(c.data.equals(own.data)).toBe(true);
    const besideNow = (await copy(beside)).data;
    expect(besideNow.equals(own.data)).toBe(false); // the two regions really differ…
    expect(b.data.equals(besideNow)).toBe(true); // …and the grab after b's left it alone
    // Another size, scaled in the server, in b's segment: the same pixels as copied out.
    const small = await cap.grab(bounds, { maxLongSide: 300, reuseBuffers: true });
    expect(small.data.buffer).toBe(b.data.buffer);
    expect(small.data.length).toBe(small.width * small.height * 4);
    expect(small.data.equals((await copy(bounds, { maxLongSide: 300 })).data)).toBe(true);
    expect(c.data.equals(own.data)).toBe(true);
  });

  it('scales in the server when the frame is sent smaller, keeping the geometry exact', async () => {
    const bounds = (await xlib.get(w.window.id))!.bounds;
    const raw = await new X11Capturer().grab(bounds, { maxLongSide: 300 });
    expect(raw.source).toEqual({ width: bounds.width, height: bounds.height });
    expect(Math.max(raw.width, raw.height)).toBe(300);
    const jpeg = await encodeFrame(raw, { imageSize: 300, format: 'jpeg', quality: 80 });
    expect([jpeg.width, jpeg.height]).toEqual([raw.width, raw.height]);
    expect(jpeg.scale).toBeCloseTo(300 / bounds.width, 6);
    const mid = await pixelOf(jpeg.data, Math.floor(jpeg.width / 2), Math.floor(jpeg.height / 2));
    for (const [i, v] of mid.entries()) expect(Math.abs(v - [0x20, 0xa0, 0x40][i]!)).toBeLessThanOrEqual(4);
    const png = await encodeFrame(raw, { imageSize: 300, format: 'png', quality: 80 });
    expect(await pixelOf(png.data, Math.floor(png.width / 2), Math.floor(png.height / 2))).toEqual([0x20, 0xa0, 0x40]);
  });

  it('keeps a segment mapped while pixels in it are still viewed, even once the server let go of it', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const mapped = () =>
      readFileSync('/proc/self/maps', 'utf8')
        .split('\n')
        .filter((l) => l.includes('SYSV')).length;
    const collect = async () => {
      for (let i = 0; i < 5; i++) {
        gc();
        await new Promise((r) => setTimeout(r, 20)); // finalizers run in a later task
      }
    };
    const bounds = (await xlib.get(w.window.id))!.bounds;
    await collect();
    const before = mapped();
    const held: { pixels?: Uint8Array } = {};
    (() => {
      const shm = new ShmImage(xConnection(), bounds.width * bounds.height * 4);
      held.pixels = shm.read(xConnection().root, bounds).memory.subarray(0, 4);
      shm.close(); // as when a segment is replaced by a larger one
    })();
    await collect();
    expect(mapped()).toBe(before + 1);
    expect([...held.pixels!.subarray(0, 3)]).toEqual([0x40, 0xa0, 0x20]); // BGRX of the window's colour
    delete held.pixels;
    await collect();
    expect(mapped()).toBe(before);
  });

  it('refuses a region off the screen with a clear error', async () => {
    const screen = await new X11Capturer().screenBounds();
    await expect(new X11Capturer().grab({ x: screen.width - 10, y: 0, width: 50, height: 50 })).rejects.toThrow(
      /reaches beyond the .* screen/,
    );
  });

  it('encodes with libjpeg-turbo straight from the 32-bit pixels, as sharp would from RGB', async () => {
    const tj = jpegEncoder();
    // Whether or not the system's libturbojpeg is installed (.ci/run installs it): the package's own.
    expect(tj?.name).toBe(PREBUILT_JPEG_NAME);
    const bounds = (await xlib.get(w.window.id))!.bounds;
    const raw = await new X11Capturer().grab(bounds);
    expect([raw.channels, raw.order]).toEqual([4, 'bgra']);
    const options = { imageSize: Math.max(raw.width, raw.height), format: 'jpeg', quality: 80 } as const;
    expect(frameEncoder(raw, options)).toBe(PREBUILT_JPEG_NAME);
    const direct = tj!.encode(raw.data, raw, 'bgrx', 80);
    expect((await encodeFrame(raw, options)).data.equals(direct)).toBe(true);
    const viaSharp = await sharp(toRgb(raw).data, { raw: { width: raw.width, height: raw.height, channels: 3 } })
      .jpeg({ quality: 80 })
      .toBuffer();
    const a = await sharp(direct).raw().toBuffer();
    const b = await sharp(viaSharp).raw().toBuffer();
    expect(a.length).toBe(b.length);
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff += Math.abs(a[i]! - b[i]!);
    expect(diff / a.length).toBeLessThan(1);
    expect(() => tj!.encode(Buffer.alloc(10), { width: 100, height: 100 }, 'rgb', 80)).toThrow(/do not hold/);
  });
});

describe('XTest input on the same connection', () => {
  const input = new X11InputBackend();
  // Titled `gp-keys` once its listeners are in place and a frame is drawn: Chromium drops input
  // that reaches a page before its first frame (under load, later than open()'s 400 ms).
  const probeHtml =
    '<title>gp-keys loading</title><body style="margin:0;background:#102030"><script>' +
    "let s='';const show=()=>{document.title='gp-keys '+s;};" +
    "addEventListener('keydown',(e)=>{s+=e.key.length===1?e.key:'['+e.key+']';show();});" +
    "addEventListener('wheel',(e)=>{s+='{'+Math.sign(e.deltaY)+','+Math.sign(e.deltaX)+'}';show();},{passive:true});" +
    "requestAnimationFrame(()=>requestAnimationFrame(()=>{document.title='gp-keys';}));" +
    '</script></body>';
  let keys: Started;
  beforeAll(async () => {
    keys = await open(pageWindow(probeHtml, 'gp-keys', { x: 120, y: 100, width: 400, height: 300 }));
  });
  const title = async () => (await xlib.get(keys.window.id))?.title ?? '';

  it('presses keys by nut-js name, with Shift as the caller holds it', async () => {
    await xlib.focus(keys.window.id);
    await expect.poll(() => xlib.activeId()).toBe(keys.window.id);
    for (const k of ['A', 'Num1', 'Space', 'F2', 'Left']) {
      await input.keyDown(k);
      await input.keyUp(k);
    }
    await input.keyDown('LeftShift');
    await input.keyDown('B');
    await input.keyUp('B');
    await input.keyUp('LeftShift');
    await expect.poll(title).toBe('gp-keys a1 [F2][ArrowLeft][Shift]B');
    await expect(input.keyDown('NoSuchKey')).rejects.toThrow(/unknown key/);
    expect(heldInput().keys).toEqual([]);
  });

  it('types text with the Shift each character needs', async () => {
    const before = await title();
    await input.type('Hi, you!');
    await expect.poll(title).toBe(`${before}[Shift]Hi, you[Shift]!`);
    expect(heldInput().keys).toEqual([]);
  });

  it('types characters the keyboard lacks through borrowed keycodes, and gives them back', async () => {
    // xev (an Xlib client, as GTK ones are) prints what each key press types.
    const emptyKeycodes = () => execFileSync('xmodmap', ['-pke'], { encoding: 'utf8' }).match(/= *$/gm)?.length ?? 0;
    const empty = emptyKeycodes();
    const xev = spawn('xev', ['-event', 'keyboard'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    xev.stdout.on('data', (d) => {
      out += d;
    });
    try {
      const typed = () =>
        [...out.matchAll(/KeyPress event[\s\S]*?XLookupString gives \d+ bytes: (?:\([0-9a-f ]*\) )?"([^"]*)"/g)]
          .map((m) => m[1])
          .join('');
      await expect.poll(async () => (await xlib.list()).find((w) => w.title === 'Event Tester')).toBeDefined();
      const tester = (await xlib.list()).find((w) => w.title === 'Event Tester')!;
      await xlib.focus(tester.id);
      await expect.poll(() => xlib.activeId()).toBe(tester.id);
      await input.type('aé✓b→c é!');
      await expect.poll(typed).toBe('aé✓b→c é!');
      // Given back a second after the last key, not at once: a busy client reads them late.
      await expect.poll(emptyKeycodes).toBe(empty);
      expect(heldInput().keys).toEqual([]);
    } finally {
      xev.kill();
    }
  });

  it('scrolls the wheel by notches', async () => {
    const before = await title();
    const b = (await xlib.get(keys.window.id))!.bounds;
    await input.move(b.x + 50, b.y + 50);
    // One notch at a time: Chromium may merge wheel events that arrive together.
    await input.scroll(0, 1);
    await expect.poll(title).toBe(`${before}{1,0}`);
    await input.scroll(0, -1);
    await expect.poll(title).toBe(`${before}{1,0}{-1,0}`);
    await input.scroll(1, 0);
    await expect.poll(title).toBe(`${before}{1,0}{-1,0}{0,1}`);
  });

  it('moves the pointer and clicks where it is', async () => {
    const probe = await open(
      clickProbeWindow('gp-click', { x: 600, y: 300, width: 300, height: 200 }, { x: 100, y: 60 }),
    );
    await xlib.focus(probe.window.id);
    const b = (await xlib.get(probe.window.id))!.bounds;
    const at = { x: b.x + 120, y: b.y + 80 };
    await input.move(at.x, at.y);
    expect(await input.position()).toEqual(at);
    await input.button('down', 'left');
    await input.button('up', 'left');
    await expect.poll(async () => (await xlib.get(probe.window.id))?.title).toBe(`gp-click hit 1 ${at.x},${at.y}`);
    expect(heldInput().buttons).toEqual([]);
  });
});

describe('the damage watch', () => {
  it('reports that a window drew its answer, and that an idle one did not', async () => {
    const html =
      '<title>gp-damage</title><body style="margin:0;background:#000"><script>' +
      "let n=0;addEventListener('keydown',()=>{n++;document.body.style.background=n%2?'#0f0':'#00f';});" +
      '</script></body>';
    const page = await open(pageWindow(html, 'gp-damage', { x: 300, y: 200, width: 300, height: 200 }));
    await xlib.focus(page.window.id);
    await new Promise((r) => setTimeout(r, 300));
    const watch = xlib.watchChanges(page.window.id);
    expect(watch).toBeDefined();
    try {
      // Chromium repaints for a while after being focused: wait until it has drawn nothing for 300 ms.
      for (let i = 0; i < 20; i++) {
        watch!.reset(300);
        if (!(await watch!.settled({ quietMs: 300, firstMs: 300, maxMs: 3000 })).changed) break;
      }
      expect(watch!.reset(40).quiet).toBe(true);
      const idle = await watch!.settled({ quietMs: 40, firstMs: 150, maxMs: 1000 });
      expect(idle).toMatchObject({ changed: false, still: true, draws: 0 });
      expect(idle.ms).toBeGreaterThanOrEqual(150);
      expect(watch!.reset(40).quiet).toBe(true);
      const input = new X11InputBackend();
      await input.keyDown('Space');
      await input.keyUp('Space');
      const drew = await watch!.settled({ quietMs: 40, firstMs: 2000, maxMs: 5000 });
      expect(drew).toMatchObject({ changed: true, still: true });
      expect(drew.draws).toBeGreaterThan(0);
    } finally {
      watch!.close();
    }
  });

  it('tells a window that keeps drawing by itself', async () => {
    // A window drawing every 10 ms from one light process (a Chromium page's timer stalls on a
    // loaded machine for longer than the 150 ms the watch calls still). Even this process paused
    // for 150 ms now and then beside busy loops, and then the window did hold still: so it writes
    // down when it drew, and only a span in which it drew at least every 100 ms is judged.
    const log = path.join(mkdtempSync(path.join(tmpdir(), 'gp-drawer-')), 'draws');
    const page = await open(drawerWindow('gp-busy', { x: 700, y: 200, width: 200, height: 150 }, 10, log));
    const watch = xlib.watchChanges(page.window.id)!;
    const epochMs = () => performance.timeOrigin + performance.now();
    /** The longest the drawer went without drawing from `from` to `to` (epoch ms). */
    const longestPause = (from: number, to: number) => {
      const draws = readFileSync(log, 'utf8').split('\n').filter(Boolean).map(Number);
      const times = [Math.max(...draws.filter((t) => t <= from)), ...draws.filter((t) => t > from && t < to), to];
      return Math.max(...times.slice(1).map((t, i) => t - times[i]!));
    };
    let judged = 0;
    try {
      for (let tries = 0; tries < 10 && judged < 2; tries++) {
        await new Promise((r) => setTimeout(r, 300));
        const from = epochMs();
        const quiet = watch.reset(150).quiet;
        const busy = await watch.settled({ quietMs: 150, firstMs: 150, maxMs: 600 });
        if (longestPause(from - 150, epochMs()) >= 100) continue; // it paused itself: not a window that kept drawing
        judged++;
        expect(quiet).toBe(false);
        expect(busy).toMatchObject({ changed: true, still: false });
      }
    } finally {
      watch.close();
    }
    expect(judged, 'the drawer never drew at least every 100 ms for 750 ms').toBeGreaterThan(0);
  });
});

describe('the window watch', () => {
  /** The window manager and the X server answer in their own time on a loaded machine. */
  const EVENTS = { timeout: 15_000 };

  it('says when a real game window moved, was minimized, retitled or closed, and is quiet otherwise', async () => {
    const game = await open(startWindow('/usr/games/sgt-fifteen', [], /^Fifteen/));
    const id = game.window.id;
    await settled(id);
    const watch = xlib.watchWindow(id);
    const second = xlib.watchWindow(id); // another follower of the same window (one selection per connection)
    try {
      // The first call follows the window (and says true: nothing was seen before it).
      expect(watch.changed()).toBe(true);
      expect(second.changed()).toBe(true);
      // The window manager may still be settling it: a call with nothing new since the last says false.
      await expect.poll(() => watch.changed(), EVENTS).toBe(false);

      // Moved by the window manager: it moves the frame, not the window inside it.
      xdo('windowmove', decimal(id), '220', '160');
      await expect.poll(() => watch.changed(), EVENTS).toBe(true);
      await settled(id);
      second.close(); // the other follower leaving leaves this one listening
      await expect.poll(() => watch.changed(), EVENTS).toBe(false);

      minimize(id);
      await expect.poll(() => watch.changed(), EVENTS).toBe(true);
      expect((await settled(id)).minimized).toBe(true);
      activate(id);
      await expect.poll(async () => (await xlib.get(id))?.minimized, EVENTS).toBe(false);
      await settled(id);
      await expect.poll(() => watch.changed(), EVENTS).toBe(false);

      // Another client's change, done (xdotool waits for the server before it exits): known at
      // once, as a fresh look would see it (the watch syncs with the server before it answers).
      xdo('set_window', '--name', 'Fifteen renamed', decimal(id));
      expect(watch.changed()).toBe(true);
      // A property a look does not read says nothing new.
      xdo('set_window', '--role', 'gp-role', decimal(id));
      expect(watch.changed()).toBe(false);

      await stop(game.child);
      await expect.poll(() => xlib.get(id), EVENTS).toBeUndefined();
      expect(watch.changed()).toBe(true); // its unmap and destroy came before the answer that it is gone
    } finally {
      watch.close();
      second.close();
    }
  });
});
