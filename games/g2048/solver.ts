/**
 * The 2048 solver baseline: a two-ply expectimax (my move, every possible new tile weighted by
 * its chance, my best reply) over a corner-weighted board value. Well under 1 ms a move; it
 * usually lasts the paper's 1000 steps, where a greedy one-ply search often dies before step 200.
 *
 * The search copies no board: each level slides into a board of its own, made once, and a new
 * tile is placed and taken back in place. Copying boards (about a megabyte of short-lived arrays
 * a move) kept V8 collecting so often that it grew its young generation to its cap, +120 MB
 * resident within a 5-minute `gamepilot bench --soak`, and V8 shrinks it only once allocation slows.
 */
import { DIRECTIONS, slideInto, type Direction, type Grid } from './rules.ts';

/** Rewards large tiles along a snake path from the top-left corner, and empty cells. */
const WEIGHTS = [15, 14, 13, 12, 8, 9, 10, 11, 7, 6, 5, 4, 0, 1, 2, 3].map((w) => 4 ** (w / 3));

function boardValue(g: Grid): number {
  let value = 0;
  let empty = 0;
  for (let i = 0; i < 16; i++) {
    if (g[i] === 0) empty++;
    else value += g[i]! * WEIGHTS[i]!;
  }
  return value / 50 + empty * 30;
}

/** The new tiles and their chances. */
const NEW_TILE = [2, 4];
const NEW_TILE_CHANCE = [0.9, 0.1];

/** The board a search level slides into, by the plies left below it (one thread searches at a time). */
const boards: Grid[] = [];
const boardFor = (depth: number): Grid => (boards[depth] ??= new Array<number>(16).fill(0));

/**
 * Expected value after the game places its new tile, then I play `depth` more plies. `g` is a
 * search board: each new tile is put on it and taken off again.
 */
function chanceValue(g: Grid, depth: number): number {
  let total = 0;
  let empty = 0;
  for (let cell = 0; cell < 16; cell++) {
    if (g[cell] !== 0) continue;
    empty++;
    for (let t = 0; t < NEW_TILE.length; t++) {
      g[cell] = NEW_TILE[t]!;
      total += NEW_TILE_CHANCE[t]! * bestValue(g, depth);
    }
    g[cell] = 0;
  }
  return empty ? total / empty : bestValue(g, depth);
}

function bestValue(g: Grid, depth: number): number {
  if (depth === 0) return boardValue(g);
  const next = boardFor(depth);
  let best = -Infinity;
  for (const d of DIRECTIONS) {
    if (slideInto(g, d, next) >= 0) best = Math.max(best, chanceValue(next, depth - 1));
  }
  return best === -Infinity ? -1e9 : best; // no move left: the game is lost
}

/** The solver's move; 'left' when no move changes the board (the game is over anyway). */
export function expectimaxMove(grid: Grid, plies = 2): Direction {
  const next = boardFor(plies);
  let best: Direction = 'left';
  let value = -Infinity;
  for (const d of DIRECTIONS) {
    if (slideInto(grid, d, next) < 0) continue;
    const v = chanceValue(next, plies - 1);
    if (v > value) {
      best = d;
      value = v;
    }
  }
  return best;
}
