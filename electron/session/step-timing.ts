/**
 * An agent step's part of run.json `timing` (domain.ts ModeTimingOf): the mode it was played
 * in, its input-to-screen time (`effect_ms`, when one was measured), the model's time (when a
 * model call of the step answered) and the harness's own time (locate + capture + encode + act).
 * A person's step during a takeover is not the harness's: it adds nothing.
 */
import type { TimingTally } from '../store/run-timing.ts';
import type { SessionStepRecord } from './session-types.ts';

type Calls = { ok: boolean }[] | undefined;

/** Whether a model call of the step answered: the step's own, or a seat's in a two-seat game. */
function modelAnswered(rec: SessionStepRecord): boolean {
  const seats = (rec.seats ?? []) as { model_calls?: Calls }[];
  return [rec.model_calls as Calls, ...seats.map((s) => s.model_calls)].some((calls) => calls?.some((c) => c.ok));
}

export function noteStepTiming(tally: TimingTally, rec: SessionStepRecord) {
  if (rec.actor === 'human') return;
  const l = rec.latency_ms;
  tally.addStep(rec.latency_mode, {
    effectMs: typeof rec.effect_ms === 'number' ? rec.effect_ms : null,
    modelMs: modelAnswered(rec) ? l.model : null,
    overheadMs: l.locate + l.capture + l.encode + l.act,
  });
}
