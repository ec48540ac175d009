/**
 * Two seats in one world (OmniGameArena's PvP and co-op settings): one window, one engine, one
 * clock, and an agent, executor, prompt and record per seat. Each step captures one frame; the
 * seats the game names (`seatsToAct`: one in a turn-based game, both in a real-time one) decide
 * on it at the same time. How the world waits follows the latency mode, for both at once:
 * - stop and lcrt: the world stays frozen until every acting seat has answered, then both act
 *   (seat order) — neither seat's thinking costs it ticks;
 * - normal and slow: the world runs, and each seat's actions apply the moment its answer
 *   arrives — a slow seat acts on a stale frame (its `drift_ticks` count what it lost).
 * Input is sent one seat at a time; the engine is told whose clicks come next, and a seat's
 * executor refuses keys the game gives the other seat.
 */
import type { Action } from '../actions/schema.ts';
import { UNKNOWN_EFFECT } from './step-effect.ts';
import { describeAction, toWire } from '../actions/schema.ts';
import type { Agent, Decision, Observation, PreviousStep } from '../agents/agent-types.ts';
import type { ActionExecutor, ActionOutcome } from '../input/executor.ts';
import type { EpisodeSummary } from '../store/run-store.ts';
import { now } from '../util/time.ts';
import { round2 } from '../domain.ts';
import { capMoves } from './move-cap.ts';
import { Session } from './session.ts';
import { VIEW_SETTLE_MAX_MS, type SessionConfig } from './session-config.ts';
import type {
  SeenFrame,
  SeenTarget,
  Shot,
  SessionDeps,
  SessionStepRecord,
  StepClock,
  StepResult,
  StepTrace,
} from './session-types.ts';
import { isUnusable, previousStep, viewInputsSent } from './step-outcomes.ts';
import { clockRecord, frameHead, gameFields } from './step-record.ts';
import { seatDefinition, seatInstance } from './seat-view.ts';
import { isSeated, type GameDefinition, type Seat, type SeatedInstance } from '../../games/types.ts';
import type { BuiltinGame } from '../games/builtin-game.ts';

export interface SeatDeps {
  agent: Agent;
  /** Built with the seat's keys as its only keys: the other seat's are refused before they are sent. */
  executor: ActionExecutor;
}

/** One seat's part of a step, as it goes. */
interface SeatTurn {
  seat: Seat;
  decision: Decision;
  actions: Action[];
  dropped: Action[];
  computeMs: number;
  decideStart: number;
  decided: number;
  outcomes: ActionOutcome[];
  ticksAtAct: number | null;
  ticksActed: number | null;
  errors: string[];
}

export class SeatedSession extends Session {
  private readonly seats: readonly [SeatDeps, SeatDeps];
  private readonly defs: readonly [GameDefinition, GameDefinition];
  /** Each seat's previous step, for its next observation. */
  private previousBySeat: [PreviousStep | undefined, PreviousStep | undefined] = [undefined, undefined];
  /** What each seat did last, in words, for the other seat's next prompt. */
  private lastMoves: [string | undefined, string | undefined] = [undefined, undefined];
  /** Input goes out one seat at a time: the engine attributes clicks to the seat sending. */
  private sending: Promise<unknown> = Promise.resolve();
  /** View inputs expected so far this step (the view reports each; attribution waits for them). */
  private inputsExpected = 0;

  constructor(
    deps: Omit<SessionDeps, 'agent' | 'executor'> & { seats: readonly [SeatDeps, SeatDeps] },
    config: Partial<SessionConfig> = {},
  ) {
    super({ ...deps, agent: deps.seats[0].agent, executor: deps.seats[0].executor }, config);
    const game = deps.target.game;
    if (!game?.def.seats || !isSeated(game.instance))
      throw new Error('a two-seat session needs a two-seat built-in game');
    this.seats = deps.seats;
    this.defs = [seatDefinition(game.def, 0), seatDefinition(game.def, 1)];
  }

  private get game(): BuiltinGame {
    return this.deps.target.game!;
  }

  private get world2(): SeatedInstance {
    return this.game.instance as SeatedInstance;
  }

  protected override resetAgents() {
    for (const s of this.seats) s.agent.resetEpisode?.();
    this.previousBySeat = [undefined, undefined];
    this.lastMoves = [undefined, undefined];
  }

  protected override episodeExtras(): Partial<EpisodeSummary> {
    const winner = this.world2.winner();
    return { seat_scores: this.seatScores(), ...(winner !== undefined ? { winner } : {}) };
  }

  private seatScores(): number[] {
    return [round2(this.world2.seatScore(0)), round2(this.world2.seatScore(1))];
  }

