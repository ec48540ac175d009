/**
 * The in-process JPEG encoders: the libjpeg-turbo inside @julusian/jpeg-turbo encodes each pixel
 * layout into a baseline 4:2:0 JPEG that sharp decodes to the right size and colours; the choice
 * between it, the system library and sharp (GAMEPILOT_JPEG forces one, strictly); bad input is
 * an exception before any pixel reaches native code; the binding loads in worker threads,
 * including the recorder's own frame writers.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeFrame, frameEncoder } from '../../electron/capture/encode.ts';
import type { RawFrame } from '../../electron/capture/capturer.ts';
import { FramePool, type FrameDone } from '../../electron/recording/frame-pool.ts';
import { type JpegPixelLayout, selectJpegEncoder, type TurboJpeg } from '../../native/jpeg.ts';
import { loadPrebuiltTurboJpeg, PREBUILT_JPEG_NAME } from '../../native/jpeg-prebuilt.ts';
import { loadSystemTurboJpeg, SYSTEM_JPEG_NAME } from '../../native/turbojpeg.ts';

const prebuilt = loadPrebuiltTurboJpeg();

/** Four quadrants in four colours, each with R, G and B apart so that a channel swap shows. */
const QUADRANTS: [number, number, number][] = [
  [200, 100, 30],
  [20, 180, 90],
  [60, 40, 220],
  [240, 230, 10],
];
const quadrantOf = (x: number, y: number, w: number, h: number) => (y < h / 2 ? 0 : 2) + (x < w / 2 ? 0 : 1);

function picture(width: number, height: number, layout: JpegPixelLayout): Buffer {
  const bytes = layout === 'rgb' ? 3 : 4;
  const data = Buffer.alloc(width * height * bytes, 0x55); // the fourth byte is junk on purpose
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const [r, g, b] = QUADRANTS[quadrantOf(x, y, width, height)]!;
      const i = (y * width + x) * bytes;
      const [c0, c2] = layout === 'bgrx' ? [b, r] : [r, b];
      data[i] = c0;
      data[i + 1] = g;
      data[i + 2] = c2;
    }
  return data;
}

/** Decoded RGB, and each quadrant's mean colour away from its edges (where 4:2:0 blurs). */
async function decode(jpeg: Buffer) {
  const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  const sums = QUADRANTS.map(() => [0, 0, 0, 0]);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const nearEdge = Math.abs(x - width / 2) < 8 || Math.abs(y - height / 2) < 8;
      if (nearEdge || x < 4 || y < 4 || x >= width - 4 || y >= height - 4) continue;
      const s = sums[quadrantOf(x, y, width, height)]!;
      for (let c = 0; c < 3; c++) s[c]! += data[(y * width + x) * channels + c]!;
      s[3]!++;
    }
  return { info, means: sums.map((s) => [s[0]! / s[3]!, s[1]! / s[3]!, s[2]! / s[3]!]) };
}

