/**
 * A number read off a region of a window's frame by OCR: tesseract.js (WebAssembly, in a worker
 * thread) with its English data from the npm registry (@tesseract.js-data/eng), so no network
 * and no model — free and deterministic. The region is cut from the frame, scaled so its text is
 * about 90 px high, contrast-stretched and padded with its own edge (tesseract reads a line best
 * with a margin), then read as one line. The value is the first number in the text.
 */
import { createRequire } from 'node:module';
import type { Worker } from 'tesseract.js';
import type { EncodedFrame } from '../capture/encode.ts';
import type { Region } from '../profiles/profile-schema.ts';
import { loadSharp } from '../util/sharp.ts';
import { fractionInPixels } from '../input/coordinates.ts';

export interface OcrReading {
  /** What OCR saw in the region, as it saw it. */
  text: string;
  value: number | null;
  /** tesseract's confidence, 0–100. */
  confidence: number;
}

/** The first number in OCR text: digits with optional thousands separators (1,234 · 1 234 · 1.234.567) or a decimal part. */
export function numberIn(text: string): number | null {
  const m = /-?\d{1,3}(?:([,. ])\d{3})+(?!\d)|-?\d+(?:\.\d+)?/.exec(text);
  if (!m) return null;
  const s = m[1] ? m[0].split(m[1]).join('') : m[0];
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

const TEXT_HEIGHT = 90;
const PAD = 12;

/** The region of the frame as tesseract reads it best: cut, greyscale, scaled, stretched, padded. */
export async function regionImage(frame: EncodedFrame, region: Region): Promise<Buffer> {
  const sharp = await loadSharp();
  const { x: left, y: top, width, height } = fractionInPixels(frame, region);
  const scale = Math.min(8, Math.max(1, TEXT_HEIGHT / height));
  return sharp(frame.data)
    .extract({ left, top, width, height })
    .greyscale()
    .resize({ width: Math.round(width * scale), kernel: 'lanczos3' })
    .normalise()
    .extend({ top: PAD, bottom: PAD, left: PAD, right: PAD, extendWith: 'copy' })
    .png()
    .toBuffer();
}

/**
 * A tesseract worker reading English from the npm package's data (no download), LSTM only; the
 * screen reader's and the dataset redactor's one way to start OCR.
 */
export async function startEnglishOcr(): Promise<Worker> {
  const { createWorker, OEM } = await import('tesseract.js');
  const eng = createRequire(import.meta.url)('@tesseract.js-data/eng') as { langPath: string; gzip: boolean };
  return createWorker('eng', OEM.LSTM_ONLY, { langPath: eng.langPath, gzip: eng.gzip, cacheMethod: 'none' });
}

/** One OCR worker, started on the first read and ended by close(); a stop ends a read at once. */
export class RegionOcr {
  private worker: Promise<Worker> | undefined;

  private start(): Promise<Worker> {
    this.worker ??= (async () => {
      const { PSM } = await import('tesseract.js');
      const w = await startEnglishOcr();
      await w.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_LINE });
      return w;
    })();
    return this.worker;
  }

  async read(frame: EncodedFrame, region: Region, signal?: AbortSignal): Promise<OcrReading> {
    signal?.throwIfAborted();
    const image = await regionImage(frame, region);
    const worker = await this.start();
    // A stop ends the wait at once. The listener goes with the read: the session's one signal
    // sees every reading of the run, and a listener left behind would fire long after.
    let onAbort = () => {};
    const stopped = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal?.reason ?? new Error('stopped'));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const { data } = await Promise.race([worker.recognize(image), stopped]);
      const text = data.text.trim();
      return { text, value: numberIn(text), confidence: Math.round(data.confidence) };
    } catch (err) {
      if (signal?.aborted) await this.close(); // the worker may be mid-recognition: end it rather than wait
      throw err;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await (await w.catch(() => undefined))?.terminate().catch(() => {});
  }
}
