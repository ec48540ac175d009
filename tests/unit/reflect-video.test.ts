/**
 * A reflection video holds the trajectory at its sampling rate and is thinned evenly only as far
 * as the provider's size limit needs, saying from how many frames.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { trajectoryVideo } from '../../electron/reflection/video-part.ts';
import type { Trajectory } from '../../electron/scoring/trajectory.ts';

/** Frames of noise (which compresses badly), one a second. */
async function noisyTrajectory(n: number): Promise<Trajectory> {
  const frames = [];
  for (let i = 0; i < n; i++) {
    const raw = Buffer.alloc(160 * 120 * 3);
    for (let k = 0; k < raw.length; k++) raw[k] = (k * 7919 + i * 104_729 + ((k * i) % 251)) % 256;
    const jpeg = await sharp(raw, { raw: { width: 160, height: 120, channels: 3 } })
      .jpeg()
      .toBuffer();
    frames.push({ at: i, source: `f${i}`, dataUrl: `data:image/jpeg;base64,${jpeg.toString('base64')}` });
  }
  return { kind: 'frames', source: 'noise', frames, available: n, notes: '', warnings: [] };
}

describe('the reflection video', () => {
  it('keeps every sampled frame when it fits, and thins evenly to fit a smaller limit', async () => {
    const t = await noisyTrajectory(40);
    const whole = await trajectoryVideo(t);
    expect(whole).toMatchObject({ frames: 40, seconds: 39 });
    expect(whole.thinned_from).toBeUndefined();
    expect(whole.fps).toBeCloseTo(1, 5);

    const limit = Math.floor(whole.bytes / 2);
    const fitted = await trajectoryVideo(t, { maxBytes: limit });
    expect(fitted.bytes).toBeLessThanOrEqual(limit);
    expect(fitted.thinned_from).toBe(40);
    expect(fitted.frames).toBeLessThan(40);
    expect(fitted.frames).toBeGreaterThan(1);
    // Evenly thinned: the first and last moments are kept, so the video spans the whole play.
    expect(fitted.times[0]).toBe(0);
    expect(fitted.times.at(-1)).toBe(39);

    await expect(trajectoryVideo(t, { maxBytes: 100 })).rejects.toThrow(/above the 100 bytes sent/);
  }, 60_000);
});
