import type { Rect } from '../../native/types.ts';
import { offScreenError, withinScreen, type RawFrame, type ScreenCapturer } from './capturer.ts';
import { loadNut } from '../input/nut.ts';

/** Region grab through nut-js (libnut; XGetImage on X11): the default on macOS, the fallback on X11 when libX11 cannot be loaded in-process. */
export class NutCapturer implements ScreenCapturer {
  readonly name = 'nut-js';

  /** libnut's display size (the X root window on X11, the main display elsewhere); in-process, well under 1 ms. */
  async screenBounds(): Promise<Rect> {
    const nut = await loadNut();
    return { x: 0, y: 0, width: await nut.screen.width(), height: await nut.screen.height() };
  }

  async grab(region: Rect): Promise<RawFrame> {
    const nut = await loadNut();
    const screen = await this.screenBounds();
    if (!withinScreen(region, screen)) throw offScreenError(region, screen);
    const img = await nut.screen.grabRegion(new nut.Region(region.x, region.y, region.width, region.height));
    const channels = img.channels === 3 ? 3 : 4;
    // libnut reports BGR(A) order on every platform it supports.
    return { data: img.data, width: img.width, height: img.height, channels, order: channels === 4 ? 'bgra' : 'rgb' };
  }
}
