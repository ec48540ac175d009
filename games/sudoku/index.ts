/**
 * ING-VP's Sudoku (App. B): a 9×9 grid with 71 clues; fill the 10 blanks so every row, column
 * and 3×3 box holds 1–9 once. A move writes one number into a cell that is not a clue:
 * {"output": {"{row}{column}": number}}, row and column 0–8 from the top left. Text rendering:
 * the 81 numbers in one string, row by row, 0 for a blank.
 */
import { clickOn, ingvpGame, type PuzzleGui } from '../ingvp/definition.ts';
import { frameHtml, wholeNumber, type Puzzle, type PuzzleSpec } from '../ingvp/puzzle.ts';
import levels from './levels/levels.json' with { type: 'json' };

export interface SudokuLevel {
  /** 81 digits, row by row, 0 = blank. */
  puzzle: string;
  /** The unique solution. */
  solution: string;
  /** Blanks to fill (10). */
  optimal: number;
}

/** "34" + 5 → "34=5"; undefined when out of range. */
function cellMove(cell: unknown, value: unknown): string | undefined {
  const rc = typeof cell === 'string' ? cell.replace(/[\s,()[\]]/g, '') : undefined;
  const n = wholeNumber(value);
  return rc && /^[0-8][0-8]$/.test(rc) && n !== undefined && n >= 1 && n <= 9 ? `${rc}=${n}` : undefined;
}

export function parseSudokuStep(v: unknown): string | undefined {
  if (typeof v === 'string') {
    const m = /^\s*"?\(?\s*([0-8])\s*,?\s*([0-8])\s*\)?"?\s*[:=]\s*(\d)\s*$/.exec(v);
    return m ? cellMove(`${m[1]}${m[2]}`, m[3]) : undefined;
  }
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const entries = Object.entries(v);
    return entries.length === 1 ? cellMove(entries[0]![0], entries[0]![1]) : undefined;
  }
  return undefined;
}

export class SudokuPuzzle implements Puzzle {
  readonly grid: number[];
  private readonly clue: boolean[];

  constructor(readonly level: SudokuLevel) {
    this.grid = [...level.puzzle].map(Number);
    this.clue = this.grid.map((v) => v !== 0);
  }

  apply(move: string): boolean {
    const m = /^([0-8])([0-8])=([1-9])$/.exec(move);
    if (!m) return false;
    const i = Number(m[1]) * 9 + Number(m[2]);
    const v = Number(m[3]);
    if (this.clue[i] || this.grid[i] === v) return false;
    this.grid[i] = v;
    return true;
  }

  /** Cells that differ from the solution (blanks included). */
  wrongCells() {
    return this.grid.filter((v, i) => v !== Number(this.level.solution[i])).length;
  }

  solved() {
    return this.wrongCells() === 0;
  }

  remaining(bound: number) {
    const w = this.wrongCells();
    return w > bound ? Number.POSITIVE_INFINITY : w;
  }

  solution() {
    return this.grid.flatMap((v, i) =>
      v === Number(this.level.solution[i]) ? [] : [`${Math.floor(i / 9)}${i % 9}=${this.level.solution[i]}`],
    );
  }

  text() {
    return this.grid.join('');
  }

  key() {
    return this.grid.join('');
  }

  snapshot() {
    return { grid: this.grid.join(''), wrong_cells: this.wrongCells() };
  }

