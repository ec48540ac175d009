import { describe, expect, it } from 'vitest';
import { imageToScreen, windowToImage, inputScaleFor } from '../../electron/input/coordinates.ts';
import { resolveKeyName } from '../../electron/input/keys.ts';

describe('image → screen mapping', () => {
  const g = { window: { x: 200, y: 100, width: 1600, height: 1000 }, imageScale: 0.8, imageWidth: 1280, imageHeight: 800, inputScale: 1 };

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
    for (const [x, y] of [[-1, 0], [0, -1], [1280, 0], [0, 800], [Number.NaN, 3]] as const) expect(imageToScreen(g, x, y).ok).toBe(false);
  });

  it('maps window pixels back to image pixels', () => {
    expect(windowToImage(g, 800, 500)).toEqual({ x: 640, y: 400 });
  });
});

describe('key names', () => {
  it.each([
    ['enter', 'Enter'], ['ArrowUp', 'Up'], ['left', 'Left'], ['a', 'A'], ['Z', 'Z'], ['5', 'Num5'], ['f5', 'F5'],
    ['ctrl', 'LeftControl'], ['Shift', 'LeftShift'], ['space', 'Space'], ['esc', 'Escape'], ['KeyW', 'W'], ['Digit3', 'Num3'],
  ])('%s → %s', (name, nut) => expect(resolveKeyName(name)).toBe(nut));

  it('rejects unknown names', () => {
    for (const k of ['hyperdrive', 'F99', 'ctrl+c', '']) expect(resolveKeyName(k)).toBeUndefined();
  });
});
