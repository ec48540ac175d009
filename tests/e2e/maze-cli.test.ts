/**
 * Maze through the real CLI and its real window under Xvfb: the BFS solver presses arrow keys
 * into the window and reaches the target (100) in every episode; GameVerse's random baseline
 * plays the paper's 10 trials of 20 steps and is scored by the distance left; a model (the local
 * test server) gets the maze's rules and controls, and its key presses move the ball.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, runCli, testModelArgs } from '../helpers/cli.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { maze } from '../../games/maze/index.ts';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-maze-'));
const env = () => ({ GAMEPILOT_CONFIG_DIR: tmp() });
const ARROW: Record<string, string> = { up: 'ArrowUp', down: 'ArrowDown', left: 'ArrowLeft', right: 'ArrowRight' };
const STEP: Record<string, [number, number]> = { up: [-1, 0], down: [1, 0], left: [0, -1], right: [0, 1] };

interface MazeState {
  rows: string[];
  ball: { row: number; col: number };
  d_begin: number;
  distance: number;
  moves: number;
  blocked: number;
  reached: boolean;
}

/** Whether a press from `before` should have moved the ball: the next cell is on the maze and not a wall. */
function opens(before: MazeState, key: string): boolean {
  const [dr, dc] = STEP[key]!;
  const cell = before.rows[before.ball.row + dr]?.[before.ball.col + dc];
  return cell !== undefined && cell !== '#';
}

describe('gamepilot run --game maze', () => {
  it('the solver presses arrow keys into the real window and scores 100 in every episode', async () => {
    const r = await runCli(
      [
        'run',
        '--game',
        'maze',
        '--agent',
        'solver',
        '--action-space',
        'gui',
        '--episodes',
        '3',
        '--runs-dir',
        tmp(),
        '--json',
      ],
      { env: env() },
    );
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res.episodes.map((e: { score: number; end: string }) => [e.score, e.end])).toEqual([
      [100, 'game_over'],
      [100, 'game_over'],
      [100, 'game_over'],
    ]);
    const { meta, steps } = readRun(res.run_dir);
    expect(meta.target.kind).toBe('builtin');
    for (const e of res.episodes as { episode: number; steps: number }[]) {
      const own = steps.filter((s) => s.episode === e.episode);
      const states = own.map((s) => s.game_state as MazeState);
      // A shortest path: as many steps as the start was moves away, none blocked.
      expect(e.steps).toBe(states[0]!.d_begin);
      expect(states.at(-1)).toMatchObject({ reached: true, distance: 0, blocked: 0 });
      for (const s of own) {
        const key = (s.actions[0] as { parameters: { key: string } }).parameters.key;
        // The key went through the OS into the window, and the window told the engine.
        expect(s.view_inputs).toEqual([{ type: 'key', key: ARROW[key] }]);
        expect(s.errors).toEqual([]);
      }
    }
    expect(res.mean).toBe(100);
  });

  it('GameVerse’s random baseline: 10 trials of 20 arrow presses, scored by the distance left', {
    timeout: 200_000,
  }, async () => {
    const r = await runCli(['run', '--game', 'maze', '--agent', 'random', '--runs-dir', tmp(), '--json', '--quiet'], {
      env: env(),
      timeoutMs: 190_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res.episodes).toHaveLength(maze.trials);
    const { meta, steps } = readRun(res.run_dir);
    expect(meta.config.max_steps).toBe(20);
    for (const e of res.episodes as { episode: number; score: number; steps: number; end: string }[]) {
      const own = steps.filter((s) => s.episode === e.episode);
      expect(own.length).toBe(e.steps);
      expect(e.end === 'game_over' || e.steps === 20).toBe(true);
      let before: MazeState | undefined;
      for (const s of own) {
        const state = s.game_state as MazeState;
        expect(s.actions).toHaveLength(1);
        const key = (s.actions[0] as { action_type: string; parameters: { key: string } }).parameters.key;
        expect(Object.keys(ARROW)).toContain(key);
        expect(s.view_inputs).toEqual([{ type: 'key', key: ARROW[key] }]);
        // A press into a wall or off the maze leaves the ball where it was.
        if (before) expect(state.blocked - before.blocked).toBe(opens(before, key) ? 0 : 1);
        before = state;
      }
      const last = own.at(-1)!.game_state as MazeState;
      const expected = last.distance === 0 ? 100 : Math.max(0, (1 - last.distance / last.d_begin) * 100);
      expect(e.score).toBeCloseTo(expected, 1);
    }
    console.log(
      `Maze random baseline (CLI, real window, seed 0, ${res.episodes.length} episodes): ${res.mean} ± ${res.std}; scores ${res.episodes.map((e: { score: number }) => e.score).join(', ')}`,
    );
    expect(res.mean).toBeGreaterThanOrEqual(0);
    expect(res.mean).toBeLessThan(100);
  });
});

describe('a model plays the maze', () => {
  let server: FakeOpenAI;
  beforeAll(async () => {
    server = await new FakeOpenAI((_body, i) => ({
      text: answer('probe the walls', [{ action_type: 'PRESS', parameters: { key: i % 2 ? 'right' : 'down' } }]),
    })).start();
  });
  afterAll(() => server.close());

  it('gets the maze’s rules, controls and task, and its key presses move the ball or bump a wall', async () => {
    const r = await runCli(
      [
        'run',
        '--game',
        'maze',
        ...testModelArgs(server.baseURL),
        '--max-retries',
        '0',
        '--episodes',
        '1',
        '--max-steps',
        '4',
        '--runs-dir',
        tmp(),
        '--json',
        '--quiet',
      ],
      { env: env() },
    );
    expect(r.code, r.stderr).toBe(0);
    const first = server.requests[0]!.body;
    const system = JSON.stringify(first.messages[0]);
    expect(system).toContain(JSON.stringify(maze.rules).slice(1, -1));
    expect(system).toContain(JSON.stringify(maze.controls.gui).slice(1, -1));
    expect(JSON.stringify(first.messages.at(-1))).toContain(maze.task);
    const { steps } = readRun(json(r).run_dir);
    let before: MazeState | undefined;
    for (const s of steps) {
      const state = s.game_state as MazeState;
      const key = s.step % 2 ? 'right' : 'down';
      expect(s.view_inputs).toEqual([{ type: 'key', key: ARROW[key] }]);
      if (before && !before.reached) expect(state.blocked - before.blocked).toBe(opens(before, key) ? 0 : 1);
      before = state;
    }
  });
});
