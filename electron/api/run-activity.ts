/**
 * A run started over the contract, as the activity slot holds it: built from a StartRun
 * request through the composition root, its session's events relayed to the contract's event
 * stream, and the live controls (pause, step, latency mode, reflection, lessons).
 */
import type { WindowManager } from '../../native/types.ts';
import {
  liveScore,
  type CoreEvent,
  type LiveRun,
  type ParamsOut,
  type Results,
  type StartRun,
  type StepEventData,
  type TakeoverWire,
  type WorldState,
} from './contract.ts';
import type { TakeoverState } from '../session/session-types.ts';
import { openPersonInput } from '../recording/person-input.ts';
import { hotkeyKeys, type GamepilotHotkeys } from '../input/accelerator.ts';
import type { Activity } from './activity.ts';
import type { RunModelSettings } from './settings-service.ts';
import { agentFor, metered, openTarget, wireSession } from '../session/compose.ts';
import { agentKind } from '../session/front-door.ts';
import { preflightRun } from '../session/preflight.ts';
import {
  namedAsWords,
  parseAgentSpec,
  parseRunSpec,
  RunSpecError,
  type RunSpec,
  type RunSpecInput,
} from '../run-spec.ts';
import { profileChoice } from './profiles.ts';
import { profileFormula } from '../scoring/normalise.ts';
import type { Profile } from '../profiles/profile-schema.ts';
import type { ScreenScoreReader } from '../scoring/screen-reader.ts';
import { withScreenScoreSoFar } from './screen-score-so-far.ts';
import type { Session } from '../session/session.ts';
import type { SessionEvents } from '../session/session-types.ts';
import type { Target, ViewLauncher } from '../session/targets.ts';
import type { ScreenCapturer } from '../capture/capturer.ts';
import type { RunStore } from '../store/run-store.ts';
import { TITLE_TUTORIAL, tutorialSourcePath } from '../store/tutorials.ts';
import { modelSpecFields, VlmAgent } from '../agents/vlm.ts';
import type { Agent } from '../agents/agent-types.ts';
import {
  attachReflection,
  checkReflectionRequest,
  readyRun,
  type ReadyRun,
  type ReflectionRequest,
} from '../reflection/setup.ts';
import type { ReflectAndRetry } from '../reflection/retry.ts';
import { DEFAULT_REFLECTION_SAMPLING } from '../reflection/sampling.ts';
import {
  CodedError,
  isModelAgent,
  type MemoryStepRecord,
  type ControlAction,
  type TakeoverTrigger,
  type ReflectAfter,
  type ReflectVideo,
  type ReflectionMode,
} from '../domain.ts';
import { MemoryAgent } from '../agents/memory-agent.ts';
import { checkFramesFor, reflectionReadsFrames } from '../store/frame-budget.ts';

/** What a run needs from the core around it. */
export interface RunContext {
  wm: WindowManager;
  capturer: ScreenCapturer;
  runsDir: string;
  /** The config folder: the user's profiles (`profiles/`) and memory stores (`memory/<scope>.json`). */
  configDir: string;
  launchView?: ViewLauncher;
  /** The configured model (throws when none is). */
  model(): RunModelSettings;
  /** The long side of the images the model gets (Settings). */
  imageSize: number;
  emit(e: CoreEvent): void;
  /** The session paused or resumed itself. */
  phase(run: RunActivity, phase: 'running' | 'paused'): void;
  /** The shell's hotkeys (stop, take over): no agent presses them, and their keys are not a person's play. */
  hotkeys: GamepilotHotkeys;
}

/** A contract's tutorial as a run's: "solver" and "title" as they are, an id as its path in the runs folder. */
const tutorialFrom = (runsDir: string, ref: string) =>
  ref === 'solver' || ref === TITLE_TUTORIAL ? ref : tutorialSourcePath(runsDir, ref);

