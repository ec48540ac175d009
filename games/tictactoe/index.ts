/**
 * Tic-Tac-Toe against a perfect (minimax) opponent, scored as GameVerse defines it (App. D.1):
 * a draw is 100 (a win, which the paper leaves undefined and minimax never allows, too); a loss
 * is 100·n/5 playing X and 100·n/4 playing O, n = pieces the agent placed. A move on an occupied
 * cell or off the board loses at once. 20 trials, the agent X in even episodes and O in odd ones.
 */
import type { GameDefinition, GameInstance, HitRect, MoveResult, ViewInput } from '../types.ts';
import { pick, type Rng } from '../shared/rng.ts';
import { scoreOf, type GameScoring } from '../shared/score-rule.ts';
import { bestMoves, cellName, emptyCells, isFull, other, parseCell, winner, type Board, type Mark } from './rules.ts';

const ALL_CELLS = Array.from({ length: 9 }, (_, i) => cellName(i));

export const tictactoe: GameDefinition = {
  id: 'tictactoe',
  title: 'Tic-Tac-Toe',
  task: 'Play one game against the perfect opponent and do not lose: a draw is the best you can expect, and every mark you place before a loss still counts.',
  rules:
    'Tic-Tac-Toe on a 3×3 board against a computer opponent that never makes a mistake. ' +
    'Players take turns placing their mark; three in a row, column or diagonal wins. X moves first. ' +
    'The line under the board says which mark you play. Rows are A, B, C from top to bottom and columns 1, 2, 3 from left to right; a cell is its row letter then its column number, so B3 is the right cell of the middle row. ' +
    'Placing a mark on an occupied cell, or clicking outside the board, loses the game at once. A draw is a good result against this opponent.',
  controls: {
    gui: 'Click the centre of an empty cell with CLICK at its pixel coordinates in the screenshot. One move per step: further clicks in the same answer are not carried out.',
    semantic:
      'Name one empty cell, for example "B3" (row letter, then column number: the right cell of the middle row). One move per step: further moves in the same answer are not carried out.',
  },
  parseMove(move) {
    const i = parseCell(move);
    return i === undefined
      ? { ok: false, error: `"${move}" is not a cell (use A1…C3)` }
      : { ok: true, move: cellName(i) };
  },
  viewSize: { width: 480, height: 600 },
  trials: 20,
  defaultMaxSteps: 10,
  maxActionsPerStep: 1,
  moveInputs: { click: true },
  actionSpace: { semantic: ALL_CELLS, gui: { click: 'anywhere' } },
  create: ({ episode, rng }) => new TicTacToeGame(episode % 2 === 0 ? 'X' : 'O', rng),
  variants: [
    {
      id: 'fallible-opponent',
      description:
        'the opponent plays a random empty cell one move in three (the game: always its best), so a win is possible',
      rules: 'the opponent makes a random move one time in three, so you can win: take a win when it is offered.',
      create: ({ episode, rng }) => new TicTacToeGame(episode % 2 === 0 ? 'X' : 'O', rng, { mistakeRate: 1 / 3 }),
    },
    {
      id: 'always-o',
      description: 'the agent plays O in every episode, so the opponent always opens (the game: X and O in turn)',
      rules: 'you play O in every game: the opponent always moves first.',
      create: ({ rng }) => new TicTacToeGame('O', rng),
    },
    {
      id: 'corner-taken',
      description: "the opponent's mark stands in a random corner before the agent, playing X, moves first",
      rules: "you play X, and the opponent's O already stands in a corner when you make your first move.",
      create: ({ rng }) => new TicTacToeGame('X', rng, { cornerTaken: true }),
    },
  ],
};

class TicTacToeGame implements GameInstance {
  private board: Board = Array(9).fill(null);
  private placed = 0;
  private lostByRule: string | null = null;

  constructor(
    private readonly agent: Mark,
    private readonly rng: Rng,
    private readonly variant: { mistakeRate?: number; cornerTaken?: boolean } = {},
  ) {
    if (variant.cornerTaken) this.board[pick(rng, [0, 2, 6, 8])] = other(agent);
    else if (agent === 'O') this.opponentMove();
  }

  private opponentMove() {
    const mistake = this.variant.mistakeRate !== undefined && this.rng() < this.variant.mistakeRate;
    const moves = mistake ? emptyCells(this.board) : bestMoves(this.board, other(this.agent));
    if (moves.length) this.board[pick(this.rng, moves)] = other(this.agent);
  }

