/**
 * The pure part of the macOS backend (its native calls need a Mac, which CI does not have):
 * Quartz window descriptions → WindowInfo in pixels, points ↔ pixels per display, and the key
 * code table with the flags held modifiers add.
 */
import { Key } from '@nut-tree-fork/shared';
import { describe, expect, it } from 'vitest';
import { resolveKeyName } from '../../electron/actions/keys.ts';
import { imageToScreen, inputScaleFor } from '../../electron/input/coordinates.ts';
import {
  type CGWindowDescription,
  type Display,
  displayOf,
  pixelsToPoints,
  pointsToPixels,
  toWindowInfo,
} from '../../native/macos-convert.ts';
import { MAC_KEY_CODES, macKeyCode, modifierFlag } from '../../native/macos-keys.ts';

/** A 14" MacBook (Retina, 1512×982 points) with a 1920×1080 monitor to its right. */
const DISPLAYS: Display[] = [
  { bounds: { x: 0, y: 0, width: 1512, height: 982 }, scale: 2 },
  { bounds: { x: 1512, y: 0, width: 1920, height: 1080 }, scale: 1 },
];

/** As CGWindowListCopyWindowInfo describes a window (its CFDictionary, decoded). */
const chess: CGWindowDescription & Record<string, unknown> = {
  kCGWindowAlpha: 1,
  kCGWindowBounds: { Height: 600, Width: 800, X: 100, Y: 38 },
  kCGWindowIsOnscreen: true,
  kCGWindowLayer: 0,
  kCGWindowMemoryUsage: 2176,
  kCGWindowName: 'Chess',
  kCGWindowNumber: 4711,
  kCGWindowOwnerName: 'Chess',
  kCGWindowOwnerPID: 812,
  kCGWindowSharingState: 1,
  kCGWindowStoreType: 1,
};

describe('Quartz window descriptions', () => {
  it('become WindowInfo in pixels of the display the window is on', () => {
    expect(toWindowInfo(chess, DISPLAYS)).toEqual({
      id: '4711',
      title: 'Chess',
      pid: 812,
      bounds: { x: 200, y: 76, width: 1600, height: 1200 },
      scaleFactor: 2,
      minimized: false,
      frame: { x: 200, y: 76, width: 1600, height: 1200 },
    });
    const onMonitor = toWindowInfo(
      { ...chess, kCGWindowBounds: { X: 1600, Y: 100, Width: 640, Height: 480 } },
      DISPLAYS,
    );
    expect(onMonitor?.scaleFactor).toBe(1);
    expect(onMonitor?.bounds).toEqual({ x: 1600, y: 100, width: 640, height: 480 });
  });

  it("take the owner's name where the title is withheld (no Screen Recording permission)", () => {
    const { kCGWindowName: _, ...untitled } = chess;
    expect(toWindowInfo(untitled, DISPLAYS)?.title).toBe('Chess');
  });

  it('mark windows that are not on screen as minimized', () => {
    const { kCGWindowIsOnscreen: _, ...offscreen } = chess;
    expect(toWindowInfo(offscreen, DISPLAYS)?.minimized).toBe(true);
  });

  it('leave out what is no application window', () => {
    expect(toWindowInfo({ ...chess, kCGWindowLayer: 25 }, DISPLAYS)).toBeUndefined(); // menu bar extras, the Dock
    expect(toWindowInfo({ ...chess, kCGWindowAlpha: 0 }, DISPLAYS)).toBeUndefined();
    expect(toWindowInfo({ ...chess, kCGWindowBounds: { X: 0, Y: 0, Width: 0, Height: 10 } }, DISPLAYS)).toBeUndefined();
    const { kCGWindowNumber: _, ...numberless } = chess;
    expect(toWindowInfo(numberless, DISPLAYS)).toBeUndefined();
  });
});

