/**
 * Snake (GameVerse D.10, App. A.5): a 9×9 field (the paper's "maximum score limit of 81"), one
 * food at a time, a body that grows; real time on the harness's clock. Each action turns (a
 * reversal is ignored) and moves one cell; with no action for the mode's time-out (10 s normal,
 * 20 s slow, never in stop) the snake moves by itself — the clock is never also frozen in slow.
 * Score on 0–100 = food eaten × 10, clipped (the paper's tables, 10 × mean food; its printed
 * formula says ÷ 10). One move per step, at most 100 steps, 10 trials. The paper's food lifespan,
 * obstacles and number of apples are not given there; see docs/fidelity.md.
 */
import type { GameDefinition, GameInstance, HitRect, MoveResult, ViewInput } from '../types.ts';
import type { Rng } from '../shared/rng.ts';
import { scoreOf, type ScoreRule } from '../shared/score-rule.ts';
import {
  ARROW_KEY_DIRECTIONS,
  DIRECTIONS,
  directionKeyInput,
  parseDirection,
  type Direction,
} from '../shared/direction.ts';

type Dir = Direction;
const DIRS = DIRECTIONS;
const DELTA: Record<Dir, [number, number]> = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] };
const OPPOSITE: Record<Dir, Dir> = { up: 'down', down: 'up', left: 'right', right: 'left' };
const KEY: Record<string, Dir> = {
  ...ARROW_KEY_DIRECTIONS,
  w: 'up',
  s: 'down',
  a: 'left',
  d: 'right',
};
export const SNAKE_SIZE = 9;
const TICK_MS = 100;
/** Ticks without an action before the snake moves by itself (App. A.5: 10 s normal, 20 s slow). */
const IDLE_LIMIT = { normal: 10_000 / TICK_MS, slow: 20_000 / TICK_MS, lcrt: 10_000 / TICK_MS, stop: null };

export const snake: GameDefinition = {
  id: 'snake',
  title: 'Snake',
  task: 'Eat as much food as you can before the snake crashes into a wall or itself.',
  rules:
    `Snake on a ${SNAKE_SIZE}×${SNAKE_SIZE} field with walls around it. You steer the green snake (its head is the darker square). ` +
    'Eating the red food makes the snake one square longer; the more food eaten, the better. Running into a wall or into the snake’s own body ends the game. ' +
    'The game runs in real time: if you take too long, the snake keeps moving in its current direction by itself. ' +
    'Turning straight back into the opposite direction is not possible.',
  controls: {
    gui: 'Press one arrow key with PRESS, e.g. [{"action_type":"PRESS","parameters":{"key":"up"}}]. The key turns the snake (if needed) and moves it one square. One move per step: further moves in the same answer are not carried out.',
    semantic:
      'Name one direction: "up", "down", "left" or "right". It turns the snake (if needed) and moves it one square. One move per step: further moves in the same answer are not carried out.',
  },
  parseMove: parseDirection,
  viewSize: { width: 520, height: 600 },
  trials: 10,
  defaultMaxSteps: 100,
  maxActionsPerStep: 1,
  moveInputs: { keys: [...DIRS, 'w', 'a', 's', 'd'] },
  actionSpace: { semantic: DIRS, gui: { press: DIRS } },
  realtime: { tickMs: TICK_MS, idleLimit: IDLE_LIMIT, idleOnlyModes: ['normal', 'slow'] },
  create: ({ rng }) => new SnakeGame(rng),
  variants: [
    {
      id: 'small-7',
      description: 'a 7×7 field (the game: 9×9): less room to turn, the walls closer',
      rules: 'the field is 7×7 squares instead of 9×9.',
      create: ({ rng }) => new SnakeGame(rng, { size: 7 }),
    },
    {
      id: 'wide-11',
      description: 'an 11×11 field (the game: 9×9): food farther away, more squares to cross in the same 100 steps',
      rules: 'the field is 11×11 squares instead of 9×9.',
      create: ({ rng }) => new SnakeGame(rng, { size: 11 }),
    },
    {
      id: 'long-start',
      description: 'the snake starts six squares long (the game: three), so its own body is in the way from the start',
      rules: 'the snake starts six squares long instead of three.',
      create: ({ rng }) => new SnakeGame(rng, { startLength: 6 }),
    },
  ],
};

/** Points on the 0–100 scale per food eaten. */
export const POINTS_PER_FOOD = 10;
const RULE: ScoreRule = { kind: 'scaled', number: 'food eaten', divisor: 1, multiplier: POINTS_PER_FOOD };

class SnakeGame implements GameInstance {
  private body: [number, number][];
  private dir: Dir = 'right';
  private food: [number, number] = [0, 0];
  private eaten = 0;
  private dead: string | null = null;
  private idle = 0;
  /** Until a session sets its mode: normal, so a person playing meets the same time-out. */
  private idleLimit: number | null = IDLE_LIMIT.normal;
  private moves = 0;
  private autoMoves = 0;

  private readonly size: number;

  constructor(
    private readonly rng: Rng,
    shape: { size?: number; startLength?: number } = {},
  ) {
    this.size = shape.size ?? SNAKE_SIZE;
    const mid = Math.floor(this.size / 2);
    // Head at the middle, the body trailing to the left (then down a row when it would leave the field).
    this.body = Array.from({ length: shape.startLength ?? 3 }, (_, k): [number, number] =>
      mid - k >= 0 ? [mid - k, mid] : [0, mid + (k - mid)],
    );
    this.placeFood();
  }

  private placeFood() {
    const free: [number, number][] = [];
    for (let y = 0; y < this.size; y++)
      for (let x = 0; x < this.size; x++) if (!this.body.some(([bx, by]) => bx === x && by === y)) free.push([x, y]);
    if (free.length) this.food = free[Math.floor(this.rng() * free.length)]!;
  }

