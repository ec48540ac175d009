/**
 * The built-in games as GameVerse defines them: step limits, trials, one move per step, Snake's
 * 0–100 score and its time-outs per latency mode, and the random baseline's action spaces.
 */
import { describe, expect, it } from 'vitest';
import { g2048 } from '../../games/g2048/index.ts';
import { snake } from '../../games/snake/index.ts';
import { tictactoe } from '../../games/tictactoe/index.ts';
import { maze } from '../../games/maze/index.ts';
import { seededRng } from '../../games/shared/rng.ts';
import type { GameDefinition } from '../../games/types.ts';
import type { Action } from '../../electron/actions/schema.ts';
import { capMoves } from '../../electron/session/move-cap.ts';
import { BuiltinGame } from '../../electron/games/builtin-game.ts';
import { EngineWorld } from '../../electron/latency/world.ts';
import { clockPolicyFor, createClockPolicy, DEFAULT_LATENCY } from '../../electron/latency/clock-policy.ts';
import { RandomAgent } from '../../electron/agents/baselines.ts';
import type { Observation } from '../../electron/agents/agent-types.ts';
import { fullSizeGeometry } from '../../electron/input/coordinates.ts';

/** An episode as the harness creates it (BuiltinGame.reset). */
const episodeOf = (def: GameDefinition, seed: number, episode: number) =>
  def.create({ seed, episode, rng: seededRng(seed * 1000003 + episode) });

const press = (key: string): Action => ({ kind: 'gui', type: 'PRESS', params: { key } });
const gui = (type: string, params: Record<string, unknown> = {}) => ({ kind: 'gui', type, params }) as Action;
const names = (actions: Action[]) =>
  actions.map((a) => (a.kind === 'semantic' ? a.move : `${a.type}${'key' in a.params ? ` ${a.params.key}` : ''}`));

describe('2048', () => {
  it('allows 1000 steps an episode, and the solver plays past step 200', () => {
    expect(g2048.defaultMaxSteps).toBe(1000);
    const lengths: number[] = [];
    for (let seed = 0; seed < 10; seed++) {
      const g = episodeOf(g2048, seed, 0);
      let steps = 0;
      while (steps < g2048.defaultMaxSteps && !g.isOver()) {
        g.applyMove(g.solverMove());
        steps++;
      }
      lengths.push(steps);
    }
    console.log(`2048 solver, steps per episode (limit ${g2048.defaultMaxSteps}): ${lengths.join(', ')}`);
    expect(Math.min(...lengths)).toBeGreaterThan(200);
  });
});

describe('Snake', () => {
  it('scores on 0–100: food eaten × 10, clipped at 100', () => {
    for (let seed = 0; seed < 4; seed++) {
      const g = episodeOf(snake, seed, 0);
      const seen: [number, number][] = [];
      for (let i = 0; i < snake.defaultMaxSteps && !g.isOver(); i++) {
        g.applyMove(g.solverMove());
        seen.push([(g.snapshot() as { eaten: number }).eaten, g.score()]);
      }
      for (const [eaten, score] of seen) expect(score).toBe(Math.min(100, eaten * 10));
      expect(seen.some(([eaten]) => eaten >= 1 && eaten < 10)).toBe(true);
      expect(seen.at(-1)![1]).toBe(100); // the solver eats at least ten in 100 steps
    }
  });

  it('moves by itself after the normal 10 s time-out before any session sets a mode (a person playing)', () => {
    const g = episodeOf(snake, 1, 0);
    const autoMoves = () => (g.snapshot() as { autoMoves: number }).autoMoves;
    const ticks = snake.realtime!.idleLimit.normal!;
    expect(ticks * snake.realtime!.tickMs).toBe(10_000);
    for (let i = 0; i < ticks - 1; i++) g.tick!();
    expect(autoMoves()).toBe(0);
    g.tick!();
    expect(autoMoves()).toBe(1);
  });

  it('slow mode is a 20 s time-out on a running clock, not a 5 s freeze and then 20 s', async () => {
    expect(snake.realtime!.idleLimit.slow! * snake.realtime!.tickMs).toBe(20_000);
    const game = new BuiltinGame(snake, 'snake-test');
    try {
      const world = new EngineWorld(game);
      const policy = clockPolicyFor('slow', DEFAULT_LATENCY, () => {}, snake.realtime);
      expect(policy.mode).toBe('slow');
      await policy.beforeCapture(world);
      policy.afterCapture(world);
      expect(world.frozen).toBe(false); // the idle clock keeps counting while the model thinks
      policy.cancel();
      // A game the paper gives a slow buffer (no idle-only modes) is still frozen in slow.
      const buffered = clockPolicyFor('slow', DEFAULT_LATENCY, () => {}, { idleOnlyModes: [] });
      await buffered.beforeCapture(world);
      buffered.afterCapture(world);
      expect(world.frozen).toBe(true);
      buffered.cancel();
      await world.thaw();
      // Stop keeps the snake still: frozen clock, and no time-out.
      expect(snake.realtime!.idleLimit.stop).toBeNull();
      const stop = clockPolicyFor('stop', DEFAULT_LATENCY, () => {}, snake.realtime);
      await stop.beforeCapture(world);
      expect(world.frozen).toBe(true);
      expect(createClockPolicy('stop').mode).toBe('stop');
    } finally {
      game.dispose();
    }
  });
});

