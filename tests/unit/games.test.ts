import { describe, expect, it } from 'vitest';
import { tictactoe } from '../../games/tictactoe/index.ts';
import { cellName, parseCell } from '../../games/tictactoe/rules.ts';
import { g2048, MAX_NOOPS } from '../../games/g2048/index.ts';
import { variantOf, type GameDefinition, type GameInstance } from '../../games/types.ts';
import { maze } from '../../games/maze/index.ts';
import { DIRECTIONS, slide, slideInto, type Grid } from '../../games/g2048/rules.ts';
import { expectimaxMove } from '../../games/g2048/solver.ts';
import { seededRng, pick } from '../../games/shared/rng.ts';
import { snake, SNAKE_SIZE } from '../../games/snake/index.ts';

const ttt = (episode: number, seed = 1) => tictactoe.create({ seed, episode, rng: seededRng(seed * 31 + episode) });

describe('Tic-Tac-Toe', () => {
  it('lets the agent play X in even episodes and O in odd ones (opponent opens)', () => {
    expect((ttt(0).snapshot() as { agent: string }).agent).toBe('X');
    const asO = ttt(1).snapshot() as { agent: string; board: (string | null)[] };
    expect(asO.agent).toBe('O');
    expect(asO.board.filter((c) => c === 'X')).toHaveLength(1);
  });

  it('solver against minimax always scores 100 (win or draw)', () => {
    for (let e = 0; e < 20; e++) {
      const g = ttt(e, e + 7);
      while (!g.isOver()) expect(g.applyMove(g.solverMove()).ok).toBe(true);
      expect(g.score()).toBe(100);
    }
  });

  it('scores a loss by pieces placed: 100·n/5 as X, 100·n/4 as O', () => {
    const rng = seededRng(5);
    let sawLossX = false;
    let sawLossO = false;
    for (let e = 0; e < 40; e++) {
      const g = ttt(e, e);
      let n = 0;
      while (!g.isOver()) {
        g.applyMove(pick(rng, g.validMoves()));
        n++;
      }
      const s = g.snapshot() as { agent: string; outcome: string; placed: number };
      expect(s.placed).toBe(n);
      if (s.outcome === 'loss') {
        expect(g.score()).toBeCloseTo((100 * n) / (s.agent === 'X' ? 5 : 4));
        if (s.agent === 'X') sawLossX = true;
        else sawLossO = true;
      }
    }
    expect(sawLossX && sawLossO).toBe(true);
  });

  it('names cells as GameVerse does: the row letter, then the column number ("B3, the right middle cell")', () => {
    expect(parseCell('B3')).toBe(5); // row-major: the middle row's right cell
    expect(parseCell('3b')).toBe(5);
    expect(parseCell('C2')).toBe(7); // bottom row, middle column
    expect(Array.from({ length: 9 }, (_, i) => cellName(i))).toEqual([
      'A1',
      'A2',
      'A3',
      'B1',
      'B2',
      'B3',
      'C1',
      'C2',
      'C3',
    ]);
    const g = ttt(0);
    g.applyMove('B3');
    expect((g.snapshot() as { board: (string | null)[] }).board[5]).toBe('X');
    expect(g.text().split('\n').slice(0, 3)).toEqual(['  1 2 3', 'A . . .', expect.stringMatching(/^B \S \S X$/)]);
  });

  it('loses at once on an occupied cell or a click off the board', () => {
    const g = ttt(0);
    g.applyMove('B2');
    const taken = (g.snapshot() as { board: (string | null)[] }).board.indexOf('O');
    const r = g.applyMove(['A1', 'A2', 'A3', 'B1', 'B2', 'B3', 'C1', 'C2', 'C3'][taken]!);
    expect(r.ok).toBe(false);
    expect(g.isOver()).toBe(true);
    expect(g.score()).toBe(20); // one piece placed, as X
    const h = ttt(0);
    h.handleInput({ type: 'click', hit: null });
    expect(h.isOver()).toBe(true);
    expect(h.score()).toBe(0);
  });
});

