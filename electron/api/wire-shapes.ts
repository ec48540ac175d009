/**
 * What the core sends the renderer: its state (CoreState and what it holds), the events of a
 * live run (CoreEvent), and the summaries its requests answer with. Types only, shared by both
 * transports; everyone imports them through contract.ts, the one contract.
 */
import type {
  ArenaSummary,
  FailedRun,
  GameScoreFields,
  IngvpSetting,
  InvalidEpisode,
  LatencyMode,
  LeaderboardRow,
  LevelScore,
  MemoryStepRecord,
  MilestoneItem,
  MilestoneProgressView,
  ModeFigures,
  RecordingResult,
  ReflectionMode,
  ReportChart,
  ReportTable,
  RetrievalKind,
  Role,
  RunSummary,
  SuiteAgent,
  TakeoverTrigger,
  TimingByMode,
  WorldState,
} from '../domain.ts';
import type { ProfileEdit, Settings, SWEEP_FORM_AGENTS, SweepFolder } from './contract.ts';

export interface WindowSummary {
  id: string;
  title: string;
  pid: number;
  bounds: { x: number; y: number; width: number; height: number };
  scaleFactor: number;
  /** Minimized: a run restores it first. */
  minimized?: boolean;
}

/**
 * A window's picture for the target list. Without a compositor a capture shows whatever is on
 * top, so a covered, minimized or off-screen window gets no picture (dataUrl null) and says why.
 */
export interface WindowThumbnail {
  dataUrl: string | null;
  width: number;
  height: number;
  /** Another window lies over it; `coveredBy` names those windows. */
  covered: boolean;
  coveredBy?: string[];
  minimized: boolean;
  /** None of it is on the screen. */
  offScreen: boolean;
  /** Only part of it is on the screen: the picture shows that part. */
  clipped: boolean;
}
/** A profile as the UI shows it: what it is, where it lives, and its editable fields. */
export interface ProfileSummary {
  id: string;
  title: string;
  file: string;
  source: 'shipped' | 'user' | 'given';
  category: string;
  tier: string;
  /** The profile's content hash, as run.json records it. */
  hash: string;
  scoring: string;
  agent: string;
  builtin: string | null;
  setup: { start: string; display?: string; resolution?: string; other?: string } | null;
  task: string | null;
  edit: ProfileEdit;
  /** The title's own moves and where they land on the window (the profile's `semantic` section); null: none declared. */
  semantic: SemanticLayoutView | null;
}

/** A semantic action's parameter as the editor lists it. */
export type SemanticParamView = { name: string; description?: string } & (
  | { type: 'integer' | 'number'; min: number; max: number; default?: number }
  | { type: 'choice'; values: string[]; default?: string }
);

/**
 * A profile's semantic section as the editor draws it: every place in fractions of the window
 * (0–1 from its top left), a grid's rectangle resolved from the region it names.
 */
export interface SemanticLayoutView {
  /** The window size the layout was measured at, as the profile says it (e.g. 1920x1080). */
  resolution: string | null;
  points: { name: string; x: number; y: number }[];
  regions: { name: string; x: number; y: number; width: number; height: number }[];
  grids: {
    name: string;
    /** The region it divides, when it names one. */
    region: string | null;
    x: number;
    y: number;
    width: number;
    height: number;
    rows: number;
    columns: number;
  }[];
  /** In the order the profile declares them; `example`: a call with every parameter, in its canonical text. */
  actions: { name: string; description: string; params: SemanticParamView[]; example: string }[];
}

/** A GUI action as the model writes it (and run records keep it): image pixels, here window pixels. */
export interface GuiActionWire {
  action_type: string;
  parameters: Record<string, unknown>;
}

/** What happened to one GUI action sent to the window. */
/** One episode end detector's answer on a frame: `label` names it (`end[0] pixels`), `detail` what it saw. */
export interface DetectorResultWire {
  label: string;
  /** ocr, image, pixels, title, exit or judge. */
  kind: string;
  fired: boolean;
  detail: string;
  error?: string;
}

export interface ActionOutcomeWire {
  action: string;
  ok: boolean;
  error?: string;
  /** The screen point the pointer acted at. */
  at?: { x: number; y: number };
}

export interface GameSummary {
  id: string;
  title: string;
  maxSteps: number;
  viewSize: { width: number; height: number };
  /** A two-seat game: PvP or co-op, and what its seats are called (X, O; Blue, Orange). */
  seats?: { mode: 'pvp' | 'coop'; names: [string, string] };
}
export type SessionStatus = 'idle' | 'starting' | 'running' | 'paused' | 'stopping';

