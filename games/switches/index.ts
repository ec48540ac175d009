/**
 * Switches, a co-op grid world (OmniGameArena's co-op setting): two avatars, Blue (seat 0, W A S D)
 * and Orange (seat 1, the arrows), in a small walled room (9×7, one of three fixed layouts, maybe
 * mirrored, picked by the seed) with two pressure switches, A and B, and a shut gate in front of
 * the exit. The gate opens, and stays open, only when both switches are occupied at the same
 * moment (one avatar on each); then both avatars must walk out through the exit. There is no
 * clock: the world changes only when a seat moves (one cell, or wait), and both seats act every
 * step.
 *
 * Team score on 0–100, the same for both seats, 20 per milestone reached:
 *   switch A pressed (at any time) · switch B pressed (at any time) · the gate opened ·
 *   the first avatar out · the second avatar out (the level finished).
 * Finishing at all is the fifth milestone, so 100 means both avatars got out within the step limit.
 */
import type { GameDefinition, HitRect, MoveResult, Seat, SeatedInstance, ViewInput, WindowGesture } from '../types.ts';
import { DIRECTIONS, parseDirection, type Direction } from '../shared/direction.ts';
import { keyedSeatInput, SEAT_KEYS, SEAT_MODEL_KEYS } from '../shared/seats.ts';

export const SWITCHES_MOVES = [...DIRECTIONS, 'wait'] as const;
type Move = (typeof SWITCHES_MOVES)[number];
const NAMES: readonly [string, string] = ['Blue', 'Orange'];
const COLOURS: readonly [string, string] = ['#1e63c4', '#e8720c'];
/** Points per milestone: five milestones make the 0–100 team score. */
export const MILESTONE_POINTS = 20;

/**
 * The layouts, 9 wide and 7 high: # wall, . floor, 1 Blue's start, 2 Orange's start, A and B the
 * switches, G the gate (shut until both switches are pressed together), E the exit behind it.
 */
export const SWITCHES_LAYOUTS: readonly (readonly string[])[] = [
  ['####E####', '#...G...#', '#.A.#.B.#', '#...#...#', '#.##.##.#', '#1.....2#', '#########'],
  ['#########', '#1.#.#.2#', '#..#.#..#', '#A.....B#', '#.#...#.#', '#...G...#', '####E####'],
  ['#########', '#1..#...#', '#.#.#.#B#', 'EG......#', '#.#.#.#.#', '#A..#..2#', '#########'],
];

type P = [number, number];
const DELTA: Record<Direction, P> = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] };
const same = (a: P | null, b: P | null) => !!a && !!b && a[0] === b[0] && a[1] === b[1];

function parseSwitchesMove(move: string): { ok: true; move: Move } | { ok: false; error: string } {
  const m = move.trim().toLowerCase();
  if (['wait', 'stay', 'none', 'noop'].includes(m)) return { ok: true, move: 'wait' };
  const d = parseDirection(move);
  return d.ok ? d : { ok: false, error: `"${move}" is not a move (up, down, left, right, wait)` };
}

