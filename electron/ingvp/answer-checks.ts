/**
 * §4.3's two adjustments of a multi-step answer, as the harness sees them. Best of N: N answers
 * drawn for the same turn (each a real model call), the most frequent move played; each answer
 * is kept with the move read from it and whether that move would change the state. Forced
 * Planning: the plan written before the move, read in the game's one-step format, and checked
 * on a fresh engine: did the move follow it, would the whole plan solve the level from here.
 */
import type { Puzzle, PuzzleSpec } from '../../games/ingvp/puzzle.ts';
import { extractOutput, extractPlan } from './answer.ts';
import type { Answer, Player, Turn } from './players.ts';
import { round2 } from '../domain.ts';

/** One of a step's Best-of-N answers, as the step record keeps it. */
export interface Sample {
  sample: number;
  raw: string;
  /** The move read from it (canonical), or null with the reason. */
  move: string | null;
  error?: string;
  /** Whether that move would change the state the step started from (null: no move). */
  changes: boolean | null;
  model_ms: number;
  tokens?: { input: number; output: number };
  cost_usd?: number | null;
}

/** A Forced Planning answer's plan, as the step record keeps it. */
export interface PlanCheck {
  /** The plan as written (the `plan` value, as JSON), or null when there was none. */
  text: string | null;
  /** The plan in canonical moves, or null when it could not be read in the game's format. */
  moves: string[] | null;
  error?: string;
  /** The move played was the plan's first (null: no plan or no move). */
  followed: boolean | null;
  /** Replayed from the step's state, the plan solves the level (null: no plan). */
  solves: boolean | null;
}

/** The move an answer names, or why none can be read. */
function moveOf(spec: PuzzleSpec<never>, raw: string): { move: string } | { error: string } {
  const read = extractOutput(raw);
  if (!read.ok) return { error: read.error };
  const move = spec.parseStep(read.value);
  return move === undefined ? { error: 'not a move in this game’s format' } : { move };
}

/**
 * The most frequent move of the samples; a tie goes to the move drawn first. Null when no
 * sample names a move.
 */
export function majorityMove(samples: readonly Pick<Sample, 'move'>[]): string | null {
  const votes = new Map<string, number>();
  for (const s of samples) if (s.move !== null) votes.set(s.move, (votes.get(s.move) ?? 0) + 1);
  let best: string | null = null;
  for (const [move, n] of votes) if (best === null || n > votes.get(best)!) best = move;
  return best;
}

/**
 * N answers to one turn, drawn at once; the answer played is the first that names the majority
 * move (or the first answer, when none names a move). Its tokens and cost are those of all N.
 * A failed call stops the others (they end on the same signal) before the error is passed on.
 */
export async function bestOf(
  player: Player,
  turn: Turn,
  n: number,
  signal: AbortSignal,
  state: () => Puzzle,
): Promise<{ answer: Answer; samples: Sample[] }> {
  const batch = new AbortController();
  const callSignal = AbortSignal.any([signal, batch.signal]);
  const settled = await Promise.allSettled(
    Array.from({ length: n }, async (_, sample) => {
      const t0 = performance.now();
      try {
        return { answer: await player.answer({ ...turn, sample }, callSignal), ms: performance.now() - t0 };
      } catch (err) {
        batch.abort(err);
        throw err;
      }
    }),
  );
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  const drawn = settled.map((r) => (r as PromiseFulfilledResult<{ answer: Answer; ms: number }>).value);
  const samples: Sample[] = drawn.map(({ answer, ms }, sample) => {
    const read = moveOf(turn.spec, answer.raw);
    let changes: boolean | null = null;
    if ('move' in read) {
      const p = state();
      const before = p.key();
      p.apply(read.move);
      changes = p.key() !== before;
    }
    return {
      sample,
      raw: answer.raw,
      move: 'move' in read ? read.move : null,
      ...('error' in read ? { error: read.error } : {}),
      changes,
      model_ms: round2(ms),
      ...(answer.tokens ? { tokens: answer.tokens } : {}),
      ...(answer.costUsd !== undefined ? { cost_usd: answer.costUsd } : {}),
    };
  });
  const chosen = majorityMove(samples);
  const played =
    drawn[
      Math.max(
        0,
        samples.findIndex((s) => s.move === chosen),
      )
    ]!.answer;
  const priced = drawn.filter((d) => d.answer.costUsd !== undefined);
  const answer: Answer = {
    raw: played.raw,
    ...(played.prompt ? { prompt: played.prompt } : {}),
    ...(drawn.some((d) => d.answer.tokens)
      ? {
          tokens: {
            input: drawn.reduce((t, d) => t + (d.answer.tokens?.input ?? 0), 0),
            output: drawn.reduce((t, d) => t + (d.answer.tokens?.output ?? 0), 0),
          },
        }
      : {}),
    ...(priced.length
      ? {
          costUsd: priced.some((d) => d.answer.costUsd === null)
            ? null
            : priced.reduce((t, d) => t + d.answer.costUsd!, 0),
        }
      : {}),
  };
  return { answer, samples };
}

/** The plan a Forced Planning answer wrote, checked against `state` (a fresh engine in the step's state; it is played on). */
export function readPlan(spec: PuzzleSpec<never>, raw: string, state: Puzzle): PlanCheck {
  const read = extractPlan(raw);
  if (!read.ok) return { text: null, moves: null, error: read.error, followed: null, solves: null };
  const text = typeof read.value === 'string' ? read.value : JSON.stringify(read.value);
  const moves = spec.parsePlan(read.value) ?? null;
  if (!moves) return { text, moves, error: 'not a plan in this game’s format', followed: null, solves: null };
  for (const mv of moves) {
    if (state.solved()) break;
    state.apply(mv);
  }
  return { text, moves, followed: null, solves: state.solved() };
}