export interface LiveRun {
  id: string;
  dir: string;
  target: string;
  game: string | null;
  agent: string;
  model: string | null;
  actionSpace: string;
  demo: boolean;
  episode: number;
  step: number;
  episodes: number;
  maxSteps: number;
  /** On the papers' 0–100 scale: a built-in's after the last step, a window's after its last episode. */
  score: number | null;
  /** The game's own number beside it: a built-in's engine's, or the number read off a window's screen. */
  gameScore: number | null;
  /** How gameScore becomes score, in words (the hover text); null where nothing scores. */
  scoreFormula: string | null;
  tokens: { input: number; output: number };
  costUsd: number | null;
  latency: WorldState;
  /** The agent's steps so far, per latency mode played: input to screen, the model's time and the harness's overhead (run.json `timing`'s figures). */
  timing: TimingByMode<ModeFigures>;
  reflection: { mode: ReflectionMode; review: boolean; lessons: string; reflectorModel: string | null } | null;
  /** A memory agent run: its store and how it retrieves now (lexical: and why). */
  memory?: { scope: string; retrieval: RetrievalKind; note?: string; embeddingModel: string | null };
  /** A two-seat run: who sits where, and each seat's score after the last step. */
  seats?: SeatWire[];
  seatScores?: number[];
  /** Who has the controls: a person (`active`, since a takeover by `trigger`) or the agent. Absent in two-seat runs. */
  takeover?: TakeoverWire;
  /** Why the run is paused (a person paused it, its window is minimized…); null while it runs. */
  pausedBecause: string | null;
}

export interface TakeoverWire {
  active: boolean;
  trigger: TakeoverTrigger | null;
  /** Takeovers so far: one or more makes the run assisted. */
  takeovers: number;
  /** A person's input in the window takes over by itself. */
  onInput: boolean;
}

/** One seat of a two-seat run: its name in the game (X, Blue), its agent (`vlm:gpt-4o`, `solver`) and model. */
export interface SeatWire {
  seat: number;
  name: string;
  agent: string;
  model: string | null;
}

/** One seat's part of a two-seat step: what its agent answered and did on the step's frame. */
export interface SeatStepWire {
  seat: number;
  name: string;
  agent: string;
  reasoning: string;
  actions: unknown[];
  /** The actions in words (absent in a replayed run's steps). */
  actionsText?: string[];
  outcomes: unknown[];
  errors: string[];
  model_ms?: number;
  drift_ticks?: number;
  tokens?: { input: number; output: number };
  cost_usd?: number;
}

/** An outside agent (an MCP client) asks the person to let it play a window no profile fits. */
export interface ConsentQuestionWire {
  client: string;
  window: { id: string; title: string; process: string | null };
}

export interface CoreState {
  /** The question waiting for the person's answer (answerConsent), if any. */
  consent: (ConsentQuestionWire & { id: string; asked: string }) | null;
  status: SessionStatus;
  run: LiveRun | null;
  modelConfigured: boolean;
  /** Why the last run ended badly, if it did. */
  lastError: string | null;
  shell: 'electron' | 'web';
  stopHotkey: string;
  /** Takes the controls from the agent in a running run, and hands them back. */
  takeoverHotkey: string;
  recording: RecordingState | null;
  idc: { game: string; rounds: number; done: number } | null;
  suite: SuiteState | null;
  sweep: SweepState | null;
}

/** Jobs done / total, failed, running, cost so far and the time left, as the sweep's pool reports them. */
export interface SweepProgressWire {
  done: number;
  total: number;
  failed: number;
  running: number;
  /** Done in earlier starts of this sweep (not run again). */
  resumed: number;
  costUsd: number;
  elapsedS: number;
  etaS: number | null;
}

export type SweepJobStatus =
  | 'pending'
  | 'running'
  | 'completed'
  | 'retry'
  | 'failed'
  | 'skipped'
  | 'interrupted'
  | 'done-before';

/** One job of a sweep as its table shows it. */
export interface SweepJobWire {
  id: string;
  /** The matrix cell: game · agent (model) · trial. */
  cell: string;
  status: SweepJobStatus;
  attempt: number;
  worker: number | null;
  display: string | null;
  /** Its run folder in the runs folder (getRun opens it). */
  runId: string | null;
  score: number | null;
  costUsd: number | null;
  error?: string;
}

/** The sweep going now, as the Sweeps tab shows it. */
export interface SweepState {
  name: string;
  folder: SweepFolder;
  workers: number;
  progress: SweepProgressWire;
  jobs: SweepJobWire[];
}

