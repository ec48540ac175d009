/**
 * A second real Debian game whose game over the run must see (issue 38): gnome-2048 under Xvfb
 * + openbox, played by the random baseline with the shipped profile's end detector (OCR of the
 * header bar's "Game Over") and its reset (close the high-score windows, ctrl+n), here starting
 * a 3 × 3 board so that random moves fill it in tens of steps, not hundreds: startWithReset makes
 * every episode a new game. Each episode ends on the game-over frame, well before the step
 * limit; the next starts on a new board.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, ROOT, runCli } from '../helpers/cli.ts';
import { startWindow, stop } from '../helpers/windows.ts';
import { readRun } from '../../electron/store/run-store.ts';
import type { WindowInfo } from '../../native/index.ts';

let game: { child: ChildProcess; window: WindowInfo };
const tmp = (p: string) => mkdtempSync(path.join(tmpdir(), p));
const t0 = Date.now();

beforeAll(async () => {
  game = await startWindow('/usr/games/gnome-2048', [], /^GNOME 2048$/);
});

afterAll(async () => {
  await stop(game.child);
  process.stdout.write(`episode-end-2048.test.ts: ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
});

async function differ(a: string, b: string): Promise<number> {
  const grey = (f: string) => sharp(f).greyscale().raw().toBuffer();
  const [x, y] = await Promise.all([grey(a), grey(b)]);
  if (x.length !== y.length) return 1;
  let n = 0;
  for (let i = 0; i < x.length; i++) if (Math.abs(x[i]! - y[i]!) > 16) n++;
  return n / x.length;
}

/**
 * gnome-2048's tiles are not seeded, and half the random baseline's actions are clicks that do
 * nothing here, so a game's length varies widely: 61 to over 272 steps seen on 3 × 3. The step
 * limit leaves room for a long game to reach Game Over (about 300 key presses), and the run's time
 * limit for two such games: 2 × 599 steps at the 0.31 s a step measured on a quiet machine is
 * about 370 s. A passing run usually takes 60–90 s; the old 300 steps and 110 s cut off long
 * games, not hangs.
 */
const MAX_STEPS = 600;
const RUN_LIMIT_MS = 600_000;

describe('gnome-2048 played by the random baseline with the shipped end detector and reset', () => {
  it('ends each episode on the Game Over frame and starts the next on a new board', {
    timeout: RUN_LIMIT_MS + 30_000,
  }, async () => {
    const shipped = readFileSync(path.join(ROOT, 'games', 'gnome-2048', 'profile.yaml'), 'utf8');
    // The shipped reset picks 4 × 4 (down, return); this one keeps the 3 × 3 the sizes list opens on.
    const small = shipped
      .replace('id: gnome-2048', 'id: gnome-2048-small')
      .replace(/ {6}- press: down\n/, '')
      .replace(/ {2}reset:\n/, '  startWithReset: true\n  reset:\n');
    expect(small).toContain('startWithReset: true');
    expect(small).not.toMatch(/- press: down/);
    const file = path.join(tmp('gp-2048-profile-'), 'gnome-2048-small.yaml');
    writeFileSync(file, small);
    const r = await runCli(
      [
        'run',
        '--window',
        '^GNOME 2048$',
        '--profile',
        file,
        '--agent',
        'random',
        '--seed',
        '4',
        '--episodes',
        '2',
        '--max-steps',
        String(MAX_STEPS),
        '--keep-frames',
        'all',
        '--runs-dir',
        tmp('gp-2048-end-'),
        '--json',
      ],
      { timeoutMs: RUN_LIMIT_MS },
    );
    expect(r.code, r.stderr).toBe(0);
    const dir = json(r).run_dir as string;
    const { meta, steps } = readRun(dir);
    expect(meta.episodes).toHaveLength(2);
    for (const ep of meta.episodes) {
      process.stdout.write(`gnome-2048 3×3 episode ${ep.episode}: ${ep.steps} steps, ${ep.end}, ${ep.end_detector}\n`);
      expect(ep.end, JSON.stringify(ep)).toBe('game_over');
      expect(ep.steps).toBeLessThan(MAX_STEPS);
      expect(ep.end_detector).toMatch(/^end\[0\] ocr: OCR read ".*game over/i);
      expect(steps.filter((s) => s.episode === ep.episode)).toHaveLength(ep.steps);
    }
    // The second episode's first frame is a new board, not the game-over one before it.
    const first = steps.find((s) => s.episode === 1)!;
    const fromEnd = await differ(
      path.join(dir, meta.episodes[0]!.end_frame as string),
      path.join(dir, first.frame as string),
    );
    process.stdout.write(
      `episode 1's first frame differs from episode 0's end frame in ${(fromEnd * 100).toFixed(1)} %\n`,
    );
    expect(fromEnd).toBeGreaterThan(0.05);
  });
});
