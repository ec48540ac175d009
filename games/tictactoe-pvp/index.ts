/**
 * Tic-Tac-Toe model against model (OmniGameArena's PvP setting): seat 0 plays X and moves first,
 * seat 1 plays O; the seats alternate. The rules are tictactoe's (../tictactoe/rules.ts): a move
 * on a taken cell or off the board loses that seat the game at once. A move by the seat not to
 * move is refused and changes nothing. Each seat scores 100 for a win, 50 for a draw, 0 for a
 * loss once the game is over (0 while it is played). 10 trials (the arena swaps the seats).
 */
import type { GameDefinition, HitRect, MoveResult, Seat, SeatedInstance, ViewInput, WindowGesture } from '../types.ts';
import { pick, type Rng } from '../shared/rng.ts';
import { pvpSeatScore } from '../shared/seats.ts';
import {
  bestMoves,
  cellName,
  emptyCells,
  isFull,
  parseCell,
  winner as lineWinner,
  type Board,
  type Mark,
} from '../tictactoe/rules.ts';

const ALL_CELLS = Array.from({ length: 9 }, (_, i) => cellName(i));
const MARKS: readonly [Mark, Mark] = ['X', 'O'];
const COLOURS: readonly [string, string] = ['#1f5fa8', '#b8321f'];
const seatOf = (m: Mark): Seat => (m === 'X' ? 0 : 1);
const otherSeat = (s: Seat): Seat => (s === 0 ? 1 : 0);

export const tictactoePvp: GameDefinition = {
  id: 'tictactoe-pvp',
  title: 'Tic-Tac-Toe (two players)',
  task: 'Win this game of Tic-Tac-Toe against the other player, or at least do not lose: three of your marks in a row wins.',
  rules:
    'Tic-Tac-Toe on a 3×3 board between two players: X (player 1, blue) and O (player 2, red). ' +
    'The players take turns placing their mark on an empty cell; X moves first. Three of your marks in a row, column or diagonal wins; a full board without a line is a draw. ' +
    'Rows are A, B, C from top to bottom and columns 1, 2, 3 from left to right; a cell is its row letter then its column number, so B3 is the right cell of the middle row. ' +
    'Placing a mark on an occupied cell, or clicking outside the board, on your turn loses the game at once. A move when it is not your turn is refused and changes nothing. ' +
    'Scores: a win 100, a draw 50, a loss 0.',
  controls: {
    gui: 'On your turn, click the centre of an empty cell with CLICK at its pixel coordinates in the screenshot. One move per step: further clicks in the same answer are not carried out.',
    semantic:
      'On your turn, name one empty cell, for example "B3" (row letter, then column number: the right cell of the middle row). One move per step: further moves in the same answer are not carried out.',
  },
  parseMove(move) {
    const i = parseCell(move);
    return i === undefined
      ? { ok: false, error: `"${move}" is not a cell (use A1…C3)` }
      : { ok: true, move: cellName(i) };
  },
  viewSize: { width: 480, height: 640 },
  trials: 10,
  defaultMaxSteps: 10,
  maxActionsPerStep: 1,
  moveInputs: { click: true },
  actionSpace: { semantic: ALL_CELLS, gui: { click: 'anywhere' } },
  seats: {
    mode: 'pvp',
    turns: 'alternate',
    names: MARKS,
    roles: [
      'You play X (player 1, blue) and move first. Get three X in a row before O does.',
      'You play O (player 2, red); X moves first. Get three O in a row before X does.',
    ],
  },
  create: ({ rng }) => new TicTacToePvp(rng),
};

export class TicTacToePvp implements SeatedInstance {
  private board: Board = Array(9).fill(null);
  private turn: Seat = 0;
  private acting: Seat | null = null;
  /** The seat that broke a rule (a taken cell, off the board) and lost by it, and why. */
  private lostByRule: { seat: Seat; reason: string } | null = null;
  private moves = 0;

  constructor(private readonly rng: Rng) {}

