/**
 * One Session runs the loop, a step at a time in named stages — locate (and raise), freeze,
 * capture, encode, decide, act, settle, record — over episodes, until the game ends, the agent
 * says DONE/FAIL, or the step budget is spent (or the disk budget: then the run is stopped). It
 * emits typed events as it goes (the UI's live view) and writes every step to the run store,
 * with the frames its keep-frames setting keeps.
 *
 * The stages call small modules beside this file: target-view.ts (where the window is, raising
 * it, checking it before input), world-clock.ts (latency mode, freeze and thaw), action-sender.ts
 * and semantic-calls.ts (sending), settle-wait.ts (the game's answer), step-record.ts (the
 * record), takeover-desk.ts (a person taking the controls), run-gate.ts (pause and resume).
 */
import { EventEmitter } from 'node:events';
import { describeAction, isTerminal, type Action } from '../actions/schema.ts';
import type { Decision, PreviousStep } from '../agents/agent-types.ts';
import { encodeFrame, type EncodedFrame } from '../capture/encode.ts';
import { ActionExecutor, type ActionOutcome } from '../input/executor.ts';
import { frameGeometryOf, type FrameGeometry } from '../input/coordinates.ts';
import type { EpisodeSummary } from '../store/run-store.ts';
import { now, sleep } from '../util/time.ts';
import { CodedError, round2, type LatencyMode, type RunStatus, type WorldState } from '../domain.ts';
import type { ReflectionRecord } from './reflection-records.ts';
import { capMoves, profileMoveCap } from './move-cap.ts';
import { semanticMovesProblem } from '../profiles/profile-schema.ts';
import type { MilestoneProgress } from '../scoring/milestone-judging.ts';
import { EngineWorld, UnfreezableWorld, type World } from '../latency/world.ts';
import { logSession } from './session-log.ts';
import { FrameKeeper } from '../store/frame-budget.ts';
import { RunBudgets, type BudgetStop } from './run-budgets.ts';
import { DEFAULT_SESSION, encodeOptions, VIEW_SETTLE_MAX_MS, type SessionConfig } from './session-config.ts';
import type {
  Acted,
  Choice,
  EndReason,
  RunFinisher,
  SeenFrame,
  SeenTarget,
  SessionDeps,
  SessionEvents,
  SessionResult,
  Shot,
  StepClock,
  StepResult,
  StepTrace,
} from './session-types.ts';
import { dropStep, isUnusable, observationOf, previousStep, scoreSummary, unansweredStep } from './step-outcomes.ts';
import { agentStepRecord, frameEvent, frameHead } from './step-record.ts';
import { TargetView } from './target-view.ts';
import { SettleWait } from './settle-wait.ts';
import { ActionSender } from './action-sender.ts';
import { TakeoverDesk } from './takeover-desk.ts';
import { WorldClock } from './world-clock.ts';
import { RunGate } from './run-gate.ts';
import { closeRun } from './run-end.ts';
import { readEpisodeScore } from './episode-screen-score.ts';
import { RunAudit } from './run-audit.ts';
import { type EpisodeEnds, windowEpisodeEnds } from './episode-ends.ts';

export class Session extends EventEmitter<SessionEvents> {
  readonly config: SessionConfig;
  readonly executor: ActionExecutor;
  protected abort = new AbortController();
  /** The latency mode and the world it freezes and thaws. */
  protected readonly worldClock: WorldClock;
  /** What this episode's last step did, for the agent's next observation. */
  protected previous: PreviousStep | undefined;
  /** The frame the agent saw last (a fallback for the episode's screen score). */
  protected lastFrame: EncodedFrame | undefined;
  private readonly finishers: RunFinisher[] = [];
  private readonly keeper: FrameKeeper;
  private readonly budgets: RunBudgets;
  /** The most one step has written so far (bytes): what the disk budget expects of the next. */
  private stepBytes = 0;
  /** Aborted on stop, and when a person takes over mid-step: the step's model call and waits end. */
  private stepAbort = new AbortController();
  /** The executor is carrying out a plan (performHeard). */
  private acting = false;
  /** The episode the loop is in (for a takeover's record). */
  private episodeNow = 0;
  /** The stages' helpers: the window looked at and raised, input sent, the game's answer waited for, a person's takeover. */
  private readonly view: TargetView;
  private readonly sender: ActionSender;
  private readonly settleWait: SettleWait;
  /**
   * A person taking the controls and handing them back (the shell lets people in with
   * `takeover.accept(…)` before run()).
   */
  readonly takeover: TakeoverDesk;
  /** Pause, resume and single steps, and the wait for a hidden window. */
  readonly gate: RunGate;
  /** What the steps did and how the model answered: run.json's quality and timing, invalid episodes, no-effect warnings. */
  readonly audit: RunAudit;
  /** A profiled window's game end and reset (its profile's episode.end, episode.reset). */
  private readonly ends: EpisodeEnds | undefined;

