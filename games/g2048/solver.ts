/**
 * The 2048 solver baseline: a two-ply expectimax (my move, every possible new tile weighted by
 * its chance, my best reply) over a corner-weighted board value. About 1 ms a move; it usually
 * lasts the paper's 1000 steps, where a greedy one-ply search often dies before step 200.
 */
import { DIRECTIONS, slide, type Direction, type Grid } from './rules.ts';

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

const NEW_TILES = [
  [2, 0.9],
  [4, 0.1],
] as const;

/** Expected value after the game places its new tile, then I play `depth` more plies. */
function chanceValue(g: Grid, depth: number): number {
  const empty = g.flatMap((v, i) => (v === 0 ? [i] : []));
  if (!empty.length) return bestValue(g, depth);
  let total = 0;
  for (const cell of empty) {
    for (const [tile, p] of NEW_TILES) {
      const next = [...g];
      next[cell] = tile;
      total += p * bestValue(next, depth);
    }
  }
  return total / empty.length;
}

function bestValue(g: Grid, depth: number): number {
  if (depth === 0) return boardValue(g);
  let best = -Infinity;
  for (const d of DIRECTIONS) {
    const r = slide(g, d);
    if (r.moved) best = Math.max(best, chanceValue(r.grid, depth - 1));
  }
  return best === -Infinity ? -1e9 : best; // no move left: the game is lost
}

/** The solver's move; 'left' when no move changes the board (the game is over anyway). */
export function expectimaxMove(grid: Grid, plies = 2): Direction {
  let best: Direction = 'left';
  let value = -Infinity;
  for (const d of DIRECTIONS) {
    const r = slide(grid, d);
    if (!r.moved) continue;
    const v = chanceValue(r.grid, plies - 1);
    if (v > value) [best, value] = [d, v];
  }
  return best;
}
