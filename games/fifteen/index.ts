/**
 * ING-VP's 15-puzzle (App. B): a 4×4 frame of tiles 1–15 and one empty space; a move names a tile
 * next to the empty space, which slides into it. Solved when the tiles run 1…15 from the top left
 * with the space last. Levels lie at most 8 moves from solved (breadth-first). Text rendering: a
 * list of four rows, 0 for the space.
 */
import { clickOn, ingvpGame, type PuzzleGui } from '../ingvp/definition.ts';
import { bfsSolve, frameHtml, parseWordPlan, wholeNumber, type Puzzle, type PuzzleSpec } from '../ingvp/puzzle.ts';
import levels from './levels/levels.json' with { type: 'json' };

export interface FifteenLevel {
  /** 16 numbers row by row, 0 = the empty space. */
  tiles: number[];
  optimal: number;
}

export const GOAL = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0];
const GOAL_KEY = GOAL.join(',');

/** The tiles after sliding `tile` into the space, or undefined when it is not next to the space. */
export function slide(tiles: readonly number[], tile: number): number[] | undefined {
  const t = tiles.indexOf(tile);
  const z = tiles.indexOf(0);
  if (tile < 1 || tile > 15 || t < 0) return undefined;
  const adjacent = Math.abs(t - z) === 4 || (Math.abs(t - z) === 1 && Math.floor(t / 4) === Math.floor(z / 4));
  if (!adjacent) return undefined;
  const next = [...tiles];
  next[z] = tile;
  next[t] = 0;
  return next;
}

/** Tiles next to the space (the moves that change something). */
export function movable(tiles: readonly number[]): number[] {
  return tiles.filter((v) => v !== 0 && slide(tiles, v));
}

export function fifteenSolve(tiles: number[], bound: number): string[] | undefined {
  return bfsSolve(tiles, {
    key: (s) => s.join(','),
    solved: (s) => s.join(',') === GOAL_KEY,
    bound,
    moves: (s) => movable(s).map((v) => ({ move: String(v), next: slide(s, v)! })),
  });
}

export function parseTile(v: unknown): string | undefined {
  const n = wholeNumber(v);
  return n !== undefined && n >= 1 && n <= 15 ? String(n) : undefined;
}

export class FifteenPuzzle implements Puzzle {
  private tiles: number[];

  constructor(start: number[]) {
    if ([...start].sort((a, b) => a - b).join(',') !== [...GOAL].sort((a, b) => a - b).join(','))
      throw new Error('a 15-puzzle position holds the numbers 0–15 once each');
    this.tiles = [...start];
  }

  apply(move: string) {
    const next = slide(this.tiles, Number(move));
    if (!next) return false;
    this.tiles = next;
    return true;
  }

  solved() {
    return this.tiles.join(',') === GOAL_KEY;
  }

  remaining(bound: number) {
    return fifteenSolve(this.tiles, bound)?.length ?? Number.POSITIVE_INFINITY;
  }

  solution() {
    return fifteenSolve(this.tiles, 10) ?? [];
  }

  rows(): number[][] {
    return [0, 1, 2, 3].map((r) => this.tiles.slice(r * 4, r * 4 + 4));
  }

  text() {
    return JSON.stringify(this.rows());
  }

  key() {
    return this.tiles.join(',');
  }

  snapshot() {
    return { rows: this.rows(), in_place: this.tiles.filter((v, i) => v !== 0 && v === GOAL[i]).length };
  }

  html() {
    const cells = this.tiles.map((v) =>
      v === 0 ? '<div class="space"></div>' : `<div class="tile" data-hit="t-${v}">${v}</div>`,
    );
    return frameHtml(
      '15-puzzle',
      `Tiles in place: ${this.tiles.filter((v, i) => v !== 0 && v === GOAL[i]).length} / 15`,
      `<div class="board">${cells.join('')}</div>`,
      this.solved() ? 'Solved.' : 'Click a tile next to the space to slide it.',
      `.board{display:grid;grid-template-columns:repeat(4,96px);grid-template-rows:repeat(4,96px);gap:6px;padding:6px;background:#5b6470}
       .tile{background:#f4e3c1;border-radius:8px;display:flex;align-items:center;justify-content:center;font-size:40px;font-weight:bold;color:#3a2d20}
       .space{background:#5b6470}`,
    );
  }
}

export const fifteenSpec: PuzzleSpec<FifteenLevel> = {
  id: 'fifteen',
  title: '15-puzzle',
  levels: levels as FifteenLevel[],
  load: (level) => new FifteenPuzzle(level.tiles),
  optimal: (level) => level.optimal,
  parseStep: parseTile,
  parsePlan: (v) => parseWordPlan(v, parseTile),
  formatStep: (m) => Number(m),
  formatPlan: (ms) => ms.map(Number),
  actionSpace: () => Array.from({ length: 15 }, (_, i) => String(i + 1)),
  undo: false,
  completion: { kind: 'steps' },
  prompt: {
    goal: 'Put the tiles in ascending order from the top-left corner, 1 to 15, with the empty space in the bottom-right corner.',
    rules:
      'The 4×4 frame holds fifteen numbered tiles and one empty space. A tile next to the space (above, below, left or right of it) ' +
      'can slide into the space: name that tile and the two swap places. Naming a tile that is not next to the space changes nothing.',
    imageLegend: 'In the picture: the numbered squares are the tiles, the dark gap is the empty space.',
    textLegend:
      'The text is a list of four rows from top to bottom, each a list of four numbers; 0 is the empty space.',
    stepFormat: 'One move: {"output": number}, the tile to slide into the space, e.g. {"output": 12}.',
    planFormat: 'All moves in order: {"output": [number1, number2, number3, ...]}.',
  },
};

export const fifteenGui: PuzzleGui = {
  controls: 'CLICK a tile next to the empty space: it slides into the space. One tile per step.',
  semanticControls: 'Name one tile next to the empty space, e.g. "12". One tile per step.',
  moveInputs: { click: true },
  oneMovePerStep: true,
  actionSpace: { click: 'anywhere' },
  handle(input, selection) {
    const m = input.type === 'click' ? /^t-(\d+)$/.exec(input.hit ?? '') : null;
    return m ? { move: m[1]!, selection: null } : { selection };
  },
  gesture: (move, hits) => clickOn(hits, `t-${move}`),
};

export const fifteen = ingvpGame(fifteenSpec, fifteenGui, { width: 520, height: 600 });
