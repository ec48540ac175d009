/**
 * 2048 (GameVerse D.3): 4×4, new tiles are 2 (90 %) or 4 (10 %), five consecutive moves that
 * change nothing end the game; one move per step, at most 1000 steps an episode, 5 trials;
 * score = merge score / 20000 × 100, clipped to [0, 100].
 */
import type { GameDefinition, GameInstance, HitRect, MoveResult, ViewInput } from '../types.ts';
import type { Rng } from '../shared/rng.ts';
import { ARROW_KEY_DIRECTIONS, directionKeyInput, parseDirection } from '../shared/direction.ts';
import { canMove, DIRECTIONS, slide, type Direction, type Grid } from './rules.ts';
import { expectimaxMove } from './solver.ts';
import { scoreOf, type ScoreRule } from '../shared/score-rule.ts';

const KEY_TO_DIR: Record<string, Direction> = {
  ...ARROW_KEY_DIRECTIONS,
  w: 'up',
  s: 'down',
  a: 'left',
  d: 'right',
  W: 'up',
  S: 'down',
  A: 'left',
  D: 'right',
};
const DIR_TO_KEY: Record<Direction, string> = { up: 'up', down: 'down', left: 'left', right: 'right' };
export const MAX_NOOPS = 5;
const RULE: ScoreRule = { kind: 'scaled', number: 'merge score', divisor: 20000, multiplier: 100 };

export const g2048: GameDefinition = {
  id: '2048',
  title: '2048',
  task: 'Reach the highest score you can by merging tiles; the 2048 tile is the aim.',
  rules:
    '2048 on a 4×4 grid. Each move slides every tile as far as possible in one direction; two tiles with the same number ' +
    'that collide merge into one with their sum, and the sum is added to the score. After every move that changes the board, ' +
    'a new tile (2, or sometimes 4) appears on an empty cell. The game ends when no move is possible, or after five moves ' +
    'in a row that change nothing. Aim for the highest score: keep the largest tile in a corner and the board tidy.',
  controls: {
    gui: 'Press one arrow key with PRESS, e.g. [{"action_type":"PRESS","parameters":{"key":"left"}}]. One move per step: further moves in the same answer are not carried out.',
    semantic:
      'Name one direction: "up", "down", "left" or "right". One move per step: further moves in the same answer are not carried out.',
  },
  parseMove: parseDirection,
  viewSize: { width: 520, height: 640 },
  trials: 5,
  defaultMaxSteps: 1000,
  maxActionsPerStep: 1,
  moveInputs: { keys: [...DIRECTIONS, 'w', 'a', 's', 'd'] },
  actionSpace: { semantic: DIRECTIONS, gui: { press: DIRECTIONS } },
  create: ({ rng }) => new Game2048(rng),
  variants: [
    {
      id: 'heavy-fours',
      description:
        'new tiles are 4 half of the time (the game: 10 %), so the board fills with larger tiles and fewer merges',
      rules: 'a new tile is a 4 half of the time.',
      create: ({ rng }) => new Game2048(rng, { fourChance: 0.5 }),
    },
    {
      id: 'double-spawn',
      description: 'two new tiles appear after every move that changes the board (the game: one)',
      rules: 'after every move that changes the board, two new tiles appear instead of one.',
      create: ({ rng }) => new Game2048(rng, { spawnsPerMove: 2 }),
    },
    {
      id: 'crowded-start',
      description: 'the board starts with eight tiles (the game: two), so the first moves must tidy a full board',
      rules: 'the board starts with eight tiles instead of two.',
      create: ({ rng }) => new Game2048(rng, { startTiles: 8 }),
    },
  ],
};

/** How a variant changes the engine (the game itself: 10 % fours, one spawn a move, two tiles at the start). */
interface Rules2048 {
  fourChance: number;
  spawnsPerMove: number;
  startTiles: number;
}
const RULES_2048: Rules2048 = { fourChance: 0.1, spawnsPerMove: 1, startTiles: 2 };

const COLORS: Record<number, string> = {
  0: '#cdc1b4',
  2: '#eee4da',
  4: '#ede0c8',
  8: '#f2b179',
  16: '#f59563',
  32: '#f67c5f',
  64: '#f65e3b',
  128: '#edcf72',
  256: '#edcc61',
  512: '#edc850',
  1024: '#edc53f',
  2048: '#edc22e',
};

