/**
 * The one place where a point in the image the model saw becomes a point on the screen:
 * undo the image scale, add the window's offset, and convert physical pixels to the
 * input system's units (points on macOS HiDPI). Points outside the window are refused.
 */
import { contains, type Rect } from '../../native/types.ts';

export interface FrameGeometry {
  /** Window client area in physical screen pixels at capture time. */
  window: Rect;
  /** Image pixels per window pixel. */
  imageScale: number;
  imageWidth: number;
  imageHeight: number;
  /** Physical pixels per input unit: the HiDPI factor on macOS, 1 elsewhere. */
  inputScale: number;
}

export type MappedPoint = { ok: true; x: number; y: number } | { ok: false; error: string };

export function imageToScreen(g: FrameGeometry, x: number, y: number): MappedPoint {
  if (!Number.isFinite(x) || !Number.isFinite(y)) return { ok: false, error: `coordinates (${x}, ${y}) are not numbers` };
  if (x < 0 || y < 0 || x >= g.imageWidth || y >= g.imageHeight) {
    return { ok: false, error: `point (${x}, ${y}) is outside the ${g.imageWidth}×${g.imageHeight} image` };
  }
  const px = g.window.x + Math.floor(x / g.imageScale);
  const py = g.window.y + Math.floor(y / g.imageScale);
  if (!contains(g.window, px, py)) return { ok: false, error: `point (${x}, ${y}) maps outside the target window` };
  return { ok: true, x: px / g.inputScale, y: py / g.inputScale };
}

/** Screen pixel → image pixel, for overlays and for solvers that know window layout. */
export function windowToImage(g: FrameGeometry, wx: number, wy: number): { x: number; y: number } {
  return { x: Math.round(wx * g.imageScale), y: Math.round(wy * g.imageScale) };
}

export function inputScaleFor(platform: NodeJS.Platform, scaleFactor: number): number {
  return platform === 'darwin' ? scaleFactor : 1;
}
