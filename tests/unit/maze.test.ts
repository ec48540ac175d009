/**
 * Maze: the engine's rules (one cell a move, walls and edges leave the ball in place), seeded
 * generation (deterministic, solvable, GameVerse's and ING-VP's settings), GameVerse's distance
 * score, the BFS solver, and the game as registered.
 */
import { describe, expect, it } from 'vitest';
import {
  distancesFrom,
  generateMaze,
  mazeRows,
  moveFrom,
  parseMaze,
  pathDistance,
  type Maze,
} from '../../games/maze/engine.ts';
import { gameVerseMazeScore } from '../../games/maze/score.ts';
import { GAMEVERSE_MAZE, MAZE_SIZE, maze, MazeGame, TEXT_SYMBOLS } from '../../games/maze/index.ts';
import { getGame } from '../../games/index.ts';
import { pick, seededRng } from '../../games/shared/rng.ts';
import { DIRECTIONS } from '../../games/shared/direction.ts';

/** An episode as the harness creates it (BuiltinGame.reset). */
const episode = (seed: number, e: number) =>
  maze.create({ seed, episode: e, rng: seededRng(seed * 1000003 + e) }) as MazeGame;

const SAMPLE = [
  // A corridor with a dead end: S must go right, down, down, left, left to T.
  'S..#',
  '##.#',
  'T..#',
  '.###',
];

const wallShare = (m: Maze) => m.open.flat().filter((o) => !o).length / (m.size * m.size);
const pathCells = (m: Maze) => m.open.flatMap((line, row) => line.flatMap((open, col) => (open ? [{ row, col }] : [])));

describe('Maze engine: moves', () => {
  it('moves one cell per move and leaves the ball in place on a wall or the edge', () => {
    const g = new MazeGame(parseMaze(SAMPLE));
    const ball = () => (g.snapshot() as { ball: { row: number; col: number } }).ball;
    expect(g.applyMove('up')).toEqual({ ok: true }); // off the maze
    expect(g.applyMove('down')).toEqual({ ok: true }); // into a wall
    expect(ball()).toEqual({ row: 0, col: 0 });
    expect(g.applyMove('right').ok).toBe(true);
    expect(ball()).toEqual({ row: 0, col: 1 });
    expect(g.snapshot()).toMatchObject({ moves: 3, blocked: 2 });
    expect(g.applyMove('diagonal')).toMatchObject({ ok: false, error: expect.stringMatching(/not a direction/) });
    expect(g.snapshot()).toMatchObject({ moves: 3 }); // a malformed move is not a move
  });

  it('ends on the target and refuses further moves', () => {
    const g = new MazeGame(parseMaze(SAMPLE));
    for (const m of ['right', 'right', 'down', 'down', 'left', 'left']) g.applyMove(m);
    expect(g.isOver()).toBe(true);
    expect(g.score()).toBe(100);
    expect(g.validMoves()).toEqual([]);
    expect(g.applyMove('down')).toMatchObject({ ok: false });
    expect(g.status()).toMatch(/reached in 6 moves/);
  });

  it('takes arrow keys from the window and ignores other keys and clicks', () => {
    const g = new MazeGame(parseMaze(SAMPLE));
    g.handleInput({ type: 'key', key: 'ArrowRight' });
    g.handleInput({ type: 'key', key: 'd' });
    g.handleInput({ type: 'click', hit: 'board' });
    expect(g.snapshot()).toMatchObject({ ball: { row: 0, col: 1 }, moves: 1 });
    expect(g.gestureFor('Left', [])).toEqual({ type: 'key', key: 'left' });
  });

  it('measures distance along the paths, not through walls', () => {
    const m = parseMaze(SAMPLE);
    // T is two rows below S (Manhattan 2) but six moves away along the corridor.
    expect(pathDistance(m, m.start, m.target)).toBe(6);
    expect(distancesFrom(m, m.target)[0]![3]).toBe(-1); // a wall
    expect(moveFrom(m, { row: 2, col: 0 }, 'down')).toEqual({ row: 3, col: 0 });
  });

  it('refuses malformed layouts with the reason', () => {
    expect(() => parseMaze(['S.', 'T'])).toThrow(/row 2 has 1 cells, expected 2/);
    expect(() => parseMaze(['S.', '.x'])).toThrow(/"x"/);
    expect(() => parseMaze(['S.', '..'])).toThrow(/one S .* one T/);
    expect(() => parseMaze(['ST', 'T.'])).toThrow(/more than one T/);
    expect(() => new MazeGame(parseMaze(['S#', '#T']))).toThrow(/cannot be reached/);
  });
});

