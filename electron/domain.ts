/**
 * The core's vocabulary, defined once: every enum the rooms, the contract and the renderer
 * share, the run id format, the plain records that cross from the core's lower rooms to the
 * contract unchanged, and the coded error every layer may throw. It imports nothing, so any
 * layer may import it (native/ and games/ included) and the contract can stay free of Node.
 */

export const LATENCY_MODES = ['stop', 'slow', 'normal', 'lcrt'] as const;
/** How the world waits for the model: see electron/latency/clock-policy.ts. */
export type LatencyMode = (typeof LATENCY_MODES)[number];

export const REFLECTION_MODES = ['none', 'self-f', 'self-t', 'self', 'other'] as const;
/** GameVerse's reflect-and-retry modes: see electron/reflection/reflector.ts. */
export type ReflectionMode = (typeof REFLECTION_MODES)[number];

/** When a reflection follows an episode: after a failed one, or after every one. */
export const REFLECT_AFTER = ['failed', 'every'] as const;
export type ReflectAfter = (typeof REFLECT_AFTER)[number];
/** How a reflector gets a trajectory: off (one image part a frame), on (one MP4, a refusal is an error), auto (the MP4, frames where refused). */
export const REFLECT_VIDEO = ['off', 'auto', 'on'] as const;
export type ReflectVideo = (typeof REFLECT_VIDEO)[number];

/** Human baselines: a rookie learns from a tutorial, an expert plays once. */
export const ROLES = ['rookie', 'expert'] as const;
export type Role = (typeof ROLES)[number];

/** GUI: keyboard and mouse on the window; semantic: the built-in game's own moves. */
export const ACTION_SPACES = ['gui', 'semantic'] as const;
export type ActionSpace = (typeof ACTION_SPACES)[number];

/** vlm: the zero-shot model agent; memory: the model agent with a running summary and long-term memory. */
export const AGENT_KINDS = ['random', 'solver', 'vlm', 'memory'] as const;
export type AgentKind = (typeof AGENT_KINDS)[number];

/**
 * ING-VP's six settings (§3.2), in the paper's order: see electron/ingvp/ingvp-settings.ts. Here so the
 * contract can name them.
 */
export const INGVP_SETTINGS = [
  'one-step-image',
  'one-step-text',
  'multi-step-image',
  'multi-step-text',
  'multi-step-image-history',
  'multi-step-text-history',
] as const;
export type IngvpSetting = (typeof INGVP_SETTINGS)[number];

/**
 * ING-VP §4.3's two adjustments of the multi-step output, played as settings of their own:
 * step-wise Best of N (N = 10) and Forced Planning. Not among `all` (the paper's Table 1).
 */
export const INGVP_ANALYSIS_SETTINGS = ['best-of-10', 'forced-planning'] as const;
export type IngvpAnalysisSetting = (typeof INGVP_ANALYSIS_SETTINGS)[number];

/** Every setting the suite plays: the six, then §4.3's two. */
export const INGVP_SUITE_SETTINGS = [...INGVP_SETTINGS, ...INGVP_ANALYSIS_SETTINGS] as const;
export type SuiteSetting = (typeof INGVP_SUITE_SETTINGS)[number];

/** What one ING-VP level scored, from engine state: the level run's metrics the suite and the ING-VP tab show. */
export interface LevelScore {
  solved: boolean;
  /** Completion degree, 0–100. */
  completion: number;
  /** Actions that changed the state / all actions (0 when there were none). */
  efficiency: number;
  actions: number;
  changed: number;
  /** Model answers asked for. */
  steps: number;
}

/** Who plays an ING-VP suite: the configured model, the solver, or uniformly random moves. */
export const SUITE_AGENTS = ['vlm', 'solver', 'random'] as const;
export type SuiteAgent = (typeof SUITE_AGENTS)[number];

/** Agent kinds that ask a model (and so need one). */
export function isModelAgent(kind: string): kind is 'vlm' | 'memory' {
  return kind === 'vlm' || kind === 'memory';
}

