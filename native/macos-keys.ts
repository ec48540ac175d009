/**
 * nut-js Key names → macOS virtual key codes (kVK_* of Carbon's Events.h, the codes
 * CGEventCreateKeyboardEvent takes) and the event flags a held modifier adds. Pure data.
 * Keys a Mac keyboard lacks map as Apple's do: Insert is Help, Print / ScrollLock / Pause are
 * F13 / F14 / F15, NumLock is the keypad's Clear.
 */
const letters: Record<string, number> = {
  A: 0x00,
  S: 0x01,
  D: 0x02,
  F: 0x03,
  H: 0x04,
  G: 0x05,
  Z: 0x06,
  X: 0x07,
  C: 0x08,
  V: 0x09,
  B: 0x0b,
  Q: 0x0c,
  W: 0x0d,
  E: 0x0e,
  R: 0x0f,
  Y: 0x10,
  T: 0x11,
  O: 0x1f,
  U: 0x20,
  I: 0x22,
  P: 0x23,
  L: 0x25,
  J: 0x26,
  K: 0x28,
  N: 0x2d,
  M: 0x2e,
};
const digits = [0x1d, 0x12, 0x13, 0x14, 0x15, 0x17, 0x16, 0x1a, 0x1c, 0x19];
const keypad = [0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5b, 0x5c];
const functionKeys = [
  0x7a, 0x78, 0x63, 0x76, 0x60, 0x61, 0x62, 0x64, 0x65, 0x6d, 0x67, 0x6f, 0x69, 0x6b, 0x71, 0x6a, 0x40, 0x4f, 0x50,
  0x5a,
];

export const MAC_KEY_CODES: Readonly<Record<string, number>> = {
  ...letters,
  ...Object.fromEntries(digits.map((code, i) => [`Num${i}`, code])),
  ...Object.fromEntries(keypad.map((code, i) => [`NumPad${i}`, code])),
  ...Object.fromEntries(functionKeys.map((code, i) => [`F${i + 1}`, code])),
  Escape: 0x35,
  Return: 0x24,
  Enter: 0x24,
  Tab: 0x30,
  Space: 0x31,
  Backspace: 0x33,
  Delete: 0x75,
  Insert: 0x72,
  Home: 0x73,
  End: 0x77,
  PageUp: 0x74,
  PageDown: 0x79,
  Left: 0x7b,
  Right: 0x7c,
  Down: 0x7d,
  Up: 0x7e,
  Minus: 0x1b,
  Equal: 0x18,
  LeftBracket: 0x21,
  RightBracket: 0x1e,
  Backslash: 0x2a,
  Semicolon: 0x29,
  Quote: 0x27,
  Grave: 0x32,
  Comma: 0x2b,
  Period: 0x2f,
  Slash: 0x2c,
  CapsLock: 0x39,
  LeftShift: 0x38,
  RightShift: 0x3c,
  LeftControl: 0x3b,
  RightControl: 0x3e,
  LeftAlt: 0x3a,
  RightAlt: 0x3d,
  LeftSuper: 0x37,
  LeftWin: 0x37,
  LeftCmd: 0x37,
  LeftMeta: 0x37,
  RightSuper: 0x36,
  RightWin: 0x36,
  RightCmd: 0x36,
  RightMeta: 0x36,
  Fn: 0x3f,
  Menu: 0x6e,
  Print: 0x69,
  ScrollLock: 0x6b,
  Pause: 0x71,
  NumLock: 0x47,
  Clear: 0x47,
  Divide: 0x4b,
  Multiply: 0x43,
  Subtract: 0x4e,
  Add: 0x45,
  Decimal: 0x41,
  NumPadEqual: 0x51,
  AudioMute: 0x4a,
  AudioVolDown: 0x49,
  AudioVolUp: 0x48,
};

const SHIFT = 0x20000;
const CONTROL = 0x40000;
const ALTERNATE = 0x80000;
const COMMAND = 0x100000;
const SECONDARY_FN = 0x800000;

/** The CGEventFlags bit a held key contributes (0 for keys that are no modifier). */
export function modifierFlag(name: string): number {
  if (/Shift$/.test(name)) return SHIFT;
  if (/Control$/.test(name)) return CONTROL;
  if (/Alt$/.test(name)) return ALTERNATE;
  if (/(Super|Win|Cmd|Meta)$/.test(name)) return COMMAND;
  if (name === 'Fn') return SECONDARY_FN;
  return 0;
}

export function macKeyCode(name: string): number | undefined {
  return MAC_KEY_CODES[name];
}
