/**
 * The two-seat built-ins (games/two-seat.ts): Tic-Tac-Toe model vs model, the Light Cycles duel
 * and the co-op Switches room — seeded determinism, two solvers playing a whole game, the rule
 * cases each game's rules text promises, and both seats named in the text and the view.
 */
import { describe, expect, it } from 'vitest';
import { seededRng } from '../../games/shared/rng.ts';
import { isSeated, type GameDefinition, type Seat, type SeatedInstance } from '../../games/types.ts';
import { BUILTIN_GAMES, TWO_SEAT_GAMES as FROM_INDEX } from '../../games/index.ts';
import { lightCycles, switches, tictactoePvp, TWO_SEAT_GAMES } from '../../games/two-seat.ts';
import { LightCycles } from '../../games/light-cycles/index.ts';
import { SWITCHES_LAYOUTS, SwitchesGame } from '../../games/switches/index.ts';
import type { TicTacToePvp } from '../../games/tictactoe-pvp/index.ts';

const SEATS: Seat[] = [0, 1];

function make(def: GameDefinition, seed = 1, episode = 0): SeatedInstance {
  const g = def.create({ seed, episode, rng: seededRng(seed * 1000003 + episode) });
  if (!isSeated(g)) throw new Error(`${def.id} did not create a seated instance`);
  return g;
}

/** Both seats decide from the same state, then the moves apply (seat 0 first), as one arena step. */
function solverRound(g: SeatedInstance) {
  const moves = g.seatsToAct().map((s) => [s, g.seatSolverMove(s)] as const);
  for (const [s, m] of moves) expect(g.applySeatMove(s, m).ok).toBe(true);
}

describe('the two-seat registry', () => {
  it('holds the three games, each with seats, apart from the single-seat built-ins', () => {
    expect(Object.keys(TWO_SEAT_GAMES).sort()).toEqual(['light-cycles', 'switches', 'tictactoe-pvp']);
    expect(FROM_INDEX).toBe(TWO_SEAT_GAMES);
    for (const def of Object.values(TWO_SEAT_GAMES)) {
      expect(BUILTIN_GAMES[def.id]).toBeUndefined();
      expect(def.seats?.names).toHaveLength(2);
      expect(isSeated(make(def))).toBe(true);
    }
    expect(tictactoePvp.seats).toMatchObject({ mode: 'pvp', turns: 'alternate', names: ['X', 'O'] });
    expect(lightCycles.seats).toMatchObject({ mode: 'pvp', turns: 'simultaneous', names: ['Blue', 'Orange'] });
    expect(switches.seats).toMatchObject({ mode: 'coop', turns: 'simultaneous', names: ['Blue', 'Orange'] });
    expect(lightCycles.seats?.keys).toEqual([
      ['w', 'a', 's', 'd'],
      ['up', 'down', 'left', 'right'],
    ]);
  });

  it('names both seats in the text and in the view', () => {
    for (const def of Object.values(TWO_SEAT_GAMES)) {
      const g = make(def);
      for (const name of def.seats!.names) {
        expect(g.text()).toContain(name);
        expect(g.html()).toContain(name);
      }
      expect(g.seatStatus(0)).toContain(`You are ${def.seats!.names[0]}`);
      expect(g.seatStatus(1)).toContain(`You are ${def.seats!.names[1]}`);
    }
  });

  it('is deterministic per seed: the same seed plays the same game', () => {
    for (const def of Object.values(TWO_SEAT_GAMES)) {
      const play = (seed: number) => {
        const g = make(def, seed);
        const seen: unknown[] = [g.snapshot()];
        for (let i = 0; i < 12 && !g.isOver(); i++) {
          solverRound(g);
          g.tick?.();
          seen.push(g.snapshot(), g.text());
        }
        return seen;
      };
      expect(play(7)).toEqual(play(7));
    }
  });
});

