/**
 * Light Cycles, a real-time duel (OmniGameArena's PvP setting, both seats on one clock): two
 * cycles on a 16×16 field move one cell per tick of the harness's clock (250 ms), each leaving a
 * trail that stays. A cycle goes straight unless its seat turns it; a turn straight back (into its
 * own trail) is ignored. Running into a wall, any trail or the other cycle loses; both crashing on
 * the same tick (or head-on into the same cell) is a draw, and so is reaching 200 ticks with both
 * alive. Seat 0 (Blue, W A S D) starts on the left facing right, seat 1 (Orange, the arrows) in the
 * point-mirrored cell on the right facing left; the seed picks the starting rows. 100 win, 50
 * draw, 0 loss once over.
 *
 * The clock: the cycles move on every tick whatever the seats do (no idle limit in any mode, and
 * no mode is realised by the idle limit alone), so in normal mode the duel runs while the models
 * think and the harness freezes it in stop mode as it freezes every real-time game.
 */
import type {
  GameDefinition,
  HitRect,
  MoveResult,
  RealtimeSpec,
  Seat,
  SeatedInstance,
  ViewInput,
  WindowGesture,
} from '../types.ts';
import type { Rng } from '../shared/rng.ts';
import { DIRECTIONS, parseDirection, type Direction } from '../shared/direction.ts';
import { keyedSeatInput, pvpSeatScore, SEAT_KEYS, SEAT_MODEL_KEYS } from '../shared/seats.ts';

export const CYCLES_SIZE = 16;
export const CYCLES_MAX_TICKS = 200;
const TICK_MS = 250;
const NAMES: readonly [string, string] = ['Blue', 'Orange'];
const COLOURS = [
  { head: '#1565c0', trail: '#64b5f6' },
  { head: '#e65100', trail: '#ffb74d' },
] as const;

type P = [number, number];
const DELTA: Record<Direction, P> = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] };
const OPPOSITE: Record<Direction, Direction> = { up: 'down', down: 'up', left: 'right', right: 'left' };
const ARROW: Record<Direction, string> = { up: '▲', down: '▼', left: '◀', right: '▶' };

const NO_IDLE: RealtimeSpec['idleLimit'] = { normal: null, slow: null, lcrt: null, stop: null };

export const lightCycles: GameDefinition = {
  id: 'light-cycles',
  title: 'Light Cycles',
  task: 'Outlast the other cycle: steer so you never hit a wall or a trail, and make the other cycle run out of room first.',
  rules:
    `Light Cycles, a duel on a ${CYCLES_SIZE}×${CYCLES_SIZE} field with walls around it, in real time. ` +
    'Two cycles, Blue (player 1) and Orange (player 2), each move one cell every 0.25 seconds on their own and leave a trail behind them that never goes away. ' +
    'A cycle keeps going straight until its player turns it up, down, left or right; turning straight back is not possible and is ignored. ' +
    'A cycle that runs into a wall, into any trail (its own or the other) or into the other cycle crashes and loses. ' +
    `If both crash on the same tick, or meet head-on in the same cell, it is a draw; so is a game where both are still riding after ${CYCLES_MAX_TICKS} ticks. ` +
    'Blue starts on the left heading right, Orange on the right heading left. Scores: a win 100, a draw 50, a loss 0.',
  controls: {
    gui: 'Blue turns with the W A S D keys (W up, A left, S down, D right), Orange with the arrow keys; press only your own keys, e.g. [{"action_type":"PRESS","parameters":{"key":"w"}}] for Blue. A press sets the heading; the cycle moves by itself. One key per step: further keys in the same answer are not carried out.',
    semantic:
      'Name the heading to turn to: "up", "down", "left" or "right" (your current heading keeps you going straight). The cycle moves by itself on the clock. One move per step: further moves in the same answer are not carried out.',
  },
  parseMove: parseDirection,
  viewSize: { width: 560, height: 680 },
  trials: 10,
  defaultMaxSteps: CYCLES_MAX_TICKS,
  maxActionsPerStep: 1,
  moveInputs: { keys: [...SEAT_KEYS[0], ...SEAT_KEYS[1]] },
  actionSpace: { semantic: DIRECTIONS, gui: { press: [...SEAT_KEYS[0], ...SEAT_KEYS[1]] } },
  realtime: { tickMs: TICK_MS, idleLimit: NO_IDLE },
  seats: {
    mode: 'pvp',
    turns: 'simultaneous',
    names: NAMES,
    roles: [
      'You ride the Blue cycle (player 1), starting on the left heading right; you steer with W A S D. Outlast Orange.',
      'You ride the Orange cycle (player 2), starting on the right heading left; you steer with the arrow keys. Outlast Blue.',
    ],
    keys: SEAT_KEYS,
  },
  create: ({ rng }) => new LightCycles(rng),
};