export interface SweepFileSummary {
  name: string;
  folder: SweepFolder;
  /** Jobs in its matrix, and how many are finished in the runs folder (0 for a file that cannot be read). */
  jobs: number;
  finished: number;
  games: string[];
  agents: string[];
  /** The endpoint its model jobs reach (the file's base_url), null for the Settings endpoint. */
  baseUrl: string | null;
  /** Its base_url is not the Settings endpoint: starting it sends the saved key elsewhere, so the app asks first. */
  foreignEndpoint: boolean;
  /** Why the file cannot be used (file, line, field), when it cannot. */
  error?: string;
}

/** One cell of the ING-VP table (%): accuracy, completion degree, action efficiency (mean and pooled). */
export interface SuiteCell {
  levels: number;
  accuracy: number;
  completion: number;
  efficiency: number;
  efficiency_pooled: number;
}

/** The paper-style table: rows[game][setting]; game "all" pools every game's levels. */
export interface SuiteTableWire {
  settings: IngvpSetting[];
  games: string[];
  rows: Record<string, Partial<Record<IngvpSetting, SuiteCell>>>;
}

/** Levels done / total, the estimated time left, and the solved share so far (%). */
export interface SuiteProgressWire {
  done: number;
  total: number;
  /** Levels an earlier start of this suite folder finished (not played again). */
  resumed: number;
  etaMs: number | null;
  accuracy: number;
}

export interface SuiteLevelRef {
  game: string;
  setting: IngvpSetting;
  level: number;
}

/** A finished level's metrics and its run folder (`<runs>/<suite>/runs/<run>`). */
export interface SuiteLevelResult extends SuiteLevelRef, LevelScore {
  run: string;
  ms: number;
}

/** The suite going now, as the ING-VP tab shows it. */
export interface SuiteState {
  name: string;
  agent: SuiteAgent;
  model: string | null;
  games: string[];
  settings: IngvpSetting[];
  levels: number[];
  progress: SuiteProgressWire;
  current: SuiteLevelRef | null;
  table: SuiteTableWire;
}

export interface RecordingState {
  id: string;
  target: string;
  role: Role;
  stage: string;
  trial: number;
  frames: number;
  dropped: number;
  events: number;
  seconds: number;
  fps: number;
}