describe('Tic-Tac-Toe', () => {
  it('evaluates 20 trials, 10 as X and 10 as O', () => {
    expect(tictactoe.trials).toBe(20);
    const sides = Array.from(
      { length: tictactoe.trials },
      (_, e) => (episodeOf(tictactoe, 0, e).snapshot() as { agent: string }).agent,
    );
    expect(sides.filter((s) => s === 'X')).toHaveLength(10);
    expect(sides.filter((s) => s === 'O')).toHaveLength(10);
    expect(sides.slice(0, 4)).toEqual(['X', 'O', 'X', 'O']);
  });

  it('scores a draw 100 and a loss n/5 as X, n/4 as O (GameVerse App. D.1)', () => {
    const asX = episodeOf(tictactoe, 0, 0);
    asX.applyMove('B2');
    asX.handleInput({ type: 'click', hit: null }); // a click off the board: lost with one piece placed
    expect(asX.score()).toBe(20);
    const asO = episodeOf(tictactoe, 0, 1);
    asO.applyMove(tictactoe.actionSpace.semantic.find((c) => asO.validMoves().includes(c))!);
    asO.applyMove('nowhere');
    expect(asO.score()).toBe(25);
    const draw = episodeOf(tictactoe, 0, 2);
    while (!draw.isOver()) draw.applyMove(draw.solverMove());
    expect(draw.score()).toBe(100);
  });
});

describe('one move per step', () => {
  it('is declared by 2048, Tic-Tac-Toe, Snake and Maze', () => {
    for (const g of [g2048, tictactoe, snake, maze]) expect(g.maxActionsPerStep).toBe(1);
    for (const g of [g2048, snake, maze]) expect(g.trials).toBeGreaterThanOrEqual(5);
  });

  it('drops key moves past the first and keeps what is not a move (releases, waits, modifiers)', () => {
    const r = capMoves(
      [press('left'), press('up'), gui('WAIT', { duration: 0.1 }), gui('KEY_UP', { key: 'up' }), press('W')],
      g2048,
    );
    expect(names(r.kept)).toEqual(['PRESS left', 'WAIT', 'KEY_UP up']);
    expect(names(r.dropped)).toEqual(['PRESS up', 'PRESS W']);
    // A modifier held and a key that is no move of the game are not moves; the game refuses or ignores them.
    const held = [
      gui('KEY_DOWN', { key: 'alt' }),
      press('f4'),
      gui('MOUSE_DOWN', { button: 'left' }),
      gui('KEY_DOWN', { key: 'w' }),
    ];
    expect(capMoves(held, g2048)).toEqual({ kept: held, dropped: [] });
    // Typing or a hotkey that presses a move key counts too.
    expect(
      capMoves([press('down'), gui('TYPING', { text: 'wasd' }), gui('HOTKEY', { keys: ['ctrl', 'left'] })], snake)
        .dropped,
    ).toHaveLength(2);
  });

  it('drops clicks past the first in Tic-Tac-Toe, but not pointer moves or right clicks', () => {
    const actions = [
      gui('MOVE_TO', { x: 10, y: 10 }),
      gui('CLICK', { x: 10, y: 10 }),
      gui('RIGHT_CLICK', { x: 1, y: 1 }),
      gui('CLICK', { x: 200, y: 200 }),
      gui('DOUBLE_CLICK', {}),
    ];
    const r = capMoves(actions, tictactoe);
    expect(names(r.kept)).toEqual(['MOVE_TO', 'CLICK', 'RIGHT_CLICK']);
    expect(names(r.dropped)).toEqual(['CLICK', 'DOUBLE_CLICK']);
    const semantic = capMoves(
      [
        { kind: 'semantic', move: 'B2' },
        { kind: 'semantic', move: 'A1' },
      ],
      tictactoe,
    );
    expect([names(semantic.kept), names(semantic.dropped)]).toEqual([['B2'], ['A1']]);
  });

  it('leaves windows and games without a cap alone', () => {
    const many = [press('left'), press('up'), press('right')];
    expect(capMoves(many, undefined)).toEqual({ kept: many, dropped: [] });
    expect(capMoves(many, { ...g2048, maxActionsPerStep: undefined })).toEqual({ kept: many, dropped: [] });
  });
});

