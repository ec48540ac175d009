/**
 * The one typed contract between the renderer and the core. Requests are validated at the
 * boundary (`parseParams`, for both transports); events are what a Session emits, shaped for
 * the UI; failures carry a `code` (domain.ts's ERROR_CODES). Nothing here imports Node or
 * Electron, so the renderer shares these types.
 */
import { z } from 'zod';
import {
  DEFAULT_HOTKEYS,
  ARENA_RUN_ID,
  CodedError,
  CONTROL_ACTIONS,
  INGVP_SETTINGS,
  isErrorCode,
  IDC_DEFAULTS,
  LATENCY_MODES,
  REFLECTION_MODES,
  ROLES,
  RUN_ID,
  SUITE_AGENTS,
  TUTORIAL_VIDEO_ID,
  type ErrorCode,
  type GameScoreFields,
} from '../domain.ts';
import { noCredentials, RUN_SPEC_FIELDS, SWEEP_TRIALS } from '../run-spec.ts';
import type { Results, CoreEvent, LiveRun } from './wire-shapes.ts';

export type {
  WindowSummary,
  WindowThumbnail,
  ProfileSummary,
  SemanticParamView,
  SemanticLayoutView,
  GuiActionWire,
  ActionOutcomeWire,
  GameSummary,
  SessionStatus,
  LiveRun,
  TakeoverWire,
  SeatWire,
  SeatStepWire,
  ConsentQuestionWire,
  CoreState,
  SweepProgressWire,
  SweepJobStatus,
  SweepJobWire,
  SweepState,
  SweepFileSummary,
  SuiteCell,
  SuiteTableWire,
  SuiteProgressWire,
  SuiteLevelRef,
  SuiteLevelResult,
  SuiteState,
  RecordingState,
  Results,
  MilestoneItemWire,
  MilestoneLabelWire,
  StepEventData,
  CoreEvent,
  IdcRoundSummary,
} from './wire-shapes.ts';

export {
  ERROR_CODES,
  INGVP_SETTINGS,
  LATENCY_MODES,
  percentilesText,
  rateText,
  REFLECTION_MODES,
  RUN_ID,
  SUITE_AGENTS,
  TUTORIAL_VIDEO_ID,
  UNPROFILED_PREFIX,
} from '../domain.ts';
export type {
  ActionSpace,
  AgentKind,
  ArenaSummary,
  ControlAction,
  ErrorCode,
  FailedRun,
  GameScoreFields,
  IngvpSetting,
  InvalidEpisode,
  KeepFrames,
  LatencyMode,
  MemoryStepRecord,
  ModeFigures,
  MsFigures,
  ReflectionMode,
  ReflectVideo,
  RecordingResult,
  HeatCell,
  ReportChart,
  ReportTable,
  RetrievalKind,
  Role,
  RunSummary,
  SuiteAgent,
  TimingByMode,
  WorldKind,
  WorldState,
} from '../domain.ts';

