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

/** Slides and merges toward `dir`; each tile merges at most once per move. */
export function slide(grid: Grid, dir: Direction): { grid: Grid; gained: number; moved: boolean } {
  const out = [...grid];
  let gained = 0;
  for (const idx of lineIndices(dir)) {
    const tiles = idx.map((i) => grid[i]!).filter((v) => v !== 0);
    const merged: number[] = [];
    for (let i = 0; i < tiles.length; i++) {
      if (i + 1 < tiles.length && tiles[i] === tiles[i + 1]) {
        merged.push(tiles[i]! * 2);
        gained += tiles[i]! * 2;
        i++;
      } else merged.push(tiles[i]!);
    }
    idx.forEach((cell, j) => {
      out[cell] = merged[j] ?? 0;
    });
  }
  return { grid: out, gained, moved: out.some((v, i) => v !== grid[i]) };
}

export const canMove = (g: Grid) => DIRECTIONS.some((d) => slide(g, d).moved);
