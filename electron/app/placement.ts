/**
 * Where the app opens a built-in game's window: beside the control window, not over it. Plain
 * geometry (no `electron` import, so tests check it as it is); the app feeds it the control
 * window's bounds and the work area (the display minus task bars and panels) from `screen`.
 * Rectangles are in screen coordinates (DIP), as Electron's getBounds() and workArea give them.
 */

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Size {
  width: number;
  height: number;
}

/** Space left between the two windows when there is room for it. */
export const GAP = 12;

const clamp = (v: number, lo: number, hi: number) => (hi < lo ? lo : Math.min(Math.max(v, lo), hi));

/**
 * The top-left corner for a window of outer size `size` beside `anchor`, inside `workArea`:
 * on the right of the anchor when it fits there, else on the left, else on the side with more
 * room (as far from the anchor as the work area allows). Top-aligned with the anchor. Always
 * clamped inside the work area (its top-left corner, when the window is larger than it); never
 * overlapping the anchor when either side has room for the window.
 */
export function placeBeside(anchor: Rect, size: Size, workArea: Rect, gap = GAP): { x: number; y: number } {
  const right = workArea.x + workArea.width;
  const anchorRight = anchor.x + anchor.width;
  const roomRight = right - anchorRight;
  const roomLeft = anchor.x - workArea.x;
  let x: number;
  if (roomRight >= size.width) x = Math.min(anchorRight + gap, right - size.width);
  else if (roomLeft >= size.width) x = Math.max(anchor.x - gap - size.width, workArea.x);
  else x = roomRight >= roomLeft ? right - size.width : workArea.x;
  const bottom = workArea.y + workArea.height;
  return {
    x: Math.round(clamp(x, workArea.x, right - size.width)),
    y: Math.round(clamp(anchor.y, workArea.y, bottom - size.height)),
  };
}

/**
 * A window's outer size from the content size it is created with (`useContentSize`), taking
 * the frame (title bar, borders, menu bar) to be as large as the anchor's: its outer bounds
 * minus its content bounds. A menu bar the new window hides makes the estimate a little
 * larger, never smaller, than the real frame.
 */
export function outerSize(content: Size, anchorOuter: Rect, anchorContent: Rect): Size {
  return {
    width: content.width + Math.max(0, anchorOuter.width - anchorContent.width),
    height: content.height + Math.max(0, anchorOuter.height - anchorContent.height),
  };
}

/**
 * Where the control window opens: the work area's top-left corner (not centred), at its
 * preferred size or the work area's, whichever is smaller — so the rest of the screen, on its
 * right, is free for the game's window (a 1920-wide screen leaves 560 px beside a 1360-wide one).
 */
export function controlWindowBounds(workArea: Rect, preferred: Size): Rect {
  return {
    x: workArea.x,
    y: workArea.y,
    width: Math.min(preferred.width, workArea.width),
    height: Math.min(preferred.height, workArea.height),
  };
}
