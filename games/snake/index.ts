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
};

/** Points on the 0–100 scale per food eaten. */
export const POINTS_PER_FOOD = 10;

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

  constructor(private readonly rng: Rng) {
    const mid = Math.floor(SNAKE_SIZE / 2);
    this.body = [
      [mid, mid],
      [mid - 1, mid],
      [mid - 2, mid],
    ];
    this.placeFood();
  }

  private placeFood() {
    const free: [number, number][] = [];
    for (let y = 0; y < SNAKE_SIZE; y++)
      for (let x = 0; x < SNAKE_SIZE; x++) if (!this.body.some(([bx, by]) => bx === x && by === y)) free.push([x, y]);
    if (free.length) this.food = free[Math.floor(this.rng() * free.length)]!;
  }

  private step(): void {
    const [dx, dy] = DELTA[this.dir];
    const [hx, hy] = this.body[0]!;
    const next: [number, number] = [hx + dx, hy + dy];
    this.idle = 0;
    if (next[0] < 0 || next[1] < 0 || next[0] >= SNAKE_SIZE || next[1] >= SNAKE_SIZE) {
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

  score() {
    return Math.min(100, this.eaten * POINTS_PER_FOOD);
  }

  status() {
    return this.dead ? `Game over: the snake ${this.dead}. Food eaten: ${this.eaten}.` : `Food eaten: ${this.eaten}`;
  }

  text() {
    const rows: string[] = [];
    for (let y = 0; y < SNAKE_SIZE; y++) {
      let r = '';
      for (let x = 0; x < SNAKE_SIZE; x++) {
        const i = this.body.findIndex(([bx, by]) => bx === x && by === y);
        r += i === 0 ? 'H' : i > 0 ? 'o' : this.food[0] === x && this.food[1] === y ? '*' : '.';
      }
      rows.push(r);
    }
    return [...rows, `heading ${this.dir}. ${this.status()}`].join('\n');
  }

  html() {
    const cells: string[] = [];
    for (let y = 0; y < SNAKE_SIZE; y++) {
      for (let x = 0; x < SNAKE_SIZE; x++) {
        const i = this.body.findIndex(([bx, by]) => bx === x && by === y);
        const cls = i === 0 ? 'head' : i > 0 ? 'body' : this.food[0] === x && this.food[1] === y ? 'food' : '';
        cells.push(`<div class="c ${cls}"></div>`);
      }
    }
    return `<style>
      body{margin:0;background:#1b2631;font-family:'DejaVu Sans',sans-serif;color:#e8f0f2}
      .wrap{display:flex;flex-direction:column;align-items:center;padding-top:18px}
      h1{margin:0 0 6px;font-size:30px}.info{font-size:18px;margin-bottom:10px}
      .grid{display:grid;grid-template-columns:repeat(${SNAKE_SIZE},48px);grid-template-rows:repeat(${SNAKE_SIZE},48px);gap:2px;background:#0b1016;border:6px solid #5d6d7e;padding:2px}
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
        nx < SNAKE_SIZE &&
        ny < SNAKE_SIZE &&
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
