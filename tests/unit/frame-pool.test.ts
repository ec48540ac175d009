/**
 * The recorder's frame writers: real threads, real sharp, real files. Back-pressure refuses
 * frames at once when every thread is busy and the queue is full (nothing piles up in memory),
 * every accepted frame ends up on disk as a JPEG, a write failure stops the pool from taking
 * more, and the index is released in capture order although frames finish in any order.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { FramePool, type FrameDone } from '../../electron/recording/frame-pool.ts';
import { InOrder } from '../../electron/recording/in-order.ts';
import { describeDrops } from '../../electron/recording/recorder.ts';
import type { RawFrame } from '../../electron/capture/capturer.ts';

/** A noisy BGRA frame (noise compresses badly, so each encode takes real time). */
function noise(width: number, height: number, seed: number): RawFrame {
  const data = Buffer.allocUnsafe(width * height * 4);
  let x = seed * 2654435761;
  for (let i = 0; i < data.length; i += 4) {
    x = (x * 1103515245 + 12345) >>> 0;
    data.writeUInt32LE((x | 0xff000000) >>> 0, i);
  }
  return { data, width, height, channels: 4, order: 'bgra' };
}

let pool: FramePool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('FramePool', () => {
  it('refuses frames at once when its threads and queue are full, and writes every frame it took', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gp-pool-'));
    mkdirSync(path.join(dir, 'frames'));
    pool = await FramePool.start({ workers: 2, queue: 2, quality: 90 });
    const done: FrameDone[] = [];
    pool.on('done', (d: FrameDone) => done.push(d));
    // 20 frames offered in one go: no thread can finish in between, so exactly 2 + 2 fit.
    const verdicts = Array.from({ length: 20 }, (_, i) =>
      pool!.offer(i, path.join(dir, 'frames', `f${i}.jpg`), noise(1280, 720, i)),
    );
    expect(verdicts.filter(Boolean)).toHaveLength(4);
    expect(verdicts.slice(0, 4)).toEqual([true, true, true, true]);
    expect(pool.full).toBe(true);
    await pool.drain();
    expect(pool.full).toBe(false);
    expect(done.map((d) => d.i).sort()).toEqual([0, 1, 2, 3]);
    for (let i = 0; i < 4; i++) {
      const meta = await sharp(path.join(dir, 'frames', `f${i}.jpg`)).metadata();
      expect(meta).toMatchObject({ format: 'jpeg', width: 1280, height: 720 });
    }
    expect(existsSync(path.join(dir, 'frames', 'f4.jpg'))).toBe(false);
  });

  it('says which file could not be written, and takes no more frames after that', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gp-pool-'));
    writeFileSync(path.join(dir, 'frames'), 'a file where the frames folder should be');
    pool = await FramePool.start({ workers: 1, queue: 1, quality: 80 });
    const failed = new Promise<Error>((r) => pool!.once('failed', r));
    expect(pool.offer(0, path.join(dir, 'frames', 'f0.jpg'), noise(64, 64, 1))).toBe(true);
    expect((await failed).message).toMatch(/cannot write .*frames\/f0\.jpg/);
    expect(pool.error).toBeDefined();
    expect(pool.offer(1, path.join(dir, 'f1.jpg'), noise(64, 64, 2))).toBe(false);
    await pool.drain();
    expect(existsSync(path.join(dir, 'f1.jpg'))).toBe(false);
  });
});

describe('InOrder', () => {
  it('releases items in sequence, each once everything before it has finished', () => {
    const out: string[] = [];
    const q = new InOrder<string>((item, ok, i) => out.push(`${i}:${item}:${ok ? 'ok' : 'failed'}`));
    for (const i of [0, 1, 2, 3]) q.add(i, `f${i}`);
    q.finish(2, true);
    q.finish(1, false);
    expect(out).toEqual([]);
    q.finish(0, true);
    expect(out).toEqual(['0:f0:ok', '1:f1:failed', '2:f2:ok']);
    q.abandonRest();
    expect(out.at(-1)).toBe('3:f3:failed');
  });
});

describe('describeDrops', () => {
  it('is silent without drops and names each cause with its count', () => {
    expect(describeDrops({ late: 0, busy: 0, writers: 2, fps: 30, encodeP50: 9 })).toBeNull();
    const note = describeDrops({ late: 3, busy: 7, writers: 2, fps: 30, encodeP50: 41 })!;
    expect(note).toMatch(/\b7\b.*busy/);
    expect(note).toMatch(/\b3\b.*late/);
  });
});