/** How the memory agent finds long-term memories: embeddings from the endpoint, or words (BM25). */
export const RETRIEVAL_KINDS = ['embedding', 'lexical'] as const;
export type RetrievalKind = (typeof RETRIEVAL_KINDS)[number];

/** What the memory agent knew and kept at one step: steps.jsonl's `memory`, and the live memory panel. */
export interface MemoryStepRecord {
  /** The store it reads and writes (`<config>/memory/<scope>.json`). */
  scope: string;
  retrieval: RetrievalKind;
  /** The running history summary after this step's review. */
  summary: string;
  /** The review's reading of the screen, its reasoning and plan. */
  observation?: string;
  review_reasoning?: string;
  plan?: string;
  /** Long-term memories put into this step's prompt, best first, with their similarity (0–1). */
  retrieved: { id: string; text: string; similarity: number }[];
  /** What the step saved to long-term memory, if anything. */
  saved: { id: string; text: string } | null;
  /** A memory the model asked to save but that was not, being too like one already stored. */
  skipped: { text: string; similarity: number; duplicate_of: string } | null;
  /** Summary lines dropped to keep it within its word budget. */
  summary_dropped?: number;
  /** Why the review or a save did not work, when it did not. */
  errors?: string[];
}

/**
 * A step's score in the game's own units beside the papers' 0–100 `score`: steps.jsonl and the
 * live step event. Absent where the harness has no such number (a window, read off its screen
 * at the episode's end; a two-seat game, scored by seat).
 */
export interface GameScoreFields {
  /** The game's own number after the step (2048's merge score, food eaten); null past what it counts. */
  game_score: number | null;
  /** How that number becomes `score`, in words ("score = merge score / 20000 × 100, clipped to 0–100"). */
  score_formula: string;
}

/** The image detail hint sent to providers that honour it. */
export const IMAGE_DETAILS = ['low', 'high', 'auto'] as const;
export type ImageDetail = (typeof IMAGE_DETAILS)[number];

/** How a target's world is frozen: engine clock, process suspension, its pause key, or not at all. */
export const WORLD_KINDS = ['engine', 'process', 'pause-key', 'none'] as const;
export type WorldKind = (typeof WORLD_KINDS)[number];

/** The latency mode in force and whether the game's world is frozen right now. */
export interface WorldState {
  mode: LatencyMode;
  frozen: boolean;
  /** How this target is frozen: engine clock, process, pause key, or not at all. */
  world: WorldKind;
}

/** `takeover`: a person takes the controls from the agent; `handback` gives them back. */
export const CONTROL_ACTIONS = ['pause', 'resume', 'step', 'stop', 'takeover', 'handback'] as const;
export type ControlAction = (typeof CONTROL_ACTIONS)[number];