  seatsToAct(): Seat[] {
    return this.isOver() ? [] : [this.turn];
  }

  private place(seat: Seat, cell: number | undefined, label: string): MoveResult {
    if (this.isOver()) return { ok: false, error: 'the game is over' };
    if (seat !== this.turn) return { ok: false, error: `it is not ${MARKS[seat]}'s turn: ${MARKS[this.turn]} moves` };
    this.moves++;
    if (cell === undefined || cell < 0 || cell > 8) {
      this.lostByRule = { seat, reason: `move off the board (${label})` };
      return { ok: false, error: this.lostByRule.reason };
    }
    if (this.board[cell] !== null) {
      this.lostByRule = { seat, reason: `cell ${cellName(cell)} is already taken` };
      return { ok: false, error: this.lostByRule.reason };
    }
    this.board[cell] = MARKS[seat];
    this.turn = otherSeat(seat);
    return { ok: true };
  }

  applySeatMove(seat: Seat, move: string): MoveResult {
    return this.place(seat, parseCell(move), move);
  }

  applyMove(move: string): MoveResult {
    const seats = this.seatsToAct();
    if (seats.length !== 1) return { ok: false, error: 'the game is over' };
    return this.applySeatMove(seats[0]!, move);
  }

  setActingSeat(seat: Seat | null) {
    this.acting = seat;
  }

  handleInput(input: ViewInput): MoveResult {
    if (input.type !== 'click') return { ok: true }; // keys do nothing in this game
    if (this.isOver()) return { ok: false, error: 'the game is over' };
    if (this.acting === null) return { ok: false, error: 'no player is acting: the click is ignored' };
    if (this.acting !== this.turn)
      return { ok: false, error: `it is not ${MARKS[this.acting]}'s turn: the click is ignored` };
    return this.place(this.acting, input.hit ? parseCell(input.hit) : undefined, input.hit ?? 'outside the cells');
  }

  seatValidMoves(seat: Seat): string[] {
    return this.isOver() || seat !== this.turn ? [] : emptyCells(this.board).map(cellName);
  }

  validMoves(): string[] {
    return this.seatsToAct().flatMap((s) => this.seatValidMoves(s));
  }

  isOver() {
    return this.lostByRule !== null || lineWinner(this.board) !== null || isFull(this.board);
  }

  winner(): Seat | null | undefined {
    if (this.lostByRule) return otherSeat(this.lostByRule.seat);
    const w = lineWinner(this.board);
    if (w) return seatOf(w);
    return isFull(this.board) ? null : undefined;
  }

  seatScore(seat: Seat): number {
    return pvpSeatScore(this.winner(), seat);
  }

  score() {
    return this.seatScore(0);
  }

  private result(): string {
    const w = this.winner();
    if (w === undefined) return '';
    if (w === null) return 'Draw.';
    const loser = otherSeat(w);
    return this.lostByRule
      ? `${MARKS[w]} wins: ${MARKS[loser]} lost by a rule (${this.lostByRule.reason}).`
      : `${MARKS[w]} wins with three in a row.`;
  }

  status() {
    return this.isOver() ? this.result() : `${MARKS[this.turn]} to move.`;
  }

  seatStatus(seat: Seat) {
    const me = `You are ${MARKS[seat]}${seat === 0 ? ' (you move first)' : ''}.`;
    const w = this.winner();
    if (w === undefined) return `${me} ${seat === this.turn ? 'Your turn.' : `${MARKS[this.turn]}'s turn: wait.`}`;
    const outcome = w === null ? 'The game is a draw.' : w === seat ? 'You won!' : 'You lost.';
    return `${me} ${outcome} ${this.result()}`;
  }

  text() {
    const rows = [0, 1, 2].map((r) => `${'ABC'[r]} ${[0, 1, 2].map((c) => this.board[r * 3 + c] ?? '.').join(' ')}`);
    return [
      '  1 2 3',
      ...rows,
      'Legend: X = player 1 (moves first), O = player 2, . = empty.',
      `X: ${this.seatStatus(0)}`,
      `O: ${this.seatStatus(1)}`,
    ].join('\n');
  }

