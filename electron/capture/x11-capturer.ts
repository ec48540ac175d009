import type { Rect } from '../../native/types.ts';
import { createGrabber, type ScreenGrabber } from '../../native/x11/capture.ts';
import { offScreenError, withinScreen, type GrabOptions, type RawFrame, type ScreenCapturer } from './capturer.ts';
import { fitted } from './encode.ts';

/**
 * X11 capture in-process: XShmGetImage over Gamepilot's own X connection (XGetImage where the
 * server refuses shared memory), handed on as the server's own 32-bit pixels (the JPEG encoder
 * reads them as they are): where the caller reuses (`reuseBuffers`, the session loop), straight
 * from the shared memory the server wrote them into, else copied out. When the frame is to be
 * sent smaller (`maxLongSide`), the X server scales it first (XRender, bilinear). See
 * docs/speed.md for the candidates measured.
 */
export class X11Capturer implements ScreenCapturer {
  readonly name = 'x11';
  private grabber: ScreenGrabber | undefined;

  /** x11-shm or x11-getimage, once the first grab chose. */
  get method() {
    return this.grabber?.name;
  }

  private get g(): ScreenGrabber {
    this.grabber ??= createGrabber();
    return this.grabber;
  }

  /** The X root window: all monitors' bounding box. One round trip. */
  async screenBounds(): Promise<Rect> {
    return { x: 0, y: 0, ...this.g.screenSize() };
  }

  async grab(region: Rect, opts: GrabOptions = {}): Promise<RawFrame> {
    const screen = await this.screenBounds();
    if (!withinScreen(region, screen)) throw offScreenError(region, screen);
    const size = opts.maxLongSide ? fitted(region, opts.maxLongSide) : undefined;
    const px = this.g.grab(region, { layout: 'native', ...(size ? { size } : {}), reuse: !!opts.reuseBuffers });
    const scaled = px.width !== region.width || px.height !== region.height;
    return {
      data: px.data,
      width: px.width,
      height: px.height,
      channels: px.order === 'rgb' ? 3 : 4,
      order: px.order === 'rgb' ? 'rgb' : px.order === 'bgrx' ? 'bgra' : 'rgba',
      ...(scaled ? { source: { width: region.width, height: region.height } } : {}),
    };
  }
}