interface Cycle {
  head: P;
  /** The heading it moves in on the next tick (the last turn its seat asked for). */
  heading: Direction;
  /** The heading of its last move: a turn to its opposite is a reversal and is ignored. */
  moved: Direction;
  alive: boolean;
  crash: string | null;
  turns: number;
  ignored: number;
}

export class LightCycles implements SeatedInstance {
  private readonly size: number;
  private readonly maxTicks: number;
  /** Owner of each cell's trail (-1: free); a cycle's head is part of its trail. */
  private readonly trail: Int8Array;
  private readonly cycles: [Cycle, Cycle];
  private ticks = 0;
  private acting: Seat | null = null;

  constructor(rng: Rng, opts: { size?: number; maxTicks?: number; starts?: [P, P] } = {}) {
    this.size = opts.size ?? CYCLES_SIZE;
    this.maxTicks = opts.maxTicks ?? CYCLES_MAX_TICKS;
    this.trail = new Int8Array(this.size * this.size).fill(-1);
    // Point-mirrored starts (a half turn of the field maps one onto the other): fair to both seats.
    const row = 3 + Math.floor(rng() * (this.size - 6));
    const starts = opts.starts ?? [
      [2, row],
      [this.size - 3, this.size - 1 - row],
    ];
    const cycle = (head: P, heading: Direction): Cycle => ({
      head: [...head],
      heading,
      moved: heading,
      alive: true,
      crash: null,
      turns: 0,
      ignored: 0,
    });
    this.cycles = [cycle(starts[0], 'right'), cycle(starts[1], 'left')];
    this.cycles.forEach((c, s) => {
      this.trail[this.at(c.head)] = s;
    });
  }

  private at([x, y]: P) {
    return y * this.size + x;
  }

  private inside([x, y]: P) {
    return x >= 0 && y >= 0 && x < this.size && y < this.size;
  }

  private free(p: P) {
    return this.inside(p) && this.trail[this.at(p)] === -1;
  }

  private ahead(p: P, d: Direction): P {
    return [p[0] + DELTA[d][0], p[1] + DELTA[d][1]];
  }

  // ---- the clock ----

  tick(): boolean {
    if (this.isOver()) return false;
    this.ticks++;
    const next = this.cycles.map((c) => this.ahead(c.head, c.heading)) as [P, P];
    const crash: (string | null)[] = ([0, 1] as const).map((s) => {
      const n = next[s]!;
      const other = (1 - s) as Seat;
      if (!this.inside(n)) return 'hit the wall';
      const o = this.cycles[other];
      if (n[0] === o.head[0] && n[1] === o.head[1]) return `ran into the ${NAMES[other]} cycle`;
      const owner = this.trail[this.at(n)]!;
      if (owner === s) return 'ran into its own trail';
      if (owner !== -1) return `ran into the ${NAMES[other]} trail`;
      if (n[0] === next[other]![0] && n[1] === next[other]![1]) return 'met the other cycle head-on';
      return null;
    });
    this.cycles.forEach((c, s) => {
      c.moved = c.heading;
      if (crash[s]) {
        c.alive = false;
        c.crash = crash[s]!;
      } else {
        c.head = next[s]!;
        this.trail[this.at(c.head)] = s;
      }
    });
    return true;
  }

  // ---- moves ----

  seatsToAct(): Seat[] {
    return this.isOver() ? [] : [0, 1];
  }

  applySeatMove(seat: Seat, move: string): MoveResult {
    if (this.isOver()) return { ok: false, error: 'the game is over' };
    const p = parseDirection(move);
    if (!p.ok) return p;
    const c = this.cycles[seat];
    if (p.move === OPPOSITE[c.moved]) {
      c.ignored++; // a reversal would run into its own trail: ignored, as in Snake
      return { ok: true };
    }
    c.heading = p.move;
    c.turns++;
    return { ok: true };
  }

  applyMove(_move: string): MoveResult {
    if (this.isOver()) return { ok: false, error: 'the game is over' };
    return { ok: false, error: 'both players act at once in Light Cycles: use applySeatMove(seat, move)' };
  }

  setActingSeat(seat: Seat | null) {
    this.acting = seat; // keys belong to seats by the key map; clicks do nothing here
  }

  /** A key steers the cycle of the seat that owns it (W A S D: Blue, arrows: Orange). */
  handleInput(input: ViewInput): MoveResult {
    return keyedSeatInput(input, (seat, dir) => this.applySeatMove(seat, dir));
  }