  constructor(
    protected readonly deps: SessionDeps,
    config: Partial<SessionConfig> = {},
  ) {
    super();
    this.config = { ...DEFAULT_SESSION, ...config };
    this.executor = deps.executor ?? new ActionExecutor();
    this.keeper = new FrameKeeper(this.config.keepFrames);
    this.gate = new RunGate(this.abort.signal, {
      status: (st, why) => this.emit('status', st, why),
      warn: (m) => this.emit('warning', m),
    });
    this.view = new TargetView(deps, this.abort.signal, (m) => this.emit('warning', m));
    this.sender = new ActionSender(deps, this.view);
    this.settleWait = new SettleWait(deps, this.config);
    this.audit = new RunAudit({ ...deps, label: deps.target.label }, this.config.effectWarnAfter, (m) =>
      this.emit('warning', m),
    );
    this.takeover = new TakeoverDesk(this.takeoverHost(), deps, this.config);
    this.budgets = new RunBudgets(deps.store.dir, this.config, deps.meter);
    const world =
      deps.world ??
      (deps.target.game
        ? new EngineWorld(deps.target.game)
        : new UnfreezableWorld('no way to freeze this window was given'));
    this.worldClock = new WorldClock(world, this.config.latency, this.config, deps.target.game, (event, state) =>
      this.emit(event, state),
    );
    const noMoves = semanticMovesProblem(this.config.actionSpace, !!deps.target.game, deps.profile);
    if (noMoves) throw new CodedError('bad-input', noMoves);
    const parts = { view: this.view, sender: this.sender, takeover: this.takeover, encode: encodeOptions(this.config) };
    this.ends = windowEpisodeEnds(deps, { ...parts, warn: (m) => this.emit('warning', m) });
    logSession(this, deps.store);
  }

  /** Work between episodes (reflection): runs after each episode but the last, before the next begins. */
  betweenEpisodes(work: NonNullable<SessionConfig['afterEpisode']>) {
    this.config.afterEpisode = work;
  }

  /** Reports a reflection made between episodes, or an episode's milestone checklist, to whoever follows this run. */
  reportReflection(rec: ReflectionRecord) {
    this.emit('reflection', rec);
  }
  reportMilestones(p: MilestoneProgress) {
    this.emit('milestones', p);
  }

  /** Work awaited after the last episode, before run.json is final. */
  beforeClose(work: RunFinisher) {
    this.finishers.push(work);
  }

  get store() {
    return this.deps.store;
  }

  get agent() {
    return this.deps.agent;
  }

  /** Aborted by stop(): work beside the loop (reflection between episodes) ends with it. */
  get stopSignal(): AbortSignal {
    return this.abort.signal;
  }

  /**
   * Lets go of what the agent holds, the run going on: a plan being carried out ends now (a
   * WAIT with a key down included), and every key and button is released. For a player that
   * went away (an MCP client whose connection closed, or gone quiet holding keys). A step whose
   * player is still deciding is left alone.
   */
  async releaseHeld(): Promise<string[]> {
    if (this.acting) this.stepAbort.abort();
    if (!this.executor.held().length) return [];
    const released = await this.executor.releaseAll().catch(() => []);
    if (released.length) this.emit('released', released);
    return released;
  }

  /**
   * Stops at once: aborts the model call and any wait, and right away (not after an in-flight
   * call returns) thaws a frozen world and releases held input. The run's end does it again.
   */
  stop() {
    this.abort.abort();
    this.stepAbort.abort();
    this.gate.wake();
    void this.makeSafe();
  }

  /** A new episode: the agent forgets the last one. */
  protected resetAgents() {
    this.deps.agent.resetEpisode?.();
  }

  /** What an episode's summary adds beside its score (a two-seat game's result). */
  protected episodeExtras(): Partial<EpisodeSummary> {
    return {};
  }

  /**
   * Cancels clock timers, thaws the world, releases held input (on stop, at the end, and when a
   * person takes over). Idempotent; never throws.
   */
  protected async makeSafe() {
    await this.worldClock.thaw(); // starts synchronously: a frozen engine or process resumes inside stop()
    const released = await this.executor.releaseAll().catch(() => []);
    if (released.length) this.emit('released', released);
  }

