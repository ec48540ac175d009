/**
 * The ING-VP puzzles in the ordinary loop, GUI action space (the setting the paper does not
 * have): the solver's keys and clicks go through the OS into each game's real window, the window
 * tells the engine, and the chosen level ends solved (score 100). Hanoi and Sudoku take two
 * gestures a move (rod then rod, cell then number key).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { json, runCli } from '../helpers/cli.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { INGVP_GAMES } from '../../games/ingvp/games.ts';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-ingvp-gui-'));

describe('gamepilot run --game <ING-VP game> --level N --action-space gui', () => {
  it.each(INGVP_GAMES.map((g, i) => [g.def.id, 7 + i * 7] as const))(
    '%s level %i: the solver solves it through the real window',
    async (id, level) => {
      const g = INGVP_GAMES.find((x) => x.def.id === id)!;
      const optimal = g.spec.optimal(g.spec.levels[level - 1]!);
      const r = await runCli(
        [
          'run',
          '--game',
          id,
          '--level',
          String(level),
          '--agent',
          'solver',
          '--action-space',
          'gui',
          '--runs-dir',
          tmp(),
          '--json',
        ],
        { env: { GAMEPILOT_CONFIG_DIR: tmp() } },
      );
      expect(r.code, r.stderr).toBe(0);
      const res = json(r);
      expect(res.episodes).toEqual([expect.objectContaining({ score: 100, end: 'game_over' })]);
      const { steps } = readRun(res.run_dir);
      expect(steps[0]!.game_state).toMatchObject({ level, solved: false });
      expect(steps.at(-1)!.game_state).toMatchObject({ level, solved: true });
      const twoGestures = id === 'hanoi' || id === 'sudoku';
      expect(steps.length).toBe(twoGestures ? 2 * optimal : optimal);
      // Every step's input arrived through the window, none refused.
      for (const s of steps) {
        expect((s.view_inputs as unknown[]).length).toBe(1);
        expect(s.errors).toEqual([]);
      }
    },
    120_000,
  );

  it('--level is for ING-VP games only', async () => {
    const r = await runCli(['run', '--game', 'maze', '--level', '3', '--agent', 'solver', '--runs-dir', tmp()], {
      env: { GAMEPILOT_CONFIG_DIR: tmp() },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--level needs an ING-VP --game');
  });
});
