/**
 * A two-seat run started over the contract: a start-run request naming `seats` in a two-seat
 * built-in game, built through the seated composition root and held by the activity slot as a
 * run, so Stop, the stop hotkey, pause, single step and the latency switch are a run's. Its step
 * events carry each acting seat's part and the seats' scores; its tokens carry their seat.
 */
import type { SeatStepWire, StartRun, StepEventData } from './contract.ts';
import { CodedError } from '../domain.ts';
import { prepareSeatedRun } from '../session/seated-compose.ts';
import { preflightRun } from '../session/preflight.ts';
import type { SessionEvents } from '../session/session-types.ts';
import { RunActivity, runFromRequest, type RunContext } from './run-activity.ts';

export class SeatedRunActivity extends RunActivity {
  /** Opens the game's window with an agent per seat and starts the run (prepareSeatedRun closes what it opened when it fails). */
  static async openSeated(req: StartRun, ctx: RunContext): Promise<SeatedRunActivity> {
    if (typeof req.profile === 'string') throw new CodedError('bad-input', 'a two-seat game plays without a profile');
    const run = runFromRequest(req, ctx);
    const { spec, seats, place } = run;
    if (!seats) throw new CodedError('bad-input', 'seats need a two-seat built-in game');
    await preflightRun(run, ctx.wm);
    const { session, target, store } = await prepareSeatedRun(
      spec,
      seats,
      { ...place, ...(ctx.launchView ? { launch: ctx.launchView } : {}) },
      ctx.wm,
    );
    return new SeatedRunActivity(session, target, store, req, false, undefined, ctx);
  }

  override async setReflection(): Promise<never> {
    throw new CodedError('bad-input', 'a two-seat run has no reflection yet');
  }

  override async setLessons(): Promise<never> {
    throw new CodedError('bad-input', 'a two-seat run has no reflection yet');
  }

  protected override stepData(r: SessionEvents['step'][0]): StepEventData {
    const data = super.stepData(r);
    if (!Array.isArray(r.seats)) return data;
    // As SeatedSession records them; the step's actionsText lists the seats' actions in this same order.
    const recorded = r.seats as Omit<SeatStepWire, 'actionsText'>[];
    let at = 0;
    const seats = recorded.map((s): SeatStepWire => {
      const from = at;
      at += s.actions.length;
      return {
        seat: s.seat,
        name: s.name,
        agent: s.agent,
        reasoning: s.reasoning,
        actions: s.actions,
        actionsText: r.actionsText.slice(from, at),
        outcomes: s.outcomes,
        errors: s.errors,
        ...(s.model_ms !== undefined ? { model_ms: s.model_ms } : {}),
        ...(s.drift_ticks !== undefined ? { drift_ticks: s.drift_ticks } : {}),
        ...(s.tokens ? { tokens: s.tokens } : {}),
        ...(s.cost_usd !== undefined ? { cost_usd: s.cost_usd } : {}),
      };
    });
    const scores = Array.isArray(r.seat_scores) ? (r.seat_scores as number[]) : undefined;
    if (scores) this.run.seatScores = [...scores];
    return { ...data, seats, ...(scores ? { seat_scores: scores } : {}) };
  }
}