  /** Switches the latency mode; it takes effect at the next step. */
  setLatency(mode: LatencyMode) {
    this.worldClock.setMode(mode);
  }

  get latency(): WorldState {
    return this.worldClock.state;
  }

  /** The world as it is now (engine, pause key, process, or one that cannot be frozen). */
  protected get world(): World {
    return this.worldClock.world;
  }

  /** What the takeover desk needs of this session. */
  private takeoverHost(): ConstructorParameters<typeof TakeoverDesk>[0] {
    return {
      signal: this.abort.signal,
      executor: this.executor,
      emit: this.emit.bind(this),
      yieldStep: () => {
        this.stepAbort.abort();
        if (this.gate.isPaused) this.gate.resume();
      },
      makeSafe: () => this.makeSafe(),
      handedBack: (previous) => {
        this.previous = previous;
      },
      episode: () => this.episodeNow,
      clockFields: () => ({ latency_mode: this.latency.mode, world: this.world.kind }),
    };
  }

  async run(): Promise<SessionResult> {
    const { store, target } = this.deps;
    const episodes: EpisodeSummary[] = [];
    let status: RunStatus = 'completed';
    let error: string | undefined;
    this.emit('status', 'running');
    try {
      await this.view.showMinimized();
      await this.takeover.listen();
      for (let e = 0; e < this.config.episodes && !this.abort.signal.aborted; e++) {
        this.episodeNow = e;
        this.takeover.log.newEpisode();
        target.game?.reset(this.config.seed, e);
        this.resetAgents();
        this.deps.scorer?.resetEpisode();
        this.previous = undefined;
        if (target.game) await target.game.shows(VIEW_SETTLE_MAX_MS, this.abort.signal);
        this.worldClock.applyIdleLimit();
        await this.ends?.beforeEpisode(e, this.lastFrame, this.abort.signal);
        const { steps, end } = await this.episode(e);
        const screen = await readEpisodeScore(target.game ? undefined : this.deps.scorer, {
          // The frame that ended the game, else the window now: the episode's final state.
          frame: async () =>
            this.ends?.endFrame ?? (await this.view.frameNow(encodeOptions(this.config))) ?? this.lastFrame,
          steps,
          signal: this.abort.signal,
          warn: (m) => this.emit('warning', m),
        });
        const score = target.game ? round2(target.game.instance.score()) : (screen?.score ?? null);
        const played: EpisodeSummary = {
          episode: e,
          seed: this.config.seed,
          score,
          steps,
          end,
          ...(screen ? { raw_score: screen.value, screen_readings: screen.readings } : {}),
          ...this.audit.episodeVerdict(e),
          ...this.ends?.record(),
          ...this.episodeExtras(),
        };
        episodes.push(played);
        this.emit('episode', played);
        store.update({ episodes, ...scoreSummary(episodes) });
        if (this.budgets.stop) {
          status = 'stopped';
          error = this.budgets.stop.reason;
          break;
        }
        if (this.config.afterEpisode && e + 1 < this.config.episodes && !this.abort.signal.aborted)
          await this.config.afterEpisode(played, this);
        if (end === 'stopped') status = 'stopped';
      }
      if (this.abort.signal.aborted) status = 'stopped';
    } catch (err) {
      status = this.abort.signal.aborted ? 'stopped' : 'failed';
      error = (err as Error).message;
    } finally {
      await this.takeover.close();
      await this.makeSafe();
      this.settleWait.close();
      await Promise.all([this.deps.scorer?.close(), this.ends?.close()]);
    }
    const end = { status, error, episodes, audit: this.audit };
    const result = await closeRun(store, this.finishers, end, (m) => this.emit('warning', m));
    this.emit('status', result.status);
    return result;
  }