describe('Maze engine: generation', () => {
  it('gives the same maze for the same seed, and different mazes across seeds', () => {
    const a = generateMaze(GAMEVERSE_MAZE, seededRng(11));
    expect(generateMaze(GAMEVERSE_MAZE, seededRng(11))).toEqual(a);
    const layouts = new Set(
      Array.from({ length: 30 }, (_, s) => {
        const m = generateMaze(GAMEVERSE_MAZE, seededRng(s));
        return mazeRows(m, m.start, TEXT_SYMBOLS).join('/');
      }),
    );
    expect(layouts.size).toBeGreaterThan(10);
  });

  it('GameVerse settings: solvable, every path joined, walls > 50 % where possible, start and target far apart', () => {
    let aboveHalf = 0;
    for (let s = 0; s < 300; s++) {
      const m = generateMaze(GAMEVERSE_MAZE, seededRng(s));
      expect(m.size).toBe(MAZE_SIZE);
      const fromStart = distancesFrom(m, m.start);
      for (const c of pathCells(m)) expect(fromStart[c.row]![c.col]).toBeGreaterThanOrEqual(0);
      const d = fromStart[m.target.row]![m.target.col]!;
      // At least the diagonal's length (6 on 4×4), and the longest path the maze has.
      expect(d).toBeGreaterThanOrEqual(2 * (MAZE_SIZE - 1));
      const longest = Math.max(...pathCells(m).map((c) => Math.max(...distancesFrom(m, c).flat())));
      if (longest >= GAMEVERSE_MAZE.minDistance!) expect(d).toBeGreaterThanOrEqual(GAMEVERSE_MAZE.minDistance!);
      else expect(d).toBe(longest);
      if (wallShare(m) > 0.5) aboveHalf++;
    }
    // One pass of extra walls (as the authors' code does) gets most 4×4 mazes past half black; the rest
    // keep a path cell whose loss would have cut the paths when its turn came.
    expect(aboveHalf).toBeGreaterThan(100);
  });

  it('ING-VP-like settings: 11×11, no extra walls, a solution of at most 8 moves', () => {
    for (let s = 0; s < 20; s++) {
      const m = generateMaze({ size: 11, maxDistance: 8, minDistance: 5 }, seededRng(s));
      const d = pathDistance(m, m.start, m.target);
      expect(d).toBeGreaterThanOrEqual(5);
      expect(d).toBeLessThanOrEqual(8);
      // A perfect maze: 36 carved cells and 35 passages between them.
      expect(pathCells(m)).toHaveLength(36 + 35);
    }
  });

  it('refuses a size that is no maze', () => {
    expect(() => generateMaze({ size: 1 }, seededRng(1))).toThrow(/size must be a whole number ≥ 2/);
    expect(() => generateMaze({ size: 4.5 }, seededRng(1))).toThrow(/size/);
  });
});

describe('Maze score (GameVerse)', () => {
  it('is (1 − D_end / D_begin) × 100, 100 at the target', () => {
    expect(gameVerseMazeScore(8, 8)).toBe(0);
    expect(gameVerseMazeScore(8, 2)).toBe(75);
    expect(gameVerseMazeScore(6, 4)).toBeCloseTo(33.333, 3);
    expect(gameVerseMazeScore(6, 0)).toBe(100);
  });

  it('clips to 0 when the ball ends farther away than it began', () => {
    expect(gameVerseMazeScore(4, 6)).toBe(0);
    // Through the engine: the ball walks away from T, then comes back half way.
    const g = new MazeGame(parseMaze(['.S.T', '.###', '....', '####']));
    expect(g.dBegin).toBe(2);
    g.applyMove('left');
    g.applyMove('down');
    expect(g.snapshot()).toMatchObject({ distance: 4 });
    expect(g.score()).toBe(0);
    g.applyMove('up');
    g.applyMove('right');
    g.applyMove('right');
    expect(g.score()).toBe(50);
  });

  it('refuses a D_begin of 0 or a negative distance', () => {
    expect(() => gameVerseMazeScore(0, 0)).toThrow(/D_begin/);
    expect(() => gameVerseMazeScore(5, -1)).toThrow(/D_end/);
  });
});

describe('Maze as a built-in game', () => {
  it('is registered with the paper’s settings', () => {
    expect(getGame('maze')).toBe(maze);
    expect(maze).toMatchObject({ trials: 10, defaultMaxSteps: 20, maxActionsPerStep: 1 });
    expect(maze.actionSpace).toEqual({ semantic: DIRECTIONS, gui: { press: DIRECTIONS } });
    expect(maze.moveInputs).toEqual({ keys: DIRECTIONS });
    for (const part of [maze.rules, maze.task, maze.controls.gui, maze.controls.semantic]) expect(part).toBeTruthy();
  });

  it('the solver reaches the target within the 20 steps in every episode', () => {
    for (let e = 0; e < 200; e++) {
      const g = episode(0, e);
      let steps = 0;
      while (!g.isOver() && steps < maze.defaultMaxSteps) {
        g.applyMove(g.solverMove());
        steps++;
      }
      expect(g.score()).toBe(100);
      expect(steps).toBe(g.dBegin);
    }
  });

  it('random arrows score by the distance left, between 0 and 100', () => {
    const rng = seededRng(3);
    for (let e = 0; e < 100; e++) {
      const g = episode(0, e);
      for (let s = 0; s < maze.defaultMaxSteps && !g.isOver(); s++) g.applyMove(pick(rng, DIRECTIONS));
      const { distance, d_begin } = g.snapshot() as { distance: number; d_begin: number };
      expect(g.score()).toBe(distance === 0 ? 100 : Math.max(0, (1 - distance / d_begin) * 100));
    }
  });

  it('renders the state as text and HTML from the same maze', () => {
    const g = episode(0, 4);
    const { rows, ball, target } = g.snapshot() as {
      rows: string[];
      ball: { row: number; col: number };
      target: { row: number; col: number };
    };
    const lines = g.text().split('\n');
    expect(lines.slice(0, MAZE_SIZE)).toEqual(rows);
    expect(rows[ball.row]![ball.col]).toBe('B');
    expect(rows[target.row]![target.col]).toBe('T');
    const html = g.html();
    const cells = [...html.matchAll(/<div class="(wall|path)">/g)].map((m) => (m[1] === 'wall' ? '#' : '.'));
    expect(cells.join('')).toBe(rows.join('').replace(/[BT]/g, '.'));
    expect(html.match(/class="ball"/g)).toHaveLength(1);
    expect(html.match(/class="target"/g)).toHaveLength(1);
  });
});
