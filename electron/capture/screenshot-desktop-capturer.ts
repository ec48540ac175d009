import { loadSharp } from '../util/sharp.ts';
import type { Rect } from '../../native/types.ts';
import { offScreenError, withinScreen, type RawFrame, type ScreenCapturer } from './capturer.ts';

/**
 * Fallback on every OS: screenshot-desktop grabs the whole screen (on Linux via ImageMagick
 * `import`, ~120 ms) and the window region is cut out with sharp.
 */
export class ScreenshotDesktopCapturer implements ScreenCapturer {
  readonly name = 'screenshot-desktop';
  /** The size of the last screenshot: the screen, as this backend sees it. */
  private lastScreen: Rect | undefined;

  private async shoot(): Promise<{ png: Buffer; screen: Rect }> {
    const { default: screenshot } = await import('screenshot-desktop');
    const png = (await screenshot({ format: 'png' })) as Buffer;
    const sharp = await loadSharp();
    const meta = await sharp(png).metadata();
    this.lastScreen = { x: 0, y: 0, width: meta.width ?? 0, height: meta.height ?? 0 };
    return { png, screen: this.lastScreen };
  }

  async screenBounds(): Promise<Rect> {
    return this.lastScreen ?? (await this.shoot()).screen;
  }

  async grab(region: Rect): Promise<RawFrame> {
    const { png, screen } = await this.shoot();
    if (!withinScreen(region, screen)) throw offScreenError(region, screen);
    const { data, info } = await (await loadSharp())(png)
      .extract({ left: region.x, top: region.y, width: region.width, height: region.height })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, channels: 4, order: 'rgba' };
  }
}
