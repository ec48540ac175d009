import { execFileSync } from 'node:child_process';

export interface HeldInput {
  keys: number[];
  buttons: number[];
}

const on = (display: string | undefined) => (display ? { ...process.env, DISPLAY: display } : process.env);

/** Keys and buttons the X server (of `display`, else $DISPLAY) reports as down now (xinput query-state). */
export function heldInput(display?: string): HeldInput {
  const q = (dev: string) => execFileSync('xinput', ['query-state', dev], { encoding: 'utf8', env: on(display) });
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

/** Lets go of what `heldInput` found down: each keycode by the keysym the keymap gives it, each button. */
export function releaseHeld(held: HeldInput, display?: string) {
  const keymap = execFileSync('xmodmap', ['-pke'], { encoding: 'utf8', env: on(display) });
  const keysyms = held.keys
    .map((k) => new RegExp(`^keycode\\s+${k} = (\\S+)`, 'm').exec(keymap)?.[1])
    .filter((s): s is string => !!s);
  if (keysyms.length) execFileSync('xdotool', ['keyup', ...keysyms], { env: on(display) });
  for (const b of held.buttons) execFileSync('xdotool', ['mouseup', String(b)], { env: on(display) });
}
