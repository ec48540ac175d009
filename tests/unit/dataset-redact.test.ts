/**
 * `--redact-text`: text matching the pattern is blurred where OCR finds it, the rest of the
 * frame is left as it was; a frame without a match comes back byte for byte.
 */
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { TextRedactor } from '../../electron/dataset/redact.ts';
import { textPattern } from '../../electron/util/text-pattern.ts';

/** A chat-like frame: a name line on top, a score line below, black on white. */
async function frame(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="160">
    <rect width="480" height="160" fill="#fff"/>
    <text x="20" y="50" font-family="DejaVu Sans" font-size="30" fill="#000">Alexandra: hello</text>
    <text x="20" y="120" font-family="DejaVu Sans" font-size="30" fill="#000">SCORE 4210</text>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

async function pixels(png: Buffer, top: number, height: number): Promise<Buffer> {
  return sharp(png).extract({ left: 0, top, width: 480, height }).raw().toBuffer();
}

describe('TextRedactor', () => {
  it('blurs the matching words and only them', async () => {
    const redactor = new TextRedactor(textPattern('alexandra'));
    try {
      const before = await frame();
      expect((await redactor.find(before)).length).toBe(1);
      const after = await redactor.redact(before);
      expect(redactor.counts).toEqual({ frames: 1, boxes: 1 });
      // The name's line changed, the score's did not.
      expect((await pixels(after, 10, 50)).equals(await pixels(before, 10, 50))).toBe(false);
      expect((await pixels(after, 90, 40)).equals(await pixels(before, 90, 40))).toBe(true);
      // OCR no longer reads the name.
      const again = new TextRedactor(textPattern('alexandra'));
      try {
        expect(await again.find(after)).toEqual([]);
      } finally {
        await again.close();
      }
    } finally {
      await redactor.close();
    }
  }, 60_000);

  it('returns a frame without a match unchanged', async () => {
    const redactor = new TextRedactor(textPattern('nobody-here'));
    try {
      const before = await frame();
      expect(await redactor.redact(before)).toBe(before);
    } finally {
      await redactor.close();
    }
  }, 60_000);
});
