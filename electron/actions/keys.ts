/**
 * Key names as models write them ("enter", "ctrl", "ArrowUp", "a", "F5") mapped to the
 * names of nut-js's Key enum. Pure data, so parsing can validate keys without loading
 * the native input library.
 */
const named: Record<string, string> = {
  escape: 'Escape',
  esc: 'Escape',
  enter: 'Enter',
  return: 'Return',
  tab: 'Tab',
  space: 'Space',
  spacebar: 'Space',
  ' ': 'Space',
  backspace: 'Backspace',
  delete: 'Delete',
  del: 'Delete',
  insert: 'Insert',
  home: 'Home',
  end: 'End',
  pageup: 'PageUp',
  pagedown: 'PageDown',
  pgup: 'PageUp',
  pgdn: 'PageDown',
  up: 'Up',
  down: 'Down',
  left: 'Left',
  right: 'Right',
  arrowup: 'Up',
  arrowdown: 'Down',
  arrowleft: 'Left',
  arrowright: 'Right',
  shift: 'LeftShift',
  lshift: 'LeftShift',
  rshift: 'RightShift',
  leftshift: 'LeftShift',
  rightshift: 'RightShift',
  ctrl: 'LeftControl',
  control: 'LeftControl',
  lctrl: 'LeftControl',
  rctrl: 'RightControl',
  leftcontrol: 'LeftControl',
  rightcontrol: 'RightControl',
  leftctrl: 'LeftControl',
  rightctrl: 'RightControl',
  alt: 'LeftAlt',
  lalt: 'LeftAlt',
  ralt: 'RightAlt',
  leftalt: 'LeftAlt',
  rightalt: 'RightAlt',
  option: 'LeftAlt',
  win: 'LeftSuper',
  super: 'LeftSuper',
  meta: 'LeftMeta',
  cmd: 'LeftCmd',
  command: 'LeftCmd',
  capslock: 'CapsLock',
  numlock: 'NumLock',
  scrolllock: 'ScrollLock',
  pause: 'Pause',
  printscreen: 'Print',
  print: 'Print',
  menu: 'Menu',
  '-': 'Minus',
  minus: 'Minus',
  '=': 'Equal',
  equal: 'Equal',
  equals: 'Equal',
  ',': 'Comma',
  comma: 'Comma',
  '.': 'Period',
  period: 'Period',
  '/': 'Slash',
  slash: 'Slash',
  '\\': 'Backslash',
  backslash: 'Backslash',
  ';': 'Semicolon',
  semicolon: 'Semicolon',
  "'": 'Quote',
  quote: 'Quote',
  '`': 'Grave',
  grave: 'Grave',
  backquote: 'Grave',
  '[': 'LeftBracket',
  ']': 'RightBracket',
  leftbracket: 'LeftBracket',
  rightbracket: 'RightBracket',
};

/** nut-js Key enum name for a model-written key name, or undefined when unknown. */
export function resolveKeyName(raw: string): string | undefined {
  const k = raw.trim();
  if (k.length === 1 && /[a-z]/i.test(k)) return k.toUpperCase();
  if (k.length === 1 && /[0-9]/.test(k)) return `Num${k}`;
  const lower = k.toLowerCase().replace(/[\s_]/g, '');
  if (named[lower]) return named[lower];
  if (named[k]) return named[k];
  const f = /^f([1-9]|1[0-9]|2[0-4])$/.exec(lower);
  if (f) return `F${f[1]}`;
  const digit = /^(?:digit|num|key)?([0-9])$/.exec(lower);
  if (digit) return `Num${digit[1]}`;
  const letter = /^key([a-z])$/.exec(lower);
  if (letter) return letter[1]!.toUpperCase();
  const pad = /^numpad([0-9])$/.exec(lower);
  if (pad) return `NumPad${pad[1]}`;
  return undefined;
}

/** Modifier keys are pressed first and released last in a HOTKEY. */
export function isModifier(nutName: string): boolean {
  return /Shift|Control|Alt|Super|Meta|Cmd|Win/.test(nutName);
}
