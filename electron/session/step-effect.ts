/**
 * What a step's actions did to the target, as the harness observed it (steps.jsonl `effect`,
 * `effect_ms`): a built-in's engine says whether its state changed; a window's drawing, followed
 * through the display server, says whether it drew its answer and when. Nothing is taken from
 * what was sent: an input that went nowhere is `none`, and where the harness cannot tell (the
 * drawing cannot be followed, or the window was drawing by itself when the step acted) it says
 * `unknown`.
 */
import type { Action } from '../actions/schema.ts';
import type { ActionOutcome } from '../input/executor.ts';
import type { ChangeWatch } from '../../native/types.ts';
import type { StepEffect } from '../store/run-store.ts';
import { round2 } from '../domain.ts';
import type { SessionStepRecord } from './session-types.ts';

export interface EffectRecord {
  effect: StepEffect;
  /** From the first input to the first draw after it; null when no change was seen. */
  effect_ms: number | null;
}

export const UNKNOWN_EFFECT: EffectRecord = { effect: 'unknown', effect_ms: null };

/** Whether anything went to the game: a semantic move or a GUI input (not a WAIT, DONE or FAIL) that was not refused. */
export function inputsSent(actions: Action[], outcomes: ActionOutcome[]): boolean {
  return actions.slice(0, outcomes.length).some((a, i) => {
    if (!outcomes[i]?.ok) return false;
    return a.kind === 'semantic' || !['WAIT', 'DONE', 'FAIL'].includes(a.type);
  });
}

/** Milliseconds from `actedAt` to the window's first draw after it, when one was seen. */
function firstDrawMs(drawing: ChangeWatch | undefined, actedAt: number): number | null {
  const at = drawing?.drawnSince(actedAt);
  return at === undefined ? null : round2(Math.max(0, at - actedAt));
}

/** A built-in: its engine's state changed or not; the time is its window's first draw after the input. */
export function builtinEffect(
  seen: { sent: boolean; stateChanged: boolean; drawing: ChangeWatch | undefined },
  actedAt: number,
): EffectRecord {
  if (!seen.sent) return UNKNOWN_EFFECT;
  if (!seen.stateChanged) return { effect: 'none', effect_ms: null };
  return { effect: 'changed', effect_ms: firstDrawMs(seen.drawing, actedAt) };
}

/**
 * A window no engine drives: it drew after the input (changed), or not within the settle
 * limit (none). What a window that was already drawing when the step acted drew next cannot
 * be told apart from its answer (unknown, unless it drew nothing at all), and a window whose
 * drawing cannot be followed is not known either.
 */
export function windowEffect(
  seen: {
    sent: boolean;
    settle: NonNullable<SessionStepRecord['settle']>;
    quietBefore: boolean;
    drawing: ChangeWatch | undefined;
  },
  actedAt: number,
): EffectRecord {
  const { sent, settle, quietBefore, drawing } = seen;
  if (!sent || settle.by !== 'drawing') return UNKNOWN_EFFECT;
  if (!settle.drew) return { effect: 'none', effect_ms: null };
  if (!quietBefore) return UNKNOWN_EFFECT;
  return { effect: 'changed', effect_ms: firstDrawMs(drawing, actedAt) };
}
