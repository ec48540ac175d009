/**
 * What a step shows the agent, and what its actions came to in the terms the loop records and
 * the next prompt reports: whether the step was usable, how many inputs a built-in view should
 * report, what LCRT charged, and the step as the next observation sees it; and a step its
 * player did not answer, which is not recorded.
 */
import { describeAction, toWire, type Action, type GuiAction } from '../actions/schema.ts';
import type { Decision, Observation, PreviousStep } from '../agents/agent-types.ts';
import type { ActionOutcome } from '../input/executor.ts';
import type { EpisodeSummary, RunStore } from '../store/run-store.ts';
import { round2 } from '../domain.ts';
import { mean, std } from '../util/time.ts';
import type { SeenFrame, StepTrace, UnansweredStep } from './session-types.ts';
import type { Target } from './targets.ts';
import type { WorldClock } from './world-clock.ts';

/** What the agent is shown at a step: the frame and how it maps to the window, a built-in's state, and the last step. */
export function observationOf(
  trace: StepTrace,
  seen: SeenFrame,
  target: Target,
  previous: PreviousStep | undefined,
): Observation {
  const game = target.game;
  return {
    step: trace.step,
    episode: trace.episode,
    frame: seen.frame,
    geometry: seen.geometry,
    tCapture: seen.tCapture,
    ...(game ? { gameText: game.instance.text(), validMoves: game.instance.validMoves(), hits: target.hits() } : {}),
    ...(previous ? { previous } : {}),
  };
}

/**
 * A step is unusable when it brought no actions (with an error), or when it was refused and
 * nothing but WAITs took effect: twelve refused clicks in a row must fail the run like twelve
 * unparseable answers.
 */
export function isUnusable(actions: number, errors: number, outcomes: ActionOutcome[]): boolean {
  if (actions === 0) return errors > 0;
  return outcomes.some((o) => !o.ok) && !outcomes.some((o) => o.ok && o.action !== 'WAIT');
}

/**
 * A step its player did not answer, so no step is recorded: the player ended the episode at
 * this observation, or the run stopped before it answered. A person who took over meanwhile
 * has the step recorded as taken back, as for any agent.
 */
export function unansweredStep(d: Decision, takeover: boolean, stopping: boolean): UnansweredStep | undefined {
  if (takeover) return undefined;
  if (d.endsEpisode) return { unanswered: 'ended_by_player' };
  if (d.withdrawn && stopping) return { unanswered: 'stopped' };
  return undefined;
}

/** A step that is not recorded: its frame is not kept, and a frozen world runs for what comes next. */
export async function dropStep(
  unanswered: UnansweredStep,
  seen: SeenFrame,
  store: RunStore,
  clock: WorldClock,
): Promise<UnansweredStep> {
  if (seen.file) store.discardFrame(seen.file);
  await clock.thaw();
  return unanswered;
}

/** How many input messages a built-in view reports for the GUI actions that ran and succeeded. */
export function viewInputsSent(actions: Action[], outcomes: ActionOutcome[]): number {
  return actions
    .slice(0, outcomes.length)
    .filter((a, i) => a.kind === 'gui' && outcomes[i]?.ok)
    .reduce((n, a) => n + viewInputsFrom(a as GuiAction), 0);
}

/** How many input messages a built-in view sends for an action (keydown, left mousedown). */
export function viewInputsFrom(a: GuiAction): number {
  switch (a.type) {
    case 'PRESS':
    case 'KEY_DOWN':
      return 1;
    case 'HOTKEY':
      return a.params.keys.length;
    case 'TYPING':
      return [...a.params.text].length;
    case 'CLICK':
      return (a.params.button ?? 'left') === 'left' ? (a.params.num_clicks ?? 1) : 0;
    case 'DOUBLE_CLICK':
      return 2;
    case 'DRAG_TO':
      return 1;
    default:
      return 0;
  }
}

/** What LCRT charged and how it was known: provider, estimated (minus a round trip), stream, or measured (wall time). */
export function computeRecord(computeMs: number, d: Decision): Record<string, unknown> {
  const c = d.compute;
  return {
    compute_ms: round2(computeMs),
    compute_source: c?.source ?? 'measured',
    ...(c?.rttMs !== undefined ? { rtt_ms: round2(c.rttMs) } : {}),
    ...(c?.generationMs !== undefined ? { generation_ms: round2(c.generationMs) } : {}),
    ...(c?.ttftMs !== undefined ? { ttft_ms: round2(c.ttftMs) } : {}),
  };
}

/**
 * The step as the next prompt reports it: every chosen action in the model's order with its
 * fate — its outcome when it ran, `dropped` when the game's per-step cap kept it from running.
 */
export function previousStep(decision: Decision, dropped: Action[], outcomes: ActionOutcome[]): PreviousStep {
  const ran = outcomes.map((o) => ({ action: o.action, ok: o.ok, ...(o.error ? { error: o.error } : {}) }));
  const fates: PreviousStep['outcomes'] = [];
  for (const a of decision.actions) {
    if (dropped.includes(a)) fates.push({ action: describeAction(a), ok: false, dropped: true });
    else {
      const next = ran.shift();
      if (!next) break;
      fates.push(next);
    }
  }
  return {
    actions: decision.actions.map(toWire),
    outcomes: fates,
    ...(decision.error ? { error: decision.error } : {}),
  };
}

/** The mean and standard deviation of the episodes' scores (episodes without a score, and invalid ones, left out). */
export function scoreSummary(episodes: EpisodeSummary[]): { mean: number | null; std: number | null } {
  const scores = episodes
    .filter((e) => !e.invalid)
    .map((e) => e.score)
    .filter((s): s is number => s !== null);
  if (!scores.length) return { mean: null, std: null };
  return { mean: round2(mean(scores)), std: round2(std(scores)) };
}
