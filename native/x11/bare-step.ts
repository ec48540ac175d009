/**
 * The work of a step done by the bare X primitives, with nothing of Gamepilot's around them:
 * what `gamepilot bench` times as the machine's limit. A region scaled by XRender where the
 * capture scales it (render.ts) and read with XShmGetImage into a segment of its own, the
 * pixels handed on where the server wrote them (no copy), and one XTest key down and up.
 */
import type { Rect } from '../types.ts';
import { X, xConnection, type XConnection } from './xlib.ts';
import { RenderScaler } from './render.ts';
import { pixelOrder, ShmImage, sourceOf } from './capture.ts';

const XK_Shift_L = 0xffe1;

export interface BarePixels {
  /** The image in the segment, rows packed (32-bit pixels, 32-bit padding): valid until the next grab. */
  data: Uint8Array;
  width: number;
  height: number;
  order: 'bgrx' | 'rgbx';
}

export class BareX11Step {
  private readonly c: XConnection;
  private readonly scaler: RenderScaler | undefined;
  private readonly shm: ShmImage;
  private readonly keycode: number;

  /** `size`: the size the frame is sent at (scaled in the server as the capture does); `keysym`: the key pressed. */
  constructor(
    private readonly region: Rect,
    private readonly size: { width: number; height: number },
    keysym = XK_Shift_L,
    connect: () => XConnection = xConnection,
  ) {
    this.c = connect();
    this.scaler = RenderScaler.create(this.c);
    this.shm = new ShmImage(this.c, region.width * region.height * 4);
    this.keycode = this.c.lib.fn.XKeysymToKeycode(this.c.display, keysym);
    if (!this.keycode) {
      this.close();
      throw new Error(`no key on this keyboard produces keysym 0x${keysym.toString(16)}`);
    }
  }

  grab(): BarePixels {
    const { drawable, area } = sourceOf(this.c, this.scaler, this.region, this.size);
    const { head, memory } = this.shm.read(drawable, area);
    const order = pixelOrder(head);
    const data = memory.subarray(0, head.bytes_per_line * area.height);
    return { data, width: area.width, height: area.height, order };
  }

  /** One key down and up into whatever has the focus, sent at once. */
  key() {
    const { fn } = this.c.lib;
    fn.XTestFakeKeyEvent(this.c.display, this.keycode, X.True, 0);
    fn.XTestFakeKeyEvent(this.c.display, this.keycode, X.False, 0);
    fn.XFlush(this.c.display);
  }

  close() {
    this.shm.close();
    this.scaler?.close();
  }
}
