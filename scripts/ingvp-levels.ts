/**
 * Generates ING-VP's 50 levels per game, deterministically (fixed seeds), and writes them to
 * games/<id>/levels/levels.json: `npx tsx scripts/ingvp-levels.ts` (add --check to compare with
 * the checked-in files instead of writing). How each set is made, and how it differs from the
 * paper's: docs/fidelity.md, "ING-VP".
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRng, type Rng } from '../games/shared/rng.ts';
import { generateMaze, mazeRows } from '../games/maze/engine.ts';
import { SokobanBoard } from '../games/sokoban/engine.ts';
import { ALL_SOLUTIONS } from '../games/queens/index.ts';
import { DISTANCE } from '../games/hanoi/index.ts';
import { GOAL as FIFTEEN_GOAL, fifteenSolve, movable, slide } from '../games/fifteen/index.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LEVELS = 50;

function shuffle<T>(items: T[], rng: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

const int = (rng: Rng, n: number) => Math.floor(rng() * n);

/**
 * Sokoban: a walled room of 6–8 × 6–8 cells with a few inner walls, 1–3 boxes each placed a
 * short walk from a dock, the worker anywhere free; kept when breadth-first search finds an
 * optimal solution of 4–8 moves and no box starts on a dock.
 */
function sokobanLevels() {
  const rng = seededRng(15_001);
  const out: { rows: string[]; optimal: number }[] = [];
  const seen = new Set<string>();
  while (out.length < LEVELS) {
    const h = 6 + int(rng, 3);
    const w = 6 + int(rng, 3);
    const grid = Array.from({ length: h }, (_, r) =>
      Array.from({ length: w }, (_, c): string => (r === 0 || c === 0 || r === h - 1 || c === w - 1 ? '#' : ' ')),
    );
    for (let k = int(rng, 5); k > 0; k--) grid[1 + int(rng, h - 2)]![1 + int(rng, w - 2)] = '#';
    const free = () => {
      const cells: [number, number][] = [];
      grid.forEach((row, r) => {
        row.forEach((ch, c) => {
          if (ch === ' ') cells.push([r, c]);
        });
      });
      return cells;
    };
    const boxes = 1 + (out.length % 3 === 0 ? 0 : out.length % 3 === 1 ? 1 : 2);
    let ok = true;
    for (let b = 0; b < boxes && ok; b++) {
      const cells = free().filter(([r, c]) => r > 1 && c > 1 && r < h - 2 && c < w - 2);
      if (!cells.length) ok = false;
      else {
        const [r, c] = cells[int(rng, cells.length)]!;
        grid[r]![c] = '.';
        const near = free().filter(([rr, cc]) => Math.abs(rr - r) + Math.abs(cc - c) <= 3);
        if (!near.length) ok = false;
        else {
          const [br, bc] = near[int(rng, near.length)]!;
          grid[br]![bc] = '$';
        }
      }
    }
    const spots = free();
    if (!ok || !spots.length) continue;
    const [pr, pc] = spots[int(rng, spots.length)]!;
    grid[pr]![pc] = '@';
    const rows = grid.map((r) => r.join(''));
    if (seen.has(rows.join('\n'))) continue;
    const board = new SokobanBoard(rows);
    const plan = board.solve(board.start, 8);
    if (!plan || plan.length < 4) continue;
    seen.add(rows.join('\n'));
    out.push({ rows, optimal: plan.length });
  }
  return out;
}

/** Maze: 11×11 depth-first carving (the GameVerse Maze's engine), start and target 4–8 moves apart (ten levels each). */
function mazeLevels() {
  const out: { rows: string[]; optimal: number }[] = [];
  for (let i = 0; i < LEVELS; i++) {
    const d = 4 + (i % 5);
    const maze = generateMaze({ size: 11, minDistance: d, maxDistance: d }, seededRng(15_100 + i));
    const rows = mazeRows(maze, maze.start, { wall: '#', path: '.', ball: 'S', target: 'T' });
    out.push({ rows, optimal: d });
  }
  return out;
}

/** 8-Queens: the first queen on 50 different squares (a seeded shuffle of the 64), each on some solution. */
function queensLevels() {
  const cells = shuffle(
    Array.from({ length: 64 }, (_, i) => [Math.floor(i / 8), i % 8] as [number, number]),
    seededRng(15_200),
  ).filter(([r, c]) => ALL_SOLUTIONS.some((s) => s[r] === c));
  return cells.slice(0, LEVELS).map((first) => ({ first, optimal: 7 }));
}

