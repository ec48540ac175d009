/**
 * JPEG through the libjpeg-turbo that ships inside the npm package @julusian/jpeg-turbo
 * (prebuilt for Linux glibc and musl, Windows and macOS, x64 and arm; Node-API 10, so one
 * binary serves Node and Electron, in any thread). Nothing to install beside `npm install`:
 * the first choice of native/jpeg.ts. Loaded on first use, so a platform without a prebuilt
 * binary only loses this encoder.
 *
 * Each call compresses into this thread's scratch buffer (sized for the worst case, reused) and
 * copies the JPEG out: the package's own default allocates the worst case (3 bytes a pixel) per
 * frame and hands back a slice that keeps all of it alive. The binding always uses libjpeg-turbo's
 * fast integer DCT (TJFLAG_FASTDCT); the system-library path uses the accurate one. Both are
 * baseline 4:2:0 JPEG.
 */
import { createRequire } from 'node:module';
import { checkJpegInput, type JpegPixelLayout, type TurboJpeg } from './jpeg-input.ts';

type JpegTurboModule = typeof import('@julusian/jpeg-turbo');

export const PREBUILT_JPEG_NAME = 'jpeg-turbo (prebuilt)';

/** The Node-API version the binaries are built for. */
const NODE_API = 10;

/** Loads the binding; throws saying why where it cannot (no prebuilt binary, too old a Node). */
export function loadPrebuiltTurboJpeg(): TurboJpeg {
  // Asked first: a runtime with an older Node-API loads the binary and then crashes on the first
  // call it lacks (a segfault with Node 20 on Linux, a page fault under Wine), past any catch.
  const napi = Number(process.versions.napi);
  if (!(napi >= NODE_API))
    throw new Error(
      `@julusian/jpeg-turbo needs Node-API ${NODE_API} (Node ≥ 22.14); this runtime has ${napi || 'none'}`,
    );
  let jt: JpegTurboModule;
  try {
    jt = createRequire(import.meta.url)('@julusian/jpeg-turbo') as JpegTurboModule;
  } catch (err) {
    throw new Error(`@julusian/jpeg-turbo did not load: ${firstLine(err)}`);
  }
  const format: Record<JpegPixelLayout, number> = { rgb: jt.FORMAT_RGB, rgbx: jt.FORMAT_RGBX, bgrx: jt.FORMAT_BGRX };
  let scratch = Buffer.alloc(0);
  return {
    name: PREBUILT_JPEG_NAME,
    encode(data, size, layout, quality) {
      const { quality: q } = checkJpegInput(data, size, layout, quality);
      const { width, height } = size;
      const options = { format: format[layout], width, height, subsampling: jt.SAMP_420, quality: q };
      const need = jt.bufferSize(options);
      if (scratch.length < need) scratch = Buffer.allocUnsafeSlow(need);
      const pixels = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      let jpeg: Buffer;
      try {
        jpeg = jt.compressSync(pixels, scratch, options);
      } catch (err) {
        throw new Error(`JPEG encoding failed: ${firstLine(err)}`);
      }
      // Out of the scratch buffer, which the next frame overwrites.
      return Buffer.from(jpeg);
    },
  };
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0]!;
}