export const switches: GameDefinition = {
  id: 'switches',
  title: 'Switches',
  task: 'Together with the other player, open the gate by standing on both switches at the same time, then both walk out through the exit.',
  rules:
    'A co-op puzzle for two players in a small walled room seen from above: Blue (player 1) and Orange (player 2) each move one avatar. ' +
    'The room has two pressure switches, A and B, and a shut gate in front of the exit. The gate opens only when both switches are occupied at the same moment, one avatar on each; once open it stays open. ' +
    'Then both avatars must walk through the gate onto the exit cell: an avatar on the exit has left the room and is removed. ' +
    'Each step, each player moves its avatar one cell up, down, left or right, or waits. Avatars cannot walk into walls, the shut gate or each other: such a move leaves the avatar where it is. ' +
    'Nothing moves unless a player moves it. ' +
    `Team score (the same for both players), ${MILESTONE_POINTS} points per milestone: switch A pressed, switch B pressed, the gate opened, the first avatar out, the second avatar out. ` +
    'So 100 means both avatars got out within the step limit. A plan that works: Blue goes to switch A, Orange to switch B, both wait there until the gate opens, then both walk to the exit.',
  controls: {
    gui: 'Blue moves with the W A S D keys (W up, A left, S down, D right), Orange with the arrow keys; press only your own keys, e.g. [{"action_type":"PRESS","parameters":{"key":"w"}}] for Blue. To wait, press nothing this step. One key per step: further keys in the same answer are not carried out.',
    semantic:
      'Name one move for your avatar: "up", "down", "left", "right" or "wait". One move per step: further moves in the same answer are not carried out.',
  },
  parseMove: parseSwitchesMove,
  viewSize: { width: 600, height: 660 },
  trials: 5,
  defaultMaxSteps: 60,
  maxActionsPerStep: 1,
  moveInputs: { keys: [...SEAT_KEYS[0], ...SEAT_KEYS[1]] },
  actionSpace: { semantic: SWITCHES_MOVES, gui: { press: [...SEAT_KEYS[0], ...SEAT_KEYS[1]] } },
  seats: {
    mode: 'coop',
    turns: 'simultaneous',
    names: NAMES,
    roles: [
      'You move the Blue avatar (player 1) with W A S D. Work with Orange: one of you on each switch opens the gate, then both of you leave through the exit.',
      'You move the Orange avatar (player 2) with the arrow keys. Work with Blue: one of you on each switch opens the gate, then both of you leave through the exit.',
    ],
    keys: SEAT_KEYS,
  },
  create: ({ rng }) => {
    const layout = Math.floor(rng() * SWITCHES_LAYOUTS.length);
    return new SwitchesGame(SWITCHES_LAYOUTS[layout]!, { mirror: rng() < 0.5, layout });
  },
};

export class SwitchesGame implements SeatedInstance {
  private readonly rows: string[];
  private readonly w: number;
  private readonly h: number;
  private readonly switchAt: [P, P];
  private readonly exit: P;
  private readonly gate: P;
  /** Where each avatar stands; null once it has left through the exit. */
  private readonly pos: [P | null, P | null];
  private readonly pressed: [boolean, boolean] = [false, false];
  private gateOpen = false;
  /** The seats in the order their avatars left. */
  private readonly out: Seat[] = [];
  private readonly moves: [number, number] = [0, 0];
  private readonly last: [string, string] = ['', ''];
  private acting: Seat | null = null;

  constructor(
    layout: readonly string[],
    private readonly opts: { mirror?: boolean; layout?: number } = {},
  ) {
    this.rows = layout.map((r) => (opts.mirror ? [...r].reverse().join('') : r));
    this.h = this.rows.length;
    this.w = this.rows[0]!.length;
    const find = (ch: string): P => {
      for (let y = 0; y < this.h; y++) {
        const x = this.rows[y]!.indexOf(ch);
        if (x >= 0) return [x, y];
      }
      throw new Error(`switches layout without "${ch}"`);
    };
    this.switchAt = [find('A'), find('B')];
    this.exit = find('E');
    this.gate = find('G');
    this.pos = [find('1'), find('2')];
  }

  private tile([x, y]: P): string {
    return this.rows[y]?.[x] ?? '#';
  }

  /** Walls and the shut gate block; everything else is floor. */
  private passable(p: P): boolean {
    const t = this.tile(p);
    return t !== '#' && (t !== 'G' || this.gateOpen);
  }

  // ---- moves ----

  seatsToAct(): Seat[] {
    return this.isOver() ? [] : [0, 1];
  }

  applySeatMove(seat: Seat, move: string): MoveResult {
    if (this.isOver()) return { ok: false, error: 'the game is over' };
    const m = parseSwitchesMove(move);
    if (!m.ok) return m;
    this.moves[seat]++;
    const at = this.pos[seat];
    if (!at) {
      this.last[seat] = 'already out: waited';
      return { ok: true };
    }
    if (m.move === 'wait') {
      this.last[seat] = 'waited';
      return { ok: true };
    }
    const d = DELTA[m.move];
    const next: P = [at[0] + d[0], at[1] + d[1]];
    const other = this.pos[(1 - seat) as Seat];
    if (!this.passable(next)) {
      this.last[seat] = `${m.move}: blocked by ${this.tile(next) === 'G' ? 'the shut gate' : 'a wall'}`;
      return { ok: true };
    }
    if (same(next, other)) {
      this.last[seat] = `${m.move}: blocked by ${NAMES[1 - seat]}`;
      return { ok: true };
    }
    this.last[seat] = m.move;
    if (same(next, this.exit)) {
      this.pos[seat] = null;
      this.out.push(seat);
      this.last[seat] = `${m.move}: left through the exit`;
    } else this.pos[seat] = next;
    this.update();
    return { ok: true };
  }

