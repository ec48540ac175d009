import type { Rect } from '../../native/types.ts';

/** Uncompressed pixels of one screen region, straight from a capture backend. */
export interface RawFrame {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
  /** Channel order as delivered; nut-js on X11 delivers BGRA. */
  order: 'rgb' | 'rgba' | 'bgra';
  /** Set when the backend scaled the region while capturing: the region's own size in screen pixels. */
  source?: { width: number; height: number };
}

export interface GrabOptions {
  /**
   * The longest side the frame will be sent at: a backend that can scale while capturing
   * (X11, in the server) may deliver it at that size already; others ignore it.
   */
  maxLongSide?: number;
  /**
   * For one sequential caller (the session loop): the frame's pixels need to stay valid only
   * until the second next grab with this option, so a backend may hand out memory of its own in
   * turn instead of a new buffer each time (X11 does: two shared-memory segments the server
   * writes into, or two buffers; others ignore it).
   */
  reuseBuffers?: boolean;
}

/** Grabs the pixels of a screen region. Several backends, one interface. */
export interface ScreenCapturer {
  readonly name: string;
  /** The screen area this backend can grab from, in physical pixels. */
  screenBounds(): Promise<Rect>;
  /** Pixels of a region that lies on the screen; a region reaching off it is refused with a clear error. */
  grab(region: Rect, opts?: GrabOptions): Promise<RawFrame>;
}

/** The error for a region that is not entirely on the screen (instead of a backend's cryptic one). */
export function offScreenError(region: Rect, screen: Rect): Error {
  return new Error(
    `cannot capture ${region.width}×${region.height} at ${region.x},${region.y}: it reaches beyond the ${screen.width}×${screen.height} screen at ${screen.x},${screen.y}; capture only the on-screen part`,
  );
}

export function withinScreen(region: Rect, screen: Rect): boolean {
  return (
    region.width > 0 &&
    region.height > 0 &&
    region.x >= screen.x &&
    region.y >= screen.y &&
    region.x + region.width <= screen.x + screen.width &&
    region.y + region.height <= screen.y + screen.height
  );
}