  protected override async makeSafe() {
    await super.makeSafe();
    await this.seats[1].executor.releaseAll().catch(() => []);
  }

  protected override async step(episode: number, step: number, seen: SeenTarget): Promise<StepResult> {
    const trace = this.beginStep(episode, step, seen);
    const clock = await this.freeze(trace);
    const shot = await this.capture(trace, clock);
    const frame = await this.encode(trace, shot);
    const acting = this.world2.seatsToAct();
    // Running world: each seat acts the moment it has answered. Frozen world: all answer, then all act.
    const immediate = clock.mode === 'normal' || clock.mode === 'slow';
    this.game.drainInputs();
    this.inputsExpected = 0;
    trace.times.decideStart = now();
    const turns = await Promise.all(acting.map((seat) => this.turn(seat, trace, frame, clock, immediate)));
    trace.times.decided = Math.max(trace.times.decideStart, ...turns.map((t) => t.decided));
    if (!immediate && !this.abort.signal.aborted) {
      await clock.policy.beforeAct(this.world, Math.max(0, ...turns.map((t) => t.computeMs)), this.abort.signal);
      this.worldClock.sayWorld();
      for (const t of turns) await this.actSeat(t, frame, seen.win.id);
    }
    trace.times.applied = now();
    for (const t of turns) this.remember(t);
    const merged = {
      actions: turns.flatMap((t) => t.actions.slice(0, t.outcomes.length)),
      outcomes: turns.flatMap((t) => t.outcomes),
    };
    await this.settle(
      trace,
      { decision: { reasoning: '', actions: merged.actions }, actions: merged.actions, dropped: [], computeMs: 0 },
      { outcomes: merged.outcomes, refused: false, ticksAtAct: null, ticksActed: null },
      clock,
    );
    return this.recordSeats(trace, clock, shot, frame, turns);
  }

  /** One seat's decision on the step's frame (and, in a running world, its acting at once). */
  private async turn(
    seat: Seat,
    trace: StepTrace,
    frame: SeenFrame,
    clock: StepClock,
    immediate: boolean,
  ): Promise<SeatTurn> {
    const { episode, step } = trace;
    const w = this.world2;
    const other = (1 - seat) as Seat;
    const names = this.game.def.seats!.names;
    const obs: Observation = {
      step,
      episode,
      frame: frame.frame,
      geometry: frame.geometry,
      tCapture: frame.tCapture,
      gameText: w.text(),
      validMoves: w.seatValidMoves(seat),
      hits: this.deps.target.hits(),
      ...(this.previousBySeat[seat] ? { previous: this.previousBySeat[seat] } : {}),
      ...(this.lastMoves[other]
        ? { otherSeat: `${names[other]} (the other player) last did: ${this.lastMoves[other]}` }
        : {}),
    };
    const decideStart = now();
    let decision: Decision;
    try {
      decision = await this.seats[seat].agent.decide(obs, {
        actionSpace: this.config.actionSpace,
        game: this.defs[seat],
        instance: seatInstance(w, seat),
        signal: this.abort.signal,
        onToken: (text, channel) => this.emit('token', { episode, step, text, channel, seat }),
        ...(clock.mode === 'lcrt' ? { computeTime: true } : {}),
      });
    } catch (err) {
      decision = { reasoning: '', actions: [], error: `agent failed: ${(err as Error).message}` };
    }
    const decided = now();
    const errors: string[] = [
      ...(decision.parseErrors ?? []).map((e) => `parse: ${e}`),
      ...(decision.error ? [decision.error] : []),
    ];
    const { kept, dropped } = capMoves(decision.actions, this.game.def);
    const t: SeatTurn = {
      seat,
      decision,
      actions: kept,
      dropped,
      computeMs: decision.compute?.ms ?? decided - decideStart,
      decideStart,
      decided,
      outcomes: [],
      ticksAtAct: null,
      ticksActed: null,
      errors,
    };
    if (immediate && !this.abort.signal.aborted) {
      await clock.policy.beforeAct(this.world, t.computeMs, this.abort.signal);
      await this.actSeat(t, frame, trace.seen.win.id);
    }
    return t;
  }