export interface Results {
  health: { ok: true; version: string };
  state: CoreState;
  listTargets: { windows: WindowSummary[]; games: GameSummary[] };
  thumbnail: WindowThumbnail;
  startRun: { id: string };
  control: { status: SessionStatus };
  /** `answered`: false when the question was no longer open (answered, timed out, withdrawn). */
  answerConsent: { answered: boolean };
  setLatency: WorldState;
  gamePrompt: { title: string; prompt: string; trials: number };
  setReflection: { mode: ReflectionMode; review: boolean };
  setLessons: { text: string };
  startIdc: { started: true };
  startRecording: { id: string };
  stopRecording: { result: RecordingResult | null };
  listSuites: {
    games: { id: string; title: string; levels: number; undo: boolean }[];
    settings: IngvpSetting[];
    /** Suite folders directly in the runs folder; `finished`: levels in its suite.json. */
    suites: { name: string; agent: string; model: string | null; finished: number; updated: string }[];
    /** Suite folders whose suite.json is damaged, each naming the file. */
    warnings: string[];
  };
  startSuite: { name: string; total: number; resumed: number };
  stopSuite: { stopped: boolean };
  listSweeps: {
    sweeps: SweepFileSummary[];
    /** Games and agents the form offers. */
    games: { id: string; title: string }[];
    agents: (typeof SWEEP_FORM_AGENTS)[number][];
  };
  startSweep: { name: string; total: number; resumed: number; workers: number };
  stopSweep: { stopped: boolean };
  /** `id`: the latest completed expert session of the title (the default tutorial); `candidates`: every completed run or session of it, experts first. */
  findTutorial: {
    id: string | null;
    /** Where the title's tutorial videos go, relative to the runs folder (`tutorials/<title>`). */
    folder: string;
    candidates: {
      id: string;
      /** `video`: a file of `<runs>/tutorials/<title>/`; `run`: a run or session folder. */
      kind: 'video' | 'run';
      agent: string;
      created: string;
      mean: number | null;
    }[];
  };
  /** `data`: base64 bytes from `offset`; `next`: where the next chunk starts, null after the last. */
  readTutorialVideo: { data: string; offset: number; next: number | null; total: number; mime: string };
  /** `errors`: profile files refused whole, each naming file, line and field. */
  listProfiles: { profiles: ProfileSummary[]; errors: string[] };
  matchProfile: { candidates: ProfileSummary[] };
  saveProfile: { profile: ProfileSummary };
  profileEvidence: { dataUrl: string };
  /**
   * `call`: the call in its canonical text; `actions`: the GUI actions it became, in window pixels;
   * `outcomes`: one per action sent, in order (sending stops at the first refusal); `ok`: all were sent.
   */
  trySemanticAction: {
    call: string;
    window: { width: number; height: number };
    actions: GuiActionWire[];
    outcomes: ActionOutcomeWire[];
    ok: boolean;
  };
  /** `seen`: why the window could not be seen (its frame is then missing), else null; `frame`: the frame looked at. */
  checkEndDetectors: { results: DetectorResultWire[]; frame: string | null; seen: string | null };
  /** `template`: the name an image detector gives it (beside the profile); `dataUrl`: the picture. */
  cutEndTemplate: { template: string; width: number; height: number; dataUrl: string };
  /**
   * `ok`: the new game was ready in `ms` (`detail` says how it was known), or else `error` says why
   * not; `before` and `frame`: the window before the steps and as it was last seen after them.
   */
  tryReset:
    | { ok: true; ms: number; detail: string; before: string | null; frame: string | null }
    | { ok: false; error: string; before: string | null; frame: string | null };
  exportVideo: { path: string };
  getSettings: { settings: Settings; apiKeySet: boolean; secretStorage: string };
  /** `keyCleared`: the endpoint changed without a new key, so the stored key was dropped. */
  saveSettings: { settings: Settings; apiKeySet: boolean; keyCleared?: boolean };
  testConnection: { ok: boolean; models: string[]; error?: string; ms: number };
  /** `warnings`: run folders skipped because their run.json is damaged, each naming the file. */
  listRuns: { runs: RunSummary[]; warnings: string[] };
  /** vr: the papers' VR column (No / Yes / — for human experts); lessons: where a Yes row's lessons came from. */
  /** The pooled rows, and what was left out of them: failed runs with their errors, invalid episodes with their reasons. */
  leaderboard: { warnings: string[]; rows: LeaderboardRow[]; failed: FailedRun[]; invalid: InvalidEpisode[] };
  /** The same tables and charts as `gamepilot report`'s page; charts are chart.js configurations. */
  report: {
    generated: string;
    runs: { counted: number; left_out: number; damaged: number };
    warnings: string[];
    tables: ReportTable[];
    charts: ReportChart[];
    /** A chart dataset whose label ends so is the whisker (mean ± std) of the one before: left out of legends. */
    whisker: string;
  };
  /**
   * Each arena's win-rate matrix and standings, or team scores, and the report's tables of them
   * (the matrix a heat map); runs named by the ids getRun takes.
   */
  arenas: { arenas: (ArenaSummary & { tables: ReportTable[] })[]; warnings: string[] };
  /** `warnings`: lines of steps.jsonl skipped because they are damaged, each with its file and line. */
  getRun: { meta: Record<string, unknown>; steps: Record<string, unknown>[]; warnings: string[] };
  getFrame: { dataUrl: string };
  exportRun: { path: string };
  /** `memories` is -1 for a damaged store (moved aside when next used). */
  listMemory: { scopes: { scope: string; memories: number; bytes: number }[] };
  clearMemory: { scope: string; cleared: number };
  labelMilestone: { labels: MilestoneLabelWire[] };
  milestoneLabels: { labels: MilestoneLabelWire[] };
  milestoneAgreement: {
    games: { game: string; runs: number; episodes: number; judged: number; human: number; pct_diff: number | null }[];
    warnings: string[];
  };
}

/** One item of a milestone checklist as the live view and the replay show it. */
export type MilestoneItemWire = MilestoneItem;

export interface MilestoneLabelWire {
  episode: number;
  milestone: string;
  reached: boolean;
  at: string;
}

export interface StepEventData extends Partial<GameScoreFields> {
  runId: string;
  episode: number;
  step: number;
  /** Who played the step: the agent, or a person who took over. */
  actor?: 'agent' | 'human';
  reasoning: string;
  actions: unknown[];
  actionsText: string[];
  outcomes: unknown[];
  errors: string[];
  latency_ms: Record<string, number>;
  tokens?: { input: number; output: number };
  cost_usd?: number | null;
  /** On 0–100: a built-in's after the step; a window scored off its screen, its episode so far as read (null: nothing yet). */
  score: number | null;
  frame_size?: { width: number; height: number; scale: number };
  latency_mode?: LatencyMode;
  paused_ms?: number;
  drift_ticks?: number;
  /** The memory agent's summary, retrieved and saved memories at this step. */
  memory?: MemoryStepRecord;
  /** A two-seat step: the seats that acted, and every seat's score after it. */
  seats?: SeatStepWire[];
  seat_scores?: number[];
  /** The run's timing so far, this step included (LiveRun `timing`). */
  timing?: TimingByMode<ModeFigures>;
}