  seatValidMoves(seat: Seat): string[] {
    if (this.isOver()) return [];
    const c = this.cycles[seat];
    return DIRECTIONS.filter((d) => d !== OPPOSITE[c.moved]);
  }

  validMoves(): string[] {
    return [...new Set(this.seatsToAct().flatMap((s) => this.seatValidMoves(s)))];
  }

  // ---- the result ----

  isOver() {
    return !this.cycles[0].alive || !this.cycles[1].alive || this.ticks >= this.maxTicks;
  }

  winner(): Seat | null | undefined {
    if (!this.isOver()) return undefined;
    const [a, b] = this.cycles;
    if (a.alive === b.alive) return null;
    return a.alive ? 0 : 1;
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
    const [a, b] = this.cycles;
    if (w === null) {
      if (a.alive && b.alive) return `Draw: both cycles are still riding after ${this.maxTicks} ticks.`;
      return `Draw: both crashed on tick ${this.ticks} (Blue ${a.crash}; Orange ${b.crash}).`;
    }
    const loser = (1 - w) as Seat;
    return `${NAMES[w]} wins: ${NAMES[loser]} ${this.cycles[loser].crash} on tick ${this.ticks}.`;
  }

  status() {
    return this.isOver() ? this.result() : `Tick ${this.ticks}/${this.maxTicks}: both cycles riding.`;
  }

  private describe(seat: Seat) {
    const c = this.cycles[seat];
    const [x, y] = c.head;
    return `${NAMES[seat]} at column ${x + 1}, row ${y + 1}, heading ${c.heading}${c.alive ? '' : ` (crashed: ${c.crash})`}`;
  }

  seatStatus(seat: Seat) {
    const keys = seat === 0 ? 'W A S D' : 'arrow keys';
    const me = `You are ${NAMES[seat]} (${keys}).`;
    const other = (1 - seat) as Seat;
    const w = this.winner();
    if (w === undefined)
      return `${me} You: ${this.describe(seat)}. Opponent: ${this.describe(other)}. Tick ${this.ticks}/${this.maxTicks}.`;
    const outcome = w === null ? 'Draw.' : w === seat ? 'You won!' : 'You lost.';
    return `${me} ${outcome} ${this.result()}`;
  }

  // ---- rendering ----

  private symbol(x: number, y: number): string {
    for (const s of [0, 1] as const) {
      const c = this.cycles[s];
      if (c.head[0] === x && c.head[1] === y) return s === 0 ? 'B' : 'O';
    }
    const owner = this.trail[this.at([x, y])];
    return owner === 0 ? 'b' : owner === 1 ? 'o' : '.';
  }

  text() {
    const cols = Array.from({ length: this.size }, (_, x) => ((x + 1) % 10).toString()).join('');
    const rows = Array.from({ length: this.size }, (_, y) => {
      let r = '';
      for (let x = 0; x < this.size; x++) r += this.symbol(x, y);
      return `${String(y + 1).padStart(2)} ${r}`;
    });
    return [
      `   ${cols}`,
      ...rows,
      'Legend: B = Blue cycle, b = Blue trail, O = Orange cycle, o = Orange trail, . = free; walls surround the field. Columns and rows count from 1 (column numbers show their last digit).',
      `Tick ${this.ticks}/${this.maxTicks}.`,
      `Blue: ${this.seatStatus(0)}`,
      `Orange: ${this.seatStatus(1)}`,
    ].join('\n');
  }