describe('tictactoe-pvp', () => {
  const fresh = () => make(tictactoePvp) as TicTacToePvp;
  const board = (g: SeatedInstance) => (g.snapshot() as { board: (string | null)[] }).board;

  it('two minimax solvers draw', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const g = make(tictactoePvp, seed);
      let steps = 0;
      while (!g.isOver()) {
        const [seat] = g.seatsToAct();
        expect(g.applySeatMove(seat!, g.seatSolverMove(seat!))).toEqual({ ok: true });
        steps++;
      }
      expect(steps).toBeLessThanOrEqual(tictactoePvp.defaultMaxSteps);
      expect(g.winner()).toBeNull();
      expect([g.seatScore(0), g.seatScore(1), g.score()]).toEqual([50, 50, 50]);
      expect(g.seatsToAct()).toEqual([]);
    }
  });

  it('X moves first; a move out of turn is refused and changes nothing', () => {
    const g = fresh();
    expect(g.seatsToAct()).toEqual([0]);
    expect(g.seatValidMoves(1)).toEqual([]);
    expect(g.validMoves()).toEqual(g.seatValidMoves(0));
    expect(g.seatStatus(0)).toContain('Your turn');
    const before = g.snapshot();
    const r = g.applySeatMove(1, 'B2');
    expect(r.ok).toBe(false);
    expect(g.snapshot()).toEqual(before);
    expect(g.applySeatMove(0, 'B2')).toEqual({ ok: true });
    expect(g.seatsToAct()).toEqual([1]);
    expect(g.applySeatMove(0, 'A1').ok).toBe(false);
    expect(board(g).filter(Boolean)).toEqual(['X']);
  });

  it('a taken cell or a move off the board loses the mover the game at once', () => {
    const g = fresh();
    g.applySeatMove(0, 'B2');
    expect(g.applySeatMove(1, 'b2').ok).toBe(false);
    expect(g.isOver()).toBe(true);
    expect(g.winner()).toBe(0);
    expect([g.seatScore(0), g.seatScore(1), g.score()]).toEqual([100, 0, 100]);
    expect(g.status()).toMatch(/X wins.*already taken/);
    expect(g.seatStatus(1)).toContain('You lost');

    const h = fresh();
    expect(h.applySeatMove(0, 'D4').ok).toBe(false);
    expect(h.winner()).toBe(1);
  });

  it('three in a row wins: 100 to the winner, 0 to the loser, 0 to both while playing', () => {
    const g = fresh();
    for (const [s, m] of [
      [0, 'A1'],
      [1, 'B1'],
      [0, 'A2'],
      [1, 'B2'],
    ] as const) {
      g.applySeatMove(s, m);
      expect([g.seatScore(0), g.seatScore(1)]).toEqual([0, 0]);
      expect(g.winner()).toBeUndefined();
    }
    g.applyMove('A3'); // the seat to act: X
    expect(g.winner()).toBe(0);
    expect([g.seatScore(0), g.seatScore(1)]).toEqual([100, 0]);
    expect(g.applySeatMove(1, 'C1').ok).toBe(false);
  });

  it('clicks come from the acting seat, and change nothing when no seat or the wrong one acts', () => {
    const g = fresh();
    expect(g.handleInput({ type: 'click', hit: 'B2' }).ok).toBe(false); // nobody acting
    g.setActingSeat(1);
    expect(g.handleInput({ type: 'click', hit: 'B2' }).ok).toBe(false); // O clicks on X's turn
    expect(board(g).every((c) => c === null)).toBe(true);
    g.setActingSeat(0);
    expect(g.handleInput({ type: 'click', hit: 'B2' })).toEqual({ ok: true });
    expect(board(g)[4]).toBe('X');
    expect(g.handleInput({ type: 'click', hit: 'A1' }).ok).toBe(false); // X again, on O's turn
    expect(board(g)[0]).toBeNull();
    g.setActingSeat(1);
    expect(g.handleInput({ type: 'key', key: 'a' })).toEqual({ ok: true }); // keys do nothing
    expect(g.handleInput({ type: 'click', hit: 'A1' })).toEqual({ ok: true });
    expect(board(g)[0]).toBe('O');
    g.setActingSeat(0);
    expect(g.handleInput({ type: 'click', hit: null }).ok).toBe(false); // X clicks off the board
    expect(g.winner()).toBe(1);
  });

  it('clicks the centre of the cell for a move', () => {
    const g = fresh();
    const hits = [{ id: 'B3', x: 100, y: 200, width: 40, height: 60 }];
    expect(g.gestureFor('b3', hits)).toEqual({ type: 'click', x: 120, y: 230 });
    expect(g.seatGestureFor(1, 'B3', hits)).toEqual({ type: 'click', x: 120, y: 230 });
    expect(g.gestureFor('A1', hits)).toBeUndefined();
  });

  it('applyMove is the move of the seat to act', () => {
    const g = fresh();
    expect(g.applyMove('C3')).toEqual({ ok: true });
    expect(g.applyMove('A1')).toEqual({ ok: true });
    expect(board(g)[8]).toBe('X');
    expect(board(g)[0]).toBe('O');
    expect(g.seatValidMoves(0)).toContain(g.solverMove());
  });
});