describe('the prebuilt encoder', () => {
  it('is named so that callers can say which encoder they used', () => {
    expect(prebuilt.name).toBe(PREBUILT_JPEG_NAME);
    expect(PREBUILT_JPEG_NAME).not.toBe(SYSTEM_JPEG_NAME);
  });

  for (const layout of ['rgb', 'rgbx', 'bgrx'] as const)
    it(`encodes ${layout} pixels into a baseline 4:2:0 JPEG of the right size and colours`, async () => {
      const [width, height] = [257, 131]; // neither a multiple of 16: partial blocks at the edges
      const jpeg = prebuilt.encode(picture(width, height, layout), { width, height }, layout, 85);
      const meta = await sharp(jpeg).metadata();
      expect(meta).toMatchObject({ format: 'jpeg', width, height, chromaSubsampling: '4:2:0', isProgressive: false });
      const { info, means } = await decode(jpeg);
      expect([info.width, info.height, info.channels]).toEqual([width, height, 3]);
      for (const [q, mean] of means.entries())
        for (const [c, v] of mean.entries()) expect(Math.abs(v - QUADRANTS[q]![c]!), `quadrant ${q}`).toBeLessThan(3);
    });

  it('clamps the quality to 1..100 and takes a Uint8Array at an offset like a Buffer', () => {
    const [width, height] = [64, 48];
    const pixels = picture(width, height, 'bgrx');
    const at = (q: number) => prebuilt.encode(pixels, { width, height }, 'bgrx', q);
    expect(at(0)).toEqual(at(1));
    expect(at(-20)).toEqual(at(1));
    expect(at(250)).toEqual(at(100));
    expect(at(79.6)).toEqual(at(80));
    expect(at(100).length).toBeGreaterThan(at(1).length);
    const backing = new Uint8Array(pixels.length + 16);
    backing.set(pixels, 16);
    expect(prebuilt.encode(backing.subarray(16), { width, height }, 'bgrx', 80)).toEqual(at(80));
  });

  it('hands back its own copy: a later frame does not change an earlier JPEG', () => {
    const noise = Buffer.alloc(320 * 200 * 3);
    let x = 1;
    for (let i = 0; i < noise.length; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      noise[i] = x >>> 24;
    }
    const big = prebuilt.encode(noise, { width: 320, height: 200 }, 'rgb', 80);
    const kept = Buffer.from(big);
    prebuilt.encode(picture(32, 16, 'rgbx'), { width: 32, height: 16 }, 'rgbx', 10);
    prebuilt.encode(picture(640, 400, 'bgrx'), { width: 640, height: 400 }, 'bgrx', 95);
    expect(big).toEqual(kept);
    // Too large for Buffer's shared pool, so a copy has memory of its own, exactly its size: no
    // view into the worst-case (3 bytes a pixel) output buffer.
    expect(big.length).toBeGreaterThan(Buffer.poolSize >>> 1);
    expect(big.buffer.byteLength).toBe(big.length);
  });

  it('is not loaded at all where the runtime lacks Node-API 10 (it would crash the process, not throw)', () => {
    const real = Object.getOwnPropertyDescriptor(process.versions, 'napi')!;
    Object.defineProperty(process.versions, 'napi', { ...real, value: '9' });
    try {
      expect(() => loadPrebuiltTurboJpeg()).toThrow(/needs Node-API 10 \(Node ≥ 22\.14\); this runtime has 9/);
      const fallback = selectJpegEncoder(undefined, { prebuilt: loadPrebuiltTurboJpeg, system: () => prebuilt });
      expect(fallback.skipped).toEqual([{ choice: 'prebuilt', reason: expect.stringMatching(/Node-API 10/) }]);
    } finally {
      Object.defineProperty(process.versions, 'napi', real);
    }
    expect(loadPrebuiltTurboJpeg().name).toBe(PREBUILT_JPEG_NAME);
  });

  it('rejects bad input with a clear message, before native code reads it', () => {
    const enc =
      (data: Uint8Array, width: number, height: number, layout: string, quality = 80) =>
      () =>
        prebuilt.encode(data, { width, height }, layout as JpegPixelLayout, quality);
    expect(enc(Buffer.alloc(10), 100, 100, 'rgb')).toThrow(/10 bytes do not hold a 100×100 rgb image/);
    expect(enc(Buffer.alloc(100 * 100 * 3), 100, 100, 'bgrx')).toThrow(/do not hold a 100×100 bgrx image/);
    expect(enc(Buffer.alloc(30), 0, 10, 'rgb')).toThrow(/cannot encode a 0×10 image/);
    expect(enc(Buffer.alloc(300), 10.5, 10, 'rgb')).toThrow(/cannot encode a 10.5×10 image/);
    expect(enc(Buffer.alloc(300), -10, -10, 'rgb')).toThrow(/cannot encode/);
    expect(enc(Buffer.alloc(3 * 70_000), 70_000, 1, 'rgb')).toThrow(/at most 65535 pixels/);
    expect(enc(Buffer.alloc(300), 10, 10, 'argb')).toThrow(/unknown pixel layout "argb"/);
    expect(enc(Buffer.alloc(300), 10, 10, 'rgb', Number.NaN)).toThrow(/quality must be a number/);
    expect(() => prebuilt.encode('pixels' as unknown as Uint8Array, { width: 2, height: 1 }, 'rgb', 80)).toThrow(
      /must be a Buffer or Uint8Array/,
    );
  });
});