  /**
   * An episode's steps until it ends. The step budget counts the agent's steps: a person's
   * (a takeover's, recorded at the recorder's rate) are numbered in the same sequence but are
   * not the agent's to spend.
   */
  private async episode(e: number): Promise<{ steps: number; end: EndReason }> {
    let consecutiveErrors = 0;
    const deadline = this.config.maxSeconds !== undefined ? now() + this.config.maxSeconds * 1000 : Infinity;
    let s = 0; // the next step's number
    for (let agentSteps = 0; agentSteps < this.config.maxSteps; ) {
      if (now() >= deadline) return { steps: s, end: 'max_time' };
      const written = this.deps.store.bytesWritten;
      if (this.overBudget(this.budgets.check(written, this.stepBytes)))
        return { steps: s, end: this.budgets.stop!.end };
      const seen = await this.locate();
      if (!seen) return { steps: s, end: 'stopped' };
      if (this.takeover.open) {
        if (await this.humanStep(e, s, seen)) s++;
        if (this.abort.signal.aborted) return { steps: s, end: 'stopped' };
        if (this.deps.target.game?.instance.isOver()) return { steps: s, end: 'game_over' };
        continue;
      }
      agentSteps++;
      const started = now();
      const r = await this.step(e, s, seen);
      if ('unanswered' in r) return { steps: s, end: r.unanswered };
      const { rec, terminal, refused, unusable } = r;
      this.stepBytes = Math.max(this.stepBytes, this.deps.store.bytesWritten - written);
      if (this.deps.scorer?.dueAfter(s) && this.lastFrame && !this.abort.signal.aborted)
        await this.deps.scorer.read(this.lastFrame, s, this.abort.signal);
      s++;
      if (this.overBudget(this.budgets.spent())) return { steps: s, end: 'budget' }; // before a refused call counts as an error
      const spare = this.config.paceMs - (now() - started);
      if (spare > 0) await sleep(spare, this.abort.signal);
      consecutiveErrors = unusable ? consecutiveErrors + 1 : 0;
      if (consecutiveErrors >= this.config.maxErrors) {
        throw new Error(`${consecutiveErrors} steps in a row without usable actions; last error: ${rec.errors.at(-1)}`);
      }
      if (this.abort.signal.aborted) return { steps: s, end: 'stopped' };
      if (this.deps.target.game?.instance.isOver()) return { steps: s, end: 'game_over' };
      if (await this.ends?.afterStep(e, s - 1, this.abort.signal)) return { steps: s, end: 'game_over' };
      if (terminal && !refused) return { steps: s, end: terminal === 'DONE' ? 'done' : 'fail' };
    }
    return { steps: s, end: 'max_steps' };
  }

  /** A budget stops the run (RunBudgets keeps why, for run.json): said once. */
  private overBudget(stop: BudgetStop | undefined): boolean {
    if (stop) this.emit('warning', stop.reason);
    return !!stop;
  }

  /**
   * A step of the person's: the frame at TAKEOVER_FPS; the input heard until the next frame is
   * the step's actions (written then, or at hand-back). The world runs; nothing is sent.
   * Returns whether a frame was taken (the step's number is used).
   */
  private async humanStep(episode: number, step: number, seen: SeenTarget): Promise<boolean> {
    if (!(await this.takeover.frameDue(seen))) return false;
    const trace = this.beginStep(episode, step, seen);
    const hint = { maxLongSide: this.config.imageSize, reuseBuffers: true };
    const raw = await this.deps.capturer.grab(seen.visible, hint);
    trace.times.captured = now();
    if (await this.takeover.covered(seen)) return false; // came over while the frame was taken
    const frame = await this.encode(trace, { raw, tCapture: Date.now(), ticksAtCapture: null });
    this.takeover.framed(trace, frameHead(trace, frame));
    return true;
  }

  /**
   * The locate stage: where the window is now, raised over what covers it (TargetView.locate:
   * it waits while the run is paused or the window cannot be seen); undefined once stopped.
   */
  private locate(): Promise<SeenTarget | undefined> {
    // A person who has the controls decides which window has focus.
    return this.view.locate(this.gate, { raise: () => !this.takeover.open, quietMs: this.config.settleQuietMs });
  }

  /** One step, stage by stage (locate is done before), each adding to its trace; an unanswered one is no step. */
  protected async step(episode: number, step: number, seen: SeenTarget): Promise<StepResult> {
    const trace = this.beginStep(episode, step, seen);
    const clock = await this.freeze(trace);
    const shot = await this.capture(trace, clock);
    const seenFrame = await this.encode(trace, shot);
    const choice = await this.decide(trace, seenFrame, clock);
    const unanswered = unansweredStep(choice.decision, this.takeover.open, this.abort.signal.aborted);
    if (unanswered) return dropStep(unanswered, seenFrame, this.deps.store, this.worldClock);
    const acted = await this.act(trace, choice, seenFrame, clock);
    await this.settle(trace, choice, acted, clock);
    return this.record(trace, clock, shot, seenFrame, choice, acted);
  }

