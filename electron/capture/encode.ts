/**
 * Raw pixels → the image the model sees. Keeps the exact scale between the window's
 * pixels and the image's so `input/coordinates.ts` can map clicks back.
 * A JPEG of a frame that needs no resizing (the X11 capture scales in the server) goes straight
 * to libjpeg-turbo from the pixels as captured (native/jpeg.ts: the build inside the npm package,
 * else the system's); everything else, and every frame where neither loads or GAMEPILOT_JPEG=sharp,
 * through sharp.
 */
import { loadSharp } from '../util/sharp.ts';
import type { RawFrame } from './capturer.ts';
import { packRgb } from '../../native/pixels.ts';
import { type JpegPixelLayout, type TurboJpeg, jpegEncoder } from '../../native/jpeg.ts';

export interface EncodeOptions {
  /** Longest side of the image sent to the model; larger frames are scaled down, never up. */
  imageSize: number;
  format: 'jpeg' | 'png';
  quality: number;
}

export const DEFAULT_ENCODE: EncodeOptions = { imageSize: 1280, format: 'jpeg', quality: 80 };

export interface EncodedFrame {
  data: Buffer;
  mime: 'image/jpeg' | 'image/png';
  width: number;
  height: number;
  /** image pixels per window pixel (≤ 1). */
  scale: number;
}

/**
 * Packed RGB for the encoder. sharp is fastest on 3 channels: dropping the fourth inside its
 * pipeline costs more than packing RGB here (1280×800 → 1024×640 JPEG: 8.3 ms with 4 channels
 * in, 4 ms with 3, plus 1.4 ms to pack).
 */
export function toRgb(frame: RawFrame): { data: Buffer; channels: 3 } {
  if (frame.channels === 3) return { data: frame.data, channels: 3 };
  const n = frame.width * frame.height;
  const out = Buffer.allocUnsafe(n * 3);
  packRgb(frame.data, 0, out, 0, n, frame.order === 'bgra');
  return { data: out, channels: 3 };
}

const TURBO_LAYOUT: Record<RawFrame['order'], JpegPixelLayout> = { rgb: 'rgb', rgba: 'rgbx', bgra: 'bgrx' };

/** A region's size scaled down (never up) to fit `longSide`: the size the model gets. */
export function fitted(region: { width: number; height: number }, longSide: number): { width: number; height: number } {
  const long = Math.max(region.width, region.height);
  const scale = long > longSide ? longSide / long : 1;
  return {
    width: Math.max(1, Math.round(region.width * scale)),
    height: Math.max(1, Math.round(region.height * scale)),
  };
}

/** The name of what encodes through sharp (resized frames, PNG, and JPEG where no TurboJPEG loads). */
export const SHARP_ENCODER = 'sharp';

interface Plan {
  width: number;
  height: number;
  scale: number;
  resize: boolean;
  /** Set when the frame goes straight to libjpeg-turbo. */
  turbo: TurboJpeg | undefined;
}

function plan(frame: RawFrame, opts: EncodeOptions): Plan {
  // A frame the capture scaled already is sized against the region it shows.
  const source = frame.source ?? frame;
  const target = fitted(source, opts.imageSize);
  const resize = target.width < frame.width || target.height < frame.height;
  const { width, height } = resize ? target : { width: frame.width, height: frame.height };
  const turbo = opts.format === 'jpeg' && !resize ? jpegEncoder() : undefined;
  return { width, height, scale: width / source.width, resize, turbo };
}

/** Which encoder encodeFrame uses for this frame with these options, e.g. 'jpeg-turbo (prebuilt)' or 'sharp'. */
export function frameEncoder(frame: RawFrame, opts: EncodeOptions = DEFAULT_ENCODE): string {
  return plan(frame, opts).turbo?.name ?? SHARP_ENCODER;
}

export async function encodeFrame(frame: RawFrame, opts: EncodeOptions = DEFAULT_ENCODE): Promise<EncodedFrame> {
  const { width, height, scale, resize, turbo } = plan(frame, opts);
  if (turbo) {
    const data = turbo.encode(frame.data, frame, TURBO_LAYOUT[frame.order], opts.quality);
    return { data, mime: 'image/jpeg', width, height, scale };
  }
  const { data, channels } = toRgb(frame);
  const sharp = await loadSharp();
  let img = sharp(data, { raw: { width: frame.width, height: frame.height, channels } });
  if (resize) img = img.resize({ width, height, kernel: 'linear', fit: 'fill' });
  const out =
    opts.format === 'png'
      ? await img.png({ compressionLevel: 3 }).toBuffer()
      : await img.jpeg({ quality: opts.quality, optimiseCoding: false }).toBuffer();
  return {
    data: out,
    mime: opts.format === 'png' ? 'image/png' : 'image/jpeg',
    width,
    height,
    scale,
  };
}
