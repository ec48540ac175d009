/**
 * The one place where a point in the image the model saw becomes a point on the screen:
 * undo the image scale, add the captured region's offset, and convert physical pixels to the
 * input system's units (points on macOS HiDPI). The image shows only the part of the window
 * that is on the screen; points outside it (off the screen, or outside the window) are refused.
 */
import { contains, intersect, type Rect } from '../../native/types.ts';

export interface FrameGeometry {
  /** Window client area in physical screen pixels at capture time. */
  window: Rect;
  /** The part of the client area that is on the screen and was captured (default: all of `window`). */
  visible?: Rect;
  /** Image pixels per window pixel. */
  imageScale: number;
  imageWidth: number;
  imageHeight: number;
  /** Physical pixels per input unit: the HiDPI factor on macOS, 1 elsewhere. */
  inputScale: number;
  /** Where pointer actions may land, in physical screen pixels (a profile's actions.pointerArea; default: all the window). */
  pointerArea?: Rect | undefined;
}

/** A rectangle given in fractions of a width × height area, in whole pixels inside it (at least one). */
export function fractionInPixels(area: { width: number; height: number }, f: Rect): Rect {
  const { width: W, height: H } = area;
  const x = Math.min(W - 1, Math.max(0, Math.round(f.x * W)));
  const y = Math.min(H - 1, Math.max(0, Math.round(f.y * H)));
  return {
    x,
    y,
    width: Math.max(1, Math.min(W - x, Math.round(f.width * W))),
    height: Math.max(1, Math.min(H - y, Math.round(f.height * H))),
  };
}

/** A rectangle given in fractions of a window, in the window's own pixels on the screen. */
export function fractionOfWindow(window: Rect, f: Rect): Rect {
  const r = fractionInPixels(window, f);
  return { ...r, x: window.x + r.x, y: window.y + r.y };
}

/** A frame of the whole window at its own size: image pixel = window pixel = input unit. */
export function fullSizeGeometry(window: Rect): FrameGeometry {
  return { window, imageScale: 1, imageWidth: window.width, imageHeight: window.height, inputScale: 1 };
}

export type MappedPoint = { ok: true; x: number; y: number } | { ok: false; error: string };

/** The on-screen part of a window's client area; undefined when none of it is on the screen. */
export function visiblePart(window: Rect, screen: Rect): Rect | undefined {
  return intersect(window, screen);
}

/** The screen region the image shows. */
export function capturedRegion(g: FrameGeometry): Rect {
  return g.visible ?? g.window;
}

/** True when part of the window lies off the screen (and so is missing from the image). */
export function isClipped(g: FrameGeometry): boolean {
  const v = capturedRegion(g);
  return v.width !== g.window.width || v.height !== g.window.height;
}

export function imageToScreen(g: FrameGeometry, x: number, y: number): MappedPoint {
  if (!Number.isFinite(x) || !Number.isFinite(y))
    return { ok: false, error: `coordinates (${x}, ${y}) are not numbers` };
  if (x < 0 || y < 0 || x >= g.imageWidth || y >= g.imageHeight) {
    return { ok: false, error: `point (${x}, ${y}) is outside the ${g.imageWidth}×${g.imageHeight} image` };
  }
  const region = capturedRegion(g);
  const px = region.x + Math.floor(x / g.imageScale);
  const py = region.y + Math.floor(y / g.imageScale);
  if (!contains(g.window, px, py)) return { ok: false, error: `point (${x}, ${y}) maps outside the target window` };
  if (!contains(region, px, py))
    return { ok: false, error: `point (${x}, ${y}) maps to the part of the window that is off the screen` };
  if (g.pointerArea && !contains(g.pointerArea, px, py))
    return {
      ok: false,
      error: `point (${x}, ${y}) is outside the part of the window the profile lets the pointer act in (actions.pointerArea)`,
    };
  return { ok: true, x: px / g.inputScale, y: py / g.inputScale };
}

/**
 * Window pixel (relative to the client area's top-left) → image pixel, for overlays and for
 * solvers that know the window's layout. A point in the off-screen part lands outside the
 * image, where imageToScreen refuses it.
 */
export function windowToImage(g: FrameGeometry, wx: number, wy: number): { x: number; y: number } {
  const region = capturedRegion(g);
  return {
    x: Math.round((wx - (region.x - g.window.x)) * g.imageScale),
    y: Math.round((wy - (region.y - g.window.y)) * g.imageScale),
  };
}

/** The captured region, within the pointer area if there is one, in input units (points on macOS HiDPI): where the pointer may act. */
export function inputRegion(g: FrameGeometry): Rect {
  const shown = capturedRegion(g);
  const r = g.pointerArea ? (intersect(shown, g.pointerArea) ?? { ...shown, width: 0, height: 0 }) : shown;
  return {
    x: r.x / g.inputScale,
    y: r.y / g.inputScale,
    width: r.width / g.inputScale,
    height: r.height / g.inputScale,
  };
}

export function inputScaleFor(platform: NodeJS.Platform, scaleFactor: number): number {
  return platform === 'darwin' ? scaleFactor : 1;
}

/**
 * How a frame maps to the screen: the window's bounds, the part of it captured, the image's
 * scale and size, the input scale of this platform, and the pointer area (fractions of the
 * window) where the title's profile confines the pointer.
 */
export function frameGeometryOf(
  win: { bounds: Rect; scaleFactor: number },
  visible: Rect,
  image: { scale: number; width: number; height: number },
  pointerArea?: Rect,
): FrameGeometry {
  return {
    window: win.bounds,
    visible,
    imageScale: image.scale,
    imageWidth: image.width,
    imageHeight: image.height,
    inputScale: inputScaleFor(process.platform, win.scaleFactor),
    ...(pointerArea ? { pointerArea: fractionOfWindow(win.bounds, pointerArea) } : {}),
  };
}
