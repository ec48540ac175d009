/**
 * The machine's limit for the work `gamepilot bench` times (bench.ts): the same region scaled
 * to the same size and read into shared memory, encoded by the same JPEG encoder at the same
 * quality straight from those pixels, one key down and up into the same window — by the bare
 * primitives (native/x11/bare-step.ts), timed stage by stage in the loop shape of the harness's
 * own steps (grab, encode, key), so that both meet the X server as it is after a key.
 */
import type { Rect } from '../../native/types.ts';
import { BareX11Step, type BarePixels } from '../../native/x11/bare-step.ts';
import { xlibAvailable } from '../../native/x11.ts';
import { jpegEncoder } from '../../native/jpeg.ts';
import { encodeFrame } from '../capture/encode.ts';
import { now } from '../util/time.ts';

/** Per-iteration times in ms; `total` is each iteration's sum of the three. */
export interface LimitSamples {
  grab: number[];
  encode: number[];
  key: number[];
  total: number[];
}

export const limitSamples = (): LimitSamples => ({ grab: [], encode: [], key: [], total: [] });

export class MachineLimit {
  private constructor(
    private readonly bare: BareX11Step,
    private readonly quality: number,
  ) {}

  /** The limit's loop for `region` sent at `size`, or why it cannot be measured here. */
  static open(region: Rect, size: { width: number; height: number }, quality: number): MachineLimit | { why: string } {
    if (process.platform !== 'linux') return { why: `measured on Linux (X11) only, not on ${process.platform}` };
    const can = xlibAvailable();
    if (!can.ok) return { why: can.why };
    try {
      return new MachineLimit(new BareX11Step(region, size), quality);
    } catch (err) {
      return { why: (err as Error).message };
    }
  }

  /** One iteration: grab, encode, key, each timed (ms). */
  async step(): Promise<{ grab: number; encode: number; key: number; total: number }> {
    const t0 = now();
    const pixels = this.bare.grab();
    const t1 = now();
    await this.encode(pixels);
    const t2 = now();
    this.bare.key();
    const t3 = now();
    return { grab: t1 - t0, encode: t2 - t1, key: t3 - t2, total: t3 - t0 };
  }

  close() {
    this.bare.close();
  }

  /** The encoder this thread selected (TurboJPEG straight from the pixels; sharp where none loads). */
  private async encode(p: BarePixels): Promise<number> {
    const turbo = jpegEncoder();
    if (turbo) return turbo.encode(p.data, p, p.order, this.quality).length;
    const data = Buffer.from(p.data.buffer, p.data.byteOffset, p.data.byteLength);
    const frame = {
      data,
      width: p.width,
      height: p.height,
      channels: 4,
      order: p.order === 'bgrx' ? 'bgra' : 'rgba',
    } as const;
    const opts = { imageSize: Math.max(p.width, p.height), format: 'jpeg', quality: this.quality } as const;
    return (await encodeFrame(frame, opts)).data.length;
  }
}
