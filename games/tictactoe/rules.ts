/** Pure Tic-Tac-Toe rules and a minimax search (cells 0..8, row-major). */
export type Mark = 'X' | 'O';
export type Cell = Mark | null;
export type Board = Cell[];

const LINES = [
  [0, 1, 2],
  [3, 4, 5],
  [6, 7, 8],
  [0, 3, 6],
  [1, 4, 7],
  [2, 5, 8],
  [0, 4, 8],
  [2, 4, 6],
] as const;

export function winner(b: Board): Mark | null {
  for (const [a, c, d] of LINES) if (b[a] && b[a] === b[c] && b[a] === b[d]) return b[a];
  return null;
}

export const isFull = (b: Board) => b.every((c) => c !== null);
export const other = (m: Mark): Mark => (m === 'X' ? 'O' : 'X');
export const emptyCells = (b: Board) => b.flatMap((c, i) => (c === null ? [i] : []));

/** Value of the position for `me` with `turn` to move: +10-depth win, 0 draw, -(10-depth) loss. */
const memo = new Map<string, number>();

function minimax(b: Board, turn: Mark, me: Mark, depth: number): number {
  const key = `${b.map((c) => c ?? '.').join('')}${turn}${me}${depth}`;
  const known = memo.get(key);
  if (known !== undefined) return known;
  const v = search(b, turn, me, depth);
  memo.set(key, v);
  return v;
}

function search(b: Board, turn: Mark, me: Mark, depth: number): number {
  const w = winner(b);
  if (w) return w === me ? 10 - depth : depth - 10;
  if (isFull(b)) return 0;
  let best = turn === me ? -Infinity : Infinity;
  for (const i of emptyCells(b)) {
    b[i] = turn;
    const v = minimax(b, other(turn), me, depth + 1);
    b[i] = null;
    best = turn === me ? Math.max(best, v) : Math.min(best, v);
  }
  return best;
}

/** All optimal moves for `me` (ties kept, so a seeded choice varies the games). */
export function bestMoves(b: Board, me: Mark): number[] {
  let best = -Infinity;
  let moves: number[] = [];
  for (const i of emptyCells(b)) {
    const copy = [...b];
    copy[i] = me;
    const v = minimax(copy, other(me), me, 1);
    if (v > best) [best, moves] = [v, [i]];
    else if (v === best) moves.push(i);
  }
  return moves;
}

/**
 * Cells are named as GameVerse's prompt names them ("B3, the right middle cell", Fig. 12): the
 * row's letter, A–C from top to bottom, then the column's number, 1–3 from left to right.
 */
const ROWS = 'ABC';
export const cellName = (i: number) => `${ROWS[Math.floor(i / 3)]}${(i % 3) + 1}`;

/** "B3", "b3", "3B" → cell index (row B, column 3: the right cell of the middle row). */
export function parseCell(s: string): number | undefined {
  const t = s
    .trim()
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '');
  const m = /^([ABC])([123])$/.exec(t) ?? /^([123])([ABC])$/.exec(t);
  if (!m) return undefined;
  const [row, col] = /[ABC]/.test(m[1]!) ? [m[1]!, m[2]!] : [m[2]!, m[1]!];
  return ROWS.indexOf(row) * 3 + Number(col) - 1;
}
