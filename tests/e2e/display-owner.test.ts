/**
 * No Xvfb outlives its owner, even one that dies while its display is still starting: the
 * guardian shell used to die of SIGPIPE writing "ready" to the dead owner, and left Xvfb and
 * openbox running (found by the chaos test).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { spawnTs } from '../helpers/ts-child.ts';

/** Pids of processes whose command line names display `:n`. */
function serving(n: number): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').includes(`:${n}`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('a private display', () => {
  it('goes with an owner SIGKILLed while the display starts', async () => {
    for (let round = 0; round < 3; round++) {
      const owner = spawnTs('display-owner.ts', [String(600 + round * 20)]);
      const n = Number(await owner.line(30_000));
      expect(await owner.exited).toBe('SIGKILL');
      await expect.poll(() => serving(n), { timeout: 15_000 }).toEqual([]);
      await expect.poll(() => existsSync(`/tmp/.X11-unix/X${n}`), { timeout: 15_000 }).toBe(false);
    }
  }, 120_000);
});