function sudokuCandidates(g: number[], i: number): number[] {
  const r = Math.floor(i / 9);
  const c = i % 9;
  const used = new Set<number>();
  for (let k = 0; k < 9; k++) {
    used.add(g[r * 9 + k]!);
    used.add(g[k * 9 + c]!);
    used.add(g[(Math.floor(r / 3) * 3 + Math.floor(k / 3)) * 9 + Math.floor(c / 3) * 3 + (k % 3)]!);
  }
  return [1, 2, 3, 4, 5, 6, 7, 8, 9].filter((v) => !used.has(v));
}

/** Solutions of a grid, counted up to `limit`. */
export function countSudokuSolutions(grid: number[], limit = 2): number {
  const i = grid.indexOf(0);
  if (i < 0) return 1;
  let n = 0;
  for (const v of sudokuCandidates(grid, i)) {
    grid[i] = v;
    n += countSudokuSolutions(grid, limit - n);
    grid[i] = 0;
    if (n >= limit) break;
  }
  return n;
}

/** Sudoku: a full grid by seeded randomized backtracking, 10 cells blanked (71 clues), kept when the solution is unique. */
function sudokuLevels() {
  const rng = seededRng(15_300);
  const fill = (g: number[]): boolean => {
    const i = g.indexOf(0);
    if (i < 0) return true;
    for (const v of shuffle(sudokuCandidates(g, i), rng)) {
      g[i] = v;
      if (fill(g)) return true;
    }
    g[i] = 0;
    return false;
  };
  const out: { puzzle: string; solution: string; optimal: number }[] = [];
  while (out.length < LEVELS) {
    const full = Array<number>(81).fill(0);
    fill(full);
    const blanks = shuffle(
      Array.from({ length: 81 }, (_, i) => i),
      rng,
    ).slice(0, 10);
    const puzzle = full.map((v, i) => (blanks.includes(i) ? 0 : v));
    if (countSudokuSolutions([...puzzle]) !== 1) continue;
    out.push({ puzzle: puzzle.join(''), solution: full.join(''), optimal: 10 });
  }
  return out;
}

/** Hanoi: 50 of the positions exactly 8 optimal moves from all disks on D (a seeded shuffle, sorted for a stable file). */
function hanoiLevels() {
  const at8 = [...DISTANCE].filter(([, d]) => d === 8).map(([s]) => s);
  at8.sort();
  return shuffle(at8, seededRng(15_400))
    .slice(0, LEVELS)
    .map((disks) => ({ disks, optimal: 8 }));
}

/** 15-puzzle: seeded random walks from the solved frame, kept when breadth-first search puts them 4–8 moves away (ten each). */
function fifteenLevels() {
  const rng = seededRng(15_500);
  const out: { tiles: number[]; optimal: number }[] = [];
  const seen = new Set<string>();
  while (out.length < LEVELS) {
    const want = 4 + (out.length % 5);
    let tiles = [...FIFTEEN_GOAL];
    for (let k = 0; k < want + 6; k++) {
      const options = movable(tiles);
      tiles = slide(tiles, options[int(rng, options.length)]!)!;
    }
    const plan = fifteenSolve(tiles, 8);
    if (!plan || plan.length !== want || seen.has(tiles.join(','))) continue;
    seen.add(tiles.join(','));
    out.push({ tiles, optimal: want });
  }
  return out;
}

const GENERATORS: Record<string, () => unknown[]> = {
  sokoban: sokobanLevels,
  'ingvp-maze': mazeLevels,
  queens: queensLevels,
  sudoku: sudokuLevels,
  hanoi: hanoiLevels,
  fifteen: fifteenLevels,
};

/** One level a line: readable diffs, and the file stays small. */
export function levelsFileText(levels: unknown[]): string {
  return `[\n${levels.map((l) => `  ${JSON.stringify(l)}`).join(',\n')}\n]\n`;
}

export function generateLevels(id: string): unknown[] {
  return GENERATORS[id]!();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const id of Object.keys(GENERATORS)) {
    const file = path.join(ROOT, 'games', id, 'levels', 'levels.json');
    const text = levelsFileText(generateLevels(id));
    if (check) {
      const same = readFileSync(file, 'utf8') === text;
      if (!same) stale++;
      console.log(`${id}: ${same ? 'up to date' : 'differs from the generator'}`);
    } else {
      writeFileSync(file, text);
      console.log(`${id}: wrote ${file}`);
    }
  }
  process.exit(stale ? 1 : 0);
}
