/**
 * One Session runs the loop, a step at a time in named stages — locate (and raise), freeze,
 * capture, encode, decide, act, settle, record — over episodes, until the game ends, the agent
 * says DONE/FAIL, or the step budget is spent (or the disk budget: then the run is stopped). It
 * emits typed events as it goes (the UI's live view) and writes every step to the run store,
 * with the frames its keep-frames setting keeps.
 */
import { EventEmitter } from 'node:events';
import type { Action, GuiAction } from '../actions/schema.ts';
import { describeAction, isTerminal, toWire } from '../actions/schema.ts';
import type { Agent, Decision, Observation, PreviousStep } from '../agents/agent-types.ts';
import type { RawFrame, ScreenCapturer } from '../capture/capturer.ts';
import { encodeFrame, type EncodedFrame, type EncodeOptions } from '../capture/encode.ts';
import { windowsOver } from '../capture/occlusion.ts';
import { ActionExecutor, type ActionOutcome } from '../input/executor.ts';
import { inputScaleFor, isClipped, visiblePart, type FrameGeometry } from '../input/coordinates.ts';
import type { ChangeWatch, Rect, WindowInfo, WindowManager } from '../../native/types.ts';
import { CoverRepaint } from './cover-repaint.ts';
import type { RunStore, EpisodeSummary, RunMeta, StepRecord } from '../store/run-store.ts';
import { mean, now, sleep, std } from '../util/time.ts';
import { TargetGoneError, type Target } from './targets.ts';
import { clockPolicyFor, DEFAULT_LATENCY, type ClockPolicy } from '../latency/clock-policy.ts';
import { RUN_SPEC_DEFAULTS, type RunSpec, type RunSpecField } from '../run-spec.ts';
import {
  CodedError,
  round2,
  type MemoryStepRecord,
  type LatencyMode,
  type RunStatus,
  type WorldKind,
  type WorldState,
} from '../domain.ts';
import type { ReflectionRecord } from './reflection-records.ts';
import { capMoves, type MoveCap } from './move-cap.ts';
import { semanticApiOf, type Profile } from '../profiles/profile-schema.ts';
import { expandOnFrame } from './semantic-calls.ts';
import type { ScreenScoreReader } from '../scoring/screen-reader.ts';
import type { MilestoneProgress } from '../scoring/milestone-judging.ts';
import { EngineWorld, UnfreezableWorld, type World } from '../latency/world.ts';
import { logSession } from './session-log.ts';
import { DiskBudget, FrameKeeper } from '../store/frame-budget.ts';
import {
  handBackNote,
  personEvents,
  TAKEOVER_FPS,
  TakeoverLog,
  type PersonInput,
  type PersonInputFactory,
  type TakeoverTrigger,
} from './takeover.ts';

/**
 * What a session plays by: the run's settings under the RunSpec's own names (run-spec.ts), as
 * the profile and the game resolved them, and the loop's own settings below. `settleMs`: where
 * the window's drawing can be followed (X11), the longest wait for it to start drawing;
 * elsewhere, and for a window that animates by itself, a fixed wait.
 */
export type SessionConfig = Pick<RunSpec, SessionSetting | 'seed'> &
  Required<Pick<RunSpec, 'episodes' | 'maxSteps' | 'latency' | 'stopIntervalMs' | 'slowBufferMs'>> & {
    /** Once the window draws: it must then hold still this long (ms)… */
    settleQuietMs: number;
    /** …but the settle stage ends after this long in any case (ms). */
    settleMaxMs: number;
    /** Called after each episode, before the next starts (reflection runs here). */
    afterEpisode?: (e: EpisodeSummary, session: Session) => Promise<void>;
    /** A time limit per episode (s), beside the step budget (a profile's maxSeconds). */
    maxSeconds?: number;
  };

/** The spec's settings the session takes as they are (the composition root copies them; the rest it resolves). */
export const SESSION_SETTINGS = [
  'actionSpace',
  'imageSize',
  'format',
  'quality',
  'settleMs',
  'maxErrors',
  'paceMs',
  'takeOverOnInput',
  'keepFrames',
  'maxRunMb',
  'minFreeMb',
] as const satisfies readonly RunSpecField[];
type SessionSetting = (typeof SESSION_SETTINGS)[number];

/** The session's settings as a spec (or the spec's defaults) gives them. */
export function sessionSettingsOf(s: Pick<RunSpec, SessionSetting>): Pick<RunSpec, SessionSetting> {
  return Object.fromEntries(SESSION_SETTINGS.map((k) => [k, s[k]])) as Pick<RunSpec, SessionSetting>;
}

/** How the session's frames are encoded: its image size, format and quality as the encoder takes them. */
export function encodeOptions(c: Pick<SessionConfig, 'imageSize' | 'format' | 'quality'>): EncodeOptions {
  return { longSide: c.imageSize, format: c.format, quality: c.quality };
}

/**
 * A built-in view's answer to a step — its inputs arriving, the page's word, the window's
 * drawing — within this (ms). It comes in tens of ms; a busy machine took over 500 ms for an
 * input now and then. Only a lost input or a stalled page waits this long, and the step's
 * `settle` says so.
 */
export const VIEW_SETTLE_MAX_MS = 3000;

/** A session's settings when nothing is given: the spec's defaults, and the loop's own. */
export const DEFAULT_SESSION: SessionConfig = {
  ...sessionSettingsOf(RUN_SPEC_DEFAULTS),
  seed: RUN_SPEC_DEFAULTS.seed,
  episodes: 1,
  maxSteps: 50,
  latency: 'normal',
  ...DEFAULT_LATENCY,
  settleQuietMs: 40,
  settleMaxMs: 1000,
};

export interface SessionResult {
  runDir: string;
  status: RunStatus;
  episodes: EpisodeSummary[];
  mean: number | null;
  std: number | null;
  error?: string;
}

export interface SessionDeps {
  target: Target;
  agent: Agent;
  capturer: ScreenCapturer;
  wm: WindowManager;
  store: RunStore;
  executor?: ActionExecutor;
  /** How the target's world is frozen; built-ins default to their engine clock. */
  world?: World;
  /** What Gamepilot knows of the title: prompt parts for the agent, the per-step cap of a window. */
  profile?: Profile;
  /** Scores a window by reading its screen (a profile's `scoring.kind: screen`). */
  scorer?: ScreenScoreReader;
}

type EndReason = 'game_over' | 'done' | 'fail' | 'max_steps' | 'max_time' | 'stopped' | 'disk_budget';

/** A step as it happens, for the live view: the frame the model is about to see. */
export interface FrameEvent {
  episode: number;
  step: number;
  /** The frame's file in the run folder; null when the run does not keep this step's frame. */
  frame: string | null;
  mime: EncodedFrame['mime'];
  data: Buffer;
  width: number;
  height: number;
  window: Rect;
  /** Only when part of the window was off the screen: the region in the frame. */
  captured?: Rect;
}