  /** Milestones after a move: switches pressed now, and the gate when both are pressed at once. */
  private update() {
    const on = this.switchAt.map((s) => same(this.pos[0], s) || same(this.pos[1], s));
    if (on[0]) this.pressed[0] = true;
    if (on[1]) this.pressed[1] = true;
    if (on[0] && on[1]) this.gateOpen = true;
  }

  applyMove(_move: string): MoveResult {
    if (this.isOver()) return { ok: false, error: 'the game is over' };
    return { ok: false, error: 'both players act at once in Switches: use applySeatMove(seat, move)' };
  }

  setActingSeat(seat: Seat | null) {
    this.acting = seat; // keys belong to seats by the key map; clicks do nothing here
  }

  /** A key moves the avatar of the seat that owns it (W A S D: Blue, arrows: Orange). */
  handleInput(input: ViewInput): MoveResult {
    return keyedSeatInput(input, (seat, dir) => this.applySeatMove(seat, dir));
  }

  seatValidMoves(seat: Seat): string[] {
    if (this.isOver()) return [];
    return this.pos[seat] ? [...SWITCHES_MOVES] : ['wait'];
  }

  validMoves(): string[] {
    return [...new Set(this.seatsToAct().flatMap((s) => this.seatValidMoves(s)))];
  }

  // ---- the result ----

  isOver() {
    return this.out.length === 2;
  }

  winner(): Seat | null | undefined {
    return undefined; // co-op: no winner
  }

  /** The team score: 20 for each of switch A pressed, switch B pressed, gate opened, first out, second out. */
  teamScore(): number {
    const milestones = Number(this.pressed[0]) + Number(this.pressed[1]) + Number(this.gateOpen) + this.out.length;
    return MILESTONE_POINTS * milestones;
  }

  seatScore(_seat: Seat): number {
    return this.teamScore();
  }

  score() {
    return this.teamScore();
  }

  private milestones(): string {
    const mark = (b: boolean) => (b ? 'yes' : 'no');
    return `switch A pressed ${mark(this.pressed[0])}, switch B pressed ${mark(this.pressed[1])}, gate opened ${mark(this.gateOpen)}, avatars out ${this.out.length}/2`;
  }

  status() {
    if (this.isOver()) return `Both avatars are out: level finished. Team score ${this.teamScore()}/100.`;
    const gate = this.gateOpen ? 'The gate is open: walk out through the exit.' : 'The gate is shut.';
    return `${gate} Team score ${this.teamScore()}/100.`;
  }

  private where(p: P | null): string {
    if (!p) return 'out through the exit';
    const t = this.tile(p);
    const on = t === 'A' || t === 'B' ? ` (on switch ${t})` : t === 'G' ? ' (in the open gate)' : '';
    return `at column ${p[0] + 1}, row ${p[1] + 1}${on}`;
  }

  seatStatus(seat: Seat) {
    const keys = seat === 0 ? 'W A S D' : 'arrow keys';
    const other = (1 - seat) as Seat;
    const plan = seat === 0 ? 'A' : 'B';
    const last = this.last[seat] ? ` Your last move: ${this.last[seat]}.` : '';
    return (
      `You are ${NAMES[seat]} (${keys}), ${this.where(this.pos[seat])}; ${NAMES[other]} is ${this.where(this.pos[other])}. ` +
      `Suggested: you take switch ${plan}. ${this.status()} Milestones: ${this.milestones()}.${last}`
    );
  }

  // ---- rendering ----

  private symbol(p: P): string {
    if (same(this.pos[0], p)) return '1';
    if (same(this.pos[1], p)) return '2';
    const t = this.tile(p);
    if (t === 'G') return this.gateOpen ? '_' : 'G';
    return t === '1' || t === '2' ? '.' : t;
  }

