/**
 * The maze engine, independent of any benchmark: a square grid of cells that are each a wall or
 * a path, generated from a size and a seeded rng (depth-first carving, optional extra walls, a
 * start and a target at a chosen shortest-path distance), moves of one cell, and breadth-first
 * distances. GameVerse's Maze and (later) ING-VP's maze are settings of this engine; their
 * scoring lives beside them, not here.
 */
import type { Rng } from '../shared/rng.ts';
import type { Direction } from '../shared/direction.ts';

export interface Cell {
  row: number;
  col: number;
}

export interface Maze {
  size: number;
  /** open[row][col]: true = path (white), false = wall (black). */
  open: boolean[][];
  start: Cell;
  target: Cell;
}

export interface MazeSettings {
  /** Side of the grid in cells (each cell a wall or a path). At least 2. */
  size: number;
  /**
   * Add walls after carving until more than this share of the cells is wall, keeping every path
   * cell reachable (GameVerse's authors: 0.5). Unset: keep the carved maze as it is.
   */
  wallShareAbove?: number;
  /** Shortest-path distance from start to target: at least this many moves, if the maze allows. */
  minDistance?: number;
  /** …and at most this many (ING-VP: 8). */
  maxDistance?: number;
}

export const STEP: Record<Direction, [number, number]> = { up: [-1, 0], down: [1, 0], left: [0, -1], right: [0, 1] };
const DIRS = Object.keys(STEP) as Direction[];

export const sameCell = (a: Cell, b: Cell) => a.row === b.row && a.col === b.col;

export function isOpen(maze: Pick<Maze, 'size' | 'open'>, cell: Cell): boolean {
  return (
    cell.row >= 0 && cell.col >= 0 && cell.row < maze.size && cell.col < maze.size && maze.open[cell.row]![cell.col]!
  );
}

/** Where a move from `from` leads: the next cell, or null when a wall or the edge blocks it. */
export function moveFrom(maze: Pick<Maze, 'size' | 'open'>, from: Cell, dir: Direction): Cell | null {
  const [dr, dc] = STEP[dir];
  const next = { row: from.row + dr, col: from.col + dc };
  return isOpen(maze, next) ? next : null;
}

/** Breadth-first move counts from `from` to every reachable path cell (-1: unreachable or wall). */
export function distancesFrom(maze: Pick<Maze, 'size' | 'open'>, from: Cell): number[][] {
  const dist = Array.from({ length: maze.size }, () => Array<number>(maze.size).fill(-1));
  if (!isOpen(maze, from)) return dist;
  dist[from.row]![from.col] = 0;
  const queue: Cell[] = [from];
  for (let i = 0; i < queue.length; i++) {
    const cell = queue[i]!;
    for (const dir of DIRS) {
      const next = moveFrom(maze, cell, dir);
      if (next && dist[next.row]![next.col] === -1) {
        dist[next.row]![next.col] = dist[cell.row]![cell.col]! + 1;
        queue.push(next);
      }
    }
  }
  return dist;
}

/** The shortest-path distance between two cells in moves, or -1 when no path joins them. */
export function pathDistance(maze: Pick<Maze, 'size' | 'open'>, a: Cell, b: Cell): number {
  return distancesFrom(maze, a)[b.row]![b.col]!;
}

/** A first move of a shortest path from `from` to the maze's target (null: there, or no path). */
export function shortestPathMove(maze: Maze, from: Cell): Direction | null {
  const toTarget = distancesFrom(maze, maze.target);
  const here = toTarget[from.row]![from.col]!;
  if (here <= 0) return null;
  for (const dir of DIRS) {
    const next = moveFrom(maze, from, dir);
    if (next && toTarget[next.row]![next.col] === here - 1) return dir;
  }
  return null;
}

function pathCells(maze: Pick<Maze, 'size' | 'open'>): Cell[] {
  const cells: Cell[] = [];
  for (let row = 0; row < maze.size; row++)
    for (let col = 0; col < maze.size; col++) if (maze.open[row]![col]) cells.push({ row, col });
  return cells;
}

function allPathsJoined(maze: Pick<Maze, 'size' | 'open'>): boolean {
  const cells = pathCells(maze);
  if (!cells.length) return false;
  const dist = distancesFrom(maze, cells[0]!);
  return cells.every((c) => dist[c.row]![c.col]! >= 0);
}

/**
 * Depth-first carving on the cells with even coordinates, opening the wall cell between two of
 * them as it goes (a spanning tree: one path between any two carved cells). On an even size the
 * last row and column are not reached, so the far corner is joined to the top-left corner by a
 * corridor along the top row and down the right column where they are still walls.
 */