/** A reflection request over the contract: a tutorial is "solver", "title" or a run id, never a path. */
function reflectionRequest(
  r: {
    mode: ReflectionMode;
    tutorial?: string | undefined;
    after: ReflectAfter;
    maxWords: number;
    reflectorModel?: string | undefined;
    video?: ReflectVideo | undefined;
  },
  ctx: RunContext,
): ReflectionRequest {
  const vlm = ctx.model();
  // Only the runs folder is ever read.
  const tutorial = r.tutorial === undefined ? r.tutorial : tutorialFrom(ctx.runsDir, r.tutorial);
  const req: ReflectionRequest = {
    mode: r.mode,
    ...(tutorial ? { tutorial } : {}),
    after: r.after,
    successScore: 100,
    sample: DEFAULT_REFLECTION_SAMPLING,
    reflector: {
      maxWords: r.maxWords,
      ...(r.video ? { video: r.video } : {}),
      ...(r.reflectorModel ? { model: r.reflectorModel } : {}),
      ...(vlm.baseUrl ? { baseUrl: vlm.baseUrl } : {}),
      ...(vlm.apiKey ? { apiKey: vlm.apiKey } : {}),
    },
  };
  try {
    checkReflectionRequest(req, vlm.model);
  } catch (err) {
    throw new CodedError('bad-input', (err as Error).message);
  }
  return req;
}

/**
 * The RunSpec a start-run request asks for: its settings are already the spec's fields; the
 * target becomes `game` or `windowId`, the model settings come from Settings, and the tutorial
 * becomes a path inside the runs folder.
 */
export function specFromRequest(req: StartRun, ctx: Pick<RunContext, 'model' | 'imageSize' | 'runsDir'>): RunSpec {
  const { target, profile: _profile, review: _review, tutorial, ...settings } = req;
  const modelSeat = req.seats?.some((s) => isModelAgent(parseAgentSpec(s).agent));
  // A model player needs the configured model; any other one-seat player gets it, when there is
  // one, for what a model does beside playing (reading a window's score, judging milestones).
  const vlm =
    (req.agent && isModelAgent(agentKind({ agent: req.agent }))) || modelSeat
      ? ctx.model()
      : req.seats
        ? undefined
        : configured(ctx);
  const input: RunSpecInput = {
    ...settings,
    ...target,
    // Only the runs folder is ever read.
    ...(tutorial ? { tutorial: tutorialFrom(ctx.runsDir, tutorial) } : {}),
    imageSize: ctx.imageSize,
    ...(vlm ? modelSpecFields(vlm) : {}),
  };
  return badInput(() => parseRunSpec(input));
}

/** The model in Settings, if one is configured. */
function configured(ctx: Pick<RunContext, 'model'>): RunModelSettings | undefined {
  try {
    return ctx.model();
  } catch {
    return undefined;
  }
}

/** The run a request asks for, through the one spec and front door the CLI and sweeps use too. */
export function runFromRequest(req: StartRun, ctx: RunContext): ReadyRun {
  const spec = specFromRequest(req, ctx);
  return badInput(() =>
    readyRun(spec, {
      outDir: ctx.runsDir,
      capturer: ctx.capturer,
      configDir: ctx.configDir,
      profile: profileChoice(req.profile, ctx.configDir),
      hotkeys: ctx.hotkeys,
    }),
  );
}

function badInput<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof RunSpecError) throw new CodedError('bad-input', err.as(namedAsWords));
    throw err;
  }
}

/** How a run is opened besides its request. */
export interface RunOpenOptions {
  /** The web shell's demo (kept out of tables). */
  demo?: boolean;
  /** A player from outside the process (an MCP client) instead of the request's agent. */
  agent?: Agent;
}

export class RunActivity implements Activity {
  readonly kind = 'run' as const;
  readonly finished: Promise<string | null>;
  /** What the live view shows of this run; a copy goes out with every state. */
  readonly run: LiveRun;
  /** A window scored off its screen: what it read so far this episode. */
  private readonly scorer: ScreenScoreReader | undefined;