  text() {
    const cols = Array.from({ length: this.w }, (_, x) => String(x + 1)).join('');
    const rows = this.rows.map((r, y) => `${y + 1} ${[...r].map((_, x) => this.symbol([x, y])).join('')}`);
    return [
      `  ${cols}`,
      ...rows,
      'Legend: 1 = Blue avatar, 2 = Orange avatar, A and B = switches, G = shut gate, _ = open gate, E = exit, # = wall, . = floor. Columns and rows count from 1.',
      `Milestones: ${this.milestones()}. Team score ${this.teamScore()}/100.`,
      `Blue: ${this.seatStatus(0)}`,
      `Orange: ${this.seatStatus(1)}`,
    ].join('\n');
  }

  html() {
    const cell = 56;
    const cells: string[] = [];
    for (let y = 0; y < this.h; y++)
      for (let x = 0; x < this.w; x++) {
        const p: P = [x, y];
        const t = this.tile(p);
        const on = same(this.pos[0], p) || same(this.pos[1], p);
        let cls = 'floor';
        let label = '';
        if (t === '#') cls = 'wall';
        else if (t === 'A' || t === 'B') {
          cls = `sw${on ? ' down' : ''}`;
          label = t;
        } else if (t === 'G') {
          cls = this.gateOpen ? 'gate open' : 'gate';
          label = this.gateOpen ? 'open' : 'GATE';
        } else if (t === 'E') {
          cls = 'exit';
          label = 'EXIT';
        }
        const avatar = [0, 1].find((s) => same(this.pos[s as Seat], p));
        const body =
          avatar === undefined
            ? `<span>${label}</span>`
            : `<div class="av" style="background:${COLOURS[avatar]}">${avatar + 1}</div>`;
        cells.push(`<div class="c ${cls}">${body}</div>`);
      }
    const player = (s: Seat) =>
      `<div class="p" style="border-color:${COLOURS[s]}"><i style="background:${COLOURS[s]}"></i><b style="color:${COLOURS[s]}">${NAMES[s]}</b> ${s === 0 ? 'W A S D' : 'arrows'} · ${this.pos[s] ? 'inside' : 'out'}</div>`;
    const line = this.isOver()
      ? `Both avatars are out — level finished!<br>Team score ${this.teamScore()}/100`
      : `${this.gateOpen ? 'Gate open: both walk out through the exit.' : 'Gate shut: stand on A and B at the same time.'}<br>Team score ${this.teamScore()}/100`;
    const chip = (label: string, done: boolean) =>
      `<span class="${done ? 'done' : ''}">${done ? '✓' : '·'} ${label}</span>`;
    const ms = [
      chip('switch A', this.pressed[0]),
      chip('switch B', this.pressed[1]),
      chip('gate open', this.gateOpen),
      chip(`out ${this.out.length}/2`, this.out.length === 2),
    ].join('');
    return `<style>
      body{margin:0;background:#eef1f4;font-family:'DejaVu Sans',sans-serif;color:#1d2630}
      .wrap{display:flex;flex-direction:column;align-items:center;padding-top:14px}
      h1{margin:0 0 8px;font-size:28px}
      .players{display:flex;gap:16px;margin-bottom:8px}
      .p{display:flex;align-items:center;gap:6px;font-size:17px;padding:5px 12px;border:3px solid;border-radius:8px;background:#fff}
      .p i{display:inline-block;width:16px;height:16px;border-radius:50%}.p b{font-size:19px}
      .ms{display:flex;gap:8px;font-size:15px;color:#556;margin-bottom:8px;white-space:nowrap}
      .ms span{padding:2px 8px;border-radius:10px;background:#dde3ea}.ms .done{background:#cdebc5;color:#1b5e20}
      .grid{display:grid;grid-template-columns:repeat(${this.w},${cell}px);grid-template-rows:repeat(${this.h},${cell}px);gap:2px;background:#9aa5b1;border:4px solid #4a5561}
      .c{display:flex;align-items:center;justify-content:center;font-size:15px;font-weight:bold;color:#334}
      .floor{background:#f7f5ee}.wall{background:#3b434c}
      .sw{background:#f7f5ee;box-shadow:inset 0 0 0 7px #c9a227;font-size:22px}.sw.down{box-shadow:inset 0 0 0 7px #f2d024;background:#fff3a6}
      .gate{background:repeating-linear-gradient(90deg,#6d4c2f 0 8px,#b58a5a 8px 14px);color:#fff;font-size:12px}
      .gate.open{background:#d9f2d0;color:#2e7d32}
      .exit{background:#43a047;color:#fff;font-size:13px}
      .av{width:40px;height:40px;border-radius:50%;border:3px solid #fff;box-shadow:0 0 0 2px #222;color:#fff;display:flex;align-items:center;justify-content:center;font-size:18px}
      .status{margin-top:12px;font-size:18px;text-align:center;max-width:560px}
    </style><div class="wrap"><h1>Switches</h1><div class="players">${player(0)}${player(1)}</div>
    <div class="ms">${ms}</div>
    <div class="grid" data-hit="room">${cells.join('')}</div><div class="status">${line}</div></div>`;
  }