export function carveDepthFirst(size: number, rng: Rng): boolean[][] {
  const open = Array.from({ length: size }, () => Array<boolean>(size).fill(false));
  open[0]![0] = true;
  const stack: Cell[] = [{ row: 0, col: 0 }];
  while (stack.length) {
    const cell = stack.at(-1)!;
    const fresh = DIRS.map((dir) => {
      const [dr, dc] = STEP[dir];
      return { dr, dc, row: cell.row + 2 * dr, col: cell.col + 2 * dc };
    }).filter((n) => n.row >= 0 && n.col >= 0 && n.row < size && n.col < size && !open[n.row]![n.col]);
    if (!fresh.length) {
      stack.pop();
      continue;
    }
    const next = fresh[Math.floor(rng() * fresh.length)]!;
    open[cell.row + next.dr]![cell.col + next.dc] = true;
    open[next.row]![next.col] = true;
    stack.push({ row: next.row, col: next.col });
  }
  const far = size - 1;
  if (!open[far]![far]) {
    for (let col = 0; col <= far; col++) open[0]![col] = true;
    for (let row = 0; row <= far; row++) open[row]![far] = true;
  }
  return open;
}

/**
 * Turns path cells into walls, in a random order, while more than `share` of the cells are not
 * yet walls, skipping any cell whose loss would cut the paths in two or close one of `keep`.
 * One pass: a cell refused early is not tried again (as in the authors' code).
 */
export function addWalls(maze: Pick<Maze, 'size' | 'open'>, share: number, rng: Rng, keep: Cell[] = []): void {
  const total = maze.size * maze.size;
  const wallsNeeded = Math.floor(total * share) + 1;
  let walls = total - pathCells(maze).length;
  const candidates = shuffle(
    pathCells(maze).filter((c) => !keep.some((k) => sameCell(k, c))),
    rng,
  );
  for (const cell of candidates) {
    if (walls >= wallsNeeded) break;
    maze.open[cell.row]![cell.col] = false;
    if (allPathsJoined(maze)) walls++;
    else maze.open[cell.row]![cell.col] = true;
  }
}

/**
 * Picks a start and a target among the path cells: uniformly among the (ordered) pairs whose
 * shortest-path distance lies in [min, max]; when there is none, among the pairs nearest to that
 * range (the farthest ones when the maze is too small for `min`).
 */
export function placeEnds(
  maze: Pick<Maze, 'size' | 'open'>,
  rng: Rng,
  range: { min?: number; max?: number } = {},
): { start: Cell; target: Cell } {
  const min = Math.max(1, range.min ?? 1);
  const max = range.max ?? Number.POSITIVE_INFINITY;
  const cells = pathCells(maze);
  const pairs: { start: Cell; target: Cell; miss: number }[] = [];
  for (const start of cells) {
    const dist = distancesFrom(maze, start);
    for (const target of cells) {
      const d = dist[target.row]![target.col]!;
      if (d > 0) pairs.push({ start, target, miss: d < min ? min - d : d > max ? d - max : 0 });
    }
  }
  if (!pairs.length) throw new Error('the maze has fewer than two joined path cells');
  const best = Math.min(...pairs.map((p) => p.miss));
  const chosen = pairs.filter((p) => p.miss === best);
  const { start, target } = chosen[Math.floor(rng() * chosen.length)]!;
  return { start, target };
}

/** A maze from settings and a seeded rng: the same settings and seed give the same maze everywhere. */
export function generateMaze(settings: MazeSettings, rng: Rng): Maze {
  const { size } = settings;
  if (!Number.isInteger(size) || size < 2) throw new Error(`maze size must be a whole number ≥ 2 (got ${size})`);
  const maze = { size, open: carveDepthFirst(size, rng) };
  if (settings.wallShareAbove !== undefined)
    addWalls(maze, settings.wallShareAbove, rng, [
      { row: 0, col: 0 },
      { row: size - 1, col: size - 1 },
    ]);
  return { ...maze, ...placeEnds(maze, rng, { min: settings.minDistance, max: settings.maxDistance }) };
}

/**
 * A maze from text rows (for tests and hand-made levels): `#` wall, `.` path, `S` start, `T` target.
 * Refuses rows of unequal length, a missing or repeated S or T, and any other character.
 */
export function parseMaze(rows: string[]): Maze {
  const size = rows.length;
  let start: Cell | undefined;
  let target: Cell | undefined;
  const open = rows.map((line, row) => {
    if (line.length !== size) throw new Error(`maze row ${row + 1} has ${line.length} cells, expected ${size}`);
    return [...line].map((ch, col) => {
      if (ch === 'S' || ch === 'T') {
        if ((ch === 'S' ? start : target) !== undefined) throw new Error(`maze has more than one ${ch}`);
        if (ch === 'S') start = { row, col };
        else target = { row, col };
        return true;
      }
      if (ch !== '#' && ch !== '.') throw new Error(`maze row ${row + 1} has "${ch}" (allowed: # . S T)`);
      return ch === '.';
    });
  });
  if (!start || !target) throw new Error('maze needs one S (start) and one T (target)');
  return { size, open, start, target };
}

export interface TextSymbols {
  wall: string;
  path: string;
  ball: string;
  target: string;
}

/** One line a row; the ball drawn over the target when it stands on it. */
export function mazeRows(maze: Maze, ball: Cell, symbols: TextSymbols): string[] {
  return maze.open.map((line, row) =>
    line
      .map((open, col) => {
        const cell = { row, col };
        if (sameCell(cell, ball)) return symbols.ball;
        if (sameCell(cell, maze.target)) return symbols.target;
        return open ? symbols.path : symbols.wall;
      })
      .join(''),
  );
}

function shuffle<T>(items: T[], rng: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
