/**
 * Capture through Electron's desktopCapturer (in the app only): the screen as a thumbnail at
 * full resolution, cut to the window's region. Slower than nut-js (a full-screen bitmap per
 * grab), but it works where the OS grants screen recording only to the app itself.
 */
import { desktopCapturer, screen } from 'electron';
import type { Rect } from '../../native/types.ts';
import type { RawFrame, ScreenCapturer } from '../capture/capturer.ts';

export class ElectronDesktopCapturer implements ScreenCapturer {
  readonly name = 'electron-desktopCapturer';

  /** The bounding box of every display, in physical pixels. */
  async screenBounds(): Promise<Rect> {
    const rects = screen.getAllDisplays().map((d) => ({
      x: Math.round(d.bounds.x * d.scaleFactor),
      y: Math.round(d.bounds.y * d.scaleFactor),
      right: Math.round((d.bounds.x + d.bounds.width) * d.scaleFactor),
      bottom: Math.round((d.bounds.y + d.bounds.height) * d.scaleFactor),
    }));
    const x = Math.min(...rects.map((r) => r.x));
    const y = Math.min(...rects.map((r) => r.y));
    return {
      x,
      y,
      width: Math.max(...rects.map((r) => r.right)) - x,
      height: Math.max(...rects.map((r) => r.bottom)) - y,
    };
  }

  async grab(region: Rect): Promise<RawFrame> {
    const display = screen.getDisplayMatching({ x: region.x, y: region.y, width: region.width, height: region.height });
    const scale = display.scaleFactor;
    const size = { width: Math.round(display.bounds.width * scale), height: Math.round(display.bounds.height * scale) };
    const sources = await desktopCapturer.getSources({ types: ['screen'], thumbnailSize: size });
    const source = sources.find((s) => s.display_id === String(display.id)) ?? sources[0];
    if (!source) throw new Error('desktopCapturer found no screen to capture');
    const crop = source.thumbnail.crop({
      x: region.x - Math.round(display.bounds.x * scale),
      y: region.y - Math.round(display.bounds.y * scale),
      width: region.width,
      height: region.height,
    });
    const { width, height } = crop.getSize();
    // toBitmap() is BGRA on every platform Electron supports.
    return { data: crop.toBitmap(), width, height, channels: 4, order: 'bgra' };
  }
}
