/**
 * This thread's in-process JPEG encoder, chosen once: the libjpeg-turbo shipped inside the npm
 * package @julusian/jpeg-turbo first (native/jpeg-prebuilt.ts), the system's libturbojpeg
 * second (native/turbojpeg.ts), else none, and electron/capture/encode.ts uses sharp.
 * GAMEPILOT_JPEG=prebuilt|system|sharp forces one (to compare them); a forced encoder that
 * cannot load, or another value, is an error on every JPEG asked for, never a silent fallback.
 * Each worker thread chooses (and loads) its own.
 */
import { loadPrebuiltTurboJpeg } from './jpeg-prebuilt.ts';
import { loadSystemTurboJpeg } from './turbojpeg.ts';
import type { TurboJpeg } from './jpeg-input.ts';

export type { JpegPixelLayout, TurboJpeg } from './jpeg-input.ts';

export const JPEG_CHOICES = ['prebuilt', 'system', 'sharp'] as const;
export type JpegChoice = (typeof JPEG_CHOICES)[number];
type Loaders = Record<Exclude<JpegChoice, 'sharp'>, () => TurboJpeg>;

export interface JpegSelection {
  /** The encoder to use; undefined means sharp. */
  encoder: TurboJpeg | undefined;
  /** Why each encoder passed over was, in order (empty when forced or when the first loaded). */
  skipped: { choice: JpegChoice; reason: string }[];
}

const LOADERS: Loaders = { prebuilt: loadPrebuiltTurboJpeg, system: loadSystemTurboJpeg };

/** The choice for `forced` (GAMEPILOT_JPEG's value), trying `loaders` in order. Throws for a bad or unloadable force. */
export function selectJpegEncoder(forced: string | undefined, loaders: Loaders = LOADERS): JpegSelection {
  const wanted = forced?.trim().toLowerCase() || undefined;
  if (wanted === undefined) {
    const skipped: JpegSelection['skipped'] = [];
    for (const choice of ['prebuilt', 'system'] as const) {
      try {
        return { encoder: loaders[choice](), skipped };
      } catch (err) {
        skipped.push({ choice, reason: (err as Error).message });
      }
    }
    return { encoder: undefined, skipped };
  }
  if (wanted === 'sharp') return { encoder: undefined, skipped: [] };
  if (wanted !== 'prebuilt' && wanted !== 'system')
    throw new Error(`GAMEPILOT_JPEG must be one of ${JPEG_CHOICES.join(', ')} (it is "${forced}")`);
  try {
    return { encoder: loaders[wanted](), skipped: [] };
  } catch (err) {
    throw new Error(`GAMEPILOT_JPEG=${wanted}, but that encoder cannot be used: ${(err as Error).message}`);
  }
}

let selected: { ok: JpegSelection } | { error: Error } | undefined;

/** This thread's selection (made on first call, from GAMEPILOT_JPEG); throws what selectJpegEncoder threw. */
export function jpegSelection(): JpegSelection {
  if (!selected) {
    try {
      selected = { ok: selectJpegEncoder(process.env.GAMEPILOT_JPEG) };
    } catch (err) {
      selected = { error: err as Error };
    }
  }
  if ('error' in selected) throw selected.error;
  return selected.ok;
}

/** This thread's encoder, or undefined where sharp is to encode. */
export function jpegEncoder(): TurboJpeg | undefined {
  return jpegSelection().encoder;
}
