/**
 * Where the app puts a built-in game's window: beside the control window, inside the work area,
 * never over the control window when there is room on either side.
 */
import { describe, expect, it } from 'vitest';
import {
  controlWindowBounds,
  GAP,
  MIN_CONTROL_WIDTH,
  outerSize,
  placeBeside,
  type Rect,
  type Size,
} from '../../electron/util/placement.ts';

const overlaps = (a: Rect, b: Rect) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const inside = (r: Rect, area: Rect) =>
  r.x >= area.x && r.y >= area.y && r.x + r.width <= area.x + area.width && r.y + r.height <= area.y + area.height;

// A 1920×1080 display with a 32 px panel at the top.
const work: Rect = { x: 0, y: 32, width: 1920, height: 1048 };
const game: Size = { width: 520, height: 670 };

describe('placeBeside', () => {
  it('goes on the right of the control window, top-aligned, a gap apart, when it fits there', () => {
    const control = { x: 100, y: 200, width: 1000, height: 800 };
    expect(placeBeside(control, game, work)).toEqual({ x: 1100 + GAP, y: 200 });
  });

  it('goes on the left when the right has no room', () => {
    const control = { x: 800, y: 100, width: 1000, height: 800 };
    expect(placeBeside(control, game, work)).toEqual({ x: 800 - GAP - 520, y: 100 });
  });

  it('gives up the gap rather than overlap when the room is just the window’s width', () => {
    const control = { x: 0, y: 32, width: 1920 - 520, height: 800 };
    expect(placeBeside(control, game, work)).toEqual({ x: 1400, y: 32 });
    const onRight = { x: 520, y: 32, width: 1400, height: 800 };
    expect(placeBeside(onRight, game, work)).toEqual({ x: 0, y: 32 });
  });

  it('with no room on either side, takes the side with more room, as far out as the work area allows', () => {
    const centred = { x: 280, y: 100, width: 1360, height: 880 }; // 280 px each side
    expect(placeBeside(centred, game, work)).toEqual({ x: 1920 - 520, y: 100 });
    const leftish = { x: 300, y: 100, width: 1360, height: 880 }; // 300 left, 260 right
    expect(placeBeside(leftish, game, work)).toEqual({ x: 0, y: 100 });
  });

  it('stays inside the work area: below the panel, above the bottom, on a display that does not start at 0', () => {
    expect(placeBeside({ x: 100, y: 0, width: 800, height: 600 }, game, work).y).toBe(32);
    expect(placeBeside({ x: 100, y: 900, width: 800, height: 100 }, game, work).y).toBe(32 + 1048 - 670);
    const second: Rect = { x: 1920, y: 0, width: 1280, height: 1024 };
    const control = { x: 1920, y: 0, width: 700, height: 700 };
    expect(placeBeside(control, game, second)).toEqual({ x: 1920 + 700 + GAP, y: 0 });
  });

  it('a window larger than the work area starts at its top-left corner', () => {
    const huge = { width: 2500, height: 1200 };
    expect(placeBeside({ x: 300, y: 300, width: 400, height: 400 }, huge, work)).toEqual({ x: 0, y: 32 });
  });

  it('for every control position and window size: inside the work area, and clear of the control window whenever a side has room', () => {
    let checked = 0;
    for (const width of [200, 520, 900, 1500])
      for (const height of [300, 670, 1000])
        for (let cx = -200; cx <= 1900; cx += 75)
          for (const cy of [-50, 32, 400, 900]) {
            const control = { x: cx, y: cy, width: 900, height: 700 };
            const size = { width, height };
            const at = { ...placeBeside(control, size, work), ...size };
            expect(inside(at, work), JSON.stringify({ control, at })).toBe(true);
            const room = Math.max(work.x + work.width - (cx + 900), cx - work.x);
            if (room >= width) expect(overlaps(at, control), JSON.stringify({ control, at })).toBe(false);
            checked++;
          }
    expect(checked).toBeGreaterThan(1000);
  });
});

describe('outerSize', () => {
  it('adds the control window’s frame (outer bounds minus content bounds) to the content size', () => {
    const outer = { x: 10, y: 10, width: 1362, height: 910 };
    const content = { x: 11, y: 39, width: 1360, height: 880 };
    expect(outerSize({ width: 520, height: 640 }, outer, content)).toEqual({ width: 522, height: 670 });
  });

  it('never makes the window smaller than its content (frameless anchor, or bounds read mid-resize)', () => {
    const r = { x: 0, y: 0, width: 800, height: 600 };
    expect(outerSize({ width: 520, height: 640 }, r, { ...r, width: 801 })).toEqual({ width: 520, height: 640 });
  });
});

describe('controlWindowBounds', () => {
  it('opens the control window at the work area’s left, so a 2048 window fits beside it on a 1920-wide screen', () => {
    const work = { x: 0, y: 32, width: 1920, height: 1048 };
    const control = controlWindowBounds(work, { width: 1360, height: 880 });
    expect(control).toEqual({ x: 0, y: 32, width: 1360, height: 880 });
    const game = { width: 522, height: 670 }; // 2048's 520×640 content with a frame
    const at = placeBeside(control, game, work);
    expect(at.x).toBeGreaterThanOrEqual(control.x + control.width); // beside, not over it
    expect(at.x + game.width).toBeLessThanOrEqual(work.x + work.width);
  });

  it('shrinks to a work area smaller than its preferred size, and follows a work area that does not start at 0', () => {
    expect(controlWindowBounds({ x: 1920, y: 0, width: 1280, height: 720 }, { width: 1360, height: 880 })).toEqual({
      x: 1920,
      y: 0,
      width: 1280,
      height: 720,
    });
  });
});

describe('controlWindowBounds with room for a game', () => {
  const preferred = { width: 1360, height: 880 };
  const game = { width: 522, height: 665 }; // 2048's 520×640 content in openbox's frame

  it('narrows the control window so the game fits beside it on the common laptop and desktop screens', () => {
    for (const [w, h] of [
      [1280, 800],
      [1366, 768],
      [1920, 1080],
    ] as const) {
      const work = { x: 0, y: 0, width: w, height: h };
      const control = controlWindowBounds(work, preferred, game);
      expect(control.width).toBeGreaterThanOrEqual(MIN_CONTROL_WIDTH);
      const at = { ...placeBeside(control, game, work), ...game };
      expect(overlaps(at, control), `${w}×${h}`).toBe(false);
      expect(inside(at, work), `${w}×${h}`).toBe(true);
      expect(inside(control, work), `${w}×${h}`).toBe(true);
    }
  });

  it('keeps its preferred size where the game fits anyway, and its minimum width where nothing would', () => {
    const wide = { x: 0, y: 0, width: 2560, height: 1440 };
    expect(controlWindowBounds(wide, preferred, game)).toEqual({ x: 0, y: 0, ...preferred });
    const small = { x: 0, y: 0, width: 1024, height: 768 };
    expect(controlWindowBounds(small, preferred, game).width).toBe(MIN_CONTROL_WIDTH);
    const tiny = { x: 0, y: 0, width: 640, height: 480 };
    expect(controlWindowBounds(tiny, preferred, game).width).toBe(640); // never wider than the screen
  });
});
