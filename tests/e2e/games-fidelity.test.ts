/**
 * The built-in games through their real windows, as GameVerse defines them: one move per step
 * (a model's extra key presses never reach the window and are recorded as dropped), Snake scored
 * on 0–100, 2048's 1000-step limit, Snake's slow mode as a 20 s time-out on a running clock, and
 * human trials that replay the agent's episodes (side, board) with the idle clock running.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, runCli, testModelArgs, testModelSpec } from '../helpers/cli.ts';
import { prepareRun } from '../../electron/session/compose.ts';
import { parseRunSpec } from '../../electron/run-spec.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { g2048 } from '../../games/g2048/index.ts';
import { seededRng } from '../../games/shared/rng.ts';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-fidelity-'));
const press = (key: string) => ({ action_type: 'PRESS', parameters: { key } });

describe('one move per step (CLI, 2048)', () => {
  let server: FakeOpenAI;
  beforeAll(async () => {
    server = await new FakeOpenAI(() => ({
      text: answer('slide three times', [press('left'), press('up'), press('right')]),
    })).start();
  });
  afterAll(() => server.close());

  it('executes the first move of each answer and records the rest as dropped', async () => {
    const r = await runCli(
      [
        'run',
        '--game',
        '2048',
        ...testModelArgs(server.baseURL),
        '--max-retries',
        '0',
        '--episodes',
        '1',
        '--max-steps',
        '3',
        '--runs-dir',
        tmp(),
        '--json',
      ],
      { env: { GAMEPILOT_CONFIG_DIR: tmp() } },
    );
    expect(r.code, r.stderr).toBe(0);
    const { steps, meta } = readRun(json(r).run_dir);
    expect(meta.config.max_steps).toBe(3);
    expect(steps).toHaveLength(3);
    for (const s of steps) {
      expect(s.actions).toEqual([press('left')]);
      expect(s.dropped_actions).toEqual([press('up'), press('right')]);
      expect(s.outcomes).toEqual([{ action: 'PRESS', ok: true }]);
      // Only the first key reached the window.
      expect(s.view_inputs).toEqual([{ type: 'key', key: 'ArrowLeft' }]);
      expect(s.errors).toEqual([]);
    }
    // Three answers, three moves: the engine counted three presses of left.
    expect((steps.at(-1)!.game_state as { moves: number }).moves).toBe(3);
  });
});

describe('scores and limits (CLI)', () => {
  it('Snake scores on 0–100: ten points a food', async () => {
    const r = await runCli(
      [
        'run',
        '--game',
        'snake',
        '--agent',
        'solver',
        '--episodes',
        '2',
        '--max-steps',
        '15',
        '--runs-dir',
        tmp(),
        '--json',
        '--quiet',
      ],
      { env: { GAMEPILOT_CONFIG_DIR: tmp() } },
    );
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    const { steps } = readRun(res.run_dir);
    for (const e of res.episodes as { episode: number; score: number }[]) {
      const last = steps.filter((s) => s.episode === e.episode).at(-1)!;
      const eaten = (last.game_state as { eaten: number }).eaten;
      expect(eaten).toBeGreaterThan(0);
      expect(e.score).toBe(Math.min(100, eaten * 10));
    }
    expect(res.mean).toBeGreaterThanOrEqual(10);
    expect(res.mean).toBeLessThanOrEqual(100);
  });

  it('2048 runs 1000 steps by default and the solver plays past step 200', { timeout: 300_000 }, async () => {
    const t0 = Date.now();
    const r = await runCli(
      [
        'run',
        '--game',
        '2048',
        '--agent',
        'solver',
        '--action-space',
        'semantic',
        '--episodes',
        '1',
        '--seed',
        '3',
        '--runs-dir',
        tmp(),
        '--json',
        '--quiet',
      ],
      { env: { GAMEPILOT_CONFIG_DIR: tmp() }, timeoutMs: 290_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    const { meta } = readRun(res.run_dir);
    console.log(
      `2048 solver (semantic, built-in window): ${res.episodes[0].steps} steps, score ${res.episodes[0].score}, end ${res.episodes[0].end}, ${((Date.now() - t0) / 1000).toFixed(0)} s`,
    );
    expect(meta.config.max_steps).toBe(1000);
    expect(res.episodes[0].steps).toBeGreaterThan(200);
  });

  it('plays the game’s trials by default: 20 Tic-Tac-Toe episodes, X and O in turn', async () => {
    const r = await runCli(
      [
        'run',
        '--game',
        'tictactoe',
        '--agent',
        'random',
        '--action-space',
        'semantic',
        '--runs-dir',
        tmp(),
        '--json',
        '--quiet',
      ],
      { env: { GAMEPILOT_CONFIG_DIR: tmp() } },
    );
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res.episodes).toHaveLength(20);
    const { steps } = readRun(res.run_dir);
    const sides = res.episodes.map(
      (e: { episode: number }) => (steps.find((s) => s.episode === e.episode)!.game_state as { agent: string }).agent,
    );
    expect(sides.filter((s: string) => s === 'X')).toHaveLength(10);
    expect(sides.slice(0, 2)).toEqual(['X', 'O']);
  });
});

describe('Snake in slow mode', () => {
  let server: FakeOpenAI;
  beforeAll(async () => {
    server = await new FakeOpenAI(() => ({ text: answer('turn', [press('down')]), delayMs: 22_500 })).start();
  });
  afterAll(() => server.close());

  it('moves by itself once the model has been silent for 20 s, with no freeze before', {
    timeout: 90_000,
  }, async () => {
    const { session, target } = await prepareRun(
      parseRunSpec({
        game: 'snake',
        ...testModelSpec(server.baseURL),
        episodes: 1,
        maxSteps: 1,
        seed: 2,
        capture: 'nut',
        latency: 'slow',
        maxRetries: 0,
      }),
      { outDir: tmp() },
    );
    try {
      await session.run();
    } finally {
      await target.close();
    }
    const [s] = readRun(session.store.dir).steps;
    const state = s!.game_state as { autoMoves: number; dead: string | null };
    console.log(
      `slow Snake, 22.5 s answer: paused ${s!.paused_ms} ms, drift ${s!.drift_ticks} ticks, ${state.autoMoves} move(s) by itself`,
    );
    expect(s!.latency_mode).toBe('slow');
    expect(s!.paused_ms).toBe(0);
    // At 20 s the time-out moved the snake (the old 5 s freeze would have put it at 25 s).
    expect(state.autoMoves).toBe(1);
    expect(s!.drift_ticks as number).toBeGreaterThanOrEqual(220);
    expect(state.dead).toBeNull();
  });
});

describe('human trials (gamepilot record)', () => {
  const record = (game: string, trial: number, seconds: number) =>
    runCli(
      [
        'record',
        '--game',
        game,
        '--role',
        'rookie',
        '--participant',
        'p01',
        '--consent',
        '--trial',
        String(trial),
        '--duration',
        String(seconds),
        '--fps',
        '5',
        '--runs-dir',
        tmp(),
        '--json',
        '--quiet',
      ],
      { env: { GAMEPILOT_CONFIG_DIR: tmp() } },
    );

  it('Tic-Tac-Toe sides alternate by trial, as for agents', async () => {
    const sides: string[] = [];
    for (const trial of [1, 2]) {
      const r = await record('tictactoe', trial, 2);
      expect(r.code, r.stderr).toBe(0);
      const { meta, steps } = readRun(JSON.parse(r.stdout).session_dir);
      expect(meta.config).toMatchObject({ trial, seed: 0, episode: trial - 1 });
      sides.push((steps[0]!.game_state as { agent: string }).agent);
    }
    expect(sides).toEqual(['X', 'O']);
  });

  it('2048 trials get the boards of the agent’s episodes: a different one each trial', async () => {
    const grids: number[][] = [];
    for (const trial of [1, 2]) {
      const r = await record('2048', trial, 2);
      expect(r.code, r.stderr).toBe(0);
      grids.push((readRun(JSON.parse(r.stdout).session_dir).steps[0]!.game_state as { grid: number[] }).grid);
    }
    const agentEpisode = (e: number) =>
      (g2048.create({ seed: 0, episode: e, rng: seededRng(e) }).snapshot() as { grid: number[] }).grid;
    expect(grids).toEqual([agentEpisode(0), agentEpisode(1)]);
    expect(grids[0]).not.toEqual(grids[1]);
  });

  it('Snake moves by itself after 10 s without input, as for an agent in normal mode', {
    timeout: 60_000,
  }, async () => {
    const r = await record('snake', 1, 13);
    expect(r.code, r.stderr).toBe(0);
    const steps = readRun(JSON.parse(r.stdout).session_dir).steps;
    const states = steps.map((s) => s.game_state as { autoMoves: number; moves: number });
    expect(states.every((st) => st.moves === 0)).toBe(true); // nobody pressed a key
    expect(states.at(-1)!.autoMoves).toBeGreaterThanOrEqual(1);
  });
});
