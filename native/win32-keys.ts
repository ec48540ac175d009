/**
 * nut-js Key names (what electron/actions/keys.ts resolves model key names to) → Windows
 * virtual-key codes, and which keys need KEYEVENTF_EXTENDEDKEY (their scan code has the E0
 * prefix). Pure data: unit-tested on every OS.
 */

/** Virtual-key codes by nut-js Key name. Keys Windows has no code for (Fn, AudioRewind, …) are absent. */
export const VIRTUAL_KEYS: Readonly<Record<string, number>> = {
  Escape: 0x1b,
  ...Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`F${i + 1}`, 0x70 + i])),
  Print: 0x2c,
  ScrollLock: 0x91,
  Pause: 0x13,
  Grave: 0xc0,
  ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`Num${i}`, 0x30 + i])),
  Minus: 0xbd,
  Equal: 0xbb,
  Backspace: 0x08,
  Insert: 0x2d,
  Home: 0x24,
  PageUp: 0x21,
  NumLock: 0x90,
  NumPadEqual: 0x92,
  Divide: 0x6f,
  Multiply: 0x6a,
  Subtract: 0x6d,
  Add: 0x6b,
  Decimal: 0x6e,
  Clear: 0x0c,
  ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`NumPad${i}`, 0x60 + i])),
  Tab: 0x09,
  ...Object.fromEntries(Array.from({ length: 26 }, (_, i) => [String.fromCharCode(65 + i), 0x41 + i])),
  LeftBracket: 0xdb,
  RightBracket: 0xdd,
  Backslash: 0xdc,
  Delete: 0x2e,
  End: 0x23,
  PageDown: 0x22,
  CapsLock: 0x14,
  Semicolon: 0xba,
  Quote: 0xde,
  Return: 0x0d,
  Enter: 0x0d,
  LeftShift: 0xa0,
  RightShift: 0xa1,
  Comma: 0xbc,
  Period: 0xbe,
  Slash: 0xbf,
  Up: 0x26,
  Down: 0x28,
  Left: 0x25,
  Right: 0x27,
  LeftControl: 0xa2,
  RightControl: 0xa3,
  LeftAlt: 0xa4,
  RightAlt: 0xa5,
  LeftSuper: 0x5b,
  LeftWin: 0x5b,
  LeftCmd: 0x5b,
  LeftMeta: 0x5b,
  RightSuper: 0x5c,
  RightWin: 0x5c,
  RightCmd: 0x5c,
  RightMeta: 0x5c,
  Space: 0x20,
  Menu: 0x5d,
  AudioMute: 0xad,
  AudioVolDown: 0xae,
  AudioVolUp: 0xaf,
  AudioNext: 0xb0,
  AudioPrev: 0xb1,
  AudioStop: 0xb2,
  AudioPlay: 0xb3,
  AudioPause: 0xb3,
};

/** Keys whose scan code carries the E0 prefix: sent with KEYEVENTF_EXTENDEDKEY. */
const EXTENDED = new Set([
  0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x2c, 0x2d, 0x2e, 0x5b, 0x5c, 0x5d, 0x6f, 0x90, 0xa3, 0xa5, 0xad,
  0xae, 0xaf, 0xb0, 0xb1, 0xb2, 0xb3,
]);

/**
 * Scan codes (set 1) of a US keyboard by nut-js Key name, used when MapVirtualKeyW knows none.
 * Pause (E1 1D 45), F13–F24 and the media keys have no plain scan code: they go by virtual-key code.
 */
const US_SCAN_CODES: Readonly<Record<string, number>> = {
  Escape: 0x01,
  F1: 0x3b,
  F2: 0x3c,
  F3: 0x3d,
  F4: 0x3e,
  F5: 0x3f,
  F6: 0x40,
  F7: 0x41,
  F8: 0x42,
  F9: 0x43,
  F10: 0x44,
  F11: 0x57,
  F12: 0x58,
  Print: 0x37,
  ScrollLock: 0x46,
  Grave: 0x29,
  Num1: 0x02,
  Num2: 0x03,
  Num3: 0x04,
  Num4: 0x05,
  Num5: 0x06,
  Num6: 0x07,
  Num7: 0x08,
  Num8: 0x09,
  Num9: 0x0a,
  Num0: 0x0b,
  Minus: 0x0c,
  Equal: 0x0d,
  Backspace: 0x0e,
  Tab: 0x0f,
  Q: 0x10,
  W: 0x11,
  E: 0x12,
  R: 0x13,
  T: 0x14,
  Y: 0x15,
  U: 0x16,
  I: 0x17,
  O: 0x18,
  P: 0x19,
  LeftBracket: 0x1a,
  RightBracket: 0x1b,
  Return: 0x1c,
  LeftControl: 0x1d,
  RightControl: 0x1d,
  A: 0x1e,
  S: 0x1f,
  D: 0x20,
  F: 0x21,
  G: 0x22,
  H: 0x23,
  J: 0x24,
  K: 0x25,
  L: 0x26,
  Semicolon: 0x27,
  Quote: 0x28,
  LeftShift: 0x2a,
  Backslash: 0x2b,
  Z: 0x2c,
  X: 0x2d,
  C: 0x2e,
  V: 0x2f,
  B: 0x30,
  N: 0x31,
  M: 0x32,
  Comma: 0x33,
  Period: 0x34,
  Slash: 0x35,
  Divide: 0x35,
  RightShift: 0x36,
  Multiply: 0x37,
  LeftAlt: 0x38,
  RightAlt: 0x38,
  Space: 0x39,
  CapsLock: 0x3a,
  NumLock: 0x45,
  Home: 0x47,
  Up: 0x48,
  PageUp: 0x49,
  Subtract: 0x4a,
  Left: 0x4b,
  Clear: 0x4c,
  Right: 0x4d,
  Add: 0x4e,
  End: 0x4f,
  Down: 0x50,
  PageDown: 0x51,
  Insert: 0x52,
  Delete: 0x53,
  NumPad7: 0x47,
  NumPad8: 0x48,
  NumPad9: 0x49,
  NumPad4: 0x4b,
  NumPad5: 0x4c,
  NumPad6: 0x4d,
  NumPad1: 0x4f,
  NumPad2: 0x50,
  NumPad3: 0x51,
  NumPad0: 0x52,
  Decimal: 0x53,
  LeftSuper: 0x5b,
  RightSuper: 0x5c,
  Menu: 0x5d,
};

const SCAN_BY_VK = new Map(Object.entries(US_SCAN_CODES).map(([name, scan]) => [VIRTUAL_KEYS[name]!, scan]));

/** The US-layout scan code of a virtual key (aliases such as LeftWin and LeftSuper share one), if it has one. */
export function usScanCode(vk: number): number | undefined {
  return SCAN_BY_VK.get(vk);
}

export interface KeyStroke {
  vk: number;
  /** Sent with KEYEVENTF_EXTENDEDKEY (E0-prefixed scan code). */
  extended: boolean;
}

/** The virtual key of a nut-js Key name, or undefined when Windows has none. */
export function keyStroke(name: string): KeyStroke | undefined {
  const vk = VIRTUAL_KEYS[name];
  return vk === undefined ? undefined : { vk, extended: EXTENDED.has(vk) };
}

/** Keys that must go by virtual-key code: no single scan code stands for them. */
export function needsVirtualKey(vk: number): boolean {
  return vk === 0x13 || (vk >= 0xad && vk <= 0xb3) || (vk >= 0x7c && vk <= 0x87);
}
