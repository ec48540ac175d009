/**
 * ING-VP's six puzzles (Zhang et al. 2024) share one shape: a level loads into a state, moves
 * are canonical strings ("L", "3,5", "34=7", "AD", "12"), a move that breaks a rule changes
 * nothing, and the state knows whether it is solved and how far it still is from solved. The
 * suite (electron/ingvp/) plays them through this interface; ./definition.ts makes each one an
 * ordinary built-in game with a view window as well.
 */
import type { Rng } from '../shared/rng.ts';
import { scoreOf, type GameScoring, type ScoreRule } from '../shared/score-rule.ts';

export interface Puzzle {
  /** Applies a canonical move; returns whether the state changed (a move against the rules changes nothing). */
  apply(move: string): boolean;
  solved(): boolean;
  /**
   * Optimal moves still needed from this state, searched up to `bound` (ING-VP's levels need at
   * most 8); Infinity when none within the bound. Queens: queens still missing; Sudoku: wrong cells.
   */
  remaining(bound: number): number;
  /** The paper's text rendering of the state (legend in the prompt). */
  text(): string;
  /** The view's HTML (the image settings capture this, drawn in a real window); `selected`: a cell or rod picked by a first click. */
  html(selected?: string | null): string;
  /** An optimal plan from this state (the solver); empty when solved or none is found. */
  solution(): string[];
  /** Ground truth for run records and tests. */
  snapshot(): Record<string, unknown>;
  /** An identity of the state: two states with the same key are the same state. */
  key(): string;
}

/** What the prompts say about a game, in the paper's terms (App. B). */
export interface PuzzlePrompt {
  goal: string;
  rules: string;
  /** What the colours and shapes of the view mean (image settings). */
  imageLegend: string;
  /** What the characters or fields of the text rendering mean (text settings). */
  textLegend: string;
  /** One move in the multi-step answer, e.g. `{"output": "L"}` and what it means. */
  stepFormat: string;
  /** The whole plan in the one-step answer. */
  planFormat: string;
  /** The undo line (with history only), for games that have it. */
  undo?: string;
}

/** Completion degree: per game, from the final state (docs/fidelity.md, "ING-VP"). */
export type CompletionRule =
  /**
   * 100 − 100/8 per remaining optimal step (the authors' code: 12.5), floored at 0; `per`: the
   * steps that cost all 100 instead of 8 (the maze-length study's longer levels).
   */
  | { kind: 'steps'; per?: number }
  /** 100 − 100/7 per queen still missing (the authors' code: 14.3). */
  | { kind: 'queens' }
  /** 100 − 10 per cell that differs from the solution. */
  | { kind: 'cells' };

export interface PuzzleSpec<L = unknown> {
  id: string;
  title: string;
  /** The checked-in levels, level 1 first. */
  levels: readonly L[];
  load(level: L): Puzzle;
  /** The level's optimal solution length (its bound). */
  optimal(level: L): number;
  /** The JSON value of a one-move answer's `output` → a canonical move, or why it is not one. */
  parseStep(output: unknown): string | undefined;
  /** A one-step answer's `output` → the plan, canonical moves in order. */
  parsePlan(output: unknown): string[] | undefined;
  /** A canonical move as the answer format writes it (the solver and random players answer in it). */
  formatStep(move: string): unknown;
  formatPlan(moves: string[]): unknown;
  /** Every move the answer format allows, legal now or not (the random player's space). */
  actionSpace(): readonly string[];
  /** Undo to an earlier step is offered in the with-history settings. */
  undo: boolean;
  completion: CompletionRule;
  prompt: PuzzlePrompt;
}

/** Completion degree (0–100) of a state under its game's rule. */
export function completionDegree(spec: Pick<PuzzleSpec, 'completion'>, puzzle: Puzzle): number {
  return scoreOf(completionScoring(spec, puzzle));
}

/** What is still missing (0 once solved) and the rule that prices it. */
export function completionScoring(spec: Pick<PuzzleSpec, 'completion'>, puzzle: Puzzle): GameScoring {
  const c = COMPLETION[spec.completion.kind];
  const per = spec.completion.kind === 'steps' ? spec.completion.per : undefined;
  if (per !== undefined && c.rule.kind === 'shortfall')
    return { rule: { ...c.rule, per }, value: puzzle.solved() ? 0 : puzzle.remaining(per) };
  return { rule: c.rule, value: puzzle.solved() ? 0 : puzzle.remaining(c.bound) };
}

