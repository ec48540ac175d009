/**
 * The pure part of the macOS backend: CGWindowListCopyWindowInfo's window descriptions (as
 * decoded from their CFDictionaries) → WindowInfo, and points ↔ pixels. Quartz gives window
 * bounds in points (global display space, y down from the main display's top); captures and
 * WindowInfo are in pixels, the display's backing scale (2 on Retina) times the points.
 * Unit-tested here (tests/unit/macos.test.ts); the native calls need a Mac.
 */
import type { Rect, WindowInfo } from './types.ts';

/** A window description's fields that matter here (CGWindow.h keys, CFDictionary decoded to JS). */
export interface CGWindowDescription {
  kCGWindowNumber?: number;
  kCGWindowOwnerPID?: number;
  kCGWindowOwnerName?: string;
  /** Absent without the Screen Recording permission. */
  kCGWindowName?: string;
  kCGWindowBounds?: { X?: number; Y?: number; Width?: number; Height?: number };
  /** 0 for ordinary application windows; menus, the Dock and overlays sit on higher layers. */
  kCGWindowLayer?: number;
  kCGWindowAlpha?: number;
  kCGWindowIsOnscreen?: boolean;
}

/** A display: its bounds in points and its backing scale (pixels per point). */
export interface Display {
  bounds: Rect;
  scale: number;
}

export function pointsToPixels(r: Rect, scale: number): Rect {
  return {
    x: Math.round(r.x * scale),
    y: Math.round(r.y * scale),
    width: Math.round(r.width * scale),
    height: Math.round(r.height * scale),
  };
}

export function pixelsToPoints(p: { x: number; y: number }, scale: number): { x: number; y: number } {
  return { x: p.x / scale, y: p.y / scale };
}

/** The display a rectangle (points) lies on most; the first display (the main one) when on none. */
export function displayOf(r: Rect, displays: Display[]): Display | undefined {
  let best: Display | undefined;
  let most = 0;
  for (const d of displays) {
    const w = Math.min(r.x + r.width, d.bounds.x + d.bounds.width) - Math.max(r.x, d.bounds.x);
    const h = Math.min(r.y + r.height, d.bounds.y + d.bounds.height) - Math.max(r.y, d.bounds.y);
    if (w > 0 && h > 0 && w * h > most) {
      most = w * h;
      best = d;
    }
  }
  return best ?? displays[0];
}

/**
 * An application window as WindowInfo, or undefined for what is no game window (other layers,
 * invisible, empty). Bounds are the whole window (Quartz does not say where the title bar
 * ends) in pixels of the display it is on; `onScreenOnly` lists told us it was on screen.
 */
export function toWindowInfo(d: CGWindowDescription, displays: Display[]): WindowInfo | undefined {
  const b = d.kCGWindowBounds;
  if (d.kCGWindowNumber === undefined || d.kCGWindowOwnerPID === undefined || !b) return undefined;
  if ((d.kCGWindowLayer ?? 0) !== 0 || d.kCGWindowAlpha === 0) return undefined;
  const points = { x: b.X ?? 0, y: b.Y ?? 0, width: b.Width ?? 0, height: b.Height ?? 0 };
  if (points.width <= 0 || points.height <= 0) return undefined;
  const scale = displayOf(points, displays)?.scale ?? 1;
  const bounds = pointsToPixels(points, scale);
  return {
    id: String(d.kCGWindowNumber),
    title: d.kCGWindowName || d.kCGWindowOwnerName || '',
    pid: d.kCGWindowOwnerPID,
    bounds,
    scaleFactor: scale,
    minimized: d.kCGWindowIsOnscreen !== true,
    frame: bounds,
  };
}