class Game2048 implements GameInstance {
  private grid: Grid = Array(16).fill(0);
  private merged = 0;
  private noops = 0;
  private moves = 0;

  private readonly rules: Rules2048;

  constructor(
    private readonly rng: Rng,
    rules: Partial<Rules2048> = {},
  ) {
    this.rules = { ...RULES_2048, ...rules };
    for (let i = 0; i < this.rules.startTiles; i++) this.spawn();
  }

  private spawn() {
    const empty = this.grid.flatMap((v, i) => (v === 0 ? [i] : []));
    if (!empty.length) return;
    const cell = empty[Math.floor(this.rng() * empty.length)]!;
    this.grid[cell] = this.rng() < 1 - this.rules.fourChance ? 2 : 4;
  }

  applyMove(move: string): MoveResult {
    if (this.isOver()) return { ok: false, error: 'the game is over' };
    const parsed = g2048.parseMove(move);
    if (!parsed.ok) return parsed;
    const r = slide(this.grid, parsed.move as Direction);
    this.moves++;
    if (!r.moved) {
      this.noops++;
      return { ok: true };
    }
    this.noops = 0;
    this.grid = r.grid;
    this.merged += r.gained;
    for (let i = 0; i < this.rules.spawnsPerMove; i++) this.spawn();
    return { ok: true };
  }

  handleInput(input: ViewInput): MoveResult {
    return directionKeyInput(input, KEY_TO_DIR, (d) => this.applyMove(d));
  }

  validMoves() {
    return this.isOver() ? [] : [...DIRECTIONS];
  }

  isOver() {
    return this.noops >= MAX_NOOPS || !canMove(this.grid);
  }

  scoring() {
    return { rule: RULE, value: this.merged };
  }

  score() {
    return scoreOf(this.scoring());
  }

  status() {
    if (this.noops >= MAX_NOOPS) return `Game over: ${MAX_NOOPS} moves in a row changed nothing.`;
    if (!canMove(this.grid)) return 'Game over: no moves left.';
    return `Score ${this.merged}`;
  }

  text() {
    const rows = [0, 1, 2, 3].map((r) =>
      this.grid
        .slice(r * 4, r * 4 + 4)
        .map((v) => String(v || '.').padStart(5))
        .join(''),
    );
    return [...rows, this.status()].join('\n');
  }

  html() {
    const tiles = this.grid
      .map(
        (v) =>
          `<div class="t" style="background:${COLORS[v] ?? '#3c3a32'};color:${v > 4 ? '#f9f6f2' : '#776e65'};font-size:${v >= 1024 ? 34 : v >= 128 ? 40 : 48}px">${v || ''}</div>`,
      )
      .join('');
    return `<style>
      body{margin:0;background:#faf8ef;font-family:'DejaVu Sans',sans-serif;color:#776e65}
      .wrap{display:flex;flex-direction:column;align-items:center;padding-top:20px}
      h1{margin:0 0 8px;font-size:44px}
      .score{font-size:22px;margin-bottom:14px}
      .grid{display:grid;grid-template-columns:repeat(4,100px);grid-template-rows:repeat(4,100px);gap:12px;padding:12px;background:#bbada0;border-radius:8px}
      .t{border-radius:5px;display:flex;align-items:center;justify-content:center;font-weight:bold}
      .hint{margin-top:14px;font-size:16px}
    </style><div class="wrap"><h1>2048</h1><div class="score">Score: ${this.merged} · Moves: ${this.moves}</div>
    <div class="grid" data-hit="board">${tiles}</div><div class="hint">${this.isOver() ? this.status() : 'Use the arrow keys.'}</div></div>`;
  }

  snapshot() {
    return { grid: [...this.grid], merged: this.merged, noops: this.noops, moves: this.moves, over: this.isOver() };
  }

  solverMove() {
    return expectimaxMove(this.grid);
  }

  gestureFor(move: string, _hits: HitRect[]) {
    const parsed = g2048.parseMove(move);
    return parsed.ok ? { type: 'key' as const, key: DIR_TO_KEY[parsed.move as Direction] } : undefined;
  }
}