  protected constructor(
    readonly session: Session,
    private readonly target: Target,
    store: RunStore,
    req: StartRun,
    demo: boolean,
    private reflection: ReflectAndRetry | undefined,
    private readonly ctx: RunContext,
    scoring: { profile?: Profile | undefined; scorer?: ScreenScoreReader | undefined } = {},
  ) {
    const profile = scoring.profile;
    this.scorer = scoring.scorer;
    this.run = {
      id: store.meta.id,
      dir: store.dir,
      target: target.label,
      game: store.meta.game,
      agent: store.meta.seats ? store.meta.agent : session.agent.name,
      model: store.meta.model,
      actionSpace: req.actionSpace,
      demo,
      episode: 0,
      step: 0,
      episodes: req.episodes,
      maxSteps: Number(store.meta.config.max_steps),
      score: null,
      gameScore: null,
      scoreFormula: profile ? profileFormula(profile.scoring) : null,
      tokens: { input: 0, output: 0 },
      costUsd: null,
      latency: session.latency,
      timing: {},
      reflection:
        // One model player (a two-seat session's agent is only its first seat's).
        !store.meta.seats && session.agent instanceof VlmAgent
          ? {
              mode: reflection?.opts.mode ?? 'none',
              review: req.review,
              lessons: '',
              reflectorModel: reflection && reflection.opts.mode !== 'none' ? reflection.opts.reflector.model : null,
            }
          : null,
      ...(store.meta.memory
        ? {
            memory: {
              scope: store.meta.memory.scope,
              retrieval: store.meta.memory.retrieval,
              ...(store.meta.memory.retrieval_note ? { note: store.meta.memory.retrieval_note } : {}),
              embeddingModel: store.meta.memory.embedding_model,
            },
          }
        : {}),
      ...(store.meta.seats ? { seats: store.meta.seats.map((s) => ({ ...s })) } : {}),
      ...(store.meta.seats ? {} : { takeover: takeoverWire(session.takeover.state) }),
      pausedBecause: null,
    };
    if (!store.meta.seats) session.takeover.accept(openPersonInput, { ignoreKeys: hotkeyKeys(ctx.hotkeys) });
    this.relay();
    this.finished = session.run().then(
      (result) => (result.status === 'failed' ? (result.error ?? 'the run failed') : null),
      (err: Error) => err.message,
    );
  }

  /** Opens the target and starts the run; undoes what it did when it cannot (a failed run folder, the window closed). */
  static async open(req: StartRun, ctx: RunContext, opts: RunOpenOptions = {}): Promise<RunActivity> {
    let target: Target | undefined;
    let store: RunStore | undefined;
    try {
      const run = runFromRequest(req, ctx);
      const { spec, reflection: reflectionReq } = run;
      const place = metered(spec, run.place);
      // A player from outside plays only a run that says so (without one, agentFor refuses mcp).
      if (opts.agent && spec.agent !== 'mcp')
        throw new CodedError('bad-input', `an MCP client plays only a run of agent mcp, not ${spec.agent}`);
      const agent = opts.agent ?? agentFor(spec, place);
      await preflightRun(run, ctx.wm);
      target = await openTarget(req.target, ctx.wm, ctx.launchView);
      const wired = wireSession(spec, place, target, agent, ctx.wm);
      store = wired.store;
      if (opts.demo) store.update({ demo: true });
      const runId = store.meta.id;
      const loop = reflectionReq
        ? (
            await attachReflection(reflectionReq, wired.session, target.game?.def, (m) =>
              ctx.emit({ type: 'warning', runId, message: m }),
            )
          ).loop
        : undefined;
      return new RunActivity(wired.session, target, store, req, !!opts.demo, loop, ctx, {
        profile: wired.profile?.profile,
        scorer: wired.scorer,
      });
    } catch (err) {
      store?.close('failed', (err as Error).message);
      await target?.close().catch(() => {});
      throw err;
    }
  }

  stop() {
    this.session.stop();
  }

  /** What the agent holds is let go; the run goes on (Session.releaseHeld). */
  releaseHeld(): Promise<string[]> {
    return this.session.releaseHeld();
  }

  async close() {
    await this.target.close();
  }