export type CoreEvent =
  | { type: 'state'; state: CoreState }
  | { type: 'frame'; runId: string; episode: number; step: number; dataUrl: string; width: number; height: number }
  /** `seat`: whose model streams, in a two-seat run. */
  | {
      type: 'token';
      runId: string;
      episode: number;
      step: number;
      text: string;
      channel: 'answer' | 'thinking';
      seat?: number;
    }
  | { type: 'step'; data: StepEventData }
  /** A two-seat run: each seat's score, and the winning seat (null: a draw; absent in co-op). */
  | {
      type: 'episode';
      runId: string;
      episode: number;
      score: number | null;
      steps: number;
      end: string;
      /** A window scored off its screen: the number read, before normalising. */
      raw_score?: number | null;
      seat_scores?: number[];
      winner?: number | null;
      /** A profile's end detector ended it: which one, and what it saw. */
      end_detector?: string;
    }
  | { type: 'released'; runId: string; inputs: string[] }
  | { type: 'takeover'; runId: string; takeover: TakeoverWire }
  | { type: 'world'; runId: string; latency: WorldState }
  | { type: 'warning'; runId: string; message: string }
  /** The memory agent's state during a step: after retrieval, then with what it saved. */
  | { type: 'memory'; runId: string; episode: number; step: number; memory: MemoryStepRecord }
  | { type: 'recording'; state: RecordingState }
  | { type: 'recorded'; result: RecordingResult }
  | {
      type: 'lessons';
      runId: string;
      afterEpisode: number | null;
      text: string;
      note?: string;
      error?: string;
      edited?: boolean;
      awaitingReview?: boolean;
    }
  | ({ type: 'milestones'; runId: string } & MilestoneProgressView)
  | { type: 'idc'; round: IdcRoundSummary; curve: number[] }
  /** The suite's progress: at its start and after each level. */
  | { type: 'suite-progress'; suite: string; progress: SuiteProgressWire }
  /** A level starts. */
  | { type: 'suite-level'; suite: string; current: SuiteLevelRef }
  /**
   * One answer of the level in play: what it did, and the state — the screenshot the model answered
   * (image settings) or the text state after the move (text settings).
   */
  | {
      type: 'suite-step';
      suite: string;
      current: SuiteLevelRef;
      step: number;
      actions: string[];
      changed: number;
      errors: string[];
      solved: boolean;
      text?: string;
      frame?: { dataUrl: string; width: number; height: number };
    }
  /** A level finished: its result and the table with it. */
  | { type: 'suite-table'; suite: string; last: SuiteLevelResult; table: SuiteTableWire }
  /** The suite ended: finished, stopped, or failed (`error`). */
  | {
      type: 'suite-done';
      suite: string;
      played: number;
      resumed: number;
      stopped: boolean;
      table: SuiteTableWire;
      error?: string;
    }
  /** The sweep's progress: at its start and after each job. */
  | { type: 'sweep-progress'; sweep: string; progress: SweepProgressWire }
  /** A job started, finished, failed (or will be retried), with its worker's display and its run. */
  | { type: 'sweep-job'; sweep: string; job: SweepJobWire }
  /** The sweep ended: finished, stopped, or failed to run (`error`). */
  | {
      type: 'sweep-done';
      sweep: string;
      completed: number;
      failed: number;
      skipped: number;
      resumed: number;
      total: number;
      stopped: boolean;
      costUsd: number;
      wallS: number;
      error?: string;
    }
  | {
      type: 'idc-done';
      runDir: string;
      curve: number[];
      bestRound: number;
      bestSkill: string;
      /** Per held-out split: no skill vs the best skill, and the gain (score points). */
      transfer: { variant: string; baseline: number; best: number; gain: number }[] | null;
      error?: string;
    };

export interface IdcRoundSummary {
  round: number;
  skill: string;
  mean: number;
  rollback?: boolean;
  note?: string;
  diagnosis?: string;
  reflector_mode?: string;
  judge?: { tries: number; accepted: boolean; reasons: string[] };
  error?: string;
}
