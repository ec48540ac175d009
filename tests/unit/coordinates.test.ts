import { describe, expect, it } from 'vitest';
import {
  imageToScreen,
  windowToImage,
  inputScaleFor,
  visiblePart,
  isClipped,
  inputRegion,
} from '../../electron/input/coordinates.ts';
import { overlapping } from '../../electron/capture/occlusion.ts';
import { resolveKeyName } from '../../electron/actions/keys.ts';

describe('image → screen mapping', () => {
  const g = {
    window: { x: 200, y: 100, width: 1600, height: 1000 },
    imageScale: 0.8,
    imageWidth: 1280,
    imageHeight: 800,
    inputScale: 1,
  };

  it('undoes the image scale and adds the window offset', () => {
    expect(imageToScreen(g, 0, 0)).toEqual({ ok: true, x: 200, y: 100 });
    expect(imageToScreen(g, 640, 400)).toEqual({ ok: true, x: 1000, y: 600 });
    expect(imageToScreen(g, 1279, 799)).toMatchObject({ ok: true, x: 200 + 1598, y: 100 + 998 });
  });

  it('converts physical pixels to points on HiDPI macOS', () => {
    expect(inputScaleFor('darwin', 2)).toBe(2);
    expect(inputScaleFor('linux', 2)).toBe(1);
    expect(imageToScreen({ ...g, inputScale: 2 }, 640, 400)).toEqual({ ok: true, x: 500, y: 300 });
  });

  it('refuses points outside the image', () => {
    for (const [x, y] of [
      [-1, 0],
      [0, -1],
      [1280, 0],
      [0, 800],
      [Number.NaN, 3],
    ] as const)
      expect(imageToScreen(g, x, y).ok).toBe(false);
  });

  it('maps window pixels back to image pixels', () => {
    expect(windowToImage(g, 800, 500)).toEqual({ x: 640, y: 400 });
  });
});

describe('windows partly off the screen', () => {
  const screen = { x: 0, y: 0, width: 1600, height: 900 };
  // 700×500 window whose left 260 and top 120 pixels are off the screen.
  const window = { x: -260, y: -120, width: 700, height: 500 };
  const visible = visiblePart(window, screen)!;
  const g = { window, visible, imageScale: 1, imageWidth: visible.width, imageHeight: visible.height, inputScale: 1 };

  it('the captured part is the on-screen part of the client area', () => {
    expect(visible).toEqual({ x: 0, y: 0, width: 440, height: 380 });
    expect(isClipped(g)).toBe(true);
    expect(isClipped({ ...g, visible: window })).toBe(false);
    expect(visiblePart({ x: 1650, y: 10, width: 100, height: 100 }, screen)).toBeUndefined();
    expect(visiblePart({ x: -100, y: -100, width: 2000, height: 1200 }, screen)).toEqual(screen);
  });

  it('maps image points through the visible part', () => {
    expect(imageToScreen(g, 0, 0)).toEqual({ ok: true, x: 0, y: 0 });
    expect(imageToScreen(g, 439, 379)).toEqual({ ok: true, x: 439, y: 379 });
    const half = { ...g, imageScale: 0.5, imageWidth: 220, imageHeight: 190 };
    expect(imageToScreen(half, 100, 50)).toEqual({ ok: true, x: 200, y: 100 });
  });

  it('window pixels map into the image; those on the hidden part fall outside it and are refused', () => {
    // Window pixel (300, 150) is on screen at (40, 30): image pixel (40, 30).
    expect(windowToImage(g, 300, 150)).toEqual({ x: 40, y: 30 });
    const hidden = windowToImage(g, 100, 50); // in the off-screen strip
    expect(hidden.x).toBeLessThan(0);
    expect(imageToScreen(g, hidden.x, hidden.y).ok).toBe(false);
  });

  it('the pointer may act only on the visible part', () => {
    expect(inputRegion(g)).toEqual(visible);
    expect(inputRegion({ ...g, inputScale: 2 })).toEqual({ x: 0, y: 0, width: 220, height: 190 });
  });
});

describe('windows covering a window', () => {
  const base = { title: '', pid: 1, scaleFactor: 1 };
  const area = { x: 100, y: 100, width: 200, height: 200 };
  it('counts shown windows whose frame overlaps, decorations included', () => {
    const titleBarOnly = {
      ...base,
      id: 'a',
      bounds: { x: 100, y: 320, width: 100, height: 100 },
      frame: { x: 99, y: 295, width: 102, height: 126 },
    };
    const beside = {
      ...base,
      id: 'b',
      bounds: { x: 320, y: 100, width: 100, height: 100 },
      frame: { x: 319, y: 80, width: 102, height: 126 },
    };
    const minimizedOver = { ...base, id: 'c', bounds: area, minimized: true };
    expect(overlapping([titleBarOnly, beside, minimizedOver], area).map((w) => w.id)).toEqual(['a']);
  });
});

describe('key names', () => {
  it.each([
    ['enter', 'Enter'],
    ['ArrowUp', 'Up'],
    ['left', 'Left'],
    ['a', 'A'],
    ['Z', 'Z'],
    ['5', 'Num5'],
    ['f5', 'F5'],
    ['ctrl', 'LeftControl'],
    ['Shift', 'LeftShift'],
    ['space', 'Space'],
    ['esc', 'Escape'],
    ['KeyW', 'W'],
    ['Digit3', 'Num3'],
  ])('%s → %s', (name, nut) => expect(resolveKeyName(name)).toBe(nut));

  it('rejects unknown names', () => {
    for (const k of ['hyperdrive', 'F99', 'ctrl+c', '']) expect(resolveKeyName(k)).toBeUndefined();
  });
});