  /** A step's trace from its start (the locate stage's time included), announced to followers. */
  protected beginStep(episode: number, step: number, seen: SeenTarget): StepTrace {
    const trace: StepTrace = {
      episode,
      step,
      seen,
      errors: [],
      times: { start: now() - seen.locateMs, located: now() },
    };
    this.stepAbort = new AbortController();
    if (this.abort.signal.aborted) this.stepAbort.abort();
    this.emit('step-start', { episode, step });
    return trace;
  }

  /** Freeze: the world waits (or not) as the latency mode says, from the capture on. */
  protected freeze(trace: StepTrace): Promise<StepClock> {
    return this.worldClock.freeze(trace.errors);
  }

  /** Capture: the part of the window on the screen (located and raised just now); a frozen window is checked to stay still. */
  protected async capture(trace: StepTrace, clock: StepClock): Promise<Shot> {
    const { target, capturer } = this.deps;
    const { visible } = trace.seen;
    const tCapture = Date.now();
    // X11 scales in the server; the step is done with the pixels once encoded, so its buffers may be reused.
    const hint = { maxLongSide: this.config.imageSize, reuseBuffers: true };
    let raw = await capturer.grab(visible, hint);
    const check = await this.worldClock.checkFreeze(raw, () => capturer.grab(visible, hint), this.abort.signal);
    if (check) raw = check.raw;
    if (check?.held === false) {
      const kind = this.world.kind;
      trace.errors.push(`the ${kind} freeze did not hold: the window kept changing while frozen`);
      this.emit('warning', `${target.label} ignores the ${kind} freeze; latency modes cannot hold this game still`);
    }
    const ticksAtCapture = this.world.ticks();
    clock.policy.afterCapture(this.world);
    trace.times.captured = now();
    return { raw, tCapture, ticksAtCapture, ...(check ? { freezeVerified: check.held } : {}) };
  }

  /** Encode: the image the model sees, written to the run folder and shown live. */
  protected async encode(trace: StepTrace, shot: Shot): Promise<SeenFrame> {
    const { win, visible } = trace.seen;
    const frame = await encodeFrame(shot.raw, encodeOptions(this.config));
    trace.times.encoded = now();
    const file = this.keeper.shouldKeep(trace.episode, trace.step, shot.raw)
      ? this.deps.store.writeFrame(trace.episode, trace.step, frame.data, frame.mime === 'image/png' ? 'png' : 'jpg')
      : null;
    const geometry = frameGeometryOf(win, visible, frame, this.deps.profile?.actions.pointerArea);
    this.view.noticeClipping(geometry);
    const seen = { frame, file, geometry, tCapture: shot.tCapture };
    this.emit('frame', frameEvent(trace, seen));
    return seen;
  }

  /** Decide: the agent's answer for this observation, its moves capped at the game's per-step limit. */
  private async decide(trace: StepTrace, seen: SeenFrame, clock: StepClock): Promise<Choice> {
    const { target, agent } = this.deps;
    const { episode, step } = trace;
    const game = target.game;
    const obs = observationOf(trace, seen, target, this.previous);
    const tDecide = now();
    let decision: Decision;
    try {
      decision = await agent.decide(obs, {
        actionSpace: this.config.actionSpace,
        ...(game ? { game: game.def, instance: game.instance } : {}),
        ...(this.deps.profile ? { profile: this.deps.profile } : {}),
        // The step's own signal (aborted on stop and when a person takes over): libraries that
        // listen on it leave no listeners behind on the run's.
        signal: this.stepAbort.signal,
        onToken: (text, channel) => this.emit('token', { episode, step, text, channel }),
        onMemory: (m) => this.emit('memory', { ...m, episode, step }),
        ...(clock.mode === 'lcrt' ? { computeTime: true } : {}),
      });
    } catch (err) {
      decision = { reasoning: '', actions: [], error: `agent failed: ${(err as Error).message}` };
    }
    if (this.takeover.open)
      decision = {
        ...decision,
        actions: [],
        error: 'a person took over: this answer was not acted on',
        parseErrors: [],
      };
    trace.times.decideStart = tDecide;
    trace.times.decided = now();
    this.lastFrame = seen.frame;
    if (decision.parseErrors?.length) trace.errors.push(...decision.parseErrors.map((e) => `parse: ${e}`));
    if (decision.error && !trace.errors.includes(decision.error)) trace.errors.push(decision.error);
    // Moves past the game's per-step cap are dropped, not executed (GameVerse: one move a step).
    const { kept: actions, dropped } = capMoves(decision.actions, game?.def ?? profileMoveCap(this.deps.profile));
    // LCRT charges the model's compute time: reported or estimated without the network; the wall time only as a last resort.
    const computeMs = decision.compute?.ms ?? trace.times.decided - tDecide;
    return { decision, actions, dropped, computeMs };
  }