/** A run's status on disk; `crashed` is how a listing shows a running run whose owner is gone. */
export const RUN_STATUSES = ['running', 'completed', 'stopped', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export type ListedStatus = RunStatus | 'crashed';

/**
 * Which step frames a run writes to frames/ (store/frame-budget.ts): all; every:N, the steps
 * 0, N, 2N… of each episode; changed, each episode's first frame and every one that differs
 * visibly from the last kept (more than 0.25 % of its pixels); none. A step whose frame is not
 * kept has `frame: null`.
 */
export type KeepFrames = 'all' | 'changed' | 'none' | `every:${number}`;
export const KEEP_FRAMES_PATTERN = /^(all|changed|none|every:[1-9]\d{0,5})$/;
export const KEEP_FRAMES_ALLOWED = 'all, every:N (N ≥ 1), changed or none';
/** The free space (MB) a run leaves on its disk unless told otherwise: below it the run stops (disk budget). */
export const DEFAULT_MIN_FREE_MB = 500;

/** A run's id: its folder name in the runs folder. Never a path. */
export const RUN_ID = /^\w[\w.-]{0,199}$/;
/** A run of an arena folder in the runs folder: `<arena folder>/runs/<run folder>` (arena/tables.ts). */
export const ARENA_RUN_ID = /^\w[\w.-]{0,199}\/runs\/\w[\w.-]{0,199}$/;

/** A tutorial video in the runs folder: `tutorials/<title folder>/<file>` (store/tutorials.ts); no `..`, no deeper path. */
export const TUTORIAL_VIDEO_ID = /^tutorials\/[a-z0-9][\w.-]{0,99}\/\w[\w .()-]{0,150}\.(mp4|webm|mkv|mov)$/i;

/** The title id of a window that followed no profile: this prefix, then its window title (store/run-title.ts). */
export const UNPROFILED_PREFIX = 'window:';

/** A run as the library lists it. */
export interface RunSummary {
  id: string;
  created: string;
  /** `crashed`: still marked running, but the process that wrote it is gone. */
  status: ListedStatus;
  kind: string;
  game: string | null;
  /** The title it counts under in tables: a built-in game, a window's profile, or an unprofiled window. */
  title: { id: string; name: string; kind: 'builtin' | 'profile' | 'unprofiled' };
  target: string;
  agent: string;
  model: string | null;
  actionSpace: string;
  mean: number | null;
  std: number | null;
  episodes: number;
  steps: number;
  /** The web shell's first-launch demonstration (never scored). */
  demo?: boolean;
  /** Why the run failed (run.json `error`). */
  error?: string;
  /** Episodes marked invalid, with their reasons: left out of `mean` and `std`. */
  invalid?: { episode: number; reason: string }[];
}

/** What a finished recording of a person reports. */
export interface RecordingResult {
  session_dir: string;
  id: string;
  frames: number;
  dropped: number;
  duration_s: number;
  events: number;
  score: number | null;
  fps: number;
}

/**
 * Kinds of failure a caller can act on: `busy` (something else is going: stop it first),
 * `bad-input` (the request cannot work as given), `not-found` (no such run, window or file),
 * `target-gone` (the window closed), `model-unreachable` (the model endpoint did not answer
 * usefully), `cancelled` (stopped, or a person said no, e.g. closed a save dialog), `forbidden`
 * (a caller the core does not answer), `internal` (a fault).
 */
export const ERROR_CODES = [
  'busy',
  'bad-input',
  'not-found',
  'target-gone',
  'model-unreachable',
  'cancelled',
  'forbidden',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** An error that says what kind of failure it is, for callers (and the UI) to react to. */
export class CodedError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function isErrorCode(v: unknown): v is ErrorCode {
  return (ERROR_CODES as readonly unknown[]).includes(v);
}

/** One item of a milestone checklist as the live view and the replay show it. */
export interface MilestoneItem {
  name: string;
  level?: string;
  description?: string;
  reached: boolean;
  step?: number;
  /** The evidence frame in the run folder (getFrame reads it). */
  frame?: string;
  reason?: string;
}

/** The checklist of one episode as it stands, for the live view and the replay. */
export interface MilestoneProgressView {
  episode: number;
  items: MilestoneItem[];
  reached: number;
  total: number;
  score: number;
  calls: number;
  budget: number | null;
  /** The episode's last judgement is in. */
  final: boolean;
}

/** What a run's title is: a built-in game, a profiled window, or a window without a profile. */
export const TITLE_KINDS = ['builtin', 'profile', 'unprofiled'] as const;
export type TitleKind = (typeof TITLE_KINDS)[number];

/** One row of the leaderboard (store/leaderboard.ts): a title × player × VR cell × space × latency, pooled. */
export interface LeaderboardRow {
  /** The title's id (store/run-title.ts): a built-in game, a profile, or `window:<title>`. */
  game: string;
  /** The title as people read it, its kind and the profile's taxonomy. */
  title: string;
  kind: TitleKind;
  category: string | null;
  tier: string | null;
  /** Distinct versions (content hashes) of the profile among the pooled runs: more than one is flagged. */
  profile_versions: number;
  player: string;
  model: string | null;
  /** A person took over in these runs: listed apart, never pooled with the agent's own play. */
  assisted: boolean;
  /** "No", "Yes" or "—" (human experts). */
  vr: 'No' | 'Yes' | '—';
  /** For VR = Yes: where the lessons came from (self-f, self-t, self, other, edited, given; rookie: tutorial). */
  lessons: string | null;
  actionSpace: string;
  latency: string;
  /**
   * The protocol the row's runs played under (store/run-protocol.ts): the mode and every setting
   * that changes it, e.g. "stop 2000 ms, freeze engine" or "normal". Rows never pool two protocols.
   */
  protocol: string;
  /** The protocol family: how the world is frozen (engine, process, pause key …); modes compare within one. */
  freeze: string;
  runs: number;
  /** Every counted trial, the unreadable ones included. */
  episodes: number;
  /** Trials whose score could not be read: in `episodes` and in the mean, each as 0. */
  unreadable: number;
  mean: number;
  std: number;
  best: number;
  /** The spread over reruns: sample std of the runs' own means in this row; null with one run. */
  runs_std: number | null;
  /** Episodes of this row's runs marked invalid (no model answer for most steps): counted here, never pooled. */
  invalid_episodes: number;
  /**
   * Of the row's runs that record `quality`: steps that changed nothing, and steps with invalid
   * actions, over all their steps (0–1, summed over runs, not a mean of rates); null when none does.
   */
  no_effect_rate: number | null;
  invalid_rate: number | null;
  /** The row's runs that record `quality` (the rates cover these). */
  quality_runs: number;
  /**
   * Input-to-screen, model and harness times of the row's runs (domain.ts ModeTimingOf), pooled
   * from their kept samples per latency mode the steps were played in: the row's own `latency`,
   * and another only where a run was switched mid-run; empty when no run of the row records them.
   */
  timing: TimingByMode<ModeFigures>;
  /** The row's runs that record `timing` (the figures cover these). */
  timing_runs: number;
}

/** How many millisecond samples, and their p50 and p95 (nearest rank, as util/time.ts `percentile`; null with none). */
export interface MsFigures {
  n: number;
  p50: number | null;
  p95: number | null;
}

/**
 * Millisecond samples as run.json keeps them (store/run-timing.ts): their figures, and how many
 * samples took each value, ascending by value. A value is kept to the whole millisecond below
 * 1 s and to three significant figures from 1 s on (10 ms steps to 9.99 s, 100 ms steps to
 * 99.9 s, …), so the list holds at most 1,000 values plus 900 a decade above, whatever the run's
 * length, and several runs pool exactly by adding their counts.
 */
export interface MsSamples extends MsFigures {
  counts: [ms: number, samples: number][];
}

/**
 * One latency mode's part of a run's agent steps (a person's steps during a takeover are not
 * counted), or of a table row's runs:
 * - `effect_ms`: input to screen — steps.jsonl `effect_ms`, from the first injected input to the
 *   target window's first changed pixel (a built-in: its first draw after its state changed), of
 *   the steps that measured one;
 * - `model_ms`: `latency_ms.model` of the steps the model answered (none for a solver, a random
 *   agent, or a model never reached);
 * - `overhead_ms`: the harness's own part of a step, `latency_ms` locate + capture + encode + act
 *   (the model's time and the wait after acting left out; act includes what the actions take
 *   themselves: a WAIT, a held key, a drag, and under lcrt the world running for the model's
 *   compute time).
 */
export interface ModeTimingOf<S extends MsFigures> {
  /** The agent steps played in this mode. */
  steps: number;
  effect_ms: S;
  model_ms: S;
  overhead_ms: S;
}
export type ModeTiming = ModeTimingOf<MsSamples>;
export type ModeFigures = ModeTimingOf<MsFigures>;
/** Per latency mode the steps were played in (the Live view's switch changes it at the next step). */
export type TimingByMode<T> = Partial<Record<LatencyMode, T>>;

/** run.json `timing` (absent in runs made before it): the run's own latency mode, and its steps' samples per mode played. */
export interface RunTiming {
  /** The mode the run was started in (`config.latency`). */
  latency_mode: LatencyMode;
  by_mode: TimingByMode<ModeTiming>;
}

/** A run that ended `failed` (e.g. its model never answered): listed apart with its error, never pooled. */
export interface FailedRun {
  /** Its folder name. */
  run: string;
  created: string;
  /** The title id it would count under. */
  game: string;
  player: string;
  model: string | null;
  error: string | null;
}

/** An episode marked invalid in run.json (most of its steps had no model answer): listed with its reason, never pooled. */
export interface InvalidEpisode {
  run: string;
  game: string;
  player: string;
  model: string | null;
  episode: number;
  /** What the game said; kept, not counted. */
  score: number | null;
  reason: string;
}

/** A report table as the page, the app and the CSV files draw it: columns, rows of plain values, what to say when empty. */
export interface ReportTable {
  id: string;
  title: string;
  note: string;
  /** Column groups over the header (e.g. a category over its games): label and how many columns it spans. */
  groups?: { label: string; span: number }[];
  columns: { key: string; label: string }[];
  rows: Record<string, string | number | null>[];
  empty: string;
  /** Cells drawn as a heat map (an arena's win-rate matrix): per row, by column key. */
  heat?: Record<string, HeatCell>[];
}

/** A heat-map cell: the 0–1 value its background is scaled by (null: not played) and the run it was counted from. */
export interface HeatCell {
  value: number | null;
  run: string | null;
}

/** One cell of an arena's PvP matrix: player 1 (row) against player 2 (column). */
export interface MatrixCell {
  games: number;
  p1_wins: number;
  p2_wins: number;
  draws: number;
  /** Of the draws, games the harness's step or time limit ended before the game decided them (`LIMIT_ENDS`). */
  limit_draws: number;
  /** Player 1's wins / games; null before any game. */
  p1_win_rate: number | null;
  /** The run folder the cell was counted from; null before its match completed. */
  run: string | null;
}

/** An agent of a PvP arena over both seats. */
export interface Standing {
  agent: string;
  games: number;
  wins: number;
  losses: number;
  draws: number;
  /** Of the draws, those ended by the harness's step or time limit. */
  limit_draws: number;
  win_rate: number | null;
}

/** A co-op pair's mean team score (0–100) over its episodes. */
export interface TeamScore {
  p1: string;
  p2: string;
  /** Every counted episode, the unreadable ones included. */
  episodes: number;
  /** Episodes whose team score could not be read: in `episodes` and in the mean as 0. */
  unreadable: number;
  mean: number | null;
  run: string | null;
}

/**
 * An arena folder's tables (arena/tables.ts) as the report and the Runs tab show them. `id` and
 * each `run` are paths relative to the folder read: in the Runs tab, the run ids to open.
 */
export interface ArenaSummary {
  id: string;
  game: string;
  mode: 'pvp' | 'coop';
  agents: string[];
  trials: number;
  latency: string;
  actionSpace: string;
  /** PvP: rows player 1, columns player 2; null on the diagonal (no self-play). */
  matrix: (MatrixCell | null)[][] | null;
  standings: Standing[] | null;
  /** Co-op: each pair's mean team score, 0–100. */
  teams: TeamScore[] | null;
  /** Matches without a completed run yet: their cells are empty. */
  missing: string[];
}

/** A report chart as a chart.js configuration: plain JSON, handed to `new Chart` by the page and by the app. */
export interface ReportChart {
  id: string;
  title: string;
  /** The table it belongs under. */
  section: string;
  config: { type: string; data: unknown; options?: unknown };
}

/** How a takeover began: the Live view's button (or the API), the takeover hotkey, or input in the window. */
export const TAKEOVER_TRIGGERS = ['button', 'hotkey', 'input'] as const;
export type TakeoverTrigger = (typeof TAKEOVER_TRIGGERS)[number];

/** One input of the person's, in the agent's action schema, window-relative; `t` is epoch ms. */
export interface PersonEvent {
  t: number;
  action_type: string;
  parameters: Record<string, unknown>;
}

/** A takeover as run.json keeps it. */
export interface TakeoverSpan {
  index: number;
  episode: number;
  trigger: TakeoverTrigger;
  /** The first and last step the person played (null: none was recorded). */
  from_step: number | null;
  to_step: number | null;
  /** Epoch ms. */
  started: number;
  ended: number | null;
  /** Whether it ended by handing back (false: the run ended while the person had the controls). */
  handed_back: boolean;
  human_steps: number;
  inputs: number;
  /**
   * Frames not taken because another window lay over the game (a person's play moves focus, so
   * the harness does not raise the game then, and a screen capture would show that window).
   */
  covered_frames: number;
}

/** run.json's account of people's part in a run. */
export interface AssistSummary {
  /** True once a person took over: the run's scores are not the agent's alone. */
  assisted: boolean;
  takeovers: TakeoverSpan[];
  human_steps: number;
  human_ms: number;
}

/**
 * Why a base URL may not be used, or undefined. A user name or password in it (`https://u:p@host`)
 * would be written wherever the endpoint is recorded (run.json, logs), so it is refused: the
 * key belongs in the API key (--api-key, OPENAI_API_KEY, Settings). Not a URL at all: left to
 * the caller's own check.
 */
export function endpointUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return undefined;
  }
  if (u.username || u.password)
    return 'has a user name or password in it, which run files would record: give the key as the API key (--api-key, OPENAI_API_KEY or Settings) and the URL without it';
  return undefined;
}

