/** Pure 2048 rules on a 4×4 grid (row-major, 0 = empty). */
export type Grid = number[];
import { DIRECTIONS, type Direction } from '../shared/direction.ts';

export { DIRECTIONS, type Direction };

function lineIndices(dir: Direction): number[][] {
  const lines: number[][] = [];
  for (let k = 0; k < 4; k++) {
    const idx = [0, 1, 2, 3].map((j) =>
      dir === 'left' ? k * 4 + j : dir === 'right' ? k * 4 + (3 - j) : dir === 'up' ? j * 4 + k : (3 - j) * 4 + k,
    );
    lines.push(idx);
  }
  return lines;
}

/** Each direction's four lines, their cells in the order the tiles slide toward: made once. */
const LINES = Object.fromEntries(DIRECTIONS.map((d) => [d, lineIndices(d)])) as Record<Direction, number[][]>;

/**
 * Slides and merges `grid` toward `dir`, writing the board into `out` (16 cells, not `grid`);
 * each tile merges at most once per move. Returns the score gained, or -1 when nothing moved.
 * It allocates nothing: the solver calls it about ten thousand times a move.
 */
export function slideInto(grid: readonly number[], dir: Direction, out: number[]): number {
  const lines = LINES[dir];
  let gained = 0;
  for (let k = 0; k < 4; k++) {
    const idx = lines[k]!;
    let n = 0; // cells of the line written so far
    let held = 0; // the last tile read, until the next one says whether they merge
    for (let j = 0; j < 4; j++) {
      const v = grid[idx[j]!]!;
      if (v === 0) continue;
      if (v === held) {
        out[idx[n++]!] = v * 2;
        gained += v * 2;
        held = 0;
      } else {
        if (held !== 0) out[idx[n++]!] = held;
        held = v;
      }
    }
    if (held !== 0) out[idx[n++]!] = held;
    while (n < 4) out[idx[n++]!] = 0;
  }
  for (let i = 0; i < 16; i++) if (out[i] !== grid[i]) return gained;
  return -1;
}

/** Slides and merges toward `dir`; each tile merges at most once per move. */
export function slide(grid: Grid, dir: Direction): { grid: Grid; gained: number; moved: boolean } {
  const out = [...grid];
  const gained = slideInto(grid, dir, out);
  return { grid: out, gained: Math.max(gained, 0), moved: gained >= 0 };
}

export const canMove = (g: Grid) => DIRECTIONS.some((d) => slide(g, d).moved);
