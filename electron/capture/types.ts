import type { Rect } from '../../native/types.ts';

/** Uncompressed pixels of one screen region, straight from a capture backend. */
export interface RawFrame {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
  /** Channel order as delivered; nut-js on X11 delivers BGRA. */
  order: 'rgb' | 'rgba' | 'bgra';
}

/** Grabs the pixels of a screen region. Several backends, one interface. */
export interface ScreenCapturer {
  readonly name: string;
  grab(region: Rect): Promise<RawFrame>;
}