/** Gamepilot's own hotkeys by default (Settings can change them; input/accelerator.ts reads them). */
export const DEFAULT_HOTKEYS = {
  stop: 'CommandOrControl+Shift+F12',
  takeover: 'CommandOrControl+Shift+F11',
} as const;

/** Titles of Gamepilot's own windows: the control UI and the built-in game views. Never a target. */
export const OWN_TITLE = /^Gamepilot( [·—-]|$)/;

/** Two decimals: how run.json and the tables keep scores and times. */
export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** "2 of 10 trials unreadable, scored 0" (store/run-quality.ts isUnreadableEpisode), or null when every score was read. */
export const unreadableText = (r: { unreadable: number; episodes: number }): string | null =>
  r.unreadable ? `${r.unreadable} of ${r.episodes} trials unreadable, scored 0` : null;
/** A pooled rate (0–1) as tables print it: a percentage to one place, or "n/a" for runs that do not record it. */
export const rateText = (r: number | null) => (r === null ? 'n/a' : `${(r * 100).toFixed(1)} %`);
/** "p50 / p95" of millisecond samples; "—" with none (a run made before they were kept, or nothing measured): never 0. */
export const percentilesText = (f: MsFigures | null | undefined) =>
  f && f.n > 0 && f.p50 !== null && f.p95 !== null ? `${f.p50} / ${f.p95}` : '—';

/**
 * OmniGameArena's protocol: 10 reflection rounds × 5 episodes each (Fig. 5), played under PDQ —
 * the world frozen for the whole model call, the action applied from the observed state. PDQ
 * is the stop mode here; it gets no extra interval after acting (GameVerse's 2 s belongs to
 * its own Stop setting), so the world runs only while the action plays out and the next frame
 * is taken.
 */
export const IDC_DEFAULTS = {
  rounds: 10,
  episodes: 5,
  latency: 'stop' as LatencyMode,
  stopIntervalMs: 0,
  /** The longest skill, in words. */
  maxWords: 120,
  rollbackDrop: 0.25,
  judgeTries: 5,
};