/** A step's record as a session writes it: what the run store keeps, its clock fields typed. */
export type SessionStepRecord = StepRecord & {
  /** Who played the step (a person, during a takeover). */
  actor?: 'agent' | 'human';
  latency_mode: LatencyMode;
  world: WorldKind;
  paused_ms: number;
  drift_ticks?: number;
  act_ticks?: number;
  /**
   * How the step waited after acting. A window no engine drives: for the window's drawing
   * (`drawing`: whether it drew, whether it then held still or was still drawing at the bound,
   * how many draws), or a fixed time (`fixed`: its drawing cannot be followed, or it animates by
   * itself). A built-in view (`view`): whether every input it was sent arrived, whether the page
   * acknowledged drawing the new state, and whether the window drew it (absent where drawing
   * cannot be followed) — false in any of them means the next frame may show an older state.
   */
  settle?:
    | { by: 'drawing'; drew: boolean; still: boolean; draws: number }
    | { by: 'fixed' }
    | { by: 'view'; inputs_arrived: boolean; rendered: boolean; drew?: boolean };
};

/** Who has the controls, as followers see it. */
export interface TakeoverState {
  active: boolean;
  trigger?: TakeoverTrigger;
  /** Takeovers so far in this run. */
  takeovers: number;
  /** A person's input in the window takes over (the run's take-over-on-input setting). */
  onInput: boolean;
}

/** A person's step as it waits for its input: the frame is taken, the input follows until the next frame. */
interface PendingHumanStep {
  trace: StepTrace;
  seen: SeenFrame;
}

/** What `status` reports: running or paused while going, then how the run ended. */
export type SessionStatus = 'running' | 'paused' | RunStatus;

/** Everything a Session emits, with its arguments. */
export interface SessionEvents {
  status: [SessionStatus];
  'step-start': [{ episode: number; step: number }];
  frame: [FrameEvent];
  /** `seat`: which seat's model streams, in a two-seat game. */
  token: [{ episode: number; step: number; text: string; channel: 'answer' | 'thinking'; seat?: number }];
  step: [SessionStepRecord & { actionsText: string[] }];
  episode: [EpisodeSummary];
  /** The world froze or thawed. */
  world: [WorldState];
  /** The latency mode was switched (effective at the next step). */
  latency: [WorldState];
  warning: [string];
  /** Held keys and buttons that were let go when the run stopped or ended. */
  released: [string[]];
  /** A reflection between episodes (reported by the reflection loop through `reportReflection`). */
  reflection: [ReflectionRecord];
  /** A person took the controls (`active`), or handed them back. */
  takeover: [TakeoverState];
  /** The memory agent's summary and memories: after retrieval, then with what the step saved. */
  memory: [MemoryStepRecord & { episode: number; step: number }];
  /** An episode's milestone checklist after a judgement (reported by the judge through `reportMilestones`). */
  milestones: [MilestoneProgress];
}

/**
 * Work beside the loop that must end before run.json is final (the milestone judge): it gets
 * the episodes as played and returns them with what it adds (scores), and fields for run.json.
 */
export type RunFinisher = (
  stopped: boolean,
  episodes: EpisodeSummary[],
) => Promise<{ episodes: EpisodeSummary[]; patch: Partial<RunMeta> }>;

/** The target as a step finds it: where it is and which part of it is on the screen. */
export interface SeenTarget {
  win: WindowInfo;
  visible: Rect;
  locateMs: number;
}

/** What a step gathers as it goes: errors, and when each stage ended (ms, monotonic). */
export interface StepTrace {
  episode: number;
  step: number;
  seen: SeenTarget;
  errors: string[];
  times: {
    start: number;
    located: number;
    captured?: number;
    encoded?: number;
    decideStart?: number;
    decided?: number;
    applied?: number;
    settled?: number;
  };
  settle?: SessionStepRecord['settle'];
}

/** The clock of this step: the latency mode and its policy, and how long the world had been frozen before. */
export interface StepClock {
  mode: LatencyMode;
  policy: ClockPolicy;
  frozenBefore: number;
}

export interface Shot {
  raw: RawFrame;
  /** Wall-clock time of the capture (epoch ms). */
  tCapture: number;
  ticksAtCapture: number | null;
  /** Set for the first freezes of a run: whether the window kept still. */
  freezeVerified?: boolean;
}

/** The frame as the model sees it, where it was written, and how it maps to the screen. */
export interface SeenFrame {
  frame: EncodedFrame;
  /** Null when the run does not keep this frame. */
  file: string | null;
  geometry: FrameGeometry;
  tCapture: number;
}

export interface Choice {
  decision: Decision;
  /** The moves that will run; `dropped` went past the game's per-step cap. */
  actions: Action[];
  dropped: Action[];
  computeMs: number;
}

export interface Acted {
  outcomes: ActionOutcome[];
  refused: boolean;
  ticksAtAct: number | null;
  ticksActed: number | null;
}

export interface StepResult {
  rec: StepRecord;
  terminal?: string;
  refused: boolean;
  unusable: boolean;
}

/** Actions that need no pointer: they go to the focused window wherever it is. */
const KEYBOARD_ONLY = new Set(['TYPING', 'PRESS', 'KEY_DOWN', 'KEY_UP', 'HOTKEY', 'WAIT', 'DONE', 'FAIL']);

export class Session extends EventEmitter<SessionEvents> {
  readonly config: SessionConfig;
  readonly executor: ActionExecutor;
  protected abort = new AbortController();
  private paused = false;
  private resumeWaiters: (() => void)[] = [];
  private singleSteps = 0;
  private mode: LatencyMode;
  protected world: World;
  private verifiedFreezes = 0;
  private policy: ClockPolicy | undefined;
  /** Why the run waits for its window (minimized, off the screen); undefined while it is shown. */
  private hiddenBecause: string | undefined;
  /** A person pressed resume while the window was minimized: show it again. */
  private restoreRequested = false;
  /** The last clipping reported, so a partly off-screen window is announced once per change. */
  private clipNotice = '';
  /** What this episode's last step did, for the agent's next observation. */
  protected previous: PreviousStep | undefined;
  /**
   * The target's drawing, followed for the settle stage (a window no engine drives, where the
   * backend can): whether the last wait for it ended with the window still drawing (it animates
   * by itself), and whether it was drawing when this step acted.
   */
  private drawing: { id: string; watch: ChangeWatch | undefined; busy: boolean; quiet: boolean } | undefined;
  /** The frame the agent saw last (a fallback for the episode's screen score). */
  protected lastFrame: EncodedFrame | undefined;
  private readonly finishers: RunFinisher[] = [];
  private readonly keeper: FrameKeeper;
  private readonly budget: DiskBudget;
  /** The most one step has written so far (bytes): what the disk budget expects of the next. */
  private stepBytes = 0;
  /** Why the disk budget ended the run. */
  private budgetReason: string | undefined;
  /** Aborted on stop, and when a person takes over mid-step: the step's model call and waits end. */
  private stepAbort = new AbortController();
  /** The executor is carrying out a plan (performHeard). */
  private acting = false;
  /** The person's input path (given by the shell: recording/person-input.ts); open while it is heard. */
  private personFactory: PersonInputFactory | undefined;
  private personInput: PersonInput | undefined;
  private personOpening: Promise<PersonInput> | undefined;
  private takeOverOnInput = false;
  readonly takeovers = new TakeoverLog();
  private pendingHuman: PendingHumanStep | undefined;
  private nextHumanFrame = 0;
  /** Whether the last frame time of a takeover found the game covered (warned once per covering). */
  private covered = false;
  /** What the game draws while covered, so that uncovering waits for its repaint. */
  private readonly coverRepaint: CoverRepaint;
  /** The run has ended (its input path closed): nothing can be taken over any more. */
  private finished = false;

