/**
 * `--redact-text`: blurs the text in a frame that matches a pattern (names in a chat window)
 * before the frame goes into a dataset. Tesseract (the OCR the screen reader uses, offline)
 * finds the words; a word that matches, or a line whose text matches, is blurred where it
 * stands. The pattern is RE2 (linear time, util/text-pattern.ts), case-insensitive.
 */
import type { Worker } from 'tesseract.js';
import { loadSharp } from '../util/sharp.ts';
import type { TextPattern } from '../util/text-pattern.ts';
import { startEnglishOcr } from '../scoring/ocr.ts';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export class TextRedactor {
  private worker: Promise<Worker> | undefined;
  /** Frames with at least one box blurred, and boxes blurred. */
  readonly counts = { frames: 0, boxes: 0 };

  constructor(private readonly pattern: TextPattern) {}

  private start(): Promise<Worker> {
    this.worker ??= startEnglishOcr();
    return this.worker;
  }

  /** Where the matching text is in `image`. */
  async find(image: Buffer): Promise<Box[]> {
    const worker = await this.start();
    const { data } = await worker.recognize(image, {}, { blocks: true });
    const boxes: Box[] = [];
    const add = (b: { x0: number; y0: number; x1: number; y1: number }) =>
      boxes.push({ x: b.x0, y: b.y0, width: Math.max(1, b.x1 - b.x0), height: Math.max(1, b.y1 - b.y0) });
    for (const block of data.blocks ?? [])
      for (const para of block.paragraphs)
        for (const line of para.lines) {
          const words = line.words.filter((w) => this.pattern.test(w.text));
          if (words.length) for (const w of words) add(w.bbox);
          else if (this.pattern.test(line.text)) add(line.bbox); // a match across words
        }
    return boxes;
  }

  /** `image` with the matching text blurred (the same bytes when nothing matches). */
  async redact(image: Buffer): Promise<Buffer> {
    const boxes = await this.find(image);
    if (!boxes.length) return image;
    const sharp = await loadSharp();
    const base = sharp(image);
    const { width = 0, height = 0, format } = await base.metadata();
    const pad = 3;
    const patches = await Promise.all(
      boxes.map(async (b) => {
        const left = Math.max(0, b.x - pad);
        const top = Math.max(0, b.y - pad);
        const w = Math.min(width - left, b.width + 2 * pad);
        const h = Math.min(height - top, b.height + 2 * pad);
        const input = await sharp(image)
          .extract({ left, top, width: w, height: h })
          .blur(Math.max(4, h / 2))
          .toBuffer();
        return { input, left, top };
      }),
    );
    this.counts.frames++;
    this.counts.boxes += boxes.length;
    const out = base.composite(patches);
    return format === 'png' ? out.png().toBuffer() : out.jpeg({ quality: 90 }).toBuffer();
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await (await w.catch(() => undefined))?.terminate().catch(() => {});
  }
}
