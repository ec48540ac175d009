/**
 * Nothing left behind (every project's setup file): once a test file's own hooks have run, the
 * processes it started must have ended and no key or button may be down on the display it used.
 * What is left fails the file, naming it and each process, and is then killed or released so the
 * next file starts clean. A failing test's cleanup is held to this as much as a passing one's.
 */
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { collectLeftovers, describeLeftovers, TEST_FILE_MARK } from './leak-check.ts';
import { type HeldInput, heldInput, releaseHeld } from './xinput.ts';

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
  const held = display ? heldOrNull(display) : null;
  if (held && (held.keys.length || held.buttons.length)) {
    releaseHeld(held, display);
    problems.push(`input left down on ${display} (now released): keycodes [${held.keys}] buttons [${held.buttons}]`);
  }
  if (problems.length) throw new Error(`${file} left things behind:\n${problems.join('\n')}`);
}, GRACE_MS + 15_000);

/** What is down on `display`, or null when the display is not up (nothing can be held there). */
function heldOrNull(display: string): HeldInput | null {
  try {
    return heldInput(display);
  } catch {
    return null;
  }
}