export const PROVIDERS = {
  openai: { label: 'OpenAI', baseUrl: 'https://api.openai.com/v1' },
  gemini: { label: 'Gemini (OpenAI-compatible)', baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai/' },
  openrouter: { label: 'OpenRouter', baseUrl: 'https://openrouter.ai/api/v1' },
  vllm: { label: 'vLLM', baseUrl: 'http://localhost:8000/v1' },
  ollama: { label: 'Ollama', baseUrl: 'http://localhost:11434/v1' },
  lmstudio: { label: 'LM Studio', baseUrl: 'http://localhost:1234/v1' },
  custom: { label: 'Custom base URL', baseUrl: '' },
} as const;
export type Provider = keyof typeof PROVIDERS;

const settingsFields = {
  provider: z.enum(Object.keys(PROVIDERS) as [Provider, ...Provider[]]),
  baseUrl: z.string().max(500).superRefine(noCredentials),
  model: z.string().max(200),
  imageSize: RUN_SPEC_FIELDS.imageSize.unwrap(),
  detail: RUN_SPEC_FIELDS.detail.unwrap(),
  history: RUN_SPEC_FIELDS.history.unwrap(),
  temperature: RUN_SPEC_FIELDS.temperature.unwrap().nullable(),
  /** The model's price (USD a million tokens) for cost and a run's cap; null: its list price, if known. */
  priceIn: RUN_SPEC_FIELDS.priceIn.unwrap().nullable(),
  priceOut: RUN_SPEC_FIELDS.priceOut.unwrap().nullable(),
  stopHotkey: z.string().min(1).max(60),
  takeoverHotkey: z.string().min(1).max(60),
};
export const SettingsSchema = z.object({
  provider: settingsFields.provider.default('openai'),
  baseUrl: settingsFields.baseUrl.default(''),
  model: settingsFields.model.default(''),
  imageSize: settingsFields.imageSize.default(1280),
  detail: settingsFields.detail.default('auto'),
  history: settingsFields.history.default(2),
  temperature: settingsFields.temperature.default(null),
  priceIn: settingsFields.priceIn.default(null),
  priceOut: settingsFields.priceOut.default(null),
  stopHotkey: settingsFields.stopHotkey.default(DEFAULT_HOTKEYS.stop),
  takeoverHotkey: settingsFields.takeoverHotkey.default(DEFAULT_HOTKEYS.takeover),
});
/** A partial update: only the fields given, no defaults filled in. */
export const SettingsPatchSchema = z.object(settingsFields).partial().strict();
export type Settings = z.infer<typeof SettingsSchema>;
export const DEFAULT_SETTINGS: Settings = SettingsSchema.parse({});

const runId = z
  .string()
  .refine(
    (s) => RUN_ID.test(s) || ARENA_RUN_ID.test(s),
    'must be a run id (a folder name in the runs folder, or an arena run: <arena folder>/runs/<run folder>)',
  );
/** A tutorial: a run or session of the runs folder, or a video in its `tutorials/` folder (store/tutorials.ts). */
const tutorialRef = (also = '') =>
  z
    .string()
    .refine(
      (s) => RUN_ID.test(s) || TUTORIAL_VIDEO_ID.test(s),
      `must be ${also}the id of a run or session in the runs folder, or of a video in its tutorials folder (not a file path)`,
    );
/** What an export may be called inside the exports folder: a plain name, never a path. */
const exportName = (ext = '') =>
  z
    .string()
    .regex(
      new RegExp(`^\\w[\\w.-]{0,120}${ext.replace('.', '\\.')}$`),
      `must be a plain name (letters, digits, '.', '-', '_')${ext ? ` ending in ${ext}` : ''}, not a path`,
    );

/** A memory scope: a plain name (the store file `<config>/memory/<scope>.json`). */
const memoryScope = z
  .string()
  .regex(/^\w[\w.-]{0,63}$/, "must be a plain name of letters, digits, '.', '-', '_' (up to 64)")
  .refine((s) => !s.includes('..'), 'must not contain ".."');

/** A profile id to follow; null: none; absent: the one whose match fits the target. */
const ProfileChoiceField = z.string().min(1).max(64).nullable().optional();

const F = RUN_SPEC_FIELDS;
/**
 * A run as the app starts it: the target and the settings the app offers, each the RunSpec's
 * own field (run-spec.ts: its name, bounds, default and help); the model settings come from
 * Settings. The core makes a RunSpec of it (specFromRequest), so a run started here and one
 * started with `gamepilot run` with the same settings are the same run.
 */
const startRunFields = z
  .object(F)
  .pick({
    seats: true,
    actionSpace: true,
    maxSteps: true,
    seed: true,
    paceMs: true,
    takeOverOnInput: true,
    acceptAnticheatRisk: true,
    preflight: true,
    latency: true,
    keepFrames: true,
    maxRunMb: true,
    reflection: true,
    reflectAfter: true,
    maxWords: true,
    reflectorModel: true,
    reflectVideo: true,
    memoryScope: true,
    budgetUsd: true,
  })
  .extend({
    target: z.union([z.object({ game: z.string().min(1) }), z.object({ windowId: z.string().min(1) })]),
    profile: ProfileChoiceField,
    /** Who plays a one-seat run (no default: a request says who); a two-seat game names its `seats`. */
    agent: F.agent.unwrap().optional(),
    /** The app always asks for a count; a request without one plays one episode. */
    episodes: F.episodes.unwrap().default(1),
    /** "solver" (a demonstration by the game's solver), "title" (the title's declared tutorial) or the id of a run or session in the runs folder: never a path. */
    tutorial: tutorialRef('"solver", "title", ').optional(),
    /** Absent: the spec's default; given, it asks for the memory agent. */
    embeddingModel: F.embeddingModel.unwrap().optional(),
    /** Pause after each reflection so a person can edit the lessons before the retry (the app's own). */
    review: z.boolean().default(false),
  });
export const StartRunSchema = startRunFields.superRefine(seatRules);
export type StartRun = z.infer<typeof StartRunSchema>;

/**
 * A one-seat run names its agent; a two-seat run its seats (run-spec.ts checks them against the
 * rest). The spec defaults the embedding model, so only the request can tell it was asked for.
 */
function seatRules(r: { agent?: string; seats?: unknown; embeddingModel?: string }, ctx: z.RefinementCtx) {
  if (r.agent === undefined && r.seats === undefined)
    ctx.addIssue({ code: 'custom', path: ['agent'], message: 'is needed: who plays (or seats, for a two-seat game)' });
  if (r.embeddingModel !== undefined && r.agent !== 'memory' && r.agent !== 'model')
    ctx.addIssue({
      code: 'custom',
      path: ['embeddingModel'],
      message: 'needs the memory agent (agent memory or model)',
    });
}

const empty = z.object({}).strict();
const profileId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be a profile id (lower-case letters, digits, dashes)');

/** One milestone as the editor shows it: `t` and `evidence` come from extraction and are kept as they were. */
export const MilestoneEditItemSchema = z
  .object({
    name: z.string().trim().min(1, 'needs a name').max(300),
    description: z.string().trim().max(2000),
    /** The level (chapter) it belongs to: every item has one, or none has. */
    level: z.string().trim().min(1, 'needs a level name').max(200).optional(),
    t: z.number().min(0).max(1_000_000).optional(),
    /** The evidence frame beside the profile, as the profile names it (only one the profile already has). */
    evidence: z.string().min(1).max(300).optional(),
  })
  .strict();
export type MilestoneEditItem = z.infer<typeof MilestoneEditItemSchema>;

/** A milestone list in order, and whether it must be reached in that order. */
export const MilestonesEditSchema = z
  .object({ linear: z.boolean(), items: z.array(MilestoneEditItemSchema).min(1, 'needs a milestone').max(200) })
  .strict();
export type MilestonesEdit = z.infer<typeof MilestonesEditSchema>;

/**
 * A screen-scored profile's reader and the part of the window it reads, in fractions of the window
 * (0–1; the contract imports no profile schema, the core checks the region fits the window).
 */
export const ScreenScoreEditSchema = z
  .object({
    reader: z.enum(['model', 'ocr']),
    region: z
      .object({
        x: z.number().min(0).max(1),
        y: z.number().min(0).max(1),
        width: z.number().min(0).max(1),
        height: z.number().min(0).max(1),
      })
      .strict()
      .optional(),
  })
  .strict();
export type ScreenScoreEdit = z.infer<typeof ScreenScoreEditSchema>;

const fractionRegion = z
  .object({
    x: z.number().min(0).max(1),
    y: z.number().min(0).max(1),
    width: z.number().min(0).max(1),
    height: z.number().min(0).max(1),
  })
  .strict();

/** A template picture as a detector names it: a PNG beside the profile, relative, never through `..`. */
const templateName = z
  .string()
  .max(300)
  .regex(/^(?!.*\.\.)[\w-][\w.-]*(\/[\w-][\w.-]*)*\.png$/i, 'must be a PNG file beside the profile (no ..)');

/**
 * One episode end detector as the editor edits it (episode-end-schema.ts is the profile's own
 * shape: the core checks it there, so exactly one kind and a usable pattern are checked on save).
 */
export const DetectorEditSchema = z
  .object({
    ocr: z
      .object({ region: fractionRegion, text: z.string().max(500) })
      .strict()
      .optional(),
    image: z
      .object({ region: fractionRegion, template: templateName, threshold: z.number().min(0).max(1) })
      .strict()
      .optional(),
    pixels: z
      .object({
        region: fractionRegion,
        colour: z.string().max(7),
        tolerance: z.number().int().min(0).max(255),
        share: z.number().min(0).max(1),
      })
      .strict()
      .optional(),
    title: z.string().max(500).optional(),
    exit: z.literal(true).optional(),
    judge: z.string().max(2000).optional(),
    checkEvery: z.number().int().min(1).max(10000).optional(),
  })
  .strict();
export type DetectorEdit = z.infer<typeof DetectorEditSchema>;

/**
 * A reset step in the semantic moves' vocabulary: one verb and its value (`{press: "n"}`,
 * `{click: {x: 0.5, y: 0.1}}`, `{wait: 1}`); the core checks the verbs and the key policy.
 */
const ResetStepEditSchema = z.record(z.string().min(1).max(20), z.json()).refine((s) => Object.keys(s).length <= 4, {
  message: 'is one step: a verb and at most its options',
});
export type ResetStepEdit = z.infer<typeof ResetStepEditSchema>;

export const ResetEditSchema = z
  .object({
    do: z.array(ResetStepEditSchema).max(50),
    ready: z.array(DetectorEditSchema).max(20).optional(),
    /** Seconds. */
    timeout: z.number().positive().max(600),
  })
  .strict();
export type ResetEdit = z.infer<typeof ResetEditSchema>;

/** A profile's `episode.end`, `episode.reset` and `episode.startWithReset` as the form edits them. */
export const EpisodeEndEditSchema = z
  .object({
    /** Empty: none (the episode ends at its step or time limit). */
    end: z.array(DetectorEditSchema).max(20),
    /** null: none. */
    reset: ResetEditSchema.nullable(),
    startWithReset: z.boolean(),
  })
  .strict();
export type EpisodeEndEdit = z.infer<typeof EpisodeEndEditSchema>;

/** The main fields of a profile as the New run tab edits them; the core checks the whole profile. */
export const ProfileEditSchema = z
  .object({
    rules: z.string().trim().min(1).max(8000),
    screen: z.string().trim().max(8000),
    controls: z.string().trim().min(1).max(8000),
    /** Empty: any key. */
    allowedKeys: z.array(z.string().min(1).max(40)).max(200),
    maxSteps: F.maxSteps.unwrap(),
    /** The profile's trials: a run's episodes when it names none. */
    trials: F.episodes.unwrap(),
    latency: F.latency.unwrap(),
    freeze: z.enum(['engine', 'process', 'pause-key', 'none']),
    pauseKey: z.string().max(40),
    /** A milestone-scored profile's list (absent: unchanged; a profile scored `none` becomes milestone-scored). */
    milestones: MilestonesEditSchema.optional(),
    /** A screen-scored profile's reader and region (absent: unchanged; other scoring kinds ignore it). */
    screenScore: ScreenScoreEditSchema.optional(),
    /** How an episode ends and the next game starts (absent: unchanged). */
    episodeEnd: EpisodeEndEditSchema.optional(),
  })
  .strict();
export type ProfileEdit = z.infer<typeof ProfileEditSchema>;

/** A suite folder: a plain name inside the runs folder (`<runs>/<name>/`), never a path. */
export const SUITE_NAME = /^\w[\w.-]{0,63}$/;
const suiteName = z
  .string()
  .regex(
    SUITE_NAME,
    "must be a plain name inside the runs folder (letters, digits, '.', '-', '_'; up to 64), not a path",
  )
  .refine((s) => !s.includes('..'), 'must not contain ".."');

/** An ING-VP suite as the app starts it; the model is the one in Settings. */
export const StartSuiteSchema = z
  .object({
    games: z.array(z.string().min(1).max(40)).min(1, 'pick at least one game').max(6),
    settings: z.array(z.enum(INGVP_SETTINGS)).min(1, 'pick at least one setting'),
    /** `1-50`, `3`, `1-5,9`, as `gamepilot suite --levels` takes them. */
    levels: z
      .string()
      .regex(/^[\d\s,-]{1,200}$/, 'must be levels like 1-50, 7 or 1-5,9')
      .default('1-50'),
    agent: z.enum(SUITE_AGENTS),
    /** The random agent's seed. */
    seed: F.seed,
    /** Least time per answer, so people can follow the levels (0: as fast as it goes). */
    paceMs: F.paceMs,
    /** Let the model think before its JSON answer (the paper asks for the answer only). */
    thinking: z.boolean().default(false),
    preflight: F.preflight,
    /** The suite folder; the same name again resumes it (finished levels are skipped). */
    name: suiteName.default('ingvp'),
  })
  .strict();
export type StartSuite = z.infer<typeof StartSuiteSchema>;

/** A sweep file: a plain name (`<name>.yaml` in a sweeps folder), never a path. */
export const SWEEP_NAME = /^\w[\w.-]{0,63}$/;
const sweepName = z
  .string()
  .regex(SWEEP_NAME, "must be a plain name of a sweep file (letters, digits, '.', '-', '_'; up to 64), not a path")
  .refine((s) => !s.includes('..'), 'must not contain ".."');
/** The two sweeps folders: `<config>/sweeps/` and `<runs>/sweeps/`. */
export const SWEEP_FOLDERS = ['config', 'runs'] as const;
export type SweepFolder = (typeof SWEEP_FOLDERS)[number];
/** What the app's sweep form builds: the core writes it as `<config>/sweeps/<name>.yaml`. */
export const SWEEP_FORM_AGENTS = ['random', 'solver', 'vlm'] as const;
export const SweepMatrixSchema = z
  .object({
    games: z
      .array(z.string().regex(/^[A-Za-z0-9][\w.-]{0,63}$/, 'must be a game id'))
      .min(1, 'pick at least one game')
      .max(40),
    /** vlm plays the model in Settings. */
    agents: z.array(z.enum(SWEEP_FORM_AGENTS)).min(1, 'pick at least one agent'),
    trials: SWEEP_TRIALS,
    maxSteps: F.maxSteps,
  })
  .strict();
export type SweepMatrix = z.infer<typeof SweepMatrixSchema>;
/** The form's upper bounds: the schema's own, so the form and a sweep file allow the same. */
export const SWEEP_MATRIX_MAX = {
  trials: SWEEP_TRIALS.unwrap().maxValue ?? 1,
  maxSteps: F.maxSteps.unwrap().maxValue ?? 1,
};

/** Starts (or resumes) a sweep on this machine's pool: a sweep file picked by name, or a matrix from the form. */
export const StartSweepSchema = z
  .object({
    name: sweepName,
    folder: z.enum(SWEEP_FOLDERS).default('config'),
    matrix: SweepMatrixSchema.optional(),
    workers: z.number().int().min(1).max(16).default(2),
    /**
     * The person's yes to sending the key saved in Settings to the file's own `base_url` (the
     * listing shows it as `baseUrl`); without it a file naming another endpoint is refused.
     */
    allowEndpoint: z.url().max(2000).optional(),
  })
  .strict();
export type StartSweep = z.infer<typeof StartSweepSchema>;

/** Every request: its params schema. Results are typed in `Results`. */
export const REQUESTS = {
  health: empty,
  state: empty,
  listTargets: empty,
  thumbnail: z.object({ windowId: z.string().min(1), maxSide: z.number().int().min(32).max(640).default(240) }),
  startRun: StartRunSchema,
  control: z.object({ action: z.enum(CONTROL_ACTIONS) }),
  answerConsent: z.object({ id: z.string().min(1).max(64), allow: z.boolean() }),
  setLatency: z.object({ mode: z.enum(LATENCY_MODES) }),
  gamePrompt: z.object({ game: z.string().min(1) }),
  setReflection: z.object({
    mode: z.enum(REFLECTION_MODES),
    review: z.boolean().optional(),
    reflectorModel: z.string().min(1).max(200).optional(),
  }),
  setLessons: z.object({ text: z.string().max(20000) }),
  /** OmniGameArena's defaults: 10 rounds × 5 episodes, under PDQ (latency stop). */
  startIdc: z.object({
    game: z.string().min(1),
    actionSpace: RUN_SPEC_FIELDS.actionSpace,
    rounds: z.number().int().min(1).max(50).default(IDC_DEFAULTS.rounds),
    episodes: F.episodes.unwrap().default(IDC_DEFAULTS.episodes),
    maxSteps: F.maxSteps,
    heldOut: z.number().int().min(1).max(100).optional(),
    latency: F.latency.unwrap().default(IDC_DEFAULTS.latency),
    preflight: F.preflight,
  }),
  startRecording: z.object({
    target: z.union([z.object({ game: z.string().min(1) }), z.object({ windowId: z.string().min(1) })]),
    /** The title's profile the session is keyed by in tables (a window's). */
    profile: ProfileChoiceField,
    /** The run, session or tutorial video (of the runs folder) the rookie watched, recorded with the session. */
    tutorial: tutorialRef().optional(),
    role: z.enum(ROLES),
    participant: z.string().regex(/^[\w.-]{1,64}$/, 'use a pseudonym: letters, digits, dot, dash, underscore'),
    trial: z.number().int().min(1).max(1000).default(1),
    /** Rookie: play-1 (default), tutorial, play-2; expert: play (default). */
    stage: z
      .string()
      .regex(/^[\w-]{1,32}$/)
      .optional(),
    consent: z.literal(true, { message: 'the participant must consent to being recorded' }),
    fps: z.number().int().min(1).max(60).default(30),
    durationS: z.number().min(1).max(7200).optional(),
  }),
  stopRecording: empty,
  /** The ING-VP games and settings, and the suite folders in the runs folder (to resume one). */
  listSuites: empty,
  startSuite: StartSuiteSchema,
  /** Stops the suite at once; finished levels stay in its folder. */
  stopSuite: empty,
  /** The sweep files in the sweeps folders (config and runs), with their jobs and how many are finished. */
  listSweeps: empty,
  /** Starts a sweep on the local pool (one private display per worker); the same sweep again resumes it. */
  startSweep: StartSweepSchema,
  /** Stops the sweep at once: running jobs stop, finished jobs stay. */
  stopSweep: empty,
  /** A title's id (a built-in game, a profile, or `window:<title>`): its runs and sessions a rookie may watch. */
  findTutorial: z.object({ title: z.string().min(1).max(300) }),
  /** A tutorial video in chunks (the Record tab plays it from memory, over IPC or the socket alike). */
  readTutorialVideo: z.object({
    id: z.string().regex(TUTORIAL_VIDEO_ID, 'must be a tutorial video id: tutorials/<title>/<file>'),
    offset: z.number().int().min(0).default(0),
  }),
  /** Every profile: shipped and the user's. */
  listProfiles: empty,
  /** The profiles that fit a target (none, one, or several to choose from). */
  matchProfile: z.object({
    target: z.union([z.object({ game: z.string().min(1) }), z.object({ windowId: z.string().min(1) })]),
  }),
  /** Saves an edited profile as the user's own (<config>/profiles/<id>.yaml), replacing a shipped one of that id. */
  saveProfile: z.object({ id: profileId, edit: ProfileEditSchema }).strict(),
  /** A milestone's evidence frame, as the profile names it: only a file in the profile's `<id>.evidence/` folder. */
  profileEvidence: z.object({ id: profileId, evidence: z.string().min(1).max(300) }).strict(),
  /**
   * Performs one of a profile's semantic actions on a window now, as a run would (the profile's
   * key limits, the window focused first): the call is parsed and expanded for the window's size,
   * then sent. A call that does not parse or expand is refused with its reason; nothing is sent.
   */
  trySemanticAction: z
    .object({
      id: profileId,
      windowId: z.string().min(1).max(64),
      call: z.string().trim().min(1, 'needs a call like name(param=value, …)').max(500),
    })
    .strict(),
  /**
   * Runs episode end detectors on the window's current frame and says which fire: the given ones
   * (the form's, unsaved) or else the profile's `episode.end`. Nothing is sent to the window.
   */
  checkEndDetectors: z
    .object({
      id: profileId,
      windowId: z.string().min(1).max(64),
      detectors: z.array(DetectorEditSchema).min(1).max(20).optional(),
    })
    .strict(),
  /**
   * Cuts a template picture from the window's current frame at a region, saved beside the user's
   * profile as `<id>.templates/<name>.png` (a plain name, never a path); answers the name an image
   * detector gives it.
   */
  cutEndTemplate: z
    .object({
      id: profileId,
      windowId: z.string().min(1).max(64),
      region: fractionRegion,
      name: z
        .string()
        .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/i, 'must be a plain name (letters, digits, - and _), not a path'),
    })
    .strict(),
  /**
   * Sends the form's reset steps once to the window, as a run does between episodes, and waits for
   * the new game: ready once no end detector (the form's) fires and the window differs from how it
   * was before the steps (or a `ready` detector fires), within the reset's timeout.
   */
  tryReset: z
    .object({
      id: profileId,
      windowId: z.string().min(1).max(64),
      reset: ResetEditSchema,
      end: z.array(DetectorEditSchema).max(20),
    })
    .strict(),
  /** Written into the exports folder (or where the app's save dialog says); `name` defaults to `<id>.mp4`. */
  exportVideo: z.object({ id: runId, name: exportName('.mp4').optional() }).strict(),
  getSettings: empty,
  saveSettings: z.object({ settings: SettingsPatchSchema, apiKey: z.string().max(500).optional() }),
  testConnection: z.object({ settings: SettingsPatchSchema.optional(), apiKey: z.string().max(500).optional() }),
  listRuns: empty,
  leaderboard: z.object({ game: z.string().optional() }),
  /** The report of the runs folder (`gamepilot report`'s tables and charts). */
  report: empty,
  /** The arena folders directly in the runs folder, with their tables. */
  arenas: empty,
  getRun: z.object({ id: runId }),
  getFrame: z.object({ id: runId, frame: z.string().regex(/^frames\/\w[\w.-]*\.(jpg|png)$/) }),
  /** A copy of the run folder in the exports folder (or where the app's save dialog says); `name` defaults to the id. */
  exportRun: z.object({ id: runId, name: exportName().optional() }).strict(),
  /** The memory agent's long-term stores in the config folder. */
  listMemory: empty,
  /** Deletes a scope's memories (refused while a run uses that scope). */
  clearMemory: z.object({ scope: memoryScope }).strict(),
  /** A person's verdict on one milestone of a judged run (null clears it), kept apart from the judge's. */
  labelMilestone: z
    .object({
      id: runId,
      episode: z.number().int().min(0),
      milestone: z.string().min(1).max(400),
      reached: z.boolean().nullable(),
    })
    .strict(),
  /** A judged run's human labels (milestone-labels.json). */
  milestoneLabels: z.object({ id: runId }).strict(),
  /** Judged vs human-labelled milestone scores per game over the runs folder. */
  milestoneAgreement: empty,
} as const;
export type Method = keyof typeof REQUESTS;
export type Params<M extends Method> = z.input<(typeof REQUESTS)[M]>;