describe('the random baseline samples the prompt’s whole action space', () => {
  const obs = (width: number, height: number): Observation => ({
    step: 0,
    episode: 0,
    tCapture: 0,
    frame: { data: Buffer.alloc(0), mime: 'image/jpeg', width, height, scale: 1 },
    geometry: fullSizeGeometry({ x: 0, y: 0, width, height }),
  });
  const signal = new AbortController().signal;

  it('semantic Tic-Tac-Toe: all nine cells uniformly, taken ones included', async () => {
    const game = episodeOf(tictactoe, 0, 1); // the opponent (X) has taken a cell already
    const taken = tictactoe.actionSpace.semantic.filter((c) => !game.validMoves().includes(c));
    expect(taken).toHaveLength(1);
    const agent = new RandomAgent(3);
    const counts = new Map<string, number>();
    for (let i = 0; i < 9000; i++) {
      const d = await agent.decide(
        { ...obs(480, 600), validMoves: game.validMoves() },
        { actionSpace: 'semantic', game: tictactoe, instance: game, signal },
      );
      const move = (d.actions[0] as { move: string }).move;
      counts.set(move, (counts.get(move) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual([...tictactoe.actionSpace.semantic].sort());
    for (const n of counts.values()) expect(Math.abs(n - 1000)).toBeLessThan(200);
    expect(counts.get(taken[0]!)).toBeGreaterThan(800);
  });

  it('GUI Tic-Tac-Toe: a click at any pixel of the window', async () => {
    const agent = new RandomAgent(5);
    const points: { x: number; y: number }[] = [];
    for (let i = 0; i < 2000; i++) {
      const d = await agent.decide(obs(480, 600), { actionSpace: 'gui', game: tictactoe, signal });
      expect(d.actions).toHaveLength(1);
      const a = d.actions[0]!;
      expect(a.kind === 'gui' && a.type).toBe('CLICK');
      points.push((a as { params: { x: number; y: number } }).params);
    }
    expect(points.every((p) => p.x >= 0 && p.x < 480 && p.y >= 0 && p.y < 600)).toBe(true);
    // Corners and the status line below the board are as likely as the board itself.
    expect(points.filter((p) => p.y >= 450).length / points.length).toBeGreaterThan(0.2);
    expect(points.filter((p) => p.x < 40).length / points.length).toBeGreaterThan(0.05);
  });

  it('GUI 2048, Snake and Maze: a PRESS of one of the four arrow keys, moves that change nothing included', async () => {
    for (const def of [g2048, snake, maze]) {
      const agent = new RandomAgent(7);
      const keys = new Map<string, number>();
      for (let i = 0; i < 4000; i++) {
        const d = await agent.decide(obs(520, 640), { actionSpace: 'gui', game: def, signal });
        const a = d.actions[0] as { type: string; params: { key: string } };
        expect(a.type).toBe('PRESS');
        keys.set(a.params.key, (keys.get(a.params.key) ?? 0) + 1);
      }
      expect([...keys.keys()].sort()).toEqual(['down', 'left', 'right', 'up']);
      for (const n of keys.values()) expect(Math.abs(n - 1000)).toBeLessThan(200);
    }
  });
});