  html() {
    const cells = this.board
      .map(
        (c, i) =>
          `<div class="cell ${c ? 'taken' : ''}" data-hit="${cellName(i)}"${c ? ` style="color:${COLOURS[seatOf(c)]}"` : ''}>${c ?? ''}</div>`,
      )
      .join('');
    const over = this.isOver();
    const player = (s: Seat) =>
      `<div class="p ${!over && this.turn === s ? 'on' : ''}" style="border-color:${COLOURS[s]}"><b style="color:${COLOURS[s]}">${MARKS[s]}</b> Player ${s + 1}</div>`;
    const line = over
      ? this.result()
      : `<b style="color:${COLOURS[this.turn]}">${MARKS[this.turn]}</b>'s turn (Player ${this.turn + 1})`;
    return `<style>
      body{margin:0;background:#f4f1ea;font-family:'DejaVu Sans',sans-serif;}
      .wrap{display:flex;flex-direction:column;align-items:center;padding-top:16px;}
      .players{display:flex;gap:24px;margin-bottom:12px}
      .p{font-size:22px;color:#333;padding:6px 14px;border:3px solid;border-radius:8px;background:#fffdf7;opacity:.55}
      .p.on{opacity:1;box-shadow:0 0 0 3px #f2c94c}
      .p b{font-size:26px}
      .board{display:grid;grid-template-columns:repeat(3,120px);grid-template-rows:repeat(3,120px);gap:0;background:#333;border:6px solid #333}
      .cell{box-sizing:border-box;border:3px solid #333;background:#fffdf7;display:flex;align-items:center;justify-content:center;font-size:80px;font-weight:bold;cursor:pointer;user-select:none}
      .cell.taken{cursor:default}
      .row{display:flex;align-items:stretch}.rows{display:flex;flex-direction:column;justify-content:space-around;width:28px;color:#555;font-size:18px;text-align:center;padding-top:6px}
      .labels{display:flex;width:372px;justify-content:space-around;color:#555;font-size:18px;margin-bottom:4px}
      .status{margin-top:16px;font-size:22px;color:#222;text-align:center;max-width:440px}
    </style><div class="wrap"><div class="players">${player(0)}${player(1)}</div>
    <div class="labels"><span>1</span><span>2</span><span>3</span></div>
    <div class="row"><div class="rows"><span>A</span><span>B</span><span>C</span></div>
    <div class="board">${cells}</div><div class="rows"></div></div>
    <div class="status">${line}</div></div>`;
  }

  snapshot() {
    return {
      board: [...this.board],
      turn: this.turn,
      toMove: this.isOver() ? null : MARKS[this.turn],
      moves: this.moves,
      winner: this.winner(),
      lostByRule: this.lostByRule ? { ...this.lostByRule } : null,
      scores: [this.seatScore(0), this.seatScore(1)],
    };
  }

  /** Minimax: one of the seat's best cells, chosen at random among equals (as if it were its turn). */
  seatSolverMove(seat: Seat): string {
    const moves = bestMoves(this.board, MARKS[seat]);
    return moves.length ? cellName(pick(this.rng, moves)) : cellName(0);
  }

  solverMove() {
    return this.seatSolverMove(this.seatsToAct()[0] ?? this.turn);
  }

  /** A click on the cell: clicks belong to whichever seat the harness says is acting. */
  seatGestureFor(_seat: Seat, move: string, hits: HitRect[]): WindowGesture | undefined {
    const i = parseCell(move);
    const h = i === undefined ? undefined : hits.find((r) => r.id === cellName(i));
    return h ? { type: 'click', x: h.x + h.width / 2, y: h.y + h.height / 2 } : undefined;
  }

  gestureFor(move: string, hits: HitRect[]) {
    return this.seatGestureFor(this.seatsToAct()[0] ?? this.turn, move, hits);
  }
}