  /**
   * Act with the world running (lcrt first lets it run for the model's compute time): a held
   * key or a WAIT takes game time in every mode; only the next inference freezes it again.
   */
  private async act(trace: StepTrace, choice: Choice, seen: SeenFrame, clock: StepClock): Promise<Acted> {
    const game = this.deps.target.game;
    const signal = this.stepAbort.signal;
    if (!signal.aborted) await clock.policy.beforeAct(this.world, choice.computeMs, signal);
    this.worldClock.sayWorld();
    const ticksAtAct = this.world.ticks();
    game?.drainInputs();
    if (choice.actions.length) await this.settleWait.prepare(trace.seen.win.id, signal);
    const outcomes = signal.aborted ? [] : await this.performHeard(choice.actions, seen.geometry, trace.seen.win.id);
    const ticksActed = this.world.ticks();
    const refused = outcomes.find((o) => !o.ok);
    if (refused)
      trace.errors.push(
        `refused ${refused.action}: ${refused.error}${refused.released ? `; released ${refused.released.join(', ')}` : ''}`,
      );
    this.previous = previousStep(choice.decision, choice.dropped, outcomes);
    trace.times.applied = now();
    return { outcomes, refused: !!refused, ticksAtAct, ticksActed };
  }

  /**
   * Settle: the world goes on as the mode says after acting, and the game gets to react
   * before the next capture. A built-in view reports each input it received, so we wait
   * exactly until they all arrived and were drawn; another window is waited for until it has
   * drawn its answer and holds still (X11), or for a fixed time.
   */
  protected async settle(trace: StepTrace, choice: Choice, acted: Acted, clock: StepClock) {
    const signal = this.stepAbort.signal;
    await clock.policy.afterAct(this.world, signal);
    this.worldClock.sayWorld();
    if (choice.actions.length && !signal.aborted)
      ({ settle: trace.settle, effect: trace.effect } = await this.settleWait.wait(
        choice.actions,
        acted.outcomes,
        signal,
      ));
    trace.times.settled = now();
  }

  /** Record: the step's record, assembled from every stage (step-record.ts), appended to the run and emitted. */
  private record(
    trace: StepTrace,
    clock: StepClock,
    shot: Shot,
    seen: SeenFrame,
    choice: Choice,
    acted: Acted,
  ): StepResult {
    const { decision, actions } = choice;
    const rec = agentStepRecord(trace, { clock, shot, seen, choice, acted }, this.world, this.deps.target);
    // Before the step line: appending it writes run.json, with these calls' sums in it.
    for (const call of decision.calls ?? [])
      this.deps.store.recordModelCall(call, { episode: rec.episode, step: rec.step });
    this.deps.store.appendStep(rec);
    this.audit.noteStep(rec, trace.seen.win);
    this.takeover.agentStep(rec);
    this.emit('step', { ...rec, actionsText: actions.map(describeAction) });
    const terminal = actions.find(isTerminal);
    return {
      rec,
      refused: acted.refused,
      // A step a person cut short is not the agent's failure.
      unusable: !this.takeover.open && isUnusable(actions.length, rec.errors.length, acted.outcomes),
      ...(terminal?.kind === 'gui' ? { terminal: terminal.type } : {}),
    };
  }

  /**
   * Sends the actions (ActionSender): GUI ones through the executor, the window checked first;
   * semantic moves to the engine or the profile's expansion. A step with a refusal ends with
   * nothing held.
   */
  protected perform(
    actions: Action[],
    geometry: FrameGeometry,
    windowId: string,
    executor: ActionExecutor = this.executor,
  ): Promise<ActionOutcome[]> {
    return this.sender.perform(actions, geometry, windowId, executor, this.stepAbort.signal);
  }

  /**
   * perform(), with the person's input path told that what it hears meanwhile is the agent's:
   * the span opens before the first action (the hook hears input while the executor acts, a
   * WAIT with a held key included), and closes when the last one is done.
   */
  private async performHeard(actions: Action[], geometry: FrameGeometry, windowId: string): Promise<ActionOutcome[]> {
    if (!actions.length) return [];
    const done = this.takeover.agentActs(Date.now());
    this.acting = true;
    try {
      return await this.perform(actions, geometry, windowId);
    } finally {
      this.acting = false;
      done(Date.now());
    }
  }
}