  /** Pause, resume, a single step, take over, hand back; stopping goes through the activity slot. */
  async control(action: Exclude<ControlAction, 'stop'>) {
    if (action === 'pause') this.session.gate.pause('paused from the controls');
    if (action === 'resume') this.session.gate.resume();
    if (action === 'step') this.session.gate.stepOnce();
    if (action === 'takeover') await this.takeOver('button');
    if (action === 'handback') await this.session.takeover.handBack();
  }

  /** A person takes the controls (button, hotkey); a two-seat run has a person's seat instead. */
  async takeOver(trigger: TakeoverTrigger): Promise<TakeoverWire> {
    if (!this.run.takeover)
      throw new CodedError('bad-input', 'a two-seat run cannot be taken over: play a seat as human instead');
    return takeoverWire(await this.session.takeover.takeOver(trigger));
  }

  /** The take-over hotkey: takes the controls, or hands them back when a person has them. */
  async toggleTakeover(trigger: TakeoverTrigger): Promise<TakeoverWire> {
    if (!this.run.takeover) return this.takeOver(trigger); // says why a two-seat run cannot
    return takeoverWire(await this.session.takeover.toggle(trigger));
  }

  setLatency(mode: ParamsOut<'setLatency'>['mode']): WorldState {
    this.session.setLatency(mode);
    return this.run.latency;
  }

  /** Switches reflection for this run; it takes effect at the next attempt. */
  async setReflection({ mode, review, reflectorModel }: ParamsOut<'setReflection'>): Promise<Results['setReflection']> {
    const shown = this.modelRun();
    if (reflectionReadsFrames(mode)) {
      const { keepFrames, maxSteps } = this.session.config;
      checkFramesFor(`reflection ${mode}`, keepFrames, maxSteps);
    }
    if (!this.reflection && mode !== 'none') {
      this.reflection = await this.attach(
        reflectionRequest({ mode, after: 'failed', maxWords: 150, reflectorModel }, this.ctx),
      );
    } else if (this.reflection) {
      try {
        this.reflection.setMode(mode, reflectorModel); // refuses "other" without a different model
      } catch (err) {
        throw new CodedError('bad-input', (err as Error).message);
      }
      this.session.store.update({ reflection: this.reflection.summary() });
    }
    shown.mode = mode;
    shown.reflectorModel = this.reflection && mode !== 'none' ? this.reflection.opts.reflector.model : null;
    if (review !== undefined) shown.review = review;
    return { mode, review: shown.review };
  }

  /** Lessons a person wrote or edited, for the next attempt. */
  async setLessons(text: string): Promise<Results['setLessons']> {
    const shown = this.modelRun();
    // Through a reflection loop (one that never reflects, if none is on), so run.json says which episodes had lessons.
    this.reflection ??= await this.attach(
      reflectionRequest({ mode: 'none', after: 'failed', maxWords: 150 }, this.ctx),
    );
    this.reflection.setLessons(text);
    shown.lessons = text;
    this.ctx.emit({ type: 'lessons', runId: this.run.id, afterEpisode: null, text, edited: true });
    return { text };
  }

  private modelRun(): NonNullable<LiveRun['reflection']> {
    if (!this.run.reflection || !(this.session.agent instanceof VlmAgent))
      throw new CodedError('bad-input', 'no model run is going');
    return this.run.reflection;
  }

  private async attach(req: ReflectionRequest): Promise<ReflectAndRetry> {
    const runId = this.run.id;
    return (
      await attachReflection(req, this.session, this.target.game?.def, (m) =>
        this.ctx.emit({ type: 'warning', runId, message: m }),
      )
    ).loop;
  }

  /** A step as the contract's step event carries it. */
  protected stepData(r: SessionEvents['step'][0]): StepEventData {
    return {
      runId: this.run.id,
      episode: r.episode,
      step: r.step,
      ...(r.actor ? { actor: r.actor } : {}),
      reasoning: r.reasoning,
      actions: r.actions,
      actionsText: r.actionsText,
      outcomes: r.outcomes ?? [],
      errors: r.errors,
      latency_ms: r.latency_ms,
      ...(r.tokens ? { tokens: r.tokens } : {}),
      ...(r.cost_usd !== undefined ? { cost_usd: r.cost_usd } : {}),
      score: r.score ?? null,
      ...(r.score_formula !== undefined ? { game_score: r.game_score ?? null, score_formula: r.score_formula } : {}),
      ...(r.frame_size ? { frame_size: r.frame_size } : {}),
      latency_mode: r.latency_mode,
      paused_ms: r.paused_ms,
      ...(r.drift_ticks !== undefined ? { drift_ticks: r.drift_ticks } : {}),
      ...(r.memory ? { memory: r.memory as MemoryStepRecord } : {}),
    };
  }