  constructor(
    protected readonly deps: SessionDeps,
    config: Partial<SessionConfig> = {},
  ) {
    super();
    this.config = { ...DEFAULT_SESSION, ...config };
    this.executor = deps.executor ?? new ActionExecutor();
    this.mode = this.config.latency;
    this.keeper = new FrameKeeper(this.config.keepFrames);
    this.coverRepaint = new CoverRepaint(deps.wm);
    this.budget = new DiskBudget(deps.store.dir, {
      maxRunMb: this.config.maxRunMb,
      minFreeMb: this.config.minFreeMb,
    });
    this.world =
      deps.world ??
      (deps.target.game
        ? new EngineWorld(deps.target.game)
        : new UnfreezableWorld('no way to freeze this window was given'));
    if (this.config.actionSpace === 'semantic' && !deps.target.game && !semanticApiOf(deps.profile))
      throw new CodedError('bad-input', noMovesMessage(deps.profile));
    logSession(this, deps.store);
  }

  /** Work between episodes (reflection): runs after each episode but the last, before the next begins. */
  betweenEpisodes(work: NonNullable<SessionConfig['afterEpisode']>) {
    this.config.afterEpisode = work;
  }

  /** Reports a reflection made between episodes to whoever follows this run. */
  reportReflection(rec: ReflectionRecord) {
    this.emit('reflection', rec);
  }

