/**
 * Where a shell opens a built-in game's window: beside the control window, not over it. Plain
 * geometry, shared by the Electron app (which feeds it the control window's bounds and the work
 * area from `screen`) and the web shell's browser windows (the root window's size, and the frame
 * the window manager put around the control window). Rectangles are in screen coordinates.
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

/** The control window's size when the screen has room for it (the app's window, the web shell's browser window). */
export const CONTROL_WINDOW_SIZE: Size = { width: 1360, height: 880 };

/**
 * The narrowest the control window is made to leave room for a game beside it: the tab bar
 * still fits on one row and the live frame beside its side pane (748 px at 1280×800:
 * test-artifacts/ui/start-1280x800.png).
 */
export const MIN_CONTROL_WIDTH = 720;

/**
 * Where the control window opens: the work area's top-left corner (not centred), at its
 * preferred size or the work area's, whichever is smaller — so the rest of the screen, on its
 * right, is free for the game's window (a 1920-wide screen leaves 560 px beside a 1360-wide one).
 * With `room` (a game window's outer size), it is made narrower, down to MIN_CONTROL_WIDTH, so
 * that a window of that size fits beside it: 1280- and 1366-wide screens, where the preferred
 * width would leave no room and the game would open over it. The game keeps its own size: its
 * view is drawn at fixed pixel sizes, and a smaller window would cut the board off.
 */
export function controlWindowBounds(workArea: Rect, preferred: Size, room?: Size): Rect {
  const beside = room ? workArea.width - room.width - GAP : workArea.width;
  const width = Math.min(preferred.width, workArea.width, Math.max(beside, MIN_CONTROL_WIDTH));
  return {
    x: workArea.x,
    y: workArea.y,
    width,
    height: Math.min(preferred.height, workArea.height),
  };
}
