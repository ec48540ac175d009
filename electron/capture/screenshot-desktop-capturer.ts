import sharp from 'sharp';
import type { Rect } from '../../native/types.ts';
import type { RawFrame, ScreenCapturer } from './types.ts';

/**
 * Fallback on every OS: screenshot-desktop grabs the whole screen (on Linux via ImageMagick
 * `import`, ~120 ms) and the window region is cut out with sharp.
 */
export class ScreenshotDesktopCapturer implements ScreenCapturer {
  readonly name = 'screenshot-desktop';

  async grab(region: Rect): Promise<RawFrame> {
    const { default: screenshot } = await import('screenshot-desktop');
    const png = (await screenshot({ format: 'png' })) as Buffer;
    const { data, info } = await sharp(png)
      .extract({ left: Math.max(0, region.x), top: Math.max(0, region.y), width: region.width, height: region.height })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, channels: 4, order: 'rgba' };
  }
}