  /** Reports an episode's milestone checklist to whoever follows this run. */
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
    this.wake();
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
    this.policy?.cancel();
    await this.world.thaw().catch(() => {}); // starts synchronously: a frozen engine or process resumes inside stop()
    this.emitWorld();
    const released = await this.executor.releaseAll().catch(() => []);
    if (released.length) this.emit('released', released);
  }

  /** Switches the latency mode; it takes effect at the next step. */
  setLatency(mode: LatencyMode) {
    this.mode = mode;
    this.emit('latency', { mode, frozen: this.world.frozen, world: this.world.kind });
  }

  get latency(): WorldState {
    return { mode: this.mode, frozen: this.world.frozen, world: this.world.kind };
  }

  private applyIdleLimit() {
    const game = this.deps.target.game;
    const spec = game?.def.realtime;
    if (game && spec) game.instance.setIdleLimit?.(spec.idleLimit[this.mode]);
  }

  pause() {
    this.paused = true;
    this.emit('status', 'paused');
  }

  /** Resumes a paused run; while its window is minimized, resuming first shows the window again. */
  resume() {
    this.paused = false;
    if (this.hiddenBecause) this.restoreRequested = true;
    this.wake();
    if (!this.hiddenBecause) this.emit('status', 'running');
  }

  /** While paused, lets exactly one more step run. */
  stepOnce() {
    this.singleSteps++;
    this.wake();
  }

  private wake() {
    for (const w of this.resumeWaiters.splice(0)) w();
  }

  /**
   * Lets people take over this run through their input path (the shell opens it: the global
   * hook). With `onInput` the path listens from the start, and the person's input in the window
   * takes over by itself. Call before run().
   */
  acceptTakeovers(factory: PersonInputFactory, o: { ignoreKeys?: readonly string[] } = {}) {
    this.personFactory = (opts) => factory({ ...opts, ...(o.ignoreKeys ? { ignoreKeys: o.ignoreKeys } : {}) });
    this.takeOverOnInput = this.config.takeOverOnInput;
  }

  get takeoverState(): TakeoverState {
    const open = this.takeovers.open;
    return {
      active: !!open,
      ...(open ? { trigger: open.trigger } : {}),
      takeovers: this.takeovers.spans.length,
      onInput: this.takeOverOnInput,
    };
  }

  /**
   * A person takes the controls: the agent's call and the step's waits end, held input is let
   * go, a frozen world runs, and from the next frame on the person's input is recorded as the
   * run's steps (`actor: human`) until handBack(). A paused run goes on: the person plays it.
   * `since`: input from then on is the person's (the input that took over, when it did).
   */
  async takeOver(trigger: TakeoverTrigger, since = Date.now()): Promise<TakeoverState> {
    const ending = () => this.abort.signal.aborted || this.finished;
    if (ending()) throw new CodedError('not-found', 'the run is ending: there is nothing to take over');
    if (this.takeovers.open) return this.takeoverState;
    const input = await this.openPersonInput();
    if (this.finished) {
      await this.closePersonInput(); // the run ended while the input path opened
      throw new CodedError('not-found', 'the run has ended: there is nothing to take over');
    }
    if (this.takeovers.open || ending()) return this.takeoverState;
    input.listenFrom(since);
    this.takeovers.begin(this.episodeNow, trigger, Date.now());
    this.nextHumanFrame = 0;
    this.covered = false;
    this.coverRepaint.close();
    this.stepAbort.abort();
    if (this.paused) this.resume();
    this.store.update(this.takeovers.summary());
    this.emit('takeover', this.takeoverState);
    await this.makeSafe();
    return this.takeoverState;
  }

  /** The take-over hotkey: takes the controls, or hands them back when a person has them. */
  toggleTakeover(trigger: TakeoverTrigger): Promise<TakeoverState> {
    return this.takeovers.open ? this.handBack() : this.takeOver(trigger);
  }

  /** The person gives the controls back: the agent goes on from the current frame, told what the person did. */
  async handBack(): Promise<TakeoverState> {
    if (!this.takeovers.open) return this.takeoverState;
    await this.endTakeover(true);
    return this.takeoverState;
  }

  /** The episode the loop is in (for a takeover's record). */
  private episodeNow = 0;

  private async openPersonInput(): Promise<PersonInput> {
    if (this.personInput) return this.personInput;
    if (!this.personFactory)
      throw new CodedError('bad-input', 'taking over needs the input hook, which this shell did not start');
    const win = await this.deps.target.locate();
    this.personOpening ??= this.personFactory({
      windowId: win.id,
      bounds: win.bounds,
      agentHeld: () => this.executor.held(),
      ...(this.takeOverOnInput
        ? {
            onInput: (t: number) => {
              if (!this.takeovers.open && !this.abort.signal.aborted)
                this.takeOver('input', t).catch((err: Error) => this.emit('warning', `take over: ${err.message}`));
            },
          }
        : {}),
    });
    try {
      this.personInput = await this.personOpening;
    } catch (err) {
      this.personOpening = undefined;
      throw new CodedError('bad-input', `cannot hear a person's input: ${(err as Error).message}`);
    }
    return this.personInput;
  }

  private async closePersonInput() {
    const input = this.personInput;
    this.personInput = undefined;
    this.personOpening = undefined;
    await input?.close().catch(() => {});
  }

  /** Ends the open takeover: its last step written, its span closed, its correction record kept. */
  private async endTakeover(handedBack: boolean) {
    if (!this.takeovers.open) return;
    this.flushHumanStep();
    const rec = this.takeovers.end(Date.now(), handedBack);
    this.personInput?.pause(); // nothing kept until the next takeover (the hook may still take over)
    if (rec) {
      try {
        this.store.appendFile('corrections.jsonl', `${JSON.stringify(rec)}\n`);
      } catch (err) {
        this.emit('warning', `the correction record was not written: ${(err as Error).message}`);
      }
      const span = this.takeovers.spans[rec.index]!;
      if (handedBack)
        this.previous = { actions: [], outcomes: [], person: handBackNote(span, personEvents(rec.during)) };
    }
    this.store.update(this.takeovers.summary());
    this.emit('takeover', this.takeoverState);
  }

  private async gate() {
    while (this.paused && !this.abort.signal.aborted) {
      if (this.singleSteps > 0) {
        this.singleSteps--;
        return;
      }
      await new Promise<void>((r) => this.resumeWaiters.push(r));
    }
  }

  async run(): Promise<SessionResult> {
    const { store, target } = this.deps;
    const episodes: EpisodeSummary[] = [];
    let status: RunStatus = 'completed';
    let error: string | undefined;
    this.emit('status', 'running');
    try {
      await this.showMinimizedTarget();
      if (this.takeOverOnInput) await this.listenForTakeover();
      for (let e = 0; e < this.config.episodes && !this.abort.signal.aborted; e++) {
        this.episodeNow = e;
        this.takeovers.newEpisode();
        target.game?.reset(this.config.seed, e);
        this.resetAgents();
        this.deps.scorer?.resetEpisode();
        this.previous = undefined;
        if (target.game) await target.game.shows(VIEW_SETTLE_MAX_MS, this.abort.signal);
        this.applyIdleLimit();
        const { steps, end } = await this.episode(e);
        const screen = target.game ? undefined : await this.screenScore(steps);
        const score = target.game ? round2(target.game.instance.score()) : (screen?.score ?? null);
        const played: EpisodeSummary = {
          episode: e,
          seed: this.config.seed,
          score,
          steps,
          end,
          ...(screen ? { raw_score: screen.value, screen_readings: screen.readings } : {}),
          ...this.episodeExtras(),
        };
        episodes.push(played);
        this.emit('episode', played);
        store.update({ episodes, ...summary(episodes) });
        if (end === 'disk_budget') {
          status = 'stopped';
          error = this.budgetReason;
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
      this.finished = true;
      await this.endTakeover(false).catch(() => {});
      await this.closePersonInput();
      await this.makeSafe();
      this.drawing?.watch?.close();
      this.drawing = undefined;
      this.coverRepaint.close();
      await this.deps.scorer?.close();
    }
    let patch: Partial<RunMeta> = {};
    for (const work of this.finishers) {
      try {
        const done = await work(status === 'stopped', episodes);
        episodes.splice(0, episodes.length, ...done.episodes);
        patch = { ...patch, ...done.patch };
      } catch (err) {
        this.emit('warning', `after the run: ${(err as Error).message}`);
      }
    }
    store.close(status, error, { episodes, ...summary(episodes), ...patch }); // never throws, even on a full disk
    this.emit('status', status);
    return { runDir: store.dir, status, episodes, ...summary(episodes), ...(error ? { error } : {}) };
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
      this.budgetReason = this.budget.check(written, this.stepBytes);
      if (this.budgetReason) {
        this.emit('warning', this.budgetReason);
        return { steps: s, end: 'disk_budget' };
      }
      const seen = await this.locate();
      if (!seen) return { steps: s, end: 'stopped' };
      if (this.takeovers.open) {
        if (await this.humanStep(e, s, seen)) s++;
        if (this.abort.signal.aborted) return { steps: s, end: 'stopped' };
        if (this.deps.target.game?.instance.isOver()) return { steps: s, end: 'game_over' };
        continue;
      }
      agentSteps++;
      const started = now();
      const { rec, terminal, refused, unusable } = await this.step(e, s, seen);
      this.stepBytes = Math.max(this.stepBytes, this.deps.store.bytesWritten - written);
      if (this.deps.scorer?.dueAfter(s) && this.lastFrame && !this.abort.signal.aborted)
        await this.deps.scorer.read(this.lastFrame, s, this.abort.signal);
      s++;
      const spare = this.config.paceMs - (now() - started);
      if (spare > 0) await sleep(spare, this.abort.signal);
      consecutiveErrors = unusable ? consecutiveErrors + 1 : 0;
      if (consecutiveErrors >= this.config.maxErrors) {
        throw new Error(`${consecutiveErrors} steps in a row without usable actions; last error: ${rec.errors.at(-1)}`);
      }
      if (this.abort.signal.aborted) return { steps: s, end: 'stopped' };
      if (this.deps.target.game?.instance.isOver()) return { steps: s, end: 'game_over' };
      if (terminal && !refused) return { steps: s, end: terminal === 'DONE' ? 'done' : 'fail' };
    }
    return { steps: s, end: 'max_steps' };
  }

  /** From the start, when the person's input in the window takes over: the input path listens. */
  private async listenForTakeover() {
    try {
      (await this.openPersonInput()).pause(); // nothing kept until a takeover
    } catch (err) {
      this.emit('warning', `take over on input is off: ${(err as Error).message}`);
      this.takeOverOnInput = false;
    }
  }

  /**
   * A step of the person's: the frame at TAKEOVER_FPS; the input heard until the next frame is
   * the step's actions (written then, or at hand-back). The world runs; nothing is sent.
   * Returns whether a frame was taken (the step's number is used).
   */
  private async humanStep(episode: number, step: number, seen: SeenTarget): Promise<boolean> {
    await sleep(this.nextHumanFrame - Date.now(), this.abort.signal);
    if (this.abort.signal.aborted || !this.takeovers.open) return false;
    this.nextHumanFrame = Date.now() + 1000 / TAKEOVER_FPS;
    if (await this.coveredWhileThePersonPlays(seen)) return false;
    this.flushHumanStep();
    const trace = this.beginStep(episode, step, seen);
    const hint = { maxLongSide: this.config.imageSize, reuseBuffers: true };
    const raw = await this.deps.capturer.grab(seen.visible, hint);
    trace.times.captured = now();
    if (await this.coveredWhileThePersonPlays(seen)) return false; // came over while the frame was taken
    const frame = await this.encode(trace, { raw, tCapture: Date.now(), ticksAtCapture: null });
    this.pendingHuman = { trace, seen: frame };
    if (!this.takeovers.open) this.flushHumanStep(); // handed back while the frame was taken
    return true;
  }

  /**
   * Whether another window lies over the game now. While a person plays the harness does not
   * raise the game, and a capture of the screen would show (and a dataset export ship) what
   * covers it: such a frame is not taken, and counted in the span's covered_frames; the input
   * heard meanwhile goes to the step before, as between any two frames. The warning names no
   * window (its title may be private). Where the stacking is unknown: false. Once uncovered, the
   * game's repaint of what was covered is waited for (cover-repaint.ts).
   */
  private async coveredWhileThePersonPlays(seen: SeenTarget): Promise<boolean> {
    const over = await windowsOver(this.deps.wm, seen.win, seen.visible).catch(() => undefined);
    if (!over?.length) {
      if (this.covered) await this.coverRepaint.uncovered(this.config.settleQuietMs, this.abort.signal);
      this.covered = false;
      return false;
    }
    this.coverRepaint.covered(seen.win.id);
    const n = this.takeovers.coveredFrame();
    if (!this.covered)
      this.emit(
        'warning',
        `another window covers the game: the person's frames are not recorded until it is moved away (${n} left out so far in this takeover)`,
      );
    this.covered = true;
    return true;
  }

  /** Writes the person's pending step with the input heard since its frame. */
  private flushHumanStep() {
    const pending = this.pendingHuman;
    if (!pending) return;
    this.pendingHuman = undefined;
    const events = this.personInput?.drain() ?? [];
    const { trace, seen } = pending;
    const t = trace.times;
    const rec = {
      ...this.frameHead(trace, seen),
      actor: 'human' as const,
      reasoning: '',
      raw: null,
      actions: events.map((ev) => ({ action_type: ev.action_type, parameters: ev.parameters })),
      input_events: events,
      outcomes: [],
      errors: [],
      latency_ms: {
        locate: round2(t.located - t.start),
        capture: round2(t.captured! - t.located),
        encode: round2(t.encoded! - t.captured!),
        model: 0,
        act: 0,
        total: round2(now() - t.start),
      },
      latency_mode: this.mode,
      world: this.world.kind,
      paused_ms: 0,
      ...this.gameFields(),
    };
    this.takeovers.humanStep(rec);
    this.deps.store.appendStep(rec, this.takeovers.summary()); // run.json's counts current with the step
    this.emit('step', {
      ...rec,
      actionsText: rec.actions.map((a) => `${a.action_type} ${JSON.stringify(a.parameters)}`),
    });
  }

  /**
   * The locate stage: waits while a person paused the run, or while its window cannot be
   * seen (minimized or entirely off the screen): then the run is paused with a warning until
   * the window is shown again. Returns where the window is now; undefined once stopped.
   */
  private async locate(): Promise<SeenTarget | undefined> {
    let previous: Rect | undefined;
    for (;;) {
      await this.gate();
      if (this.abort.signal.aborted) return undefined;
      const t0 = now();
      const look = await this.lookAtTarget();
      if (look.visible) {
        if (this.hiddenBecause) {
          // Window managers animate a restore: go on once the window stays put.
          const settled = previous && sameRect(previous, look.win.bounds);
          previous = look.win.bounds;
          if (!settled) {
            await sleep(100, this.abort.signal);
            continue;
          }
          this.hiddenBecause = undefined;
          if (!this.paused) this.emit('status', 'running');
        }
        // Minimized between the look and now: loop, and the next look pauses the run.
        // A person who has the controls decides which window has focus.
        if (!this.takeovers.open && !(await this.raise(look.win.id))) continue;
        return { win: look.win, visible: look.visible, locateMs: now() - t0 };
      }
      if (!this.hiddenBecause) {
        this.hiddenBecause = look.why;
        this.emit('warning', `${look.why}: the run is paused until the window is shown again (or the run is stopped)`);
        this.emit('status', 'paused');
      }
      if (this.restoreRequested) {
        this.restoreRequested = false;
        if (look.win.minimized)
          await this.deps.wm
            .focus(look.win.id)
            .catch((err: Error) => this.emit('warning', `cannot restore the window: ${err.message}`));
        else this.emit('warning', `${look.why}; move it back onto the screen to go on`);
      }
      await sleep(250, this.abort.signal);
    }
  }

  /** Where the target is and which part of it is on the screen; `why` says what hides it. */
  private async lookAtTarget(): Promise<{ win: WindowInfo; visible?: Rect; why: string }> {
    const { target, capturer } = this.deps;
    let win: WindowInfo;
    try {
      win = await target.locate();
    } catch (err) {
      if (err instanceof TargetGoneError) throw err;
      throw new TargetGoneError(`cannot locate the target window: ${(err as Error).message}`);
    }
    const name = `the target window "${target.label}"`;
    if (win.minimized) return { win, why: `${name} was minimized` };
    const screen = await capturer.screenBounds();
    const visible = visiblePart(win.bounds, screen);
    const b = win.bounds;
    if (!visible)
      return {
        win,
        why: `${name} is entirely off the screen (${b.width}×${b.height} at ${b.x},${b.y}; the screen is ${screen.width}×${screen.height})`,
      };
    return { win, visible, why: '' };
  }

  /** A run may start on a minimized window: show it, or fail saying why it cannot. */
  private async showMinimizedTarget() {
    const { target, wm } = this.deps;
    const win = await target.locate();
    if (!win.minimized) return;
    await wm.focus(win.id).catch(() => {});
    let previous: Rect | undefined;
    for (let i = 0; i < 30 && !this.abort.signal.aborted; i++) {
      const w = await target.locate();
      // Shown, and no longer moving (window managers animate a restore).
      if (!w.minimized && previous && sameRect(previous, w.bounds)) {
        this.emit('warning', `the target window "${target.label}" was minimized; restored it`);
        return;
      }
      previous = w.minimized ? undefined : w.bounds;
      await sleep(100, this.abort.signal);
    }
    throw new Error(
      `the target window "${target.label}" is minimized and the window manager did not restore it within 3 s; show it and start again`,
    );
  }

  /**
   * One step, stage by stage: locate (done by `locate()` before this), freeze, capture,
   * encode, decide, act, settle, record. Each stage adds to the step's trace; `record`
   * assembles the step's record from it in one place.
   */
  protected async step(episode: number, step: number, seen: SeenTarget): Promise<StepResult> {
    const trace = this.beginStep(episode, step, seen);
    const clock = await this.freeze(trace);
    const shot = await this.capture(trace, clock);
    const seenFrame = await this.encode(trace, shot);
    const choice = await this.decide(trace, seenFrame, clock);
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
  protected async freeze(trace: StepTrace): Promise<StepClock> {
    const game = this.deps.target.game;
    const mode = this.mode;
    if (this.policy?.mode !== mode && game) {
      this.policy = undefined;
      this.applyIdleLimit();
    }
    const policy = clockPolicyFor(mode, this.config, () => this.emitWorld(), game?.def.realtime);
    this.policy = policy;
    const frozenBefore = this.world.frozenMs();
    try {
      await policy.beforeCapture(this.world);
    } catch (err) {
      trace.errors.push(`freeze failed: ${(err as Error).message}; this window now runs as in normal mode`);
      this.world = new UnfreezableWorld((err as Error).message);
    }
    this.emitWorld();
    return { mode, policy, frozenBefore };
  }

  /** Capture: the part of the window on the screen (located and raised just now); a frozen window is checked to stay still. */
  protected async capture(trace: StepTrace, clock: StepClock): Promise<Shot> {
    const { target, capturer } = this.deps;
    const { visible } = trace.seen;
    const tCapture = Date.now();
    // X11 scales in the server; the step is done with the pixels once encoded, so its buffers may be reused.
    const hint = { maxLongSide: this.config.imageSize, reuseBuffers: true };
    let raw = await capturer.grab(visible, hint);
    let freezeVerified: boolean | undefined;
    if (this.world.frozen && this.world.kind !== 'engine' && this.verifiedFreezes < 3) {
      // A frozen world must not change on screen: look twice.
      this.verifiedFreezes++;
      await sleep(250, this.abort.signal);
      const again = await capturer.grab(visible, hint);
      freezeVerified = again.data.equals(raw.data);
      raw = again;
      if (!freezeVerified) {
        trace.errors.push(`the ${this.world.kind} freeze did not hold: the window kept changing while frozen`);
        this.emit(
          'warning',
          `${target.label} ignores the ${this.world.kind} freeze; latency modes cannot hold this game still`,
        );
      }
    }
    const ticksAtCapture = this.world.ticks();
    clock.policy.afterCapture(this.world);
    trace.times.captured = now();
    return { raw, tCapture, ticksAtCapture, ...(freezeVerified !== undefined ? { freezeVerified } : {}) };
  }

  /** Encode: the image the model sees, written to the run folder and shown live. */
  protected async encode(trace: StepTrace, shot: Shot): Promise<SeenFrame> {
    const { win, visible } = trace.seen;
    const frame = await encodeFrame(shot.raw, encodeOptions(this.config));
    trace.times.encoded = now();
    const file = this.keeper.shouldKeep(trace.episode, trace.step, shot.raw)
      ? this.deps.store.writeFrame(trace.episode, trace.step, frame.data, frame.mime === 'image/png' ? 'png' : 'jpg')
      : null;
    const geometry: FrameGeometry = {
      window: win.bounds,
      visible,
      imageScale: frame.scale,
      imageWidth: frame.width,
      imageHeight: frame.height,
      inputScale: inputScaleFor(process.platform, win.scaleFactor),
    };
    this.noticeClipping(geometry);
    this.emit('frame', {
      episode: trace.episode,
      step: trace.step,
      frame: file,
      mime: frame.mime,
      data: frame.data,
      width: frame.width,
      height: frame.height,
      window: win.bounds,
      ...(isClipped(geometry) ? { captured: visible } : {}),
    });
    return { frame, file, geometry, tCapture: shot.tCapture };
  }

  /** Decide: the agent's answer for this observation, its moves capped at the game's per-step limit. */
  private async decide(trace: StepTrace, seen: SeenFrame, clock: StepClock): Promise<Choice> {
    const { target, agent } = this.deps;
    const { episode, step } = trace;
    const game = target.game;
    const obs: Observation = {
      step,
      episode,
      frame: seen.frame,
      geometry: seen.geometry,
      tCapture: seen.tCapture,
      ...(game ? { gameText: game.instance.text(), validMoves: game.instance.validMoves(), hits: target.hits() } : {}),
      ...(this.previous ? { previous: this.previous } : {}),
    };
    const tDecide = now();
    let decision: Decision;
    try {
      decision = await agent.decide(obs, {
        space: this.config.actionSpace,
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
    if (this.takeovers.open)
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
    const { kept: actions, dropped } = capMoves(decision.actions, game?.def ?? this.profileCap());
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
    this.emitWorld();
    const ticksAtAct = this.world.ticks();
    game?.drainInputs();
    if (choice.actions.length) this.prepareSettle(trace.seen.win.id);
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
    this.emitWorld();
    if (choice.actions.length && !signal.aborted) {
      const game = this.deps.target.game;
      if (!game) trace.settle = await this.settleWindow();
      else {
        const deadline = performance.now() + VIEW_SETTLE_MAX_MS;
        const expected = viewInputsSent(choice.actions, acted.outcomes);
        const arrived = expected === 0 || (await game.waitForInputs(expected, VIEW_SETTLE_MAX_MS, signal));
        const shown = await game.shows(Math.max(0, deadline - performance.now()), signal);
        trace.settle = { by: 'view', inputs_arrived: arrived, ...shown };
      }
    }
    trace.times.settled = now();
  }

  /**
   * Settle's start, just before acting: what the target draws from here on is its answer;
   * noted whether it had held still until now.
   */
  private prepareSettle(id: string) {
    const { target, wm } = this.deps;
    if (target.game || !wm.watchChanges) return;
    try {
      if (this.drawing?.id !== id) {
        this.drawing?.watch?.close();
        this.drawing = { id, watch: wm.watchChanges(id), busy: false, quiet: true };
      }
      this.drawing.quiet = this.drawing.watch?.reset(this.config.settleQuietMs).quiet ?? true;
    } catch {
      this.drawing = { id, watch: undefined, busy: false, quiet: true }; // the fixed wait, then
    }
  }

  /**
   * A window no engine drives: wait until it has drawn and then held still for `settleQuietMs`
   * (at most `settleMaxMs`; when it does not start drawing within `settleMs`, no longer). A
   * window whose drawing cannot be followed gets the fixed `settleMs`, and so does one that was
   * drawing when we acted and, the last time we waited, never held still (it animates by itself:
   * its answer cannot be told apart from the rest); once it holds still before an action, its
   * drawing is waited for again.
   */
  private async settleWindow(): Promise<NonNullable<SessionStepRecord['settle']>> {
    const d = this.drawing;
    const { settleMs, settleQuietMs, settleMaxMs } = this.config;
    if (d?.watch && !(d.busy && !d.quiet)) {
      try {
        const r = await d.watch.settled({
          quietMs: settleQuietMs,
          firstMs: settleMs,
          maxMs: Math.max(settleMs, settleMaxMs),
          signal: this.stepAbort.signal,
        });
        d.busy = !r.still;
        return { by: 'drawing', drew: r.changed, still: r.still, draws: r.draws };
      } catch {
        /* the fixed wait below */
      }
    }
    await sleep(settleMs, this.stepAbort.signal);
    return { by: 'fixed' };
  }

  /** Record: the step's record, assembled here from every stage, appended to the run and emitted. */
  private record(
    trace: StepTrace,
    clock: StepClock,
    shot: Shot,
    seen: SeenFrame,
    choice: Choice,
    acted: Acted,
  ): StepResult {
    const { decision, actions, dropped, computeMs } = choice;
    const ticksAtCapture = shot.ticksAtCapture;
    const { ticksAtAct, ticksActed, outcomes } = acted;
    const rec: SessionStepRecord = {
      ...this.frameHead(trace, seen),
      actor: 'agent',
      reasoning: decision.reasoning,
      raw: decision.raw ?? null,
      actions: actions.map(toWire),
      ...(dropped.length ? { dropped_actions: dropped.map(toWire) } : {}),
      outcomes,
      errors: trace.errors,
      ...this.clockRecord(trace, clock),
      ...(ticksAtCapture !== null && ticksAtAct !== null ? { drift_ticks: ticksAtAct - ticksAtCapture } : {}),
      ...(ticksAtAct !== null && ticksActed !== null ? { act_ticks: ticksActed - ticksAtAct } : {}),
      ...(clock.mode === 'lcrt' ? computeRecord(computeMs, decision) : {}),
      ...(shot.freezeVerified !== undefined ? { freeze_verified: shot.freezeVerified } : {}),
      ...(trace.settle ? { settle: trace.settle } : {}),
      ...(decision.usage ? { tokens: decision.usage } : {}),
      ...(decision.costUsd !== undefined ? { cost_usd: decision.costUsd } : {}),
      ...(decision.attempts ? { attempts: decision.attempts } : {}),
      ...(decision.calls?.length ? { model_calls: decision.calls } : {}),
      ...(decision.memory ? { memory: decision.memory } : {}),
      ...this.gameFields(),
    };
    // Before the step line: appending it writes run.json, with these calls' sums in it.
    for (const call of decision.calls ?? [])
      this.deps.store.recordModelCall(call, { episode: rec.episode, step: rec.step });
    this.deps.store.appendStep(rec);
    this.takeovers.agentStep(rec);
    this.emit('step', { ...rec, actionsText: actions.map(describeAction) });
    const terminal = actions.find(isTerminal);
    return {
      rec,
      refused: acted.refused,
      // A step a person cut short is not the agent's failure.
      unusable: !this.takeovers.open && isUnusable(actions.length, rec.errors.length, outcomes),
      ...(terminal?.kind === 'gui' ? { terminal: terminal.type } : {}),
    };
  }

  /** What a step record says first: which step, its frame and where the window was. */
  protected frameHead(trace: StepTrace, seen: SeenFrame) {
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

  /** Where the step's time went, stage by stage, and how the world waited. */
  protected clockRecord(trace: StepTrace, clock: StepClock) {
    const t = trace.times;
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
      world: this.world.kind,
      paused_ms: round2(this.world.frozenMs() - clock.frozenBefore),
    };
  }

  /** What a built-in's engine says after the step (the inputs its view received, score, state); a window has no score yet. */
  protected gameFields() {
    const game = this.deps.target.game;
    if (!game) return { score: null };
    return {
      view_inputs: game.drainInputs().map((i) => ({ ...i.input, ...(i.result.ok ? {} : { error: i.result.error }) })),
      score: round2(game.instance.score()),
      game_state: game.instance.snapshot(),
    };
  }

  /** A window's per-step cap from its profile: every input action counts. */
  private profileCap(): MoveCap | undefined {
    const max = this.deps.profile?.actions.maxActionsPerStep;
    return max === undefined ? undefined : { maxActionsPerStep: max, moveInputs: 'any-input' };
  }

  /**
   * A window's episode score read off its screen (the profile's `screen` scoring): a fresh frame
   * of the final state, combined with the readings taken during the episode.
   */
  private async screenScore(
    steps: number,
  ): Promise<{ value: number | null; score: number | null; readings: unknown[] } | undefined> {
    const scorer = this.deps.scorer;
    if (!scorer) return undefined;
    const frame = (await this.finalFrame()) ?? this.lastFrame;
    if (frame && !this.abort.signal.aborted) await scorer.read(frame, steps, this.abort.signal);
    const r = scorer.result();
    for (const l of scorer.log) if (l.error) this.emit('warning', `screen score after step ${l.step}: ${l.error}`);
    return { ...r, readings: [...scorer.log] };
  }

  /** The window as it is now, encoded as the model's frames are; undefined when it cannot be seen. */
  private async finalFrame(): Promise<EncodedFrame | undefined> {
    try {
      const look = await this.lookAtTarget();
      if (!look.visible) return undefined;
      const hint = { maxLongSide: this.config.imageSize };
      return await encodeFrame(await this.deps.capturer.grab(look.visible, hint), encodeOptions(this.config));
    } catch {
      return undefined;
    }
  }

  /** Says once (per change) that only part of the window is on the screen, and so in the image. */
  private noticeClipping(g: FrameGeometry) {
    const v = g.visible ?? g.window;
    const notice = isClipped(g) ? `${v.width}×${v.height} of ${g.window.width}×${g.window.height}` : '';
    if (notice && notice !== this.clipNotice) {
      this.emit(
        'warning',
        `the target window "${this.deps.target.label}" is partly off the screen: the model sees only its visible ${notice} pixels, and actions on the hidden part are refused`,
      );
    }
    this.clipNotice = notice;
  }

  /**
   * Gives the target keyboard focus unless it has it. Raising a minimized window would undo
   * what a person just did, so a minimized one is left alone: returns false.
   * (With command-line X tools a minimize in the few ms between the look and the raise can
   * still be undone; the window usually has focus already, and then nothing is raised.)
   */
  private async raise(id: string): Promise<boolean> {
    if ((await this.deps.wm.activeId()) === id) return true;
    const win = await this.deps.target.locate();
    if (win.minimized) return false;
    // A window over the game leaves its pixels in the part it covered until the game repaints
    // that part (no compositor): follow what the game draws from before the raise, and capture
    // once it has repainted (cover-repaint.ts; a loaded machine took hundreds of ms).
    const covered = !!(await windowsOver(this.deps.wm, win, win.bounds).catch(() => undefined))?.length;
    const repaint = covered ? new CoverRepaint(this.deps.wm) : undefined;
    repaint?.covered(id);
    try {
      await this.focusTarget(id);
      await this.untilOnTop(win);
      await repaint?.uncovered(this.config.settleQuietMs, this.abort.signal);
    } finally {
      repaint?.close();
    }
    return true;
  }

  /**
   * Waits (at most `boundMs`) until the window manager has stacked nothing over the target. A
   * window manager may report the window active before it has restacked it, and a capture of
   * the screen then shows the window that still covers it (seen on a loaded 2-core machine).
   * Where stacking is unknown, or the bound passes (an always-on-top window), it goes on.
   */
  private async untilOnTop(win: WindowInfo, boundMs = 3000) {
    const t0 = now();
    while (now() - t0 < boundMs && !this.abort.signal.aborted) {
      const over = await windowsOver(this.deps.wm, win, win.bounds).catch(() => undefined);
      if (!over?.length) return;
      await sleep(20, this.abort.signal);
    }
  }

  /**
   * Before input is sent: the window must still be shown (a person may have minimized it
   * while the model thought) and, for pointer actions, still where it was captured, or the
   * clicks would land on something else. Then it gets focus. Returns why not, if not.
   */
  private async readyForInput(
    actions: GuiAction[],
    geometry: FrameGeometry,
    windowId: string,
  ): Promise<string | undefined> {
    const pointer = actions.some((a) => !KEYBOARD_ONLY.has(a.type));
    const active = (await this.deps.wm.activeId()) === windowId;
    if (active && !pointer) return undefined;
    const w = await this.deps.target.locate();
    if (w.minimized) return 'the target window was minimized before the actions applied; nothing was sent';
    if (pointer && !sameRect(w.bounds, geometry.window)) {
      return 'the target window moved or changed size after the capture; pointer actions were not sent';
    }
    if (!active) await this.focusTarget(windowId);
    return undefined;
  }

  /** Raises the target; when that fails because the window is gone, says so plainly. */
  private async focusTarget(id: string) {
    try {
      await this.deps.wm.focus(id);
    } catch (err) {
      await this.deps.target.locate(); // throws TargetGoneError when the window has vanished
      throw err;
    }
  }

  protected emitWorld() {
    this.emit('world', { mode: this.mode, frozen: this.world.frozen, world: this.world.kind });
  }

  /**
   * A profile's semantic call: expanded whole before anything is sent (a call that lands
   * outside the window sends nothing), then its GUI actions through the executor like any
   * others — the key policy and the profile's allowedKeys apply. One outcome for the call,
   * with the GUI actions it became.
   */
  private async performCall(
    call: string,
    geometry: FrameGeometry,
    windowId: string,
    executor: ActionExecutor,
  ): Promise<ActionOutcome> {
    const api = semanticApiOf(this.deps.profile);
    if (!api) return { action: call, ok: false, error: noMovesMessage(this.deps.profile) };
    const exp = expandOnFrame(api, call, geometry);
    if (!exp.ok) return { action: call, ok: false, error: `${exp.error}; nothing was sent` };
    const expanded = exp.actions.map(toWire);
    const notReady = await this.readyForInput(exp.actions, geometry, windowId);
    if (notReady) return { action: call, ok: false, error: notReady, expanded };
    const out = await executor.execute(exp.actions, geometry, this.stepAbort.signal);
    const failed = out.find((o) => !o.ok);
    if (failed) return { action: call, ok: false, error: `${failed.action}: ${failed.error}`, expanded };
    if (out.length < exp.actions.length) return { action: call, ok: false, error: 'stopped part-way', expanded };
    return { action: call, ok: true, expanded };
  }

  /**
   * Sends the actions: GUI ones through the executor (the window checked first), semantic moves
   * to the engine or the profile's expansion. A step with a refusal ends with nothing held: what
   * the executor still holds (a KEY_DOWN of this or an earlier step) is released and listed on
   * the refused outcome.
   */
  protected async perform(
    actions: Action[],
    geometry: FrameGeometry,
    windowId: string,
    executor: ActionExecutor = this.executor,
  ): Promise<ActionOutcome[]> {
    const outcomes = await this.send(actions, geometry, windowId, executor);
    const refused = outcomes.find((o) => !o.ok);
    if (refused && executor.held().length) {
      const released = await executor.releaseAll();
      if (released.length) refused.released = released; // an executor refusal left nothing held: this one came from elsewhere
    }
    return outcomes;
  }

  /**
   * perform(), with the person's input path told that what it hears meanwhile is the agent's:
   * the span opens before the first action (the hook hears input while the executor acts, a
   * WAIT with a held key included), and closes when the last one is done.
   */
  private async performHeard(actions: Action[], geometry: FrameGeometry, windowId: string): Promise<ActionOutcome[]> {
    if (!actions.length) return [];
    const input = this.personInput;
    const from = Date.now();
    input?.agentActs(from);
    this.acting = true;
    try {
      return await this.perform(actions, geometry, windowId);
    } finally {
      this.acting = false;
      input?.agentActs(from, Date.now());
    }
  }

  private async send(
    actions: Action[],
    geometry: FrameGeometry,
    windowId: string,
    executor: ActionExecutor,
  ): Promise<ActionOutcome[]> {
    const game = this.deps.target.game;
    const outcomes: ActionOutcome[] = [];
    let gui: GuiAction[] = [];
    const flushGui = async () => {
      if (!gui.length) return true;
      const notReady = await this.readyForInput(gui, geometry, windowId);
      if (notReady) {
        outcomes.push({ action: gui[0]!.type, ok: false, error: notReady });
        gui = [];
        return false;
      }
      const out = await executor.execute(gui, geometry, this.stepAbort.signal);
      outcomes.push(...out);
      gui = [];
      return out.every((o) => o.ok);
    };
    for (const a of actions) {
      if (a.kind === 'gui') {
        gui.push(a);
        continue;
      }
      if (!(await flushGui())) return outcomes;
      if (!game) {
        const done = await this.performCall(a.move, geometry, windowId, executor);
        outcomes.push(done);
        if (!done.ok) return outcomes;
        continue;
      }
      const r = game.applyMove(a.move);
      outcomes.push(r.ok ? { action: a.move, ok: true } : { action: a.move, ok: false, error: r.error });
      if (game.instance.isOver()) break;
    }
    await flushGui();
    return outcomes;
  }
}

/** Why a run cannot play in the semantic space: neither a built-in game nor a profile declares moves. */
export function noMovesMessage(profile: Profile | undefined): string {
  return profile
    ? `the semantic action space needs moves: the profile "${profile.id}" declares none (add a semantic section to it), and the target is not a built-in game`
    : 'the semantic action space needs moves: a built-in game, or a window whose profile declares them in a semantic section';
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

function sameRect(a: Rect, b: Rect) {
  return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
}

function summary(episodes: EpisodeSummary[]): { mean: number | null; std: number | null } {
  const scores = episodes.map((e) => e.score).filter((s): s is number => s !== null);
  if (!scores.length) return { mean: null, std: null };
  return { mean: round2(mean(scores)), std: round2(std(scores)) };
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
