/**
 * What every in-process JPEG encoder (native/jpeg.ts picks one) shares: the interface, the pixel
 * layouts, and the checks run before any pixel reaches native code, so that a bad frame is an
 * exception with a clear message, never a read past a buffer's end.
 */

/** How the pixels lie in memory: packed RGB, or 4 bytes a pixel with the fourth ignored. */
export type JpegPixelLayout = 'rgb' | 'rgbx' | 'bgrx';

export interface TurboJpeg {
  /** Which encoder this is, for reports and benches, e.g. 'jpeg-turbo (prebuilt)'. */
  readonly name: string;
  /** A baseline JPEG, 4:2:0 chroma (as sharp and Pillow do by default below quality 90). */
  encode(data: Uint8Array, size: { width: number; height: number }, layout: JpegPixelLayout, quality: number): Buffer;
}

export const BYTES_PER_PIXEL: Record<JpegPixelLayout, number> = { rgb: 3, rgbx: 4, bgrx: 4 };

/** JPEG stores each side in 16 bits. */
export const MAX_JPEG_SIDE = 65_535;

/** The row pitch in bytes and the quality as the encoder takes it (rounded, clamped to 1..100). */
export function checkJpegInput(
  data: Uint8Array,
  { width, height }: { width: number; height: number },
  layout: JpegPixelLayout,
  quality: number,
): { pitch: number; quality: number } {
  const bytes = BYTES_PER_PIXEL[layout];
  if (bytes === undefined) throw new Error(`unknown pixel layout "${layout}" (rgb, rgbx or bgrx)`);
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0))
    throw new Error(`cannot encode a ${width}×${height} image`);
  if (width > MAX_JPEG_SIDE || height > MAX_JPEG_SIDE)
    throw new Error(`cannot encode a ${width}×${height} image as JPEG: a side is at most ${MAX_JPEG_SIDE} pixels`);
  if (!(data instanceof Uint8Array)) throw new Error('the pixels must be a Buffer or Uint8Array');
  const pitch = width * bytes;
  if (data.length < pitch * height)
    throw new Error(`${data.length} bytes do not hold a ${width}×${height} ${layout} image`);
  if (!Number.isFinite(quality)) throw new Error(`JPEG quality must be a number, not ${quality}`);
  return { pitch, quality: Math.min(100, Math.max(1, Math.round(quality))) };
}