  private place(cell: number | undefined, label: string): MoveResult {
    if (this.isOver()) return { ok: false, error: 'the game is over' };
    if (cell === undefined || cell < 0 || cell > 8) {
      this.lostByRule = `move off the board (${label})`;
      return { ok: false, error: this.lostByRule };
    }
    if (this.board[cell] !== null) {
      this.lostByRule = `cell ${cellName(cell)} is already taken`;
      return { ok: false, error: this.lostByRule };
    }
    this.board[cell] = this.agent;
    this.placed++;
    if (!winner(this.board) && !isFull(this.board)) this.opponentMove();
    return { ok: true };
  }

  applyMove(move: string): MoveResult {
    return this.place(parseCell(move), move);
  }

  handleInput(input: ViewInput): MoveResult {
    if (input.type !== 'click') return { ok: true }; // keys do nothing in this game
    if (this.isOver()) return { ok: false, error: 'the game is over' };
    return this.place(input.hit ? parseCell(input.hit) : undefined, input.hit ?? 'outside the cells');
  }

  validMoves() {
    return this.isOver() ? [] : emptyCells(this.board).map(cellName);
  }

  isOver() {
    return this.lostByRule !== null || winner(this.board) !== null || isFull(this.board);
  }

  private outcome(): 'win' | 'loss' | 'draw' | 'playing' {
    if (this.lostByRule) return 'loss';
    const w = winner(this.board);
    if (w) return w === this.agent ? 'win' : 'loss';
    return isFull(this.board) ? 'draw' : 'playing';
  }

  /** The marks the agent placed; what they are worth depends on how the game ended. */
  scoring(): GameScoring {
    const number = 'your marks placed';
    const o = this.outcome();
    const value = this.placed;
    if (o === 'win' || o === 'draw') return { rule: { kind: 'fixed', number, score: 100, when: `a ${o}` }, value };
    if (o === 'playing') return { rule: { kind: 'fixed', number, score: 0, when: 'until the game ends' }, value };
    const divisor = this.agent === 'X' ? 5 : 4;
    const when = `a loss playing ${this.agent}`;
    return { rule: { kind: 'scaled', number, divisor, multiplier: 100, when }, value };
  }

  score() {
    return scoreOf(this.scoring());
  }

  status() {
    const o = this.outcome();
    if (o === 'playing') return `You play ${this.agent}. Your turn.`;
    if (this.lostByRule) return `You lost: ${this.lostByRule}.`;
    return o === 'draw' ? 'Draw.' : o === 'win' ? 'You won!' : 'You lost.';
  }

  text() {
    const rows = [0, 1, 2].map((r) => `${'ABC'[r]} ${[0, 1, 2].map((c) => this.board[r * 3 + c] ?? '.').join(' ')}`);
    return [`  1 2 3`, ...rows, this.status()].join('\n');
  }

  html() {
    const cells = this.board
      .map((c, i) => `<div class="cell ${c ? 'taken' : ''}" data-hit="${cellName(i)}">${c ?? ''}</div>`)
      .join('');
    return `<style>
      body{margin:0;background:#f4f1ea;font-family:'DejaVu Sans',sans-serif;}
      .wrap{display:flex;flex-direction:column;align-items:center;padding-top:24px;}
      .board{display:grid;grid-template-columns:repeat(3,128px);grid-template-rows:repeat(3,128px);gap:0;background:#333;border:6px solid #333}
      .cell{box-sizing:border-box;border:3px solid #333;background:#fffdf7;display:flex;align-items:center;justify-content:center;font-size:84px;font-weight:bold;color:#1f5fa8;cursor:pointer;user-select:none}
      .cell.taken{cursor:default}
      .row{display:flex;align-items:stretch}.rows{display:flex;flex-direction:column;justify-content:space-around;width:28px;color:#555;font-size:18px;text-align:center;padding-top:6px}
      .labels{display:flex;width:396px;justify-content:space-around;color:#555;font-size:18px;margin-bottom:4px}
      .status{margin-top:18px;font-size:22px;color:#222}
    </style><div class="wrap"><div class="labels"><span>1</span><span>2</span><span>3</span></div>
    <div class="row"><div class="rows"><span>A</span><span>B</span><span>C</span></div>
    <div class="board">${cells.replace(/>O</g, ' style="color:#b8321f">O<')}</div><div class="rows"></div></div>
    <div class="status">${this.status()}</div></div>`;
  }

  snapshot() {
    return {
      board: [...this.board],
      agent: this.agent,
      placed: this.placed,
      outcome: this.outcome(),
      lostByRule: this.lostByRule,
    };
  }

  solverMove() {
    return cellName(pick(this.rng, bestMoves(this.board, this.agent)));
  }

  gestureFor(move: string, hits: HitRect[]) {
    const h = hits.find((r) => r.id === move);
    return h ? { type: 'click' as const, x: h.x + h.width / 2, y: h.y + h.height / 2 } : undefined;
  }
}