  /** Forwards the session's events to the contract's event stream, keeping the live view's counters. */
  private relay() {
    const { session, run, ctx } = this;
    session.on('frame', (f) => {
      run.episode = f.episode;
      run.step = f.step;
      ctx.emit({
        type: 'frame',
        runId: run.id,
        episode: f.episode,
        step: f.step,
        dataUrl: `data:${f.mime};base64,${f.data.toString('base64')}`,
        width: f.width,
        height: f.height,
      });
    });
    session.on('token', (t) => ctx.emit({ type: 'token', runId: run.id, ...t }));
    session.on('step', (step) => {
      const r = this.scorer ? withScreenScoreSoFar(step, this.scorer, run.scoreFormula) : step;
      Object.assign(run, liveScore(run, r));
      run.tokens.input += r.tokens?.input ?? 0;
      run.tokens.output += r.tokens?.output ?? 0;
      if (typeof r.cost_usd === 'number') run.costUsd = (run.costUsd ?? 0) + r.cost_usd;
      run.timing = session.audit.timingFigures(); // what run.json's `timing` will hold, so far
      ctx.emit({ type: 'step', data: { ...this.stepData(r), timing: run.timing } });
    });
    session.on('memory', ({ episode, step, ...memory }) => {
      if (run.memory) run.memory = { ...run.memory, retrieval: memory.retrieval };
      ctx.emit({ type: 'memory', runId: run.id, episode, step, memory });
    });
    if (session.agent instanceof MemoryAgent)
      session.agent.events.on('retrieval', (r) => {
        if (run.memory) run.memory = { ...run.memory, retrieval: r.retrieval, ...(r.reason ? { note: r.reason } : {}) };
      });
    session.on('episode', (e) => {
      Object.assign(run, liveScore(run, e));
      ctx.emit({ type: 'episode', runId: run.id, ...e });
    });
    const onWorld = (w: WorldState) => {
      run.latency = w;
      ctx.emit({ type: 'world', runId: run.id, latency: w });
    };
    session.on('world', onWorld);
    session.on('latency', onWorld);
    session.on('warning', (message) => ctx.emit({ type: 'warning', runId: run.id, message }));
    session.on('reflection', (rec) => {
      const text = rec.lesson?.text ?? '';
      if (text && run.reflection) run.reflection.lessons = text;
      const review = !!run.reflection?.review && !!text;
      // A person reads and edits the lessons before the retry.
      if (review) session.gate.pause('waiting for you to review the lessons: Resume retries with them');
      ctx.emit({
        type: 'lessons',
        runId: run.id,
        afterEpisode: rec.after_episode,
        text,
        ...(rec.lesson?.note ? { note: rec.lesson.note } : {}),
        ...(rec.error ? { error: rec.error } : {}),
        awaitingReview: review,
      });
    });
    session.on('released', (inputs) => ctx.emit({ type: 'released', runId: run.id, inputs }));
    session.on('takeover', (t) => {
      if (!run.takeover) return;
      run.takeover = takeoverWire(t);
      ctx.emit({ type: 'takeover', runId: run.id, takeover: run.takeover });
    });
    session.on('milestones', (p) => ctx.emit({ type: 'milestones', runId: run.id, ...p }));
    session.on('status', (s, why) => {
      if (s !== 'paused' && s !== 'running') return;
      run.pausedBecause = s === 'paused' ? (why ?? 'paused') : null;
      ctx.phase(this, s);
    });
  }
}

function takeoverWire(t: TakeoverState): TakeoverWire {
  return { active: t.active, trigger: t.trigger ?? null, takeovers: t.takeovers, onInput: t.onInput };
}