  private step(): void {
    const [dx, dy] = DELTA[this.dir];
    const [hx, hy] = this.body[0]!;
    const next: [number, number] = [hx + dx, hy + dy];
    this.idle = 0;
    if (next[0] < 0 || next[1] < 0 || next[0] >= this.size || next[1] >= this.size) {
      this.dead = 'hit the wall';
      return;
    }
    const grows = next[0] === this.food[0] && next[1] === this.food[1];
    const body = grows ? this.body : this.body.slice(0, -1);
    if (body.some(([x, y]) => x === next[0] && y === next[1])) {
      this.dead = 'ran into itself';
      return;
    }
    this.body = [next, ...body];
    if (grows) {
      this.eaten++;
      this.placeFood();
    }
  }

  applyMove(move: string): MoveResult {
    if (this.isOver()) return { ok: false, error: 'the game is over' };
    const parsed = snake.parseMove(move);
    if (!parsed.ok) return parsed;
    const d = parsed.move as Dir;
    if (d !== OPPOSITE[this.dir]) this.dir = d;
    this.moves++;
    this.step();
    return { ok: true };
  }

  handleInput(input: ViewInput): MoveResult {
    return directionKeyInput(input, KEY, (d) => this.applyMove(d));
  }

  tick(): boolean {
    if (this.isOver() || this.idleLimit === null) return false;
    this.idle++;
    if (this.idle < this.idleLimit) return false;
    this.autoMoves++;
    this.step();
    return true;
  }

  setIdleLimit(ticks: number | null) {
    this.idleLimit = ticks;
    this.idle = 0;
  }

  validMoves() {
    return this.isOver() ? [] : DIRS.filter((d) => d !== OPPOSITE[this.dir]);
  }

  isOver() {
    return this.dead !== null;
  }

  scoring() {
    return { rule: RULE, value: this.eaten };
  }

  score() {
    return scoreOf(this.scoring());
  }

  status() {
    return this.dead ? `Game over: the snake ${this.dead}. Food eaten: ${this.eaten}.` : `Food eaten: ${this.eaten}`;
  }

  text() {
    const rows: string[] = [];
    for (let y = 0; y < this.size; y++) {
      let r = '';
      for (let x = 0; x < this.size; x++) {
        const i = this.body.findIndex(([bx, by]) => bx === x && by === y);
        r += i === 0 ? 'H' : i > 0 ? 'o' : this.food[0] === x && this.food[1] === y ? '*' : '.';
      }
      rows.push(r);
    }
    return [...rows, `heading ${this.dir}. ${this.status()}`].join('\n');
  }

  html() {
    const cells: string[] = [];
    for (let y = 0; y < this.size; y++) {
      for (let x = 0; x < this.size; x++) {
        const i = this.body.findIndex(([bx, by]) => bx === x && by === y);
        const cls = i === 0 ? 'head' : i > 0 ? 'body' : this.food[0] === x && this.food[1] === y ? 'food' : '';
        cells.push(`<div class="c ${cls}"></div>`);
      }
    }
    const cell = Math.min(48, Math.floor(440 / this.size)); // a larger field still fits the window
    return `<style>
      body{margin:0;background:#1b2631;font-family:'DejaVu Sans',sans-serif;color:#e8f0f2}
      .wrap{display:flex;flex-direction:column;align-items:center;padding-top:18px}
      h1{margin:0 0 6px;font-size:30px}.info{font-size:18px;margin-bottom:10px}
      .grid{display:grid;grid-template-columns:repeat(${this.size},${cell}px);grid-template-rows:repeat(${this.size},${cell}px);gap:2px;background:#0b1016;border:6px solid #5d6d7e;padding:2px}
      .c{background:#22313f}.body{background:#58d68d}.head{background:#1e8449}.food{background:#e74c3c;border-radius:50%}
    </style><div class="wrap"><h1>Snake</h1><div class="info">Food: ${this.eaten} · Moves: ${this.moves} · heading ${this.dir}</div>
    <div class="grid" data-hit="field">${cells.join('')}</div><div class="info" style="margin-top:10px">${this.dead ? this.status() : 'Arrow keys steer.'}</div></div>`;
  }

  snapshot() {
    return {
      body: this.body.map((p) => [...p]),
      dir: this.dir,
      food: [...this.food],
      eaten: this.eaten,
      dead: this.dead,
      moves: this.moves,
      autoMoves: this.autoMoves,
      idle: this.idle,
      idleLimit: this.idleLimit,
    };
  }

  /** Greedy towards the food, avoiding immediate death; enough for a baseline. */
  solverMove() {
    const [hx, hy] = this.body[0]!;
    const safe = this.validMoves().filter((d) => {
      const [dx, dy] = DELTA[d as Dir];
      const nx = hx + dx;
      const ny = hy + dy;
      return (
        nx >= 0 &&
        ny >= 0 &&
        nx < this.size &&
        ny < this.size &&
        !this.body.slice(0, -1).some(([x, y]) => x === nx && y === ny)
      );
    });
    const options = safe.length ? safe : this.validMoves();
    const dist = (d: string) => {
      const [dx, dy] = DELTA[d as Dir];
      return Math.abs(hx + dx - this.food[0]) + Math.abs(hy + dy - this.food[1]);
    };
    return options.sort((a, b) => dist(a) - dist(b))[0] ?? this.dir;
  }

  gestureFor(move: string, _hits: HitRect[]) {
    const p = snake.parseMove(move);
    return p.ok ? { type: 'key' as const, key: p.move } : undefined;
  }
}