describe('held-out variants of Tic-Tac-Toe, Snake and Maze', () => {
  const make = (def: GameDefinition, seed = 1, episode = 0) => def.create({ seed, episode, rng: seededRng(seed) });
  const snap = <T>(g: { snapshot(): unknown }) => g.snapshot() as T;
  it('each game declares three, and the game itself is unchanged', () => {
    for (const def of [tictactoe, snake, maze]) expect(def.variants, def.id).toHaveLength(3);
    // The game's own first board: X to move on an empty board in episode 0, O after the opponent in 1.
    expect(snap<{ board: unknown[] }>(make(tictactoe, 1, 0)).board.filter(Boolean)).toHaveLength(0);
    expect(snap<{ board: unknown[] }>(make(tictactoe, 1, 1)).board.filter(Boolean)).toHaveLength(1);
  });
  it('change the rules as they say', () => {
    const marks = (g: GameInstance) => snap<{ board: (string | null)[] }>(g).board;
    // always-o: even in episode 0 the opponent has opened.
    expect(marks(make(variantOf(tictactoe, 'always-o'), 1, 0)).filter((c) => c === 'X')).toHaveLength(1);
    // corner-taken: an O in a corner, and the agent is X.
    const corner = marks(make(variantOf(tictactoe, 'corner-taken'), 3, 1));
    expect([0, 2, 6, 8].filter((i) => corner[i] === 'O')).toHaveLength(1);
    expect(corner.filter(Boolean)).toHaveLength(1);
    // fallible-opponent: over many games the opponent sometimes lets a win through.
    let wins = 0;
    for (let seed = 0; seed < 60; seed++) {
      const g = make(variantOf(tictactoe, 'fallible-opponent'), seed, 0);
      while (!g.isOver()) g.applyMove(g.solverMove!()!);
      if (g.score() === 100 && /won/.test(g.status())) wins++;
    }
    expect(wins).toBeGreaterThan(0);
    // Snake: the field's size and the snake's length.
    const body = (g: GameInstance) => snap<{ body: [number, number][] }>(g).body;
    expect(body(make(variantOf(snake, 'long-start')))).toHaveLength(6);
    expect(make(variantOf(snake, 'small-7')).html()).toContain('repeat(7,');
    expect(make(variantOf(snake, 'wide-11')).html()).toContain('repeat(11,40px)'); // still fits the window
    expect(make(snake).html()).toContain('repeat(9,48px)');
    expect(snap<{ size: number }>(make(variantOf(maze, 'wide-6'))).size).toBe(6);
  });
});