describe('light-cycles', () => {
  type Snap = { heads: number[][]; headings: string[]; alive: boolean[]; ticks: number };
  const snap = (g: SeatedInstance) => g.snapshot() as Snap;
  const duel = (starts: [[number, number], [number, number]], size = 8) =>
    new LightCycles(seededRng(1), { size, starts });

  it('runs on the clock: no idle limit in any mode, and no mode is the idle limit alone', () => {
    expect(lightCycles.realtime).toEqual({
      tickMs: 250,
      idleLimit: { normal: null, slow: null, lcrt: null, stop: null },
    });
    const g = make(lightCycles);
    const [b, o] = snap(g).heads;
    expect(g.tick!()).toBe(true);
    expect(snap(g).heads).toEqual([
      [b![0]! + 1, b![1]],
      [o![0]! - 1, o![1]],
    ]);
    expect(snap(g).ticks).toBe(1);
  });

  it('starts point-mirrored, the seed picking the rows', () => {
    const rows = new Set<number>();
    for (let seed = 1; seed <= 12; seed++) {
      const s = snap(make(lightCycles, seed));
      expect(s.heads[1]).toEqual([15 - s.heads[0]![0]!, 15 - s.heads[0]![1]!]);
      expect(s.headings).toEqual(['right', 'left']);
      rows.add(s.heads[0]![1]!);
    }
    expect(rows.size).toBeGreaterThan(1);
  });

  it('two flood-fill solvers play until one crashes or both do', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const g = make(lightCycles, seed);
      while (!g.isOver()) {
        solverRound(g);
        g.tick!();
      }
      expect(snap(g).ticks).toBeLessThanOrEqual(200);
      expect(g.winner()).not.toBeUndefined();
      expect(g.seatScore(0) + g.seatScore(1)).toBe(100);
      expect(g.score()).toBe(g.seatScore(0));
      expect(g.seatsToAct()).toEqual([]);
      expect(g.tick!()).toBe(false);
    }
  });

  it('a crash into the wall loses', () => {
    const g = duel([
      [1, 0],
      [6, 6],
    ]);
    expect(g.applySeatMove(0, 'up')).toEqual({ ok: true });
    g.tick();
    expect(g.isOver()).toBe(true);
    expect(g.winner()).toBe(1);
    expect([g.seatScore(0), g.seatScore(1)]).toEqual([0, 100]);
    expect(snap(g).alive).toEqual([false, true]);
    expect(g.status()).toMatch(/Orange wins: Blue hit the wall/);
  });

  it('a crash into a trail loses', () => {
    const g = duel([
      [1, 2],
      [4, 1],
    ]);
    g.applySeatMove(1, 'down'); // Orange goes down through column 5 (index 4)
    g.tick(); // Blue (2,2), Orange (4,2)
    g.tick(); // Blue (3,2), Orange (4,3)
    g.tick(); // Blue runs into Orange's trail at (4,2)
    expect(g.winner()).toBe(1);
    expect(g.status()).toContain('Orange trail');
  });

  it('head-on into the same cell, or through each other, is a draw', () => {
    const g = duel([
      [1, 3],
      [5, 3],
    ]);
    g.tick();
    expect(g.isOver()).toBe(false);
    g.tick();
    expect(g.isOver()).toBe(true);
    expect(g.winner()).toBeNull();
    expect([g.seatScore(0), g.seatScore(1)]).toEqual([50, 50]);

    const h = duel([
      [3, 3],
      [4, 3],
    ]);
    h.tick();
    expect(h.winner()).toBeNull();
    expect(snap(h).alive).toEqual([false, false]);
  });

  it('reaching the tick limit with both alive is a draw', () => {
    const g = new LightCycles(seededRng(1), { maxTicks: 3 });
    g.tick();
    g.tick();
    expect(g.isOver()).toBe(false);
    g.tick();
    expect(g.isOver()).toBe(true);
    expect(g.winner()).toBeNull();
    expect(g.status()).toMatch(/Draw/);
  });

  it("a seat's key steers only its own cycle", () => {
    const g = make(lightCycles);
    expect(g.handleInput({ type: 'key', key: 'ArrowUp' })).toEqual({ ok: true });
    expect(snap(g).headings).toEqual(['right', 'up']);
    g.handleInput({ type: 'key', key: 's' });
    expect(snap(g).headings).toEqual(['down', 'up']);
    g.handleInput({ type: 'key', key: 'x' });
    g.handleInput({ type: 'click', hit: 'field' });
    expect(snap(g).headings).toEqual(['down', 'up']);
  });

  it('a reverse turn is ignored, judged against the last move made', () => {
    const g = make(lightCycles);
    expect(g.applySeatMove(0, 'left')).toEqual({ ok: true });
    expect(snap(g).headings[0]).toBe('right');
    g.applySeatMove(0, 'up');
    g.applySeatMove(0, 'left'); // still the reverse of the last move (right)
    expect(snap(g).headings[0]).toBe('up');
    expect(g.seatValidMoves(0)).toEqual(['up', 'down', 'right']);
    expect(g.applySeatMove(0, 'north').ok).toBe(false);
  });

  it('both seats act at once: applyMove points to applySeatMove; gestures are the seat’s own keys', () => {
    const g = make(lightCycles);
    expect(g.seatsToAct()).toEqual([0, 1]);
    const r = g.applyMove('up');
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error).toContain('applySeatMove');
    const c = g as LightCycles;
    expect(c.seatGestureFor(0, 'up', [])).toEqual({ type: 'key', key: 'w' });
    expect(c.seatGestureFor(0, 'left', [])).toEqual({ type: 'key', key: 'a' });
    expect(c.seatGestureFor(1, 'up', [])).toEqual({ type: 'key', key: 'up' });
    expect(g.gestureFor('down', [])).toEqual({ type: 'key', key: 's' });
    expect(g.validMoves().sort()).toEqual(['down', 'left', 'right', 'up']);
  });

  it('the solver keeps straight on when all is open and turns away from a wall ahead', () => {
    expect(make(lightCycles).seatSolverMove(0)).toBe('right');
    expect(make(lightCycles).seatSolverMove(1)).toBe('left');
    const g = duel([
      [7, 0],
      [1, 6],
    ]);
    expect(g.seatSolverMove(0)).toBe('down'); // the corner: the wall ahead and above
    const h = duel([
      [6, 5],
      [1, 1],
    ]);
    h.applySeatMove(1, 'down');
    for (const turn of ['down', 'left', 'down']) {
      h.tick();
      h.applySeatMove(0, turn);
    }
    h.tick(); // Blue has hooked round to (6,7) on the bottom row, heading down
    expect(h.isOver()).toBe(false);
    expect(h.seatSolverMove(0)).toBe('left'); // right is a pocket of one cell, left the rest of the field
  });
});

