/**
 * Nothing left behind (every project's setup file): once a test file's own hooks have run, the
 * processes it started must have ended and no key or button may be down on the display it used.
 * What is left fails the file, naming it and each process, and is then killed or released so the
 * next file starts clean. A failing test's cleanup is held to this as much as a passing one's.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { collectLeftovers, describeLeftovers, heldOn, TEST_FILE_MARK } from './leak-check.ts';

const file = path.relative(process.cwd(), expect.getState().testPath ?? 'unknown');
// The worker's pid makes the mark this run's own: the same file run by another suite at the
// same time (a flake check beside CI) is not taken for a leftover, nor killed.
const mark = `${process.pid}:${file}`;
process.env[TEST_FILE_MARK] = mark;

/** How long a file's processes may take to end after its last hook (SIGTERM handlers, flushes). */
const GRACE_MS = Number(process.env.GAMEPILOT_LEAK_GRACE_MS) || 15_000;

// Registered before the file's own hooks, so it runs after them (hooks run as a stack).
afterAll(async () => {
  const problems: string[] = [];
  const left = await collectLeftovers(mark, [process.pid], GRACE_MS);
  if (left.length)
    problems.push(`${left.length} process(es) it started still ran (now killed):\n${describeLeftovers(left)}`);
  const display = process.env.DISPLAY;
  const held = display ? heldOn(display) : null;
  if (held && (held.keys.length || held.buttons.length)) {
    release(display!, held);
    problems.push(`input left down on ${display} (now released): keycodes [${held.keys}] buttons [${held.buttons}]`);
  }
  if (problems.length) throw new Error(`${file} left things behind:\n${problems.join('\n')}`);
}, GRACE_MS + 15_000);

function release(display: string, held: { keys: number[]; buttons: number[] }) {
  const env = { ...process.env, DISPLAY: display };
  const keymap = execFileSync('xmodmap', ['-pke'], { encoding: 'utf8', env });
  const keysyms = held.keys
    .map((k) => new RegExp(`^keycode\\s+${k} = (\\S+)`, 'm').exec(keymap)?.[1])
    .filter((s): s is string => !!s);
  if (keysyms.length) execFileSync('xdotool', ['keyup', ...keysyms], { env });
  for (const b of held.buttons) execFileSync('xdotool', ['mouseup', String(b)], { env });
}
