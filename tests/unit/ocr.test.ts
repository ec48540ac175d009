/** OCR reads: the number in the text, and a read that leaves nothing behind on the session's signal. */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { numberIn, RegionOcr } from '../../electron/scoring/ocr.ts';

describe('OCR', () => {
  it('takes the first number of the text, thousands separators and all', () => {
    expect(numberIn('Moves: 7')).toBe(7);
    expect(numberIn('Score 1,234 pts')).toBe(1234);
    expect(numberIn('43 491')).toBe(43491);
    expect(numberIn('Floor 12 / 51')).toBe(12);
    expect(numberIn('no digits')).toBeNull();
  });

  it('removes its abort listener after each read, so a later stop rejects nothing', async () => {
    const data = await sharp({ create: { width: 120, height: 40, channels: 3, background: '#ffffff' } })
      .jpeg()
      .toBuffer();
    const frame = { data, mime: 'image/jpeg' as const, width: 120, height: 40, scale: 1 };
    const ocr = new RegionOcr();
    const stop = new AbortController();
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      for (let i = 0; i < 2; i++) await ocr.read(frame, { x: 0, y: 0, width: 1, height: 1 }, stop.signal);
      expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
      stop.abort();
      await new Promise((r) => setTimeout(r, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await ocr.close();
    }
  }, 60_000);
});
