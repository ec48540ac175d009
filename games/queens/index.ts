/**
 * ING-VP's 8-Queens (App. B): one queen is given (red, a different cell per level); place the
 * other seven so that no two share a row, a column or a diagonal. A queen that breaks a rule, or
 * lands on a taken cell, is ignored. Coordinates are [row, column], 0–7, (0,0) top left. Text
 * rendering: the list of queens on the board, the first one first.
 */
import { ingvpGame, clickOn, type PuzzleGui } from '../ingvp/definition.ts';
import { frameHtml, parseEach, wholeNumber, type Puzzle, type PuzzleSpec } from '../ingvp/puzzle.ts';
import levels from './levels/levels.json' with { type: 'json' };

export interface QueensLevel {
  /** The given queen, [row, column]. */
  first: [number, number];
  /** Queens to place (7). */
  optimal: number;
}

type Cell = [number, number];
const N = 8;

function attacks(a: Cell, b: Cell): boolean {
  return a[0] === b[0] || a[1] === b[1] || Math.abs(a[0] - b[0]) === Math.abs(a[1] - b[1]);
}

/** The 92 solutions, each as the column of the queen in rows 0…7. */
export const ALL_SOLUTIONS: number[][] = (() => {
  const out: number[][] = [];
  const cols: number[] = [];
  const place = (row: number) => {
    if (row === N) return void out.push([...cols]);
    for (let c = 0; c < N; c++) {
      if (cols.some((cc, r) => attacks([r, cc], [row, c]))) continue;
      cols.push(c);
      place(row + 1);
      cols.pop();
    }
  };
  place(0);
  return out;
})();

const cellName = (c: Cell) => `${c[0]},${c[1]}`;

export function parseCell(v: unknown): string | undefined {
  let pair: unknown = v;
  if (typeof v === 'string') {
    const m = /^\s*[[(]?\s*(\d+)\s*[,\s]\s*(\d+)\s*[\])]?\s*$/.exec(v);
    if (!m) return undefined;
    pair = [m[1], m[2]];
  }
  if (!Array.isArray(pair) || pair.length !== 2) return undefined;
  const r = wholeNumber(pair[0]);
  const c = wholeNumber(pair[1]);
  return r !== undefined && c !== undefined && r >= 0 && c >= 0 && r < N && c < N ? `${r},${c}` : undefined;
}

const toCell = (move: string): Cell => move.split(',').map(Number) as Cell;

export class QueensPuzzle implements Puzzle {
  readonly queens: Cell[];

  constructor(readonly first: Cell) {
    this.queens = [first];
  }

  apply(move: string): boolean {
    if (!/^[0-7],[0-7]$/.test(move) || this.queens.length >= N) return false;
    const cell = toCell(move);
    if (this.queens.some((q) => attacks(q, cell))) return false; // a taken cell attacks itself too
    this.queens.push(cell);
    return true;
  }

  solved() {
    return this.queens.length === N;
  }

  /** The solutions that keep the given queen, with how many of the placed queens each shares. */
  private overlaps() {
    return ALL_SOLUTIONS.filter((s) => s[this.first[0]] === this.first[1]).map((s) => ({
      s,
      shared: this.queens.filter((q) => s[q[0]] === q[1]).length,
    }));
  }

  /** Queens still missing from the nearest solution that keeps the given queen. */
  remaining(bound: number) {
    const best = Math.max(...this.overlaps().map((o) => o.shared));
    const left = N - best;
    return left > bound ? Number.POSITIVE_INFINITY : left;
  }

  solution() {
    const full = this.overlaps().find((o) => o.shared === this.queens.length);
    if (!full) return [];
    return full.s.map((c, r) => `${r},${c}`).filter((m) => !this.queens.some((q) => cellName(q) === m));
  }

  text() {
    return JSON.stringify(this.queens);
  }

  key() {
    return this.queens.map(cellName).sort().join(' ');
  }

  snapshot() {
    return { queens: this.queens.map((q) => [...q]) };
  }

