import { execFileSync } from 'node:child_process';

/** Keys and buttons the X server reports as down right now (xinput query-state). */
export function heldInput(): { keys: number[]; buttons: number[] } {
  const q = (dev: string) => execFileSync('xinput', ['query-state', dev], { encoding: 'utf8' });
  const down = (text: string, what: string) => [...text.matchAll(new RegExp(`${what}\\[(\\d+)\\]=down`, 'g'))].map((m) => Number(m[1]));
  return { keys: down(q('Virtual core XTEST keyboard'), 'key'), buttons: down(q('Virtual core XTEST pointer'), 'button') };
}