  /** Sends a seat's actions, one seat at a time, and waits until the view has received them. */
  private actSeat(t: SeatTurn, frame: SeenFrame, windowId: string): Promise<void> {
    const run = async () => {
      if (this.abort.signal.aborted || !t.actions.length) return;
      const w = this.world2;
      w.setActingSeat(t.seat);
      try {
        t.ticksAtAct = this.world.ticks();
        t.outcomes = await this.perform(t.actions, frame.geometry, windowId, this.seats[t.seat].executor);
        t.ticksActed = this.world.ticks();
        const sent = viewInputsSent(t.actions, t.outcomes);
        this.inputsExpected += sent;
        if (sent) await this.game.waitForInputs(this.inputsExpected, VIEW_SETTLE_MAX_MS, this.abort.signal);
      } finally {
        w.setActingSeat(null);
      }
      const refused = t.outcomes.find((o) => !o.ok);
      if (refused) t.errors.push(`refused ${refused.action}: ${refused.error}`);
    };
    const next = this.sending.then(run, run);
    this.sending = next.catch(() => {});
    return next;
  }

  /** What the seat's next observation, and the other seat's next prompt, say of this step. */
  private remember(t: SeatTurn) {
    this.previousBySeat[t.seat] = previousStep(t.decision, t.dropped, t.outcomes);
    const did = t.outcomes.map((o) => `${o.action}${o.ok ? '' : ` (refused: ${o.error})`}`);
    this.lastMoves[t.seat] = did.length ? did.join(', ') : t.errors.length ? 'nothing usable' : 'nothing';
  }

  private recordSeats(trace: StepTrace, clock: StepClock, shot: Shot, frame: SeenFrame, turns: SeatTurn[]): StepResult {
    const names = this.game.def.seats!.names;
    const sum = (pick: (d: Decision) => number | undefined) => turns.reduce((n, x) => n + (pick(x.decision) ?? 0), 0);
    const seats = turns.map((x) => ({
      seat: x.seat,
      name: names[x.seat],
      agent: this.seats[x.seat].agent.name,
      reasoning: x.decision.reasoning,
      raw: x.decision.raw ?? null,
      actions: x.actions.map(toWire),
      ...(x.dropped.length ? { dropped_actions: x.dropped.map(toWire) } : {}),
      outcomes: x.outcomes,
      errors: x.errors,
      model_ms: round2(x.decided - x.decideStart),
      ...(x.ticksAtAct !== null && shot.ticksAtCapture !== null
        ? { drift_ticks: x.ticksAtAct - shot.ticksAtCapture }
        : {}),
      ...(x.ticksAtAct !== null && x.ticksActed !== null ? { act_ticks: x.ticksActed - x.ticksAtAct } : {}),
      ...(x.decision.usage ? { tokens: x.decision.usage } : {}),
      ...(x.decision.costUsd !== undefined ? { cost_usd: x.decision.costUsd } : {}),
      ...(x.decision.calls?.length ? { model_calls: x.decision.calls } : {}),
    }));
    const allActions = turns.flatMap((x) => x.actions);
    const outcomes = turns.flatMap((x) => x.outcomes);
    const errors = [...trace.errors, ...turns.flatMap((x) => x.errors.map((e) => `${names[x.seat]}: ${e}`))];
    const tokensIn = sum((d) => d.usage?.input);
    const tokensOut = sum((d) => d.usage?.output);
    const costs = turns.map((x) => x.decision.costUsd).filter((c): c is number => c !== undefined);
    const rec: SessionStepRecord = {
      ...frameHead(trace, frame),
      reasoning: turns.map((x) => `${names[x.seat]}: ${x.decision.reasoning}`).join('\n\n'),
      raw: null,
      actions: allActions.map(toWire),
      outcomes,
      errors,
      ...clockRecord(trace, clock, this.world, this.deps.target),
      ...(shot.freezeVerified !== undefined ? { freeze_verified: shot.freezeVerified } : {}),
      ...(trace.settle ? { settle: trace.settle } : {}),
      ...(trace.effect ?? UNKNOWN_EFFECT),
      ...(tokensIn || tokensOut ? { tokens: { input: tokensIn, output: tokensOut } } : {}),
      ...(costs.length ? { cost_usd: costs.reduce((a, b) => a + b, 0) } : {}),
      seats,
      ...gameFields(this.deps.target),
      seat_scores: this.seatScores(),
    };
    for (const x of turns)
      for (const call of x.decision.calls ?? [])
        this.deps.store.recordModelCall(call, { episode: rec.episode, step: rec.step });
    this.deps.store.appendStep(rec);
    this.audit.noteStep(rec, trace.seen.win);
    this.emit('step', { ...rec, actionsText: allActions.map(describeAction) });
    const refused = outcomes.some((o) => !o.ok);
    return {
      rec,
      refused,
      // A step is unusable when no acting seat brought usable actions.
      unusable: turns.every((x) => isUnusable(x.actions.length, x.errors.length, x.outcomes)),
    };
  }
}