/** Wire shapes, shared by both transports. */
export interface WireRequest {
  id: number;
  method: string;
  params?: unknown;
}
/** A failed request carries the kind of failure (`code`) beside the message. */
export interface WireError {
  id: number;
  error: string;
  code: ErrorCode;
}
export type WireResponse = { id: number; result: unknown } | WireError;

/** A request the contract refuses: an unknown method, params of the wrong shape. */
export class ContractError extends CodedError {
  constructor(message: string) {
    super('bad-input', message);
  }
}

/** A failure the core reported, as a client receives it: the core's message and its kind. */
export class ApiError extends CodedError {
  override readonly name = 'ApiError';
}

/** The error half of a wire response as an ApiError; a missing or unknown code reads as internal. */
export function apiErrorFrom(res: { error: string; code?: unknown }): ApiError {
  return new ApiError(isErrorCode(res.code) ? res.code : 'internal', res.error);
}

/** A method's params after validation (defaults filled in). */
export type ParamsOut<M extends Method> = z.output<(typeof REQUESTS)[M]>;

/** What the core implements: one handler per method, typed by the contract. */
export type Handlers = { [M in Method]: (params: ParamsOut<M>) => Promise<Results[M]> };

const SCHEMAS: { [M in Method]: z.ZodType<ParamsOut<M>> } = REQUESTS;