  snapshot() {
    return {
      layout: this.opts.layout ?? null,
      mirror: !!this.opts.mirror,
      rows: this.rows.map((r, y) => [...r].map((_, x) => this.symbol([x, y])).join('')),
      positions: this.pos.map((p) => (p ? [...p] : null)),
      switches: this.switchAt.map((p) => [...p]),
      gate: [...this.gate],
      exit: [...this.exit],
      pressed: [...this.pressed],
      gateOpen: this.gateOpen,
      out: [...this.out],
      moves: [...this.moves],
      teamScore: this.teamScore(),
      actingSeat: this.acting,
    };
  }

  // ---- the solver ----

  /** The first move of a shortest path from `from` to `to` (null: none), optionally around `avoid`. */
  private firstStep(from: P, to: P, avoid: P | null): Direction | null {
    const key = ([x, y]: P) => y * this.w + x;
    const first = new Map<number, Direction | null>([[key(from), null]]);
    const queue: P[] = [from];
    while (queue.length) {
      const p = queue.shift()!;
      if (same(p, to)) return first.get(key(p)) ?? null;
      for (const d of DIRECTIONS) {
        const q: P = [p[0] + DELTA[d][0], p[1] + DELTA[d][1]];
        if (first.has(key(q)) || !this.passable(q) || same(q, avoid)) continue;
        first.set(key(q), first.get(key(p)) ?? d);
        queue.push(q);
      }
    }
    return null;
  }

  /**
   * BFS planner: walk to the seat's switch (Blue A, Orange B; the other one if the partner stands
   * on it), wait there until the gate opens, then walk to the exit — stepping round the partner
   * when it is in the way, waiting when there is no way round.
   */
  seatSolverMove(seat: Seat): string {
    const at = this.pos[seat];
    if (this.isOver() || !at) return 'wait';
    const other = this.pos[(1 - seat) as Seat];
    let target: P = this.exit;
    if (!this.gateOpen) {
      const mine = this.switchAt[seat];
      target = same(other, mine) ? this.switchAt[(1 - seat) as Seat] : mine;
      if (same(at, target)) return 'wait';
    }
    const step = this.firstStep(at, target, null);
    if (!step) return 'wait';
    const next: P = [at[0] + DELTA[step][0], at[1] + DELTA[step][1]];
    if (!same(next, other)) return step;
    return this.firstStep(at, target, other) ?? 'wait';
  }

  solverMove() {
    return this.seatSolverMove(this.seatsToAct()[0] ?? 0);
  }

  /** The seat's own key for a direction (Blue: w a s d, Orange: the arrows); waiting is pressing nothing. */
  seatGestureFor(seat: Seat, move: string, _hits: HitRect[]): WindowGesture | undefined {
    const m = parseSwitchesMove(move);
    return m.ok && m.move !== 'wait' ? { type: 'key', key: SEAT_MODEL_KEYS[seat][m.move] } : undefined;
  }

  gestureFor(move: string, hits: HitRect[]) {
    return this.seatGestureFor(this.seatsToAct()[0] ?? 0, move, hits);
  }
}
