/**
 * The CLI plays built-in Tic-Tac-Toe through its real window under Xvfb: the solver clicks
 * the cells with real input and scores 100 in both episodes; random play scores lower.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { json, runCli } from '../helpers/cli.ts';
import { readRun } from '../../electron/store/run-store.ts';

const out = mkdtempSync(path.join(tmpdir(), 'gp-ttt-'));

describe('gamepilot run --game tictactoe', () => {
  it('solver in GUI mode clicks the real window and scores 100 in both episodes', async () => {
    const r = await runCli([
      'run',
      '--game',
      'tictactoe',
      '--agent',
      'solver',
      '--action-space',
      'gui',
      '--episodes',
      '2',
      '--runs-dir',
      out,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res.episodes.map((e: { score: number }) => e.score)).toEqual([100, 100]);
    expect(res.mean).toBe(100);
    const { meta, steps } = readRun(res.run_dir);
    expect(meta.status).toBe('completed');
    expect(meta.target.kind).toBe('builtin');
    for (const s of steps) {
      // Each click travelled through the OS into the window: the view reported it.
      expect(s.actions).toMatchObject([{ action_type: 'CLICK' }]);
      expect(s.view_inputs).toEqual([{ type: 'click', hit: expect.stringMatching(/^[ABC][123]$/) }]);
      expect(s.errors).toEqual([]);
    }
    // The agent played X in episode 1 and O in episode 2.
    const agents = [0, 1].map((e) => (steps.find((s) => s.episode === e)!.game_state as { agent: string }).agent);
    expect(agents).toEqual(['X', 'O']);
  });

  it('the random agent scores lower over 10 episodes', async () => {
    const r = await runCli([
      'run',
      '--game',
      'tictactoe',
      '--agent',
      'random',
      '--episodes',
      '10',
      '--seed',
      '3',
      '--runs-dir',
      out,
      '--json',
      '--quiet',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res.episodes).toHaveLength(10);
    expect(res.mean).toBeLessThan(100);
    expect(res.std).toBeGreaterThan(0);
  });

  it('gives a clear error for an unknown game or a bad option', async () => {
    const fresh = mkdtempSync(path.join(tmpdir(), 'gp-ttt-bad-'));
    // A bad value names the option and what it allows, shows the command's usage, and exits 2.
    const a = await runCli(['run', '--game', 'chess', '--runs-dir', fresh]);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(
      /option '--game <id>' argument 'chess' is invalid\. Allowed choices are 2048, tictactoe, snake/,
    );
    expect(a.stderr).toMatch(/Usage: gamepilot run/);
    const b = await runCli(['run', '--game', '2048', '--episodes', 'many', '--runs-dir', fresh]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(
      /option '--episodes <n>' argument 'many' is invalid\. Allowed: a whole number from 1 to 10000/,
    );
    const c = await runCli(['run', '--game', '2048', '--agent', 'vlm', '--runs-dir', fresh]);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/needs a model/);
    expect(readdirSync(fresh)).toEqual([]); // refused before any window or run folder
  });

  it('lists built-in games and windows as JSON', async () => {
    const games = json(await runCli(['games', '--json']));
    expect(games.map((g: { id: string }) => g.id)).toEqual(expect.arrayContaining(['tictactoe', '2048']));
    const windows = json(await runCli(['windows', '--json']));
    expect(Array.isArray(windows)).toBe(true);
  });
});
