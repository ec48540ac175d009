/**
 * Sokoban (ING-VP App. B): the worker walks L/R/U/D, pushes one box at a time, never pulls, and
 * cannot push a box into a wall or another box; the level is solved when every box is on a dock.
 * Text rendering as in the authors' prompts: '#' wall, ' ' floor, '.' dock, '$' box, '*' box on a
 * dock, '@' worker, '+' worker on a dock.
 */
import { bfsSolve, frameHtml, type Puzzle } from '../ingvp/puzzle.ts';

export interface SokobanLevel {
  rows: string[];
  /** Optimal solution length (moves, pushes included), found by breadth-first search. */
  optimal: number;
}

const DELTA: Record<string, [number, number]> = { L: [0, -1], R: [0, 1], U: [-1, 0], D: [1, 0] };
export const SOKOBAN_MOVES = ['L', 'R', 'U', 'D'];

export interface SokobanState {
  player: number;
  /** Box cells, sorted. */
  boxes: number[];
}

export class SokobanBoard {
  readonly width: number;
  readonly height: number;
  readonly walls: boolean[];
  readonly docks: boolean[];
  readonly start: SokobanState;

  constructor(rows: string[]) {
    this.height = rows.length;
    this.width = Math.max(...rows.map((r) => r.length));
    this.walls = [];
    this.docks = [];
    let player = -1;
    const boxes: number[] = [];
    rows.forEach((line, r) => {
      for (let c = 0; c < this.width; c++) {
        const ch = line[c] ?? ' ';
        const i = r * this.width + c;
        if (!'# .$*@+'.includes(ch)) throw new Error(`sokoban row ${r + 1} has "${ch}" (allowed: # . $ * @ + space)`);
        this.walls[i] = ch === '#';
        this.docks[i] = ch === '.' || ch === '*' || ch === '+';
        if (ch === '$' || ch === '*') boxes.push(i);
        if (ch === '@' || ch === '+') {
          if (player >= 0) throw new Error('sokoban level has more than one worker');
          player = i;
        }
      }
    });
    if (player < 0) throw new Error('sokoban level has no worker (@ or +)');
    if (!boxes.length || boxes.length !== this.docks.filter(Boolean).length)
      throw new Error('sokoban level needs as many docks as boxes, at least one');
    this.start = { player, boxes: boxes.sort((a, b) => a - b) };
  }

  /** The state after a move (the same state when the move is blocked). */
  step(s: SokobanState, move: string): SokobanState {
    const [dr, dc] = DELTA[move]!;
    const r = Math.floor(s.player / this.width) + dr;
    const c = (s.player % this.width) + dc;
    if (r < 0 || c < 0 || r >= this.height || c >= this.width) return s;
    const next = r * this.width + c;
    if (this.walls[next]) return s;
    const bi = s.boxes.indexOf(next);
    if (bi < 0) return { player: next, boxes: s.boxes };
    const br = r + dr;
    const bc = c + dc;
    if (br < 0 || bc < 0 || br >= this.height || bc >= this.width) return s;
    const beyond = br * this.width + bc;
    if (this.walls[beyond] || s.boxes.includes(beyond)) return s;
    const boxes = [...s.boxes];
    boxes[bi] = beyond;
    return { player: next, boxes: boxes.sort((a, b) => a - b) };
  }

  solved(s: SokobanState): boolean {
    return s.boxes.every((b) => this.docks[b]);
  }

  key(s: SokobanState): string {
    return `${s.player}|${s.boxes.join(',')}`;
  }

  /** An optimal move list within `bound` moves (breadth-first), or undefined. */
  solve(s: SokobanState, bound: number): string[] | undefined {
    return bfsSolve(s, {
      key: (x) => this.key(x),
      solved: (x) => this.solved(x),
      bound,
      moves: (x) => SOKOBAN_MOVES.map((move) => ({ move, next: this.step(x, move) })).filter((m) => m.next !== x),
    });
  }

  rows(s: SokobanState): string[] {
    const out: string[] = [];
    for (let r = 0; r < this.height; r++) {
      let line = '';
      for (let c = 0; c < this.width; c++) {
        const i = r * this.width + c;
        const box = s.boxes.includes(i);
        const dock = this.docks[i];
        line += this.walls[i] ? '#' : i === s.player ? (dock ? '+' : '@') : box ? (dock ? '*' : '$') : dock ? '.' : ' ';
      }
      out.push(line);
    }
    return out;
  }
}

export class SokobanPuzzle implements Puzzle {
  private state: SokobanState;

  constructor(readonly board: SokobanBoard) {
    this.state = board.start;
  }

  apply(move: string): boolean {
    if (!DELTA[move]) return false;
    const next = this.board.step(this.state, move);
    const changed = next !== this.state; // a blocked move returns the state it was given
    this.state = next;
    return changed;
  }

  solved() {
    return this.board.solved(this.state);
  }

  remaining(bound: number) {
    return this.board.solve(this.state, bound)?.length ?? Number.POSITIVE_INFINITY;
  }

  solution() {
    return this.board.solve(this.state, 40) ?? [];
  }

  text() {
    return this.board.rows(this.state).join('\n');
  }

  key() {
    return this.board.key(this.state);
  }

  snapshot() {
    return {
      rows: this.board.rows(this.state),
      boxes_on_docks: this.state.boxes.filter((b) => this.board.docks[b]).length,
      boxes: this.state.boxes.length,
    };
  }

  html() {
    const b = this.board;
    const cells: string[] = [];
    for (let i = 0; i < b.width * b.height; i++) {
      const box = this.state.boxes.includes(i);
      const cls = b.walls[i] ? 'wall' : b.docks[i] ? 'floor dock' : 'floor';
      const token =
        i === this.state.player
          ? '<div class="worker"></div>'
          : box
            ? `<div class="box${b.docks[i] ? ' on' : ''}"></div>`
            : '';
      cells.push(`<div class="${cls}">${token}</div>`);
    }
    const px = Math.floor(Math.min(440 / b.width, 440 / b.height));
    const placed = this.state.boxes.filter((x) => b.docks[x]).length;
    return frameHtml(
      'Sokoban',
      `Boxes on docks: ${placed} / ${this.state.boxes.length}`,
      `<div class="board" data-hit="board">${cells.join('')}</div>`,
      this.solved() ? 'Solved.' : 'Arrow keys move the worker.',
      `.board{display:grid;grid-template-columns:repeat(${b.width},${px}px);grid-template-rows:repeat(${b.height},${px}px);border:6px solid #5b6470}
       .wall{background:#4a3b2c;box-shadow:inset 0 0 0 2px #3a2d20}.floor{background:#efe9dc;display:flex;align-items:center;justify-content:center}
       .dock{background-image:repeating-linear-gradient(45deg,#efe9dc 0 4px,#c9bfa8 4px 6px);outline:2px dashed #7d6d4f;outline-offset:-6px}
       .worker{width:62%;height:62%;border-radius:50%;background:#1f5fe0}
       .box{width:80%;height:80%;background:#9a6a35;border:3px solid #5e3d17;box-sizing:border-box}.box.on{background:#f0c419;border-color:#a07f0a}`,
    );
  }
}