  html(selected?: string | null) {
    const cells: string[] = [];
    for (let r = 0; r < N; r++)
      for (let c = 0; c < N; c++) {
        const i = this.queens.findIndex((q) => q[0] === r && q[1] === c);
        const queen = i < 0 ? '' : `<div class="queen${i === 0 ? ' first' : ''}">♛</div>`;
        const sel = selected === `${r},${c}` ? ' sel' : '';
        cells.push(`<div class="sq ${(r + c) % 2 ? 'dark' : 'light'}${sel}" data-hit="q-${r}-${c}">${queen}</div>`);
      }
    const labels = () => Array.from({ length: N }, (_, i) => `<div class="lab">${i}</div>`).join('');
    return frameHtml(
      '8-Queens',
      `Queens placed: ${this.queens.length} / 8`,
      `<div class="outer"><div class="cols">${labels()}</div><div class="mid"><div class="rows">${labels()}</div>
       <div class="board">${cells.join('')}</div></div></div>`,
      this.solved() ? 'Solved.' : 'Click a square to place a queen.',
      `.outer{display:flex;flex-direction:column;align-items:flex-end}.cols{display:grid;grid-template-columns:repeat(8,52px);margin-right:0}
       .mid{display:flex}.rows{display:grid;grid-template-rows:repeat(8,52px);width:22px}
       .lab{display:flex;align-items:center;justify-content:center;font-size:14px;color:#3b4654;height:22px}.rows .lab{height:52px}
       .board{display:grid;grid-template-columns:repeat(8,52px);grid-template-rows:repeat(8,52px);border:4px solid #5b6470}
       .sq{display:flex;align-items:center;justify-content:center}.light{background:#f0d9b5}.dark{background:#b58863}.sel{outline:3px solid #1f5fe0;outline-offset:-3px}
       .queen{font-size:40px;line-height:1;color:#111}.queen.first{color:#d61f1f}`,
    );
  }
}

export const queensSpec: PuzzleSpec<QueensLevel> = {
  id: 'queens',
  title: '8-Queens',
  levels: levels as QueensLevel[],
  load: (level) => new QueensPuzzle(level.first),
  optimal: (level) => level.optimal,
  parseStep: parseCell,
  parsePlan(v) {
    if (!Array.isArray(v)) return undefined;
    // One pair alone is a one-move plan.
    if (v.length === 2 && !Array.isArray(v[0])) {
      const one = parseCell(v);
      return one ? [one] : undefined;
    }
    return parseEach(v, parseCell);
  },
  formatStep: (m) => toCell(m),
  formatPlan: (ms) => ms.map(toCell),
  actionSpace: () => Array.from({ length: 64 }, (_, i) => `${Math.floor(i / 8)},${i % 8}`),
  undo: true,
  completion: { kind: 'queens' },
  prompt: {
    goal: 'Place eight queens on the 8×8 board so that no two threaten each other.',
    rules:
      'Two queens threaten each other when they share a row, a column or a diagonal. The first queen is already placed: ' +
      'keep it, and do not place it again. Place the other seven one at a time; a queen that would threaten another one, ' +
      'or that lands on a taken square, is ignored. Coordinates are [row, column], each from 0 to 7; [0, 0] is the top-left square.',
    imageLegend:
      'In the picture: the red queen is the given first queen, black queens are the ones placed since; rows and columns are numbered 0–7 along the edges.',
    textLegend: 'The text lists the coordinates of every queen on the board as [row, column], the first queen first.',
    stepFormat: 'One queen: {"output": [row, column]}, e.g. {"output": [3, 5]}.',
    planFormat: 'Every queen you add, in order: {"output": [[row, column], [row, column], ...]}.',
    undo: 'If the queens placed so far cannot be completed, go back to the state after an earlier step with {"output": N}, N being that step\'s number (0: the start).',
  },
};

export const queensGui: PuzzleGui = {
  controls:
    'Click the centre of a square with CLICK at its pixel coordinates in the screenshot: a queen is placed there. One queen per step.',
  semanticControls: 'Name one square as "row,column", e.g. "3,5" (0–7, 0,0 top left). One queen per step.',
  moveInputs: { click: true },
  oneMovePerStep: true,
  actionSpace: { click: 'anywhere' },
  handle(input, selection) {
    const m = input.type === 'click' ? /^q-(\d)-(\d)$/.exec(input.hit ?? '') : null;
    return m ? { move: `${m[1]},${m[2]}`, selection: null } : { selection };
  },
  gesture: (move, hits) => clickOn(hits, `q-${move.replace(',', '-')}`),
};

export const queens = ingvpGame(queensSpec, queensGui, { width: 560, height: 640 });
