/**
 * A step's record, assembled in one place from what each stage handed on: which step and frame,
 * what the agent said and did, where the time went and how the world waited, and what a
 * built-in's engine says after it. A person's step and a two-seat step use the same parts.
 */
import { toWire } from '../actions/schema.ts';
import { isClipped } from '../input/coordinates.ts';
import type { World } from '../latency/world.ts';
import { round2, type GameScoreFields } from '../domain.ts';
import { scoreRuleText, type GameScoring } from '../../games/shared/score-rule.ts';
import type {
  Acted,
  Choice,
  FrameEvent,
  FrameHead,
  SeenFrame,
  SessionStepRecord,
  Shot,
  StepClock,
  StepTrace,
} from './session-types.ts';
import { computeRecord } from './step-outcomes.ts';
import { UNKNOWN_EFFECT } from './step-effect.ts';
import type { Target } from './targets.ts';

/** What a step record says first: which step, its frame and where the window was. */
export function frameHead(trace: StepTrace, seen: SeenFrame): FrameHead {
  const { frame, geometry } = seen;
  return {
    step: trace.step,
    episode: trace.episode,
    t_capture: seen.tCapture,
    frame: seen.file,
    frame_size: { width: frame.width, height: frame.height, scale: frame.scale },
    window: trace.seen.win.bounds,
    ...(isClipped(geometry) ? { captured: trace.seen.visible } : {}),
  };
}

/** The frame the model is about to see, for the live view. */
export function frameEvent(trace: StepTrace, seen: SeenFrame): FrameEvent {
  const { frame, file, geometry } = seen;
  return {
    episode: trace.episode,
    step: trace.step,
    frame: file,
    mime: frame.mime,
    data: frame.data,
    width: frame.width,
    height: frame.height,
    window: geometry.window,
    ...(isClipped(geometry) ? { captured: geometry.visible } : {}),
  };
}

/**
 * Where the step's time went, stage by stage, how the world waited, and how many times the step
 * asked where its window is (read after acting: the target's lookups since the step's look).
 */
export function clockRecord(trace: StepTrace, clock: StepClock, world: World, target: Target) {
  const t = trace.times;
  const before = trace.seen.lookupsBefore;
  return {
    latency_ms: {
      locate: round2(t.located - t.start),
      capture: round2(t.captured! - t.located),
      encode: round2(t.encoded! - t.captured!),
      model: round2(t.decided! - t.decideStart!),
      act: round2(t.applied! - t.decided!),
      wait: round2(t.settled! - t.applied!),
      total: round2(t.settled! - t.start),
    },
    latency_mode: clock.mode,
    world: world.kind,
    paused_ms: round2(world.frozenMs() - clock.frozenBefore),
    ...(target.lookups !== undefined && before !== undefined ? { window_lookups: target.lookups - before } : {}),
  };
}

/**
 * What a built-in's engine says after the step (the inputs its view received, score, the game's
 * own number and the formula between them, state); a window has no score yet.
 */
export function gameFields(target: Target) {
  const game = target.game;
  if (!game) return { score: null };
  return {
    view_inputs: game.drainInputs().map((i) => ({ ...i.input, ...(i.result.ok ? {} : { error: i.result.error }) })),
    score: round2(game.instance.score()),
    ...gameScoreFields(game.instance.scoring?.()),
    game_state: game.instance.snapshot(),
  };
}

/** A one-seat game's own number and its formula (a two-seat game has none: it scores by seat). */
function gameScoreFields(s: GameScoring | undefined): GameScoreFields | Record<string, never> {
  if (!s) return {};
  return { game_score: Number.isFinite(s.value) ? s.value : null, score_formula: scoreRuleText(s.rule) };
}

/** The agent's step: every stage's part of it, the model's calls and costs included. */
export function agentStepRecord(
  trace: StepTrace,
  stages: { clock: StepClock; shot: Shot; seen: SeenFrame; choice: Choice; acted: Acted },
  world: World,
  target: Target,
): SessionStepRecord {
  const { clock, shot, seen, choice, acted } = stages;
  const { decision, actions, dropped, computeMs } = choice;
  const ticksAtCapture = shot.ticksAtCapture;
  const { ticksAtAct, ticksActed, outcomes } = acted;
  return {
    ...frameHead(trace, seen),
    actor: 'agent',
    reasoning: decision.reasoning,
    raw: decision.raw ?? null,
    actions: actions.map(toWire),
    ...(dropped.length ? { dropped_actions: dropped.map(toWire) } : {}),
    outcomes,
    errors: trace.errors,
    ...clockRecord(trace, clock, world, target),
    ...(ticksAtCapture !== null && ticksAtAct !== null ? { drift_ticks: ticksAtAct - ticksAtCapture } : {}),
    ...(ticksAtAct !== null && ticksActed !== null ? { act_ticks: ticksActed - ticksAtAct } : {}),
    ...(clock.mode === 'lcrt' ? computeRecord(computeMs, decision) : {}),
    ...(shot.freezeVerified !== undefined ? { freeze_verified: shot.freezeVerified } : {}),
    ...(trace.settle ? { settle: trace.settle } : {}),
    ...(trace.effect ?? UNKNOWN_EFFECT),
    ...(decision.usage ? { tokens: decision.usage } : {}),
    ...(decision.costUsd !== undefined ? { cost_usd: decision.costUsd } : {}),
    ...(decision.attempts ? { attempts: decision.attempts } : {}),
    ...(decision.calls?.length ? { model_calls: decision.calls } : {}),
    ...(decision.memory ? { memory: decision.memory } : {}),
    ...gameFields(target),
  };
}
