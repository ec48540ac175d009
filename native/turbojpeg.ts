/**
 * JPEG through the system's libjpeg-turbo (its TurboJPEG API), in-process through koffi:
 * straight from 32-bit screen pixels (BGRX/RGBX) or packed RGB, with no conversion pass and no
 * thread hop. A 1024×640 frame at quality 80 took 1.1 ms here against 2 ms through sharp
 * (libvips' pipeline around the same libjpeg-turbo). Errors come back as return codes
 * (TurboJPEG catches libjpeg's own), so a failure is an exception, never an exit.
 * The second choice of native/jpeg.ts, after the build shipped inside @julusian/jpeg-turbo;
 * present only where the library is installed (Debian: libturbojpeg0). On Linux, once that
 * package's own libturbojpeg.so.0 is in the process, loading "libturbojpeg.so.0" by name gives
 * that copy back (the dynamic linker matches the soname), so this refuses to pass it off as the
 * system's.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { checkJpegInput, type JpegPixelLayout, type TurboJpeg } from './jpeg-input.ts';

export type { JpegPixelLayout, TurboJpeg } from './jpeg-input.ts';

type Koffi = typeof import('koffi');
type Ptr = unknown;

export const SYSTEM_JPEG_NAME = 'libturbojpeg (system)';

// TJPF_* and TJSAMP_* of turbojpeg.h (stable since libjpeg-turbo 1.2).
const PIXEL_FORMAT: Record<JpegPixelLayout, number> = { rgb: 0, rgbx: 2, bgrx: 3 };
const TJSAMP_420 = 2;

const LIBRARY_NAMES: Partial<Record<NodeJS.Platform, string[]>> = {
  linux: ['libturbojpeg.so.0', 'libturbojpeg.so'],
  darwin: ['libturbojpeg.0.dylib', 'libturbojpeg.dylib'],
  win32: ['turbojpeg.dll'],
};

let loaded: TurboJpeg | null | undefined;

/** This thread's system-library encoder, or undefined where libturbojpeg is not installed. */
export function turboJpeg(): TurboJpeg | undefined {
  if (loaded === undefined) {
    try {
      loaded = loadSystemTurboJpeg();
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}

/** Binds the system library; throws saying why where it cannot (not installed, no koffi). */
export function loadSystemTurboJpeg(): TurboJpeg {
  const koffi = createRequire(import.meta.url)('koffi') as Koffi;
  const names = LIBRARY_NAMES[process.platform] ?? [];
  const before = loadedTurboJpegFiles();
  let lib: ReturnType<Koffi['load']> | undefined;
  for (const name of names) {
    try {
      lib = koffi.load(name);
      break;
    } catch {
      /* the next name */
    }
  }
  if (!lib) throw new Error(`the system libturbojpeg is not installed (tried ${names.join(', ') || 'nothing'})`);
  const bundled = bundledCopyBound(before, loadedTurboJpegFiles());
  if (bundled) {
    lib.unload();
    throw new Error(
      `libturbojpeg.so.0 in this process is the copy inside @julusian/jpeg-turbo (${bundled}), not the system's`,
    );
  }
  const init = lib.func('tjInitCompress', 'void *', []);
  const compress = lib.func('tjCompress2', 'int', [
    'void *',
    'const uint8_t *',
    'int',
    'int',
    'int',
    'int',
    koffi.inout(koffi.pointer('void *')),
    koffi.inout(koffi.pointer('unsigned long')),
    'int',
    'int',
    'int',
  ]);
  const free = lib.func('tjFree', 'void', ['void *']);
  const errorText = lib.func('tjGetErrorStr2', 'const char *', ['void *']);
  const handle: Ptr = init();
  if (!handle) throw new Error('the system libturbojpeg did not start a compressor (tjInitCompress)');
  return {
    name: SYSTEM_JPEG_NAME,
    encode(data, size, layout, quality) {
      const { pitch, quality: q } = checkJpegInput(data, size, layout, quality);
      const { width, height } = size;
      const out: (Ptr | null)[] = [null];
      const length = [0];
      const status = compress(handle, data, width, pitch, height, PIXEL_FORMAT[layout], out, length, TJSAMP_420, q, 0);
      try {
        if (status !== 0 || !out[0]) throw new Error(`JPEG encoding failed: ${errorText(handle)}`);
        // Copied out of the library's buffer before it is freed.
        return Buffer.from(new Uint8Array(koffi.view(out[0], length[0]!)));
      } finally {
        if (out[0]) free(out[0]);
      }
    },
  };
}

/** The libturbojpeg files mapped into this process (Linux; elsewhere none are known). */
function loadedTurboJpegFiles(): Set<string> {
  if (process.platform !== 'linux') return new Set();
  try {
    const maps = readFileSync('/proc/self/maps', 'utf8').split('\n');
    return new Set(maps.map((l) => l.slice(l.indexOf('/'))).filter((f) => /\/libturbojpeg\.so[^/]*$/.test(f)));
  } catch {
    return new Set();
  }
}

/** The bundled copy's file when loading by name mapped nothing new and only that copy is there. */
function bundledCopyBound(before: Set<string>, after: Set<string>): string | undefined {
  if ([...after].some((f) => !before.has(f))) return undefined;
  const files = [...after];
  const isBundled = (f: string) => f.includes('/@julusian/jpeg-turbo/');
  return files.length > 0 && files.every(isBundled) ? files[0] : undefined;
}