describe('2048', () => {
  it('declares three held-out variants, each changing the engine as it says (the game itself unchanged)', () => {
    const tiles = (g: { snapshot(): unknown }) => (g.snapshot() as { grid: number[] }).grid.filter(Boolean);
    const make = (def: typeof g2048, seed: number) => def.create({ seed, episode: 0, rng: seededRng(seed) });
    expect(g2048.variants?.map((v) => v.id)).toEqual(['heavy-fours', 'double-spawn', 'crowded-start']);
    expect(tiles(make(g2048, 1))).toHaveLength(2);
    expect(tiles(make(variantOf(g2048, 'crowded-start'), 1))).toHaveLength(8);
    // Double spawn: a move that changes the board adds two tiles (the game: one).
    const moved = (def: typeof g2048) => {
      for (let seed = 0; ; seed++) {
        const g = make(def, seed);
        const before = tiles(g).length;
        g.applyMove('left');
        const after = tiles(g).length;
        if (after !== before) return after - before;
      }
    };
    expect(moved(g2048)).toBe(1);
    expect(moved(variantOf(g2048, 'double-spawn'))).toBe(2);
    // Heavy fours: about half of the new tiles are 4 (the game: about 10 %).
    const fours = (def: typeof g2048) => {
      const all = Array.from({ length: 400 }, (_, seed) => tiles(make(def, seed))).flat();
      return all.filter((v) => v === 4).length / all.length;
    };
    expect(fours(g2048)).toBeLessThan(0.2);
    expect(fours(variantOf(g2048, 'heavy-fours'))).toBeGreaterThan(0.4);
    expect(variantOf(g2048, 'heavy-fours').rules).toMatch(/Variant — a new tile is a 4 half of the time\.$/);
    expect(() => variantOf(g2048, 'nope')).toThrow(/2048 has no variant "nope" \(it has heavy-fours/);
  });

  it('slides and merges each tile once, counting merge score', () => {
    const r = slide([2, 2, 2, 2, 4, 0, 4, 8, 0, 0, 0, 0, 2, 0, 0, 2], 'left');
    expect(r.grid).toEqual([4, 4, 0, 0, 8, 8, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0]);
    expect(r.gained).toBe(4 + 4 + 8 + 4);
    expect(slide([0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 'right').moved).toBe(false);
  });

  it('slideInto writes what slide returns, and -1 when nothing moves', () => {
    const grid = [2, 2, 2, 2, 4, 0, 4, 8, 0, 0, 0, 0, 2, 0, 0, 2];
    const out = Array<number>(16).fill(7);
    for (const d of DIRECTIONS) {
      expect(slideInto(grid, d, out)).toBe(slide(grid, d).gained);
      expect(out).toEqual(slide(grid, d).grid);
    }
    expect(slideInto([0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 'right', out)).toBe(-1);
  });

  it('the solver searches in place and moves as a search copying every board does', () => {
    // The search as it was written before it stopped copying boards (solver.ts says why).
    const W = [15, 14, 13, 12, 8, 9, 10, 11, 7, 6, 5, 4, 0, 1, 2, 3].map((w) => 4 ** (w / 3));
    const NEW_TILES = [
      [2, 0.9],
      [4, 0.1],
    ] as const;
    const value = (g: Grid) => g.reduce((v, t, i) => (t ? v + t * W[i]! : v), 0) / 50 + g.filter((t) => !t).length * 30;
    const placed = (g: Grid, cell: number, tile: number) => g.map((v, i) => (i === cell ? tile : v));
    const chance = (g: Grid, depth: number): number => {
      const empty = g.flatMap((v, i) => (v === 0 ? [i] : []));
      if (!empty.length) return best(g, depth);
      let total = 0;
      for (const cell of empty) for (const [tile, p] of NEW_TILES) total += p * best(placed(g, cell, tile), depth);
      return total / empty.length;
    };
    const best = (g: Grid, depth: number): number => {
      if (depth === 0) return value(g);
      const moved = DIRECTIONS.map((d) => slide(g, d)).filter((r) => r.moved);
      return moved.length ? Math.max(...moved.map((r) => chance(r.grid, depth - 1))) : -1e9;
    };
    const copying = (g: Grid) => {
      let move = 'left';
      let top = -Infinity;
      for (const d of DIRECTIONS) {
        const r = slide(g, d);
        const v = r.moved ? chance(r.grid, 1) : -Infinity;
        if (v > top) [move, top] = [d, v];
      }
      return move;
    };
    for (let e = 0; e < 2; e++) {
      const g = g2048.create({ seed: 3, episode: e, rng: seededRng(3 + e) });
      for (let s = 0; s < 150 && !g.isOver(); s++) {
        const grid = (g.snapshot() as { grid: Grid }).grid;
        const move = expectimaxMove(grid);
        expect((g.snapshot() as { grid: Grid }).grid).toEqual(grid); // the board it was given is untouched
        expect(move).toBe(copying(grid));
        g.applyMove(move);
      }
    }
  });

  it('spawns 2s and 4s at about 90/10', () => {
    let twos = 0;
    let fours = 0;
    for (let s = 0; s < 400; s++) {
      const grid = (g2048.create({ seed: s, episode: 0, rng: seededRng(s) }).snapshot() as { grid: number[] }).grid;
      for (const v of grid) v === 2 ? twos++ : v === 4 ? fours++ : 0;
    }
    expect(fours / (twos + fours)).toBeGreaterThan(0.05);
    expect(fours / (twos + fours)).toBeLessThan(0.15);
  });

  it('ends after five consecutive no-op moves', () => {
    const g = g2048.create({ seed: 3, episode: 0, rng: seededRng(3) });
    // Find a direction that does nothing by pushing everything one way first.
    for (let i = 0; i < 4; i++) g.applyMove('left');
    const before = JSON.stringify((g.snapshot() as { grid: number[] }).grid);
    let noops = 0;
    while (!g.isOver() && noops < MAX_NOOPS) {
      g.applyMove('left');
      if (JSON.stringify((g.snapshot() as { grid: number[] }).grid) === before) noops++;
      else break;
    }
    if (noops === MAX_NOOPS) expect(g.isOver()).toBe(true);
    expect((g.snapshot() as { noops: number }).noops).toBeLessThanOrEqual(MAX_NOOPS);
  });

  it('scores merge score / 20000 × 100, and the solver beats random', () => {
    const play = (chooser: (g: ReturnType<typeof g2048.create>, rng: () => number) => string, seed: number) => {
      const rng = seededRng(seed);
      const g = g2048.create({ seed, episode: 0, rng: seededRng(seed + 100) });
      for (let i = 0; i < 300 && !g.isOver(); i++) g.applyMove(chooser(g, rng));
      const merged = (g.snapshot() as { merged: number }).merged;
      expect(g.score()).toBeCloseTo(Math.min(100, (merged / 20000) * 100));
      return g.score();
    };
    let solver = 0;
    let random = 0;
    for (let s = 0; s < 5; s++) {
      solver += play((g) => g.solverMove(), s);
      random += play((g, rng) => pick(rng, g.validMoves()), s);
    }
    expect(solver).toBeGreaterThan(random);
  });
});

describe('Snake', () => {
  const make = (seed = 1) => snake.create({ seed, episode: 0, rng: seededRng(seed) });

  it('moves one cell per action, ignores reversals, and dies at the wall', () => {
    const g = make();
    const head = () => (g.snapshot() as { body: number[][] }).body[0]!;
    const [x0, y0] = head();
    g.applyMove('left'); // reversal of the initial heading (right): ignored, keeps moving right
    expect(head()).toEqual([x0! + 1, y0]);
    g.applyMove('up');
    expect(head()).toEqual([x0! + 1, y0! - 1]);
    for (let i = 0; i < SNAKE_SIZE && !g.isOver(); i++) g.applyMove('up');
    expect(g.isOver()).toBe(true);
    expect(g.status()).toMatch(/wall/);
  });

  it('advances by itself only after the idle limit, never without one (stop mode)', () => {
    const g = make();
    g.setIdleLimit!(snake.realtime!.idleLimit.stop);
    const moves = () => (g.snapshot() as { autoMoves: number }).autoMoves;
    for (let i = 0; i < 500; i++) g.tick!();
    expect(moves()).toBe(0);
    g.setIdleLimit!(snake.realtime!.idleLimit.normal);
    for (let i = 0; i < 99; i++) g.tick!();
    expect(moves()).toBe(0);
    g.tick!();
    expect(moves()).toBe(1);
    expect(snake.realtime!.idleLimit).toMatchObject({ normal: 100, slow: 200, stop: null });
  });

  it('scores food eaten × 10 on 0–100, and the solver eats', () => {
    const g = make(3);
    for (let i = 0; i < 100 && !g.isOver(); i++) g.applyMove(g.solverMove());
    const eaten = (g.snapshot() as { eaten: number }).eaten;
    expect(eaten).toBeGreaterThan(2);
    expect(g.score()).toBe(Math.min(100, eaten * 10));
  });
});

describe('direction keys in the window', () => {
  it('2048 and Snake play an arrow or WASD key as that direction; other input changes nothing', () => {
    const cases = [
      { make: () => g2048.create({ seed: 5, episode: 0, rng: seededRng(5) }), keys: ['ArrowLeft', 'a', 'A'] },
      { make: () => snake.create({ seed: 5, episode: 0, rng: seededRng(5) }), keys: ['ArrowUp', 'w'] },
    ];
    for (const { make, keys } of cases) {
      const move = keys[0]!.replace('Arrow', '').toLowerCase();
      const byMove = make();
      expect(byMove.applyMove(move)).toEqual({ ok: true });
      for (const key of keys) {
        const byKey = make();
        expect(byKey.handleInput!({ type: 'key', key })).toEqual({ ok: true });
        expect(byKey.snapshot(), key).toEqual(byMove.snapshot());
      }
      const idle = make();
      const before = idle.snapshot();
      expect(idle.handleInput!({ type: 'key', key: 'q' })).toEqual({ ok: true });
      expect(idle.handleInput!({ type: 'click', hit: null })).toEqual({ ok: true });
      expect(idle.snapshot()).toEqual(before);
    }
  });
});
