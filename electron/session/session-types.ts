/**
 * The shapes a Session works with: what it is given (SessionDeps), what it emits
 * (SessionEvents), what it writes for a step (SessionStepRecord), and what each stage of a step
 * hands the next (SeenTarget → StepTrace, StepClock, Shot, SeenFrame, Choice, Acted → StepResult).
 */
import type { WindowParts } from './episode-ends.ts';
import type { Action } from '../actions/schema.ts';
import type { Agent, Decision } from '../agents/agent-types.ts';
import type { RawFrame, ScreenCapturer } from '../capture/capturer.ts';
import type { EncodedFrame } from '../capture/encode.ts';
import type { ActionExecutor, ActionOutcome } from '../input/executor.ts';
import type { FrameGeometry } from '../input/coordinates.ts';
import type { Rect, WindowInfo, WindowManager } from '../../native/types.ts';
import type { RunStore, EpisodeSummary, RunMeta, StepRecord } from '../store/run-store.ts';
import type { Target } from './targets.ts';
import type { ClockPolicy } from '../latency/clock-policy.ts';
import type { LatencyMode, MemoryStepRecord, RunStatus, WorldKind, WorldState } from '../domain.ts';
import type { ReflectionRecord } from './reflection-records.ts';
import type { Profile } from '../profiles/profile-schema.ts';
import type { ScreenScoreReader } from '../scoring/screen-reader.ts';
import type { MilestoneProgress } from '../scoring/milestone-judging.ts';
import type { World } from '../latency/world.ts';
import type { TakeoverTrigger } from './takeover.ts';
import type { EffectRecord } from './step-effect.ts';
import type { CostMeter } from '../agents/cost-meter.ts';

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
  /** What the run's model calls spend, and its cap: every caller of the run holds it. */
  meter?: CostMeter;
  /** A profiled window's episode end and reset (the profile's folder, the judge's model, the reset's executor). */
  episodeEnd?: Pick<WindowParts, 'profileDir' | 'judge' | 'executor'>;
}

/** Why an episode ended. */
export type EndReason =
  | 'game_over'
  | 'done'
  | 'fail'
  | 'max_steps'
  | 'max_time'
  | 'stopped'
  | 'disk_budget'
  /** The cost cap (`budgetUsd`): the next model call could pass it. */
  | 'budget'
  /** The player ended it (an MCP client's `end_episode`); scored as the game stood then. */
  | 'ended_by_player';

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
   * How many times the step asked the window system where its window is: at most 1 where a look
   * can be reused until the window's own events say it changed (X11; 0 while the window holds
   * still); absent where the target cannot count.
   */
  window_lookups?: number;
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

/** What a step's record says first: which step, its frame and where the window was (step-record.ts). */
export type FrameHead = Pick<
  SessionStepRecord,
  'step' | 'episode' | 't_capture' | 'frame' | 'frame_size' | 'window'
> & {
  /** Only when part of the window was off the screen: the region in the frame. */
  captured?: Rect;
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

/** What `status` reports: running or paused while going, then how the run ended. */
export type SessionStatus = 'running' | 'paused' | RunStatus;

/** Everything a Session emits, with its arguments. */
export interface SessionEvents {
  /** `why`: the reason of a pause (a person paused it, the window is minimized…). */
  status: [SessionStatus, string?];
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
  /** The target's lookup counter before the look that found it (Target.lookups). */
  lookupsBefore?: number;
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
  /** What the step's actions did to the target (step-effect.ts); absent when nothing was acted. */
  effect?: EffectRecord;
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

/**
 * A step the player did not answer, so not recorded, and how its episode ends: the player
 * ended it there, or the run stopped first.
 */
export interface UnansweredStep {
  unanswered: Extract<EndReason, 'ended_by_player' | 'stopped'>;
}

/** What a step came to: recorded, or not (its player did not answer). */
export type StepResult = RecordedStep | UnansweredStep;

export interface RecordedStep {
  rec: StepRecord;
  terminal?: string;
  refused: boolean;
  unusable: boolean;
}