describe('choosing the encoder', () => {
  const fake = (name: string): TurboJpeg => ({ name, encode: () => Buffer.alloc(0) });
  const missing = (why: string) => () => {
    throw new Error(why);
  };

  it('takes the prebuilt binding first, the system library second, else none (sharp)', () => {
    const [p, s] = [fake('P'), fake('S')];
    const both = { prebuilt: () => p, system: () => s };
    expect(selectJpegEncoder(undefined, both)).toEqual({ encoder: p, skipped: [] });
    const second = selectJpegEncoder(undefined, { prebuilt: missing('no binary for this platform'), system: () => s });
    expect(second.encoder).toBe(s);
    expect(second.skipped).toEqual([{ choice: 'prebuilt', reason: 'no binary for this platform' }]);
    const neither = selectJpegEncoder('', { prebuilt: missing('a'), system: missing('b') });
    expect(neither.encoder).toBeUndefined();
    expect(neither.skipped.map((s) => s.choice)).toEqual(['prebuilt', 'system']);
  });

  it('GAMEPILOT_JPEG forces one, and a forced encoder that cannot load is an error, not a fallback', () => {
    const both = { prebuilt: () => fake('P'), system: () => fake('S') };
    expect(selectJpegEncoder('system', both).encoder?.name).toBe('S');
    expect(selectJpegEncoder(' Prebuilt ', both).encoder?.name).toBe('P');
    expect(selectJpegEncoder('sharp', both).encoder).toBeUndefined();
    const noSystem = { prebuilt: () => fake('P'), system: missing('the system libturbojpeg is not installed') };
    expect(() => selectJpegEncoder('system', noSystem)).toThrow(
      /GAMEPILOT_JPEG=system, but that encoder cannot be used: the system libturbojpeg is not installed/,
    );
    expect(() => selectJpegEncoder('turbo', both)).toThrow(/one of prebuilt, system, sharp \(it is "turbo"\)/);
  });

  it('on this machine: the prebuilt binding wins; the system library is used only where installed', () => {
    const real = selectJpegEncoder(undefined);
    expect(real.encoder?.name).toBe(PREBUILT_JPEG_NAME);
    expect(real.skipped).toEqual([]);
    // A process that has the prebuilt binding's own libturbojpeg.so.0 gets that copy back when it
    // asks for the library by name: the system path says so instead of posing as the system's.
    if (process.platform === 'linux')
      expect(() => loadSystemTurboJpeg()).toThrow(/is the copy inside @julusian\/jpeg-turbo .*not the system's/);
    // A fresh process that asks for the system library first.
    const forced = forcedInFreshProcess('system');
    if (systemLibraryInstalled()) expect(forced).toEqual({ name: SYSTEM_JPEG_NAME });
    else
      expect(forced.error).toMatch(
        /^GAMEPILOT_JPEG=system, but that encoder cannot be used: the system libturbojpeg is not installed \(tried libturbojpeg\.so\.0/,
      );
  });

  describe('through encodeFrame', () => {
    afterEach(() => {
      vi.unstubAllEnvs();
      vi.resetModules();
    });
    const frame: RawFrame = { data: picture(64, 40, 'bgrx'), width: 64, height: 40, channels: 4, order: 'bgra' };

    it('a JPEG that needs no resizing goes to the prebuilt encoder, anything else to sharp', async () => {
      const jpeg = { imageSize: 64, format: 'jpeg', quality: 80 } as const;
      expect(frameEncoder(frame, jpeg)).toBe(PREBUILT_JPEG_NAME);
      expect((await encodeFrame(frame, jpeg)).data).toEqual(prebuilt.encode(frame.data, frame, 'bgrx', 80));
      expect(frameEncoder(frame, { ...jpeg, imageSize: 32 })).toBe('sharp');
      expect(frameEncoder(frame, { ...jpeg, format: 'png' })).toBe('sharp');
    });

    it('GAMEPILOT_JPEG=sharp sends every frame to sharp; a bad value fails each JPEG with a clear error', async () => {
      vi.stubEnv('GAMEPILOT_JPEG', 'sharp');
      vi.resetModules();
      const forcedSharp = await import('../../electron/capture/encode.ts');
      const jpeg = { imageSize: 64, format: 'jpeg', quality: 80 } as const;
      expect(forcedSharp.frameEncoder(frame, jpeg)).toBe('sharp');
      const viaSharp = await forcedSharp.encodeFrame(frame, jpeg);
      expect(viaSharp.data).not.toEqual(prebuilt.encode(frame.data, frame, 'bgrx', 80));
      expect((await sharp(viaSharp.data).metadata()).width).toBe(64);

      vi.stubEnv('GAMEPILOT_JPEG', 'fastest');
      vi.resetModules();
      const bad = await import('../../electron/capture/encode.ts');
      await expect(bad.encodeFrame(frame, jpeg)).rejects.toThrow(/GAMEPILOT_JPEG must be one of/);
      await expect(bad.encodeFrame(frame, jpeg)).rejects.toThrow(/GAMEPILOT_JPEG must be one of/);
      // PNG never needed a JPEG encoder.
      expect((await bad.encodeFrame(frame, { ...jpeg, format: 'png' })).mime).toBe('image/png');
    });
  });
});

describe('in worker threads', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('each thread loads the binding and encodes the same bytes as the main thread', async () => {
    const url = new URL('../../native/jpeg.ts', import.meta.url).href;
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      import(${JSON.stringify(url)}).then((m) => {
        const enc = m.jpegEncoder();
        const jpeg = enc.encode(Buffer.from(workerData.pixels), { width: 96, height: 64 }, 'bgrx', 80);
        parentPort.postMessage({ name: enc.name, jpeg });
      });`;
    const pixels = picture(96, 64, 'bgrx');
    const expected = prebuilt.encode(pixels, { width: 96, height: 64 }, 'bgrx', 80);
    const answers = await Promise.all(
      [0, 1, 2].map(
        () =>
          new Promise<{ name: string; jpeg: Uint8Array }>((resolve, reject) => {
            const w = new Worker(code, { eval: true, workerData: { pixels } });
            w.once('message', (m) => {
              resolve(m);
              void w.terminate();
            });
            w.once('error', reject);
            w.once('exit', (c) => reject(new Error(`the worker exited (${c}) without answering`)));
          }),
      ),
    );
    for (const a of answers) {
      expect(a.name).toBe(PREBUILT_JPEG_NAME);
      expect(Buffer.from(a.jpeg)).toEqual(expected);
    }
  });

  it("the recorder's frame writers encode with it (forced, so a fallback would fail)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gp-jpeg-'));
    mkdirSync(path.join(dir, 'frames'));
    const run = async (force: string) => {
      vi.stubEnv('GAMEPILOT_JPEG', force);
      const pool = await FramePool.start({ workers: 2, quality: 80 });
      try {
        const done = new Promise<FrameDone>((r) => pool.once('done', r));
        const file = path.join(dir, 'frames', `${force}.jpg`);
        const data = picture(160, 90, 'bgrx');
        expect(pool.offer(0, file, { data, width: 160, height: 90, channels: 4, order: 'bgra' })).toBe(true);
        return { done: await done, file };
      } finally {
        await pool.close();
      }
    };
    const forced = await run('prebuilt');
    expect(forced.done).not.toHaveProperty('error');
    expect(await sharp(forced.file).metadata()).toMatchObject({ format: 'jpeg', width: 160, height: 90 });
    // The threads see the variable (so the forced run above proves the prebuilt one): a bad value fails in them.
    const invalid = await run('nonsense');
    expect(invalid.done).toMatchObject({ error: expect.stringMatching(/GAMEPILOT_JPEG must be one of/) });
  });
});

/** What jpegEncoder() gives in a new Node process with GAMEPILOT_JPEG=`force`: its name, or the error. */
function forcedInFreshProcess(force: string): { name?: string; error?: string } {
  const url = new URL('../../native/jpeg.ts', import.meta.url).href;
  const script = `import(${JSON.stringify(url)}).then((m) => {
    try { console.log(JSON.stringify({ name: m.jpegEncoder()?.name ?? null })); }
    catch (e) { console.log(JSON.stringify({ error: e.message })); }
  });`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, GAMEPILOT_JPEG: force },
    encoding: 'utf8',
  });
  return JSON.parse(out) as { name?: string; error?: string };
}

/** Whether the dynamic linker knows a libturbojpeg.so.0 (asked without koffi, the system path's own loader). */
function systemLibraryInstalled(): boolean {
  if (process.platform !== 'linux') return false;
  return /libturbojpeg\.so\.0\b/.test(execFileSync('/sbin/ldconfig', ['-p'], { encoding: 'utf8' }));
}
