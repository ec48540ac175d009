/**
 * ING-VP's Tower of Hanoi (App. B): four rods A–D, five disks a < b < c < d < e; move the top
 * disk of one rod onto another, never a larger disk onto a smaller one; solved when every disk is
 * on rod D. Each level starts from a position whose optimal solution is exactly 8 moves. A move
 * is "{rod-x}{rod-y}", e.g. "AD". Text rendering: a dictionary rod → its disks, top disk first.
 */
import { clickOn, ingvpGame, type PuzzleGui } from '../ingvp/definition.ts';
import { frameHtml, parseWordPlan, type Puzzle, type PuzzleSpec } from '../ingvp/puzzle.ts';
import levels from './levels/levels.json' with { type: 'json' };

export interface HanoiLevel {
  /** The rod of each disk, a…e: e.g. "BBCCC". */
  disks: string;
  optimal: number;
}

export const RODS = ['A', 'B', 'C', 'D'];
const DISKS = ['a', 'b', 'c', 'd', 'e'];
const GOAL = 'DDDDD';
export const HANOI_MOVES = RODS.flatMap((x) => RODS.filter((y) => y !== x).map((y) => x + y));

/** The state after moving the top disk of `move[0]` onto `move[1]`, or undefined when the rules forbid it. */
export function hanoiStep(state: string, move: string): string | undefined {
  const [from, to] = [move[0]!, move[1]!];
  if (from === to || !RODS.includes(from) || !RODS.includes(to)) return undefined;
  const top = [...state].indexOf(from); // disks run smallest first, so the first found is the top
  if (top < 0) return undefined;
  const onTo = [...state].indexOf(to);
  if (onTo >= 0 && onTo < top) return undefined;
  return state.slice(0, top) + to + state.slice(top + 1);
}

/** Optimal moves from every position to all disks on D (breadth-first from the goal; moves are reversible). */
export const DISTANCE: ReadonlyMap<string, number> = (() => {
  const dist = new Map<string, number>([[GOAL, 0]]);
  const queue = [GOAL];
  for (let i = 0; i < queue.length; i++) {
    const s = queue[i]!;
    for (const m of HANOI_MOVES) {
      const n = hanoiStep(s, m);
      if (n && !dist.has(n)) {
        dist.set(n, dist.get(s)! + 1);
        queue.push(n);
      }
    }
  }
  return dist;
})();