describe('points and pixels', () => {
  it('convert both ways on a Retina display', () => {
    expect(pointsToPixels({ x: 10.5, y: 20, width: 100, height: 50.25 }, 2)).toEqual({
      x: 21,
      y: 40,
      width: 200,
      height: 101,
    });
    expect(pixelsToPoints({ x: 21, y: 40 }, 2)).toEqual({ x: 10.5, y: 20 });
  });

  it('pick the display a window lies on most, else the main one', () => {
    expect(displayOf({ x: 1400, y: 0, width: 400, height: 300 }, DISPLAYS)).toBe(DISPLAYS[1]);
    expect(displayOf({ x: 1300, y: 0, width: 400, height: 300 }, DISPLAYS)).toBe(DISPLAYS[0]);
    expect(displayOf({ x: -5000, y: -5000, width: 10, height: 10 }, DISPLAYS)).toBe(DISPLAYS[0]);
  });

  it("a click in the model's image lands on the window in points", () => {
    const w = toWindowInfo(chess, DISPLAYS)!;
    const g = {
      window: w.bounds,
      imageScale: 0.5,
      imageWidth: 800,
      imageHeight: 600,
      inputScale: inputScaleFor('darwin', w.scaleFactor),
    };
    // Image (400, 300) → window pixel (800, 600) → screen pixel (1000, 676) → points (500, 338).
    expect(imageToScreen(g, 400, 300)).toEqual({ ok: true, x: 500, y: 338 });
  });
});

describe('macOS key codes', () => {
  const nutKeyNames = Object.keys(Key).filter((k) => Number.isNaN(Number(k)));
  /** Media keys are system-defined events on a Mac, not key codes; Mac keyboards stop at F20. */
  const NO_MAC_KEY = [
    ...['AudioPlay', 'AudioStop', 'AudioPause', 'AudioPrev', 'AudioNext', 'AudioRewind', 'AudioForward'],
    ...['AudioRepeat', 'AudioRandom', 'F21', 'F22', 'F23', 'F24'],
  ];

  it('cover every nut-js key a Mac has, and only names nut-js knows', () => {
    expect(nutKeyNames.filter((k) => !NO_MAC_KEY.includes(k) && macKeyCode(k) === undefined)).toEqual([]);
    expect(Object.keys(MAC_KEY_CODES).filter((k) => !nutKeyNames.includes(k))).toEqual([]);
  });

  it('reach every key a model may name', () => {
    for (const name of [
      'enter',
      'esc',
      'space',
      'a',
      'z',
      '0',
      '9',
      'f1',
      'f12',
      'up',
      'cmd',
      'alt',
      'shift',
      'ctrl',
    ]) {
      const nut = resolveKeyName(name)!;
      expect(macKeyCode(nut), `${name} → ${nut}`).toBeDefined();
    }
  });

  it("are Carbon's kVK codes", () => {
    expect([macKeyCode('A'), macKeyCode('Z'), macKeyCode('Num0'), macKeyCode('Num1')]).toEqual([
      0x00, 0x06, 0x1d, 0x12,
    ]);
    expect([macKeyCode('Return'), macKeyCode('Escape'), macKeyCode('Space'), macKeyCode('Backspace')]).toEqual([
      0x24, 0x35, 0x31, 0x33,
    ]);
    expect([macKeyCode('Left'), macKeyCode('Right'), macKeyCode('Down'), macKeyCode('Up')]).toEqual([
      0x7b, 0x7c, 0x7d, 0x7e,
    ]);
    expect([macKeyCode('F1'), macKeyCode('F5'), macKeyCode('F12'), macKeyCode('F20')]).toEqual([
      0x7a, 0x60, 0x6f, 0x5a,
    ]);
    expect([macKeyCode('LeftCmd'), macKeyCode('LeftShift'), macKeyCode('LeftAlt'), macKeyCode('LeftControl')]).toEqual([
      0x37, 0x38, 0x3a, 0x3b,
    ]);
  });

  it('give held modifiers their event flags', () => {
    expect(modifierFlag('LeftShift')).toBe(0x20000);
    expect(modifierFlag('RightControl')).toBe(0x40000);
    expect(modifierFlag('LeftAlt')).toBe(0x80000);
    expect(modifierFlag('LeftCmd')).toBe(0x100000);
    expect(modifierFlag('LeftSuper')).toBe(0x100000);
    expect(modifierFlag('A')).toBe(0);
  });
});
