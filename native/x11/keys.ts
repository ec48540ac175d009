/**
 * nut-js Key names (as electron/actions/keys.ts resolves them) → X keysyms, for the XTest
 * backend. The same keys libnut presses on X11: meta, cmd and win are all Super_L.
 */
const named: Record<string, number> = {
  Escape: 0xff1b,
  Enter: 0xff0d,
  Return: 0xff0d,
  Tab: 0xff09,
  Space: 0x20,
  Backspace: 0xff08,
  Delete: 0xffff,
  Insert: 0xff63,
  Home: 0xff50,
  End: 0xff57,
  PageUp: 0xff55,
  PageDown: 0xff56,
  Up: 0xff52,
  Down: 0xff54,
  Left: 0xff51,
  Right: 0xff53,
  LeftShift: 0xffe1,
  RightShift: 0xffe2,
  LeftControl: 0xffe3,
  RightControl: 0xffe4,
  LeftAlt: 0xffe9,
  RightAlt: 0xffea,
  LeftSuper: 0xffeb,
  RightSuper: 0xffec,
  LeftMeta: 0xffeb,
  RightMeta: 0xffec,
  LeftCmd: 0xffeb,
  RightCmd: 0xffec,
  LeftWin: 0xffeb,
  RightWin: 0xffec,
  CapsLock: 0xffe5,
  NumLock: 0xff7f,
  ScrollLock: 0xff14,
  Pause: 0xff13,
  Print: 0xff61,
  Menu: 0xff67,
  Minus: 0x2d,
  Equal: 0x3d,
  Comma: 0x2c,
  Period: 0x2e,
  Slash: 0x2f,
  Backslash: 0x5c,
  Semicolon: 0x3b,
  Quote: 0x27,
  Grave: 0x60,
  LeftBracket: 0x5b,
  RightBracket: 0x5d,
};

/** The keysym of a nut-js Key name; undefined for a name this table does not know. */
export function keysymOf(nutName: string): number | undefined {
  if (named[nutName] !== undefined) return named[nutName];
  if (/^[A-Z]$/.test(nutName)) return nutName.toLowerCase().charCodeAt(0); // the key, not the capital
  let m = /^Num([0-9])$/.exec(nutName);
  if (m) return 0x30 + Number(m[1]);
  m = /^NumPad([0-9])$/.exec(nutName);
  if (m) return 0xffb0 + Number(m[1]);
  m = /^F([1-9]|1[0-9]|2[0-4])$/.exec(nutName);
  if (m) return 0xffbe + Number(m[1]) - 1;
  return undefined;
}