export function parseHanoiMove(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const s = v.replace(/[\s\-→>,"']|to/gi, '').toUpperCase();
  return HANOI_MOVES.includes(s) ? s : undefined;
}

export class HanoiPuzzle implements Puzzle {
  private state: string;

  constructor(start: string) {
    if (!/^[A-D]{5}$/.test(start)) throw new Error(`a Hanoi position is five rods A–D, one per disk (got "${start}")`);
    this.state = start;
  }

  apply(move: string) {
    const next = hanoiStep(this.state, move);
    if (!next) return false;
    this.state = next;
    return true;
  }

  solved() {
    return this.state === GOAL;
  }

  remaining(bound: number) {
    const d = DISTANCE.get(this.state)!;
    return d > bound ? Number.POSITIVE_INFINITY : d;
  }

  solution() {
    const plan: string[] = [];
    let s = this.state;
    while (s !== GOAL) {
      const d = DISTANCE.get(s)!;
      const m = HANOI_MOVES.find((mv) => {
        const n = hanoiStep(s, mv);
        return n !== undefined && DISTANCE.get(n) === d - 1;
      })!;
      plan.push(m);
      s = hanoiStep(s, m)!;
    }
    return plan;
  }

  rods(): Record<string, string[]> {
    return Object.fromEntries(RODS.map((r) => [r, DISKS.filter((_, i) => this.state[i] === r)]));
  }

  text() {
    return JSON.stringify(this.rods());
  }

  key() {
    return this.state;
  }

  snapshot() {
    return { rods: this.rods(), on_d: [...this.state].filter((r) => r === 'D').length };
  }

  html(selected?: string | null) {
    const rods = this.rods();
    const cols = RODS.map((r) => {
      // Top disk first, drawn at the top of the stack.
      const disks = rods[r]!.map((d) => {
        const w = 40 + DISKS.indexOf(d) * 22;
        return `<div class="disk d${d}" style="width:${w}px">${d}</div>`;
      });
      return `<div class="rod${selected === r ? ' sel' : ''}" data-hit="rod-${r}"><div class="pole"></div><div class="stack">${disks.join('')}</div><div class="name">${r}</div></div>`;
    });
    return frameHtml(
      'Tower of Hanoi',
      `Disks on rod D: ${[...this.state].filter((x) => x === 'D').length} / 5`,
      `<div class="rods">${cols.join('')}</div>`,
      this.solved() ? 'Solved.' : 'Click a rod to pick its top disk, then the rod to put it on.',
      `.rods{display:flex;gap:8px;background:#f4efe6;padding:10px;border:4px solid #5b6470}
       .rod{position:relative;width:150px;height:300px;display:flex;flex-direction:column;justify-content:flex-end;align-items:center}
       .rod.sel{background:#ffe58a}.pole{position:absolute;bottom:34px;width:10px;height:240px;background:#6b4f2a;left:70px}
       .stack{position:relative;display:flex;flex-direction:column;align-items:center;margin-bottom:4px}
       .disk{height:26px;border-radius:6px;margin-top:2px;color:#fff;font-weight:bold;display:flex;align-items:center;justify-content:center;border:2px solid #0004;box-sizing:border-box}
       .da{background:#e02424}.db{background:#f08c00}.dc{background:#2f9e44}.dd{background:#1971c2}.de{background:#7048e8}
       .name{font-size:22px;font-weight:bold;height:30px;border-top:6px solid #6b4f2a;width:100%;text-align:center}`,
    );
  }
}

export const hanoiSpec: PuzzleSpec<HanoiLevel> = {
  id: 'hanoi',
  title: 'Tower of Hanoi',
  levels: levels as HanoiLevel[],
  load: (level) => new HanoiPuzzle(level.disks),
  optimal: (level) => level.optimal,
  parseStep: parseHanoiMove,
  parsePlan: (v) => parseWordPlan(v, parseHanoiMove),
  formatStep: (m) => m,
  formatPlan: (ms) => ms,
  actionSpace: () => HANOI_MOVES,
  undo: false,
  completion: { kind: 'steps' },
  prompt: {
    goal: 'Move all the disks to rod "D".',
    rules:
      'There are four rods, A, B, C and D, and five disks a, b, c, d, e from the smallest (a) to the largest (e). ' +
      'Each move takes the top disk of one rod and puts it on another rod. Only one disk moves at a time, only a top disk ' +
      'can move, and a disk may never be put on a smaller disk; a move against these rules changes nothing.',
    imageLegend:
      'In the picture: the rods are labelled A to D from left to right; each disk is labelled with its letter, and larger letters are wider disks.',
    textLegend: 'The text is a dictionary from each rod to the disks on it, the top disk first.',
    stepFormat: 'One move: {"output": "{rod-x}{rod-y}"}, e.g. {"output": "AD"} moves the top disk of rod A onto rod D.',
    planFormat: 'All moves in order: {"output": ["AC", "AD", ...]}.',
  },
};

export const hanoiGui: PuzzleGui = {
  controls:
    'CLICK a rod to pick up its top disk (the rod turns yellow), then CLICK the rod to put it on; a move takes two clicks.',
  semanticControls: 'Name one move as two rods, e.g. "AD" (the top disk of A onto D).',
  oneMovePerStep: false,
  actionSpace: { click: 'anywhere' },
  handle(input, selection) {
    const rod = input.type === 'click' ? /^rod-([A-D])$/.exec(input.hit ?? '')?.[1] : undefined;
    if (!rod) return { selection: input.type === 'click' ? null : selection };
    if (!selection) return { selection: rod };
    return rod === selection ? { selection: null } : { move: selection + rod, selection: null };
  },
  gesture: (move, hits, selection) => clickOn(hits, `rod-${selection === move[0] ? move[1] : move[0]}`),
};

export const hanoi = ingvpGame(hanoiSpec, hanoiGui, { width: 700, height: 520 });