  html(selected?: string | null) {
    const cells = this.grid.map((v, i) => {
      const r = Math.floor(i / 9);
      const c = i % 9;
      const cls = [
        'cell',
        this.clue[i] ? 'clue' : 'open',
        c % 3 === 2 && c < 8 ? 'br' : '',
        r % 3 === 2 && r < 8 ? 'bb' : '',
        selected === `${r},${c}` ? 'sel' : '',
      ].join(' ');
      return `<div class="${cls}" data-hit="s-${r}-${c}">${v || ''}</div>`;
    });
    const filled = this.grid.filter((v, i) => !this.clue[i] && v).length;
    const blanks = this.clue.filter((x) => !x).length;
    return frameHtml(
      'Sudoku',
      `Filled: ${filled} / ${blanks}`,
      `<div class="board">${cells.join('')}</div>`,
      this.solved() ? 'Solved.' : 'Click an empty cell, then type a number.',
      `.board{display:grid;grid-template-columns:repeat(9,48px);grid-template-rows:repeat(9,48px);border:3px solid #111;background:#fff}
       .cell{display:flex;align-items:center;justify-content:center;font-size:26px;border-right:1px solid #999;border-bottom:1px solid #999}
       .br{border-right:3px solid #111}.bb{border-bottom:3px solid #111}.clue{color:#111;font-weight:bold}.open{color:#1f5fe0;background:#f4f7fb}
       .sel{background:#ffe58a}`,
    );
  }
}

export const sudokuSpec: PuzzleSpec<SudokuLevel> = {
  id: 'sudoku',
  title: 'Sudoku',
  levels: levels as SudokuLevel[],
  load: (level) => new SudokuPuzzle(level),
  optimal: (level) => level.optimal,
  parseStep: parseSudokuStep,
  parsePlan(v) {
    const parts = Array.isArray(v)
      ? v.map(parseSudokuStep)
      : v && typeof v === 'object'
        ? Object.entries(v).map(([k, n]) => cellMove(k, n))
        : [];
    return parts.length && parts.every((m) => m !== undefined) ? (parts as string[]) : undefined;
  },
  formatStep: (m) => ({ [m.slice(0, 2)]: Number(m[3]) }),
  formatPlan: (ms) => Object.fromEntries(ms.map((m) => [m.slice(0, 2), Number(m[3])])),
  actionSpace: () =>
    Array.from({ length: 81 * 9 }, (_, i) => `${Math.floor(i / 81)}${Math.floor(i / 9) % 9}=${(i % 9) + 1}`),
  undo: true,
  completion: { kind: 'cells' },
  prompt: {
    goal: 'Fill every blank cell so that each row, each column and each 3×3 box holds the numbers 1 to 9 once.',
    rules:
      'The numbers given at the start cannot be changed. Write one number into one cell per move; a number written into ' +
      'a given cell is ignored, and a later number in the same cell replaces the earlier one. Rows and columns are ' +
      'numbered 0 to 8; (0,0) is the top-left cell, (8,8) the bottom-right one.',
    imageLegend:
      'In the picture: bold black numbers are given, blue numbers are the ones written since, empty cells are blank.',
    textLegend:
      'The text is one string of 81 numbers, row by row from the top-left cell to the bottom-right one; 0 is a blank.',
    stepFormat:
      'One cell: {"output": {"{row}{column}": number}}, e.g. {"output": {"34": 7}} writes 7 in row 3, column 4.',
    planFormat: 'Every cell you fill: {"output": {"{row}{column}": number, "{row}{column}": number, ...}}.',
    undo: 'If you have written numbers you want to take back, go back to the state after an earlier step with {"output": N}, N being that step\'s number (0: the start).',
  },
};

export const sudokuGui: PuzzleGui = {
  controls:
    'Click an empty cell with CLICK (it turns yellow), then PRESS a number key 1–9 to write that number into it.',
  semanticControls: 'Name one cell and a number as "RC=N", e.g. "34=7" (row 3, column 4, 0–8 from the top left).',
  oneMovePerStep: false,
  actionSpace: { click: 'anywhere' },
  handle(input, selection) {
    if (input.type === 'click') {
      const m = /^s-(\d)-(\d)$/.exec(input.hit ?? '');
      return { selection: m ? `${m[1]},${m[2]}` : null };
    }
    if (selection && /^[1-9]$/.test(input.key))
      return { move: `${selection.replace(',', '')}=${input.key}`, selection: null };
    return { selection };
  },
  gesture(move, hits, selection) {
    const cell = `${move[0]},${move[1]}`;
    return selection === cell ? { type: 'key', key: move[3]! } : clickOn(hits, `s-${move[0]}-${move[1]}`);
  },
};

export const sudoku = ingvpGame(sudokuSpec, sudokuGui, { width: 560, height: 620 });