export function isMethod(method: string): method is Method {
  return Object.hasOwn(REQUESTS, method);
}

/** Validates a request's params at the boundary (both transports come through here). */
export function parseParams<M extends Method>(method: M, params: unknown): ParamsOut<M> {
  const r = SCHEMAS[method].safeParse(params ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new ContractError(`${method}: ${issue?.path.join('.') || 'params'} ${issue?.message ?? 'are not valid'}`);
  }
  return r.data;
}

/** What the renderer calls, whichever transport carries it. */
export interface ApiClient {
  request<M extends Method>(method: M, params?: Params<M>): Promise<Results[M]>;
  onEvent(listener: (e: CoreEvent) => void): () => void;
}

/** The live run's score fields. */
export type LiveScore = Pick<LiveRun, 'score' | 'gameScore' | 'scoreFormula'>;

/**
 * The live run's score after a step or an episode, as the core keeps it and the renderer folds
 * it: a built-in's step says both numbers and the formula; a window's steps say nothing (its
 * score stays), its episode the number read off the screen and its 0–100 value.
 */
export function liveScore(
  was: LiveScore,
  e: Partial<GameScoreFields> & { score?: number | null; raw_score?: number | null },
): LiveScore {
  const score = e.score ?? was.score;
  if (e.score_formula !== undefined) return { score, gameScore: e.game_score ?? null, scoreFormula: e.score_formula };
  if (e.raw_score !== undefined) return { ...was, score: e.score ?? null, gameScore: e.raw_score };
  return { ...was, score };
}