  html() {
    const cell = Math.floor(448 / this.size);
    const cells: string[] = [];
    for (let y = 0; y < this.size; y++)
      for (let x = 0; x < this.size; x++) {
        const sym = this.symbol(x, y);
        if (sym === 'B' || sym === 'O') {
          const s: Seat = sym === 'B' ? 0 : 1;
          const c = this.cycles[s];
          cells.push(`<div class="c h${s}${c.alive ? '' : ' x'}">${c.alive ? ARROW[c.heading] : '✕'}</div>`);
        } else cells.push(`<div class="c${sym === 'b' ? ' t0' : sym === 'o' ? ' t1' : ''}"></div>`);
      }
    const over = this.isOver();
    const player = (s: Seat) => {
      const c = this.cycles[s];
      return `<div class="p" style="border-color:${COLOURS[s].head}"><b style="color:${COLOURS[s].head}">${NAMES[s]}</b> ${s === 0 ? 'W A S D' : 'arrows'} · ${c.alive ? `${ARROW[c.heading]} ${c.heading}` : 'crashed'}</div>`;
    };
    const line = over
      ? this.result()
      : `Tick ${this.ticks} / ${this.maxTicks} — both cycles riding (one cell every ${TICK_MS} ms)`;
    return `<style>
      body{margin:0;background:#10161f;font-family:'DejaVu Sans',sans-serif;color:#e8eef2}
      .wrap{display:flex;flex-direction:column;align-items:center;padding-top:14px}
      h1{margin:0 0 8px;font-size:28px}
      .players{display:flex;gap:16px;margin-bottom:10px}
      .p{font-size:16px;padding:5px 12px;border:3px solid;border-radius:8px;background:#1b2633;white-space:nowrap}
      .p b{font-size:19px}
      .grid{display:grid;grid-template-columns:repeat(${this.size},${cell}px);grid-template-rows:repeat(${this.size},${cell}px);gap:1px;background:#0a0e14;border:6px solid #8a99a8;padding:1px}
      .c{background:#1f2b38;display:flex;align-items:center;justify-content:center;font-size:${Math.floor(cell * 0.6)}px;color:#fff;line-height:1}
      .t0{background:${COLOURS[0].trail}}.t1{background:${COLOURS[1].trail}}
      .h0{background:${COLOURS[0].head}}.h1{background:${COLOURS[1].head}}.x{background:#c62828}
      .status{margin-top:12px;font-size:18px;text-align:center;max-width:520px}
    </style><div class="wrap"><h1>Light Cycles</h1><div class="players">${player(0)}${player(1)}</div>
    <div class="grid" data-hit="field">${cells.join('')}</div><div class="status">${line}</div></div>`;
  }

  snapshot() {
    return {
      size: this.size,
      ticks: this.ticks,
      maxTicks: this.maxTicks,
      cycles: this.cycles.map((c) => ({
        head: [...c.head],
        heading: c.heading,
        moved: c.moved,
        alive: c.alive,
        crash: c.crash,
        turns: c.turns,
        ignored: c.ignored,
      })),
      heads: this.cycles.map((c) => [...c.head]),
      headings: this.cycles.map((c) => c.heading),
      alive: this.cycles.map((c) => c.alive),
      trail: Array.from({ length: this.size }, (_, y) =>
        Array.from({ length: this.size }, (_, x) => this.symbol(x, y)).join(''),
      ),
      winner: this.winner(),
      scores: [this.seatScore(0), this.seatScore(1)],
      actingSeat: this.acting,
    };
  }

  // ---- the solver ----

  /** Free cells reachable from `from` (itself counted), `from` being free. */
  private reach(from: P): number {
    const seen = new Uint8Array(this.size * this.size);
    const stack: P[] = [from];
    seen[this.at(from)] = 1;
    let n = 0;
    while (stack.length) {
      const p = stack.pop()!;
      n++;
      for (const d of DIRECTIONS) {
        const q = this.ahead(p, d);
        if (this.free(q) && !seen[this.at(q)]) {
          seen[this.at(q)] = 1;
          stack.push(q);
        }
      }
    }
    return n;
  }

  /**
   * A simple safe heuristic: the heading whose next cell leaves the largest flood-fill area, then
   * one the other cycle cannot also enter next tick, then straight on.
   */
  seatSolverMove(seat: Seat): string {
    const c = this.cycles[seat];
    if (this.isOver()) return c.heading;
    const o = this.cycles[(1 - seat) as Seat];
    const contested = (p: P) => DIRECTIONS.some((d) => this.ahead(o.head, d).join() === p.join());
    const options = this.seatValidMoves(seat).map((d) => {
      const n = this.ahead(c.head, d as Direction);
      const area = this.free(n) ? this.reach(n) : -1;
      return { d, area, safe: !contested(n), straight: d === c.moved };
    });
    options.sort(
      (a, b) => b.area - a.area || Number(b.safe) - Number(a.safe) || Number(b.straight) - Number(a.straight),
    );
    return options[0]?.d ?? c.heading;
  }

  solverMove() {
    return this.seatSolverMove(this.seatsToAct()[0] ?? 0);
  }

  /** The seat's own key for the heading (Blue: w a s d, Orange: the arrows). */
  seatGestureFor(seat: Seat, move: string, _hits: HitRect[]): WindowGesture | undefined {
    const p = parseDirection(move);
    return p.ok ? { type: 'key', key: SEAT_MODEL_KEYS[seat][p.move] } : undefined;
  }

  gestureFor(move: string, hits: HitRect[]) {
    return this.seatGestureFor(this.seatsToAct()[0] ?? 0, move, hits);
  }
}