describe('switches', () => {
  type Snap = { positions: ([number, number] | null)[]; pressed: boolean[]; gateOpen: boolean; out: number[] };
  const snap = (g: SeatedInstance) => g.snapshot() as Snap;
  /** Blue at column 2, switch A, a free cell under the gate, switch B, Orange; the gate and exit above. */
  const corridor = () => new SwitchesGame(['###E###', '###G###', '#1A.B2#', '#######']);

  it('two BFS solvers finish every layout (and its mirror) for 100 within the step limit', () => {
    for (const layout of SWITCHES_LAYOUTS)
      for (const mirror of [false, true]) {
        // Both seats decide from the same state...
        const g = new SwitchesGame(layout, { mirror });
        let rounds = 0;
        while (!g.isOver() && rounds < 100) {
          solverRound(g);
          rounds++;
        }
        expect(g.score()).toBe(100);
        expect(2 * rounds).toBeLessThanOrEqual(switches.defaultMaxSteps);
        // ...or one after the other.
        const h = new SwitchesGame(layout, { mirror });
        let decisions = 0;
        while (!h.isOver() && decisions < 200)
          for (const s of h.seatsToAct()) {
            h.applySeatMove(s, h.seatSolverMove(s));
            decisions++;
          }
        expect(h.score()).toBe(100);
        expect(decisions).toBeLessThanOrEqual(switches.defaultMaxSteps);
      }
  });

  it('created games finish too, and the seed picks among the layouts', () => {
    const layouts = new Set<string>();
    for (let seed = 1; seed <= 20; seed++) {
      const g = make(switches, seed);
      layouts.add(JSON.stringify((g.snapshot() as { rows: string[] }).rows));
      let rounds = 0;
      while (!g.isOver() && rounds < 30) {
        solverRound(g);
        rounds++;
      }
      expect([g.seatScore(0), g.seatScore(1), g.score()]).toEqual([100, 100, 100]);
    }
    expect(layouts.size).toBeGreaterThan(2);
  });

  it('the gate stays shut with one switch pressed, opens with both, and the milestones score 20 each', () => {
    const g = corridor();
    const scores = () => [g.score(), g.seatScore(0), g.seatScore(1)];
    expect(scores()).toEqual([0, 0, 0]);
    g.applySeatMove(0, 'right'); // Blue onto A
    expect(snap(g)).toMatchObject({ pressed: [true, false], gateOpen: false });
    expect(scores()).toEqual([20, 20, 20]);
    g.applySeatMove(0, 'right'); // off A, under the gate
    g.applySeatMove(0, 'up'); // the shut gate blocks
    expect(snap(g).positions[0]).toEqual([3, 2]);
    g.applySeatMove(1, 'left'); // Orange onto B, but A is free again
    expect(snap(g)).toMatchObject({ pressed: [true, true], gateOpen: false });
    expect(g.score()).toBe(40);
    const gateRow = () => (g.snapshot() as { rows: string[] }).rows[1];
    expect(gateRow()).toBe('###G###');
    g.applySeatMove(0, 'left'); // Blue back onto A: both switches at once
    expect(snap(g).gateOpen).toBe(true);
    expect(gateRow()).toBe('###_###');
    expect(g.score()).toBe(60);
    g.applySeatMove(0, 'right');
    expect(snap(g).gateOpen).toBe(true); // stays open
    g.applySeatMove(0, 'up');
    g.applySeatMove(0, 'up'); // onto the exit: out
    expect(snap(g)).toMatchObject({ positions: [null, [4, 2]], out: [0] });
    expect(g.score()).toBe(80);
    expect(g.isOver()).toBe(false);
    expect(g.seatsToAct()).toEqual([0, 1]);
    expect(g.seatValidMoves(0)).toEqual(['wait']);
    for (const m of ['left', 'up', 'up']) g.applySeatMove(1, m);
    expect(g.isOver()).toBe(true);
    expect(scores()).toEqual([100, 100, 100]);
    expect(g.winner()).toBeUndefined();
    expect(g.seatsToAct()).toEqual([]);
    expect(g.applySeatMove(0, 'wait').ok).toBe(false);
  });

  it('avatars block each other; waiting changes nothing', () => {
    const g = corridor();
    g.applySeatMove(0, 'right');
    g.applySeatMove(0, 'right');
    g.applySeatMove(1, 'left');
    const before = snap(g).positions;
    expect(g.applySeatMove(1, 'left')).toEqual({ ok: true }); // Blue is there
    expect(g.applySeatMove(0, 'wait')).toEqual({ ok: true });
    expect(snap(g).positions).toEqual(before);
    expect(g.seatStatus(1)).toContain('blocked by Blue');
    expect(g.applySeatMove(0, 'jump').ok).toBe(false);
  });

  it("a seat's key moves only its own avatar; gestures are the seat's own keys", () => {
    const g = corridor();
    g.handleInput({ type: 'key', key: 'ArrowLeft' });
    expect(snap(g).positions).toEqual([
      [1, 2],
      [4, 2],
    ]);
    g.handleInput({ type: 'key', key: 'd' });
    expect(snap(g).positions).toEqual([
      [2, 2],
      [4, 2],
    ]);
    expect(g.seatGestureFor(0, 'left', [])).toEqual({ type: 'key', key: 'a' });
    expect(g.seatGestureFor(1, 'left', [])).toEqual({ type: 'key', key: 'left' });
    expect(g.seatGestureFor(1, 'wait', [])).toBeUndefined();
    expect(g.applyMove('up').ok).toBe(false);
  });

  it('the solver waits on its switch until the gate opens', () => {
    const g = corridor();
    expect(g.seatSolverMove(0)).toBe('right');
    g.applySeatMove(0, 'right');
    expect(g.seatSolverMove(0)).toBe('wait');
    expect(g.seatSolverMove(1)).toBe('left');
    g.applySeatMove(1, 'left');
    expect(g.seatSolverMove(0)).toBe('right');
    expect(g.seatSolverMove(1)).toBe('left');
    expect(SEATS.map((s) => g.seatValidMoves(s))).toEqual([
      ['up', 'down', 'left', 'right', 'wait'],
      ['up', 'down', 'left', 'right', 'wait'],
    ]);
  });
});
