import { execFileSync } from 'node:child_process';

/** Keys and buttons the X server reports as down right now (xinput query-state). */
export function heldInput(): { keys: number[]; buttons: number[] } {
  const q = (dev: string) => execFileSync('xinput', ['query-state', dev], { encoding: 'utf8' });
  const down = (text: string, what: string) =>
    [...text.matchAll(new RegExp(`${what}\\[(\\d+)\\]=down`, 'g'))].map((m) => Number(m[1]));
  return {
    keys: down(q('Virtual core XTEST keyboard'), 'key'),
    buttons: down(q('Virtual core XTEST pointer'), 'button'),
  };
}

/** The keycode the X server's keymap gives a keysym (e.g. `Control_L`), read with xmodmap. */
export function keycodeOf(keysym: string): number {
  const map = execFileSync('xmodmap', ['-pke'], { encoding: 'utf8' });
  const m = new RegExp(`^keycode\\s+(\\d+) = ${keysym}\\b`, 'm').exec(map);
  if (!m) throw new Error(`the keymap has no keycode for ${keysym}`);
  return Number(m[1]);
}

/** Lets go of keys (by keysym) a failed test may have left down, so later tests start clean. */
export function releaseKeysyms(keysyms: string[]) {
  execFileSync('xdotool', ['keyup', ...keysyms]);
}