/** Each completion rule: the price of what is missing, and how far the count goes. */
const COMPLETION: Record<CompletionRule['kind'], { rule: ScoreRule; bound: number }> = {
  steps: { rule: { kind: 'shortfall', number: 'optimal moves still needed', points: 100, per: 8 }, bound: 8 },
  queens: { rule: { kind: 'shortfall', number: 'queens still missing', points: 100, per: 7 }, bound: 8 },
  cells: { rule: { kind: 'shortfall', number: 'cells that differ from the solution', points: 10, per: 1 }, bound: 81 },
};

/** A uniformly random element (the random player). */
export function randomOf<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

/** Breadth-first search over states from `start`: an optimal move list to a solved state within `bound`, or undefined. */
export function bfsSolve<S>(
  start: S,
  opts: {
    key(s: S): string;
    solved(s: S): boolean;
    moves(s: S): { move: string; next: S }[];
    bound: number;
  },
): string[] | undefined {
  if (opts.solved(start)) return [];
  const seen = new Map<string, { parent: string | null; move: string }>([
    [opts.key(start), { parent: null, move: '' }],
  ]);
  let frontier: S[] = [start];
  for (let depth = 1; depth <= opts.bound && frontier.length; depth++) {
    const next: S[] = [];
    for (const s of frontier) {
      const sk = opts.key(s);
      for (const { move, next: n } of opts.moves(s)) {
        const nk = opts.key(n);
        if (seen.has(nk)) continue;
        seen.set(nk, { parent: sk, move });
        if (opts.solved(n)) {
          const path: string[] = [];
          for (let k: string | null = nk; k !== null; ) {
            const e: { parent: string | null; move: string } = seen.get(k)!;
            if (e.parent === null) break;
            path.push(e.move);
            k = e.parent;
          }
          return path.reverse();
        }
        next.push(n);
      }
    }
    frontier = next;
  }
  return undefined;
}

/** Every item parsed as a move, or undefined when one of them is not a move. */
export function parseEach(items: readonly unknown[], parse: (v: unknown) => string | undefined): string[] | undefined {
  const moves = items.map(parse);
  return moves.every((m) => m !== undefined) ? (moves as string[]) : undefined;
}

/** A plan given as a list, or as one string of moves split on spaces, commas or semicolons. */
export function parseWordPlan(v: unknown, parse: (v: unknown) => string | undefined): string[] | undefined {
  const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(/[\s,;]+/).filter(Boolean) : undefined;
  return list ? parseEach(list, parse) : undefined;
}

/** "L", "left", "Left", "l" → "L" (the four directions of Sokoban and the maze). */
export function parseLetterDirection(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const s = v.trim().toUpperCase();
  const word: Record<string, string> = { LEFT: 'L', RIGHT: 'R', UP: 'U', DOWN: 'D' };
  if (word[s]) return word[s];
  return /^[LRUD]$/.test(s) ? s : undefined;
}

/** `"DDRRULL"`, `["D","D","R"]`, `"D, D, R"` → ["D","D","R"]; anything else undefined. */
export function parseDirectionPlan(v: unknown): string[] | undefined {
  if (typeof v === 'string') {
    const letters = v.toUpperCase().replace(/[\s,"'[\]]/g, '');
    if (/^[LRUD]*$/.test(letters)) return [...letters];
    return parseEach(v.split(/[\s,]+/).filter(Boolean), parseLetterDirection);
  }
  if (Array.isArray(v)) return parseEach(v, parseLetterDirection);
  return undefined;
}

/** A whole number written as a number or a numeric string. */
export function wholeNumber(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : Number.NaN;
  return Number.isInteger(n) ? n : undefined;
}

/** The shared frame of every ING-VP view: a title, a status line, the board, a hint. */
export function frameHtml(title: string, info: string, board: string, hint: string, css: string): string {
  return `<style>
      body{margin:0;background:#d9dde3;font-family:'DejaVu Sans',sans-serif;color:#1c2530}
      .wrap{display:flex;flex-direction:column;align-items:center;padding-top:14px}
      h1{margin:0 0 4px;font-size:28px}.info{font-size:17px;margin-bottom:10px}
      .hint{font-size:15px;margin-top:10px;color:#3b4654}
      ${css}
    </style><div class="wrap"><h1>${title}</h1><div class="info">${info}</div>${board}<div class="hint">${hint}</div></div>`;
}
