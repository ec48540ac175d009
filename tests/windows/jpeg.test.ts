/**
 * JPEG on Windows with nothing but the npm package: the libjpeg-turbo inside @julusian/jpeg-turbo's
 * win32 build is the encoder chosen (no turbojpeg.dll anywhere), in the main thread and in a
 * worker thread, and it encodes a captured frame of the real game into a baseline 4:2:0 JPEG of
 * the frame's size that decodes back to the captured pixels.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { Win32Capturer } from '../../electron/capture/win32-capturer.ts';
import type { RawFrame } from '../../electron/capture/capturer.ts';
import { jpegSelection } from '../../native/jpeg.ts';
import { PREBUILT_JPEG_NAME } from '../../native/jpeg-prebuilt.ts';
import { Win32WindowManager } from '../../native/win32.ts';
import { colourCount, type Game, launchGame, waitFor } from './helpers.ts';

type JpegTurbo = typeof import('@julusian/jpeg-turbo');

const wm = new Win32WindowManager();
let game: Game;
let frame: RawFrame;

before(async () => {
  game = await launchGame(wm);
  await wm.focus(game.window.id);
  const capturer = new Win32Capturer();
  // Raised just now: on a busy machine it shows its picture once it has repainted.
  frame = await waitFor(
    'the game window painted',
    async () => {
      const w = await wm.get(game.window.id);
      const f = w && (await capturer.grab(w.bounds));
      return f && colourCount(f) > 3 ? f : undefined;
    },
    15_000,
  );
});
after(() => game?.close());

/** What a JPEG's frame header says: baseline or not, its size, and each component's sampling. */
function frameHeader(jpeg: Buffer): { marker: number; width: number; height: number; sampling: number[] } {
  assert.equal(jpeg.readUInt16BE(0), 0xffd8, 'starts with SOI');
  assert.equal(jpeg.readUInt16BE(jpeg.length - 2), 0xffd9, 'ends with EOI');
  for (let i = 2; i + 4 <= jpeg.length; ) {
    const marker = jpeg.readUInt16BE(i);
    const length = jpeg.readUInt16BE(i + 2);
    if (marker >= 0xffc0 && marker <= 0xffcf && marker !== 0xffc4 && marker !== 0xffc8 && marker !== 0xffcc) {
      const n = jpeg[i + 9]!;
      const sampling = Array.from({ length: n }, (_, c) => jpeg[i + 11 + c * 3]!);
      return { marker, height: jpeg.readUInt16BE(i + 5), width: jpeg.readUInt16BE(i + 7), sampling };
    }
    i += 2 + length;
  }
  throw new Error('no frame header (SOFn) in the JPEG');
}

/**
 * How far decoded BGRA pixels lie from the frame: per channel where the frame's 9×9 neighbourhood
 * is one colour, and in brightness everywhere (also against the frame one pixel to the right).
 */
function decodeError(f: RawFrame, back: Uint8Array) {
  const { width: w, height: h, data } = f;
  const colour = (x: number, y: number) => data.readUIntLE((y * w + x) * 4, 3);
  const luma = (d: Uint8Array, i: number) => 0.114 * d[i]! + 0.587 * d[i + 1]! + 0.299 * d[i + 2]!;
  let [flat, flatPixels, lumaSum, shiftedSum] = [0, 0, 0, 0];
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      lumaSum += Math.abs(luma(back, i) - luma(data, i));
      shiftedSum += Math.abs(luma(back, i) - luma(data, (y * w + Math.min(w - 1, x + 1)) * 4));
      if (x < 4 || y < 4 || x >= w - 4 || y >= h - 4) continue;
      const c = colour(x, y);
      let uniform = true;
      for (let dy = -4; dy <= 4 && uniform; dy++)
        for (let dx = -4; dx <= 4 && uniform; dx++) uniform = colour(x + dx, y + dy) === c;
      if (!uniform) continue;
      flatPixels++;
      for (let k = 0; k < 3; k++) flat += Math.abs(back[i + k]! - data[i + k]!);
    }
  return { flat: flat / (flatPixels * 3), flatPixels, luma: lumaSum / (w * h), shifted: shiftedSum / (w * h) };
}

describe('the JPEG encoder on Windows', () => {
  it('is the prebuilt libjpeg-turbo, chosen first, with no system library needed', () => {
    const { encoder, skipped } = jpegSelection();
    assert.equal(encoder?.name, PREBUILT_JPEG_NAME);
    assert.deepEqual(skipped, []);
  });

  it('encodes a captured game frame into a baseline 4:2:0 JPEG that decodes to the captured pixels', () => {
    const encoder = jpegSelection().encoder!;
    assert.equal(frame.order, 'bgra');
    const jpeg = encoder.encode(frame.data, frame, 'bgrx', 90);
    const t0 = performance.now(); // the second encode: warm
    assert.ok(encoder.encode(frame.data, frame, 'bgrx', 90).equals(jpeg), 'the same frame, the same JPEG');
    const ms = performance.now() - t0;
    // SOF0 (baseline); Y sampled 2×2, Cb and Cr 1×1: 4:2:0.
    assert.deepEqual(frameHeader(jpeg), {
      marker: 0xffc0,
      width: frame.width,
      height: frame.height,
      sampling: [0x22, 0x11, 0x11],
    });
    const jt = createRequire(import.meta.url)('@julusian/jpeg-turbo') as JpegTurbo;
    const back = jt.decompressSync(jpeg, { format: jt.FORMAT_BGRA });
    assert.deepEqual([back.width, back.height], [frame.width, frame.height]);
    const e = decodeError(frame, back.data);
    console.log(
      `${frame.width}×${frame.height} frame: ${jpeg.length} bytes in ${ms.toFixed(2)} ms; error in flat areas ${e.flat.toFixed(2)} (${e.flatPixels} pixels), luma ${e.luma.toFixed(2)}, luma against the frame one pixel off ${e.shifted.toFixed(2)}`,
    );
    // Winemine is 1-pixel lines in saturated colours, which 4:2:0 blurs: where the game is one
    // colour the JPEG is that colour; elsewhere brightness keeps its place.
    assert.ok(e.flatPixels > 1000, `flat areas to compare: ${e.flatPixels} pixels`);
    assert.ok(e.flat < 3, `flat areas differ from the capture by ${e.flat.toFixed(2)} on average`);
    assert.ok(
      e.luma < 8 && e.luma < e.shifted / 2,
      `luma error ${e.luma.toFixed(2)} (one pixel off: ${e.shifted.toFixed(2)})`,
    );
    assert.throws(() => encoder.encode(frame.data.subarray(0, 100), frame, 'bgrx', 90), /do not hold/);
  });

  it('loads in a worker thread and encodes the same bytes there', async () => {
    const expected = jpegSelection().encoder!.encode(frame.data, frame, 'bgrx', 90);
    const answer = await new Promise<{ name?: string; jpeg?: Uint8Array; error?: string }>((resolve, reject) => {
      const worker = new Worker(new URL('./jpeg-worker.mjs', import.meta.url), {
        workerData: { data: frame.data, width: frame.width, height: frame.height },
      });
      worker.once('message', (m) => {
        resolve(m);
        void worker.terminate();
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the worker exited (${code}) without answering`)));
    });
    assert.equal(answer.error, undefined);
    assert.equal(answer.name, PREBUILT_JPEG_NAME);
    assert.ok(Buffer.from(answer.jpeg!).equals(expected), 'the same JPEG as the main thread');
  });
});
