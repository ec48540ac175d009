/**
 * One run, written once: every setting a run takes, under one name (the `gamepilot run` flag's
 * camelCase), with its help text (`.describe()`), default and bounds, and the rules between
 * settings in one `superRefine`. The CLI's `run` options and help (cli/spec-option.ts), the
 * contract's start-run request (api/contract.ts), the sweep file's axes (sweep/spec.ts) and
 * run.json's `config` (snake_case of the same names) are made from it; the composition root
 * (session/compose.ts) takes the spec itself, and the session plays by its fields under these names.
 *
 * It imports only zod and domain.ts, so the contract (and through it the renderer) can use it.
 * Rules that need more than the spec itself (the environment's model, the ING-VP games, the two
 * seats) live at the run's front door (session/front-door.ts); reflection's (the frame budget, a
 * reflector different from the player) in reflection/setup.ts.
 */
import { endpointUrlProblem } from './domain.ts';
import { z } from 'zod';
import {
  ACTION_SPACES,
  AGENT_KINDS,
  CodedError,
  isModelAgent,
  DEFAULT_MIN_FREE_MB,
  IMAGE_DETAILS,
  KEEP_FRAMES_ALLOWED,
  KEEP_FRAMES_PATTERN,
  LATENCY_MODES,
  REFLECT_AFTER,
  REFLECT_VIDEO,
  REFLECTION_MODES,
  type AgentKind,
  type KeepFrames,
} from './domain.ts';

/**
 * Who plays: the agent kinds, `model` (the kind the title's profile names), and `mcp` (a client
 * of `gamepilot mcp` plays from outside the process; its start_session asks for it).
 */
export const RUN_AGENTS = [...AGENT_KINDS, 'model', 'mcp'] as const;
export type RunAgent = (typeof RUN_AGENTS)[number];

/** Who sits in a seat of a two-seat game: a baseline, a model agent and its model, or a person (`human`). */
export interface SeatSpec {
  agent: AgentKind | 'human';
  model?: string;
}

/** A seat's agent: `solver`, `random`, `human` (a person at the keyboard), or a model as `vlm:<model>` (a bare name is `vlm:`). */
export function parseAgentSpec(text: string): SeatSpec {
  const t = text.trim();
  if (t === 'solver' || t === 'random' || t === 'human') return { agent: t };
  // The memory agent keeps a long-term store per title; a seat has none of its own yet.
  if (t.startsWith('memory:'))
    throw new CodedError('bad-input', `"${t}": the memory agent does not play in the arena yet; use vlm:<model>`);
  const m = /^vlm:(.+)$/.exec(t);
  if (m) return { agent: 'vlm', model: m[1]!.trim() };
  if (!/^[\w./:@-]{1,200}$/.test(t))
    throw new CodedError('bad-input', `"${t}" is not an agent: solver, random or vlm:<model>`);
  return { agent: 'vlm', model: t };
}

/** How a seat's agent is named in records and tables: `solver`, `random`, `vlm:gpt-4o`. */
export function seatLabel(s: SeatSpec): string {
  return isModelAgent(s.agent) ? `${s.agent}:${s.model ?? '?'}` : s.agent;
}

const MIB = 1024 * 1024;
const int = (min: number, max: number) => z.number().int().min(min).max(max);
const num = (min: number, max: number) => z.number().min(min).max(max);
const text = (max: number) => z.string().min(1).max(max);
/** Refuses a base URL with a user name or password in it (run files record the endpoint). */
export function noCredentials(url: string, ctx: z.RefinementCtx) {
  const problem = endpointUrlProblem(url);
  if (problem) ctx.addIssue({ code: 'custom', message: `the base URL ${problem}` });
}
/** A model endpoint's base URL. */
const endpointUrl = () => text(2000).superRefine(noCredentials);
/** A plain name of letters, digits, '.', '-', '_' (a memory scope: the file `<config>/memory/<scope>.json`). */
const plainName = z
  .string()
  .regex(/^\w[\w.-]{0,63}$/, "must be a plain name of letters, digits, '.', '-' or '_' (up to 64)")
  .refine((s) => !s.includes('..'), 'must not contain ".."');

/**
 * Every setting of a run: its schema, help text, default and bounds. One bound per setting,
 * used by every entry point (pace: 0–60 000 ms in the CLI, the app and a sweep alike).
 */
/** The most episodes one run plays (a soak asks for this many and stops by time). */
export const MAX_EPISODES = 10_000;
/** A sweep's runs of each cell (its file's `trials`, the app's form): each run its own folder. */
export const SWEEP_TRIALS = int(1, 10_000).default(1);

export const RUN_SPEC_FIELDS = {
  game: z
    .string()
    .regex(/^[A-Za-z0-9][\w.-]{0,63}$/, 'must be a game id')
    .optional()
    .describe('a built-in game, opened as its own window'),
  window: text(1000)
    .optional()
    .describe('a window whose title matches (case-insensitive); it must match exactly one window'),
  windowId: z
    .string()
    .regex(/^[\w:]{1,40}$/, 'must be a window id as `gamepilot windows` lists it, e.g. 0x01e00003')
    .optional()
    .describe('one exact window, by the id `gamepilot windows` lists'),
  agent: z
    .enum(RUN_AGENTS)
    .default('random')
    .describe(
      'who plays: a model zero-shot (vlm), with memory (memory: history summary and long-term store), or as the title’s profile says (model: memory for story titles, else vlm); the game’s solver; uniformly random valid actions; or an MCP client (mcp: only through `gamepilot mcp`, whose start_session starts the run)',
    ),
  seats: z
    .array(text(200))
    .optional()
    .describe(
      'a two-seat game: player 1’s agent, then player 2’s, comma-separated: solver, random, vlm:<model> or human (you, at the keyboard: one seat), e.g. vlm:gpt-4o,solver or human,solver',
    ),
  actionSpace: z
    .enum(ACTION_SPACES)
    .default('gui')
    .describe(
      'gui (keys and pointer) or semantic (the game’s own moves: a built-in’s, e.g. B3 or left, or the calls a window’s profile declares, e.g. shoot(angle=35, power=0.9))',
    ),
  episodes: int(1, MAX_EPISODES)
    .optional()
    .describe(
      "episodes to play (default: the profile's or the game's trials — Tic-Tac-Toe 20, 2048 5, Snake 10, Maze 10 — else 1)",
    ),
  maxSteps: int(1, 100_000)
    .optional()
    .describe("steps per episode (default: the profile's or the game's own, else 50)"),
  seed: int(0, 2 ** 31 - 1)
    .default(0)
    .describe('seed of the built-in games and of the random agent'),
  level: int(1, 50)
    .optional()
    .describe('ING-VP games: the level to play (1–50; episode e plays level n + e); the same as --seed n-1'),
  keepFrames: z
    .custom<KeepFrames>((v) => typeof v === 'string' && KEEP_FRAMES_PATTERN.test(v), `must be ${KEEP_FRAMES_ALLOWED}`)
    .default('all')
    .describe(
      "step frames written to frames/: all; every:N, steps 0, N, 2N… of each episode; changed, each episode's first and each differing from the last kept in over 0.25% of its pixels; none (a step not kept has frame null)",
    ),
  maxRunMb: num(0.01, 10_000_000)
    .optional()
    .describe(
      'the most the run folder may hold: the run stops (stopped, disk budget) before a step that could pass it',
    ),
  minFreeMb: num(0, 10_000_000)
    .default(DEFAULT_MIN_FREE_MB)
    .describe(
      'free space the run leaves on its disk: it stops (stopped, disk budget) before going below it; 0: no floor',
    ),
  model: text(200).optional().describe('the model (vlm agent; default: GAMEPILOT_MODEL)'),
  baseUrl: endpointUrl().optional().describe('an OpenAI-compatible endpoint (default: OPENAI_BASE_URL, else OpenAI)'),
  apiKey: text(4000).optional().describe('API key (default: OPENAI_API_KEY); never written to run files or the log'),
  prompt: text(4000).optional().describe('system prompt template (default prompts/system.md)'),
  history: int(1, 16)
    .optional()
    .describe(
      "frames per request: 2 = the current frame plus the previous step's frame and answer; 1 = the current frame only",
    ),
  detail: z.enum(IMAGE_DETAILS).default('auto').describe('image detail hint'),
  temperature: num(0, 2).optional().describe('sampling temperature (default: the provider’s)'),
  maxTokens: int(1, 1_000_000)
    .optional()
    .describe('longest answer in tokens (default: 2048, the player role’s output limit)'),
  repairs: int(0, 10).default(1).describe('re-asks after an unusable answer'),
  timeoutMs: num(1, 3_600_000)
    .default(120_000)
    .describe(
      "the player's model calls (and the memory agent's): total time limit of one, streaming included; other roles keep their own (--dry-run lists them)",
    ),
  idleTimeoutMs: num(1, 3_600_000)
    .default(30_000)
    .describe("the player's model calls: longest silence while an answer arrives, streamed or whole"),
  maxRetries: int(0, 20)
    .default(3)
    .describe(
      "the player's model calls: retries after 429/5xx/time-outs/connection errors (exponential backoff with jitter)",
    ),
  retryAfterCapMs: num(0, 3_600_000).default(20_000).describe("the player's model calls: longest Retry-After honoured"),
  maxAnswerBytes: int(1024, 1024 * MIB)
    .default(16 * MIB)
    .describe("the player's model calls: largest answer, counted in response bytes as they arrive"),
  priceIn: num(0, 10_000).optional().describe('USD per million input tokens (for cost)'),
  priceOut: num(0, 10_000).optional().describe('USD per million output tokens (for cost)'),
  budgetUsd: z
    .number()
    .positive()
    .max(1_000_000)
    .optional()
    .describe(
      "the most the run may spend on model calls, every role's, in USD: it stops (stopped, budget) before a call whose worst case (its input and whole output limit, priced) could pass it; needs a price for each model it calls (--price-in/--price-out, else a known list price)",
    ),
  gameText: z.boolean().optional().describe("send the built-in game's text rendering with the frame"),
  takeOverOnInput: z
    .boolean()
    .default(false)
    .describe(
      'a person’s key or pointer input in the target window takes the controls from the agent (the take-over hotkey hands them back); the run is then marked assisted',
    ),
  acceptAnticheatRisk: z
    .boolean()
    .default(false)
    .describe(
      'play a window although an anti-cheat system (Easy Anti-Cheat, BattlEye, Vanguard, …) runs or the title’s profile names one: it may ban the account that plays',
    ),
  preflight: z
    .boolean()
    .default(true)
    .describe(
      'the pre-flight check before anything opens: the keys, endpoints and models the run calls, the display and a window target, each failure one line (docs/models.md)',
    ),
  allowKeys: z
    .array(text(60))
    .max(200)
    .optional()
    .describe(
      'system key combinations this game may press, comma-separated, e.g. alt+f4,alt+click (refused by default)',
    ),
  imageSize: int(64, 4096).default(1280).describe('long side of the frame sent to the model'),
  format: z.enum(['jpeg', 'png']).default('jpeg').describe('frame encoding'),
  quality: int(1, 100).default(80).describe('JPEG quality'),
  capture: z
    .enum(['auto', 'x11', 'nut', 'screenshot-desktop'])
    .default('auto')
    .describe('screen capture backend (auto: in-process XShm on Linux, GDI on Windows, nut-js on macOS)'),
  settleMs: num(0, 60_000)
    .default(150)
    .describe('wait after acting on a window no engine drives, before the next capture'),
  maxErrors: int(1, 1000)
    .default(5)
    .describe('consecutive unusable steps (no usable answer, or every action refused) before the run fails'),
  effectWarnAfter: int(1, 1000)
    .default(5)
    .describe('steps in a row whose actions changed nothing in the window before the run warns, saying why'),
  paceMs: num(0, 60_000).default(0).describe('minimum time per step, to watch fast agents'),
  latency: z.enum(LATENCY_MODES).optional().describe('how the world waits for the model'),
  stopIntervalMs: num(0, 60_000).optional().describe('stop: the world runs this long after acting'),
  slowBufferMs: num(0, 60_000).optional().describe('slow: the world pauses this long after each capture'),
  pauseKey: text(40).optional().describe('freeze a window with its own pause key instead of suspending its process'),
  /** An id or a file; false: none (`--no-profile`); absent: the one whose match fits the target. */
  profile: z
    .union([text(4000), z.literal(false)])
    .optional()
    .describe(
      "the title's profile: an id (`gamepilot profiles`) or a YAML/JSON file (default: the one whose match fits the target)",
    ),
  judge: z
    .boolean()
    .default(true)
    .describe('the live milestone judge (a milestone-scored profile is judged by default)'),
  judgeModel: text(200).optional().describe('the milestone judge (default: --model)'),
  judgeBudget: int(1, 100_000).optional().describe('at most this many judge calls in the run (default: no limit)'),
  judgeEvery: int(1, 10_000).default(3).describe('judge every n steps, besides at the end of each episode'),
  reflection: z
    .enum(REFLECTION_MODES)
    .default('none')
    .describe(
      'reflect and retry: self-f (the failure), self-t (a tutorial), self (both), other (another model’s lessons)',
    ),
  tutorial: text(4000)
    .optional()
    .describe(
      'a video (mp4/webm/mkv), a folder of frames, a run or session folder, "solver", or "title" (the title\'s declared tutorial, the one a rookie is offered)',
    ),
  reflectAfter: z
    .enum(REFLECT_AFTER)
    .default('failed')
    .describe('reflect after failed episodes (below --success-score) or after every episode'),
  successScore: num(-1e12, 1e12).default(100).describe('an episode scoring below this failed'),
  reflectorModel: text(200).optional().describe('mode other: the reflecting model, different from the player’s'),
  reflectorBaseUrl: endpointUrl().optional().describe("the reflector's endpoint (default: --base-url)"),
  maxWords: int(10, 2000).default(150).describe('longest lessons, in words'),
  reflectFps: num(0.01, 60).default(1).describe('frames per second of play the reflector sees'),
  reflectContext: int(1000, 10_000_000)
    .optional()
    .describe(
      "tokens of the reflector's context its frames may use, thinned evenly only to fit (default: the model's, as its provider reports or known models list, else 32000)",
    ),
  reflectMaxFrames: int(1, 10_000)
    .optional()
    .describe('at most this many frames per reflection call, below what the budget allows (default: no cap)'),
  reflectMaxSide: int(64, 4096).default(768).describe("longest side of the reflector's frames"),
  reflectDetail: z
    .enum(IMAGE_DETAILS)
    .default('low')
    .describe(
      "the detail the reflector's frames are sent at (OpenAI's low: 85 tokens a frame on GPT-4o; high, or auto counted as high: by tiles)",
    ),
  reflectVideo: z
    .enum(REFLECT_VIDEO)
    .optional()
    .describe(
      'send the reflector the trajectory at --reflect-fps as one MP4 (a video_url part, as vLLM serves for Qwen-VL): on, auto (frames where the provider refuses it) or off (default: auto for models known to take video, else off)',
    ),
  memoryScope: plainName
    .optional()
    .describe(
      "memory agent: the long-term store, <config>/memory/<name>.json, e.g. one per participant (default: the profile's or game's id, else the window title)",
    ),
  embeddingModel: text(200)
    .default('text-embedding-3-small')
    .describe('memory agent: embedding model served at the same endpoint (/embeddings); "none" for lexical retrieval'),
  memoryTopK: int(1, 20).default(3).describe('memory agent: memories retrieved per step'),
  memoryThreshold: num(0, 1).default(0.4).describe('memory agent: least similarity of a retrieved memory'),
  memoryDedupe: num(0, 1).default(0.8).describe('memory agent: a new memory this similar to a stored one is not saved'),
  shortTerm: int(0, 16).default(5).describe('memory agent: recent screenshot–action pairs the history review sees'),
  summaryWords: int(50, 5000).default(600).describe('memory agent: longest running history summary, in words'),
};

export type RunSpecField = keyof typeof RUN_SPEC_FIELDS;
export const RUN_SPEC_FIELD_NAMES = Object.keys(RUN_SPEC_FIELDS) as RunSpecField[];

/**
 * Help-only details of a field's command-line form: the argument's placeholder, and what its
 * default is when the schema has none (it is decided later, by the profile or the game).
 */
export const RUN_SPEC_HELP: Partial<Record<RunSpecField, { arg?: string; defaultText?: string }>> = {
  game: { arg: '<id>' },
  window: { arg: '<regex>' },
  windowId: { arg: '<id>' },
  agent: { arg: '<kind>' },
  seats: { arg: '<p1,p2>' },
  actionSpace: { arg: '<space>' },
  episodes: { arg: '<n>' },
  maxSteps: { arg: '<n>' },
  seed: { arg: '<s>' },
  level: { arg: '<n>' },
  keepFrames: { arg: '<which>' },
  maxRunMb: { arg: '<MB>' },
  minFreeMb: { arg: '<MB>' },
  model: { arg: '<name>' },
  baseUrl: { arg: '<url>' },
  apiKey: { arg: '<key>' },
  prompt: { arg: '<file>' },
  history: { arg: '<k>', defaultText: "the profile's, else 2" },
  detail: { arg: '<level>' },
  temperature: { arg: '<t>' },
  maxTokens: { arg: '<n>' },
  repairs: { arg: '<n>' },
  timeoutMs: { arg: '<ms>' },
  idleTimeoutMs: { arg: '<ms>' },
  maxRetries: { arg: '<n>' },
  retryAfterCapMs: { arg: '<ms>' },
  maxAnswerBytes: { arg: '<n>', defaultText: '16 MiB' },
  priceIn: { arg: '<usd>' },
  priceOut: { arg: '<usd>' },
  budgetUsd: { arg: '<usd>' },
  allowKeys: { arg: '<list>' },
  imageSize: { arg: '<px>' },
  format: { arg: '<format>' },
  quality: { arg: '<q>' },
  capture: { arg: '<backend>' },
  settleMs: { arg: '<ms>' },
  maxErrors: { arg: '<n>' },
  effectWarnAfter: { arg: '<n>' },
  paceMs: { arg: '<ms>' },
  latency: { arg: '<mode>', defaultText: "the profile's, else normal" },
  stopIntervalMs: { arg: '<ms>', defaultText: "the profile's, else 2000" },
  slowBufferMs: { arg: '<ms>', defaultText: "the profile's, else 5000" },
  pauseKey: { arg: '<key>' },
  profile: { arg: '<id|file>' },
  judgeModel: { arg: '<name>' },
  judgeBudget: { arg: '<k>' },
  judgeEvery: { arg: '<n>' },
  reflection: { arg: '<mode>' },
  tutorial: { arg: '<source>' },
  reflectAfter: { arg: '<when>' },
  successScore: { arg: '<s>' },
  reflectorModel: { arg: '<name>' },
  reflectorBaseUrl: { arg: '<url>' },
  maxWords: { arg: '<n>' },
  reflectFps: { arg: '<f>' },
  reflectContext: { arg: '<tokens>' },
  reflectMaxFrames: { arg: '<n>' },
  reflectMaxSide: { arg: '<px>' },
  reflectDetail: { arg: '<detail>' },
  reflectVideo: { arg: '<mode>' },
  memoryScope: { arg: '<name>' },
  embeddingModel: { arg: '<name>' },
  memoryTopK: { arg: '<k>' },
  memoryThreshold: { arg: '<s>' },
  memoryDedupe: { arg: '<s>' },
  shortTerm: { arg: '<n>' },
  summaryWords: { arg: '<n>' },
};

/** `maxSteps` → `--max-steps`: a field's flag. */
export const flagOf = (field: string): string => `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
/** `preflight` → `--no-preflight`: the flag that turns off a setting that is on by default. */
export const noFlagOf = (field: string): string => `--no-${flagOf(field).slice(2)}`;
/** `maxSteps` → `max_steps`: a field's key in run.json and in a sweep file. */
export const recordKeyOf = (field: string): string => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The messages of the rules name fields as `{field}`; each entry point says them its own way
 * (`--max-steps` on the command line, `maxSteps` in the app's request, `max_steps` in a sweep file).
 */
export type FieldNamer = (field: string) => string;
export const namedAsFlags: FieldNamer = flagOf;
export const namedAsFields: FieldNamer = (f) => f;
/** `keepFrames` → `keep frames`: the composition root's and the app's way (options named in words). */
export const namedAsWords: FieldNamer = (f) => f.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
export function sayFields(message: string, name: FieldNamer): string {
  return message.replace(/\{(\w+)\}/g, (_m, f: string) => name(f));
}

const isModelKind = (a: RunAgent) => a === 'vlm' || a === 'memory' || a === 'model';

/** A model agent's rule, once (the run's front door, the agents' factory and the ING-VP suite say it). */
export const modelRule = (agent: string): string => `{agent} ${agent} needs a model: {model} NAME (or GAMEPILOT_MODEL)`;

/** The reflection modes that learn from a tutorial (GameVerse's self-t, and self). */
export const needsTutorial = (mode: string): boolean => mode === 'self-t' || mode === 'self';
/** The rule for them, once: each way in says its fields its own way (sayFields). */
export const tutorialRule = (mode: string): string =>
  `{reflection} ${mode} needs {tutorial} (a video, a folder of frames, a run or session folder, "solver" or "title")`;

type SpecValues = z.output<z.ZodObject<typeof RUN_SPEC_FIELDS>>;

/**
 * The rules between settings, each once. Each issue's path is the field at fault; its message
 * names the fields as `{field}` (sayFields).
 */
export function runSpecRules(s: SpecValues, ctx: z.RefinementCtx): void {
  const issue = (field: RunSpecField, message: string) => ctx.addIssue({ code: 'custom', path: [field], message });
  const targets = (['game', 'window', 'windowId'] as const).filter((k) => s[k] !== undefined);
  if (targets.length > 1) issue(targets[1]!, 'give one of {game}, {window} or {windowId}');
  if (targets.length === 0) issue('game', 'give a target: {game} <id>, {window} <title regex> or {windowId} <id>');
  if (s.actionSpace === 'semantic' && s.game === undefined && s.profile === false)
    issue('actionSpace', "{actionSpace} semantic on a window plays its profile's moves: do not turn {profile} off");
  if (s.level !== undefined && s.seed !== 0) issue('level', 'give {level} or {seed}, not both');
  if (s.seats !== undefined) seatRules(s, issue);
  if (s.memoryScope !== undefined && s.agent !== 'memory' && s.agent !== 'model')
    issue('memoryScope', '{memoryScope} needs {agent} memory (or model)');
  if (s.reflection === 'none') {
    if (s.reflectorModel !== undefined)
      issue('reflectorModel', '{reflectorModel} needs {reflection} (other, for a model different from the player)');
  } else {
    if (!isModelKind(s.agent)) issue('reflection', '{reflection} needs a model agent ({agent} vlm, memory or model)');
    if (needsTutorial(s.reflection) && s.tutorial === undefined) issue('tutorial', tutorialRule(s.reflection));
  }
}

/** A two-seat run: two agents, a built-in game, and none of the one-agent settings. */
function seatRules(s: SpecValues, issue: (field: RunSpecField, message: string) => void): void {
  if (s.seats!.length !== 2) {
    issue('seats', '{seats} takes two agents, player 1’s then player 2’s (e.g. vlm:gpt-4o,solver)');
    return;
  }
  for (const a of s.seats!)
    try {
      parseAgentSpec(a);
    } catch (err) {
      issue('seats', `{seats}: ${(err as Error).message}`);
      return;
    }
  if (s.seats!.filter((a) => a.trim() === 'human').length > 1)
    issue('seats', '{seats}: a person takes one seat at most (human once)');
  if (s.game === undefined) issue('seats', '{seats} needs a two-seat {game}');
  if (s.agent !== 'random') issue('agent', '{seats} names both seats’ agents: give {agent} or {seats}, not both');
  if (s.reflection !== 'none') issue('reflection', '{reflection} does not apply to a two-seat run ({seats})');
  if (s.takeOverOnInput)
    issue(
      'takeOverOnInput',
      '{takeOverOnInput} does not apply to a two-seat run ({seats}): play a seat as human instead',
    );
}

/** Every setting's default, as the schema fills it in (absent: decided later, or none). */
export const RUN_SPEC_DEFAULTS: SpecValues = z.object(RUN_SPEC_FIELDS).parse({});

/** A whole run: every field, checked one by one, then against each other. */
export const RunSpecSchema = z.object(RUN_SPEC_FIELDS).strict().superRefine(runSpecRules);
export type RunSpec = z.output<typeof RunSpecSchema>;
export type RunSpecInput = z.input<typeof RunSpecSchema>;

/** A refused spec: the field at fault and the message, its fields named as the caller names them. */
export class RunSpecError extends Error {
  constructor(
    readonly field: string,
    readonly template: string,
    name: FieldNamer = namedAsFields,
  ) {
    super(sayFields(template, name));
  }
  /** The same refusal with the fields named another way. */
  as(name: FieldNamer): string {
    return sayFields(this.template, name);
  }
}

/** Parses a spec; the first problem is a RunSpecError naming its field (`{field}` in the template). */
export function parseRunSpec(input: unknown): RunSpec {
  const r = RunSpecSchema.safeParse(input);
  if (r.success) return r.data;
  const i = r.error.issues[0]!;
  const field = String(i.path[0] ?? '');
  if (i.code === 'unrecognized_keys') throw new RunSpecError(i.keys[0] ?? '', `unknown setting {${i.keys[0]}}`);
  throw new RunSpecError(field, i.code === 'custom' ? i.message : `{${field}} ${i.message}`);
}

/**
 * What run.json's `config` records of a spec, once the profile and the game have filled what it
 * left open: the run-shaping settings under their record keys (recordKeyOf). Not recorded here:
 * the target, agent, model and action space (run.json has them at the top), the key (never
 * written), the profile, reflection and memory blocks (their own sections), and where the run
 * folder goes.
 */
export const RECORDED_FIELDS = [
  'episodes',
  'maxSteps',
  'seed',
  'latency',
  'stopIntervalMs',
  'slowBufferMs',
  'capture',
  'imageSize',
  'format',
  'quality',
  'settleMs',
  'maxErrors',
  'effectWarnAfter',
  'paceMs',
  'takeOverOnInput',
  'acceptAnticheatRisk',
  'pauseKey',
  'keepFrames',
  'minFreeMb',
  // Recorded last, after a model's settings, and as null when the run has no limit of its own.
  'maxRunMb',
] as const satisfies readonly RunSpecField[];
/** Recorded for model agents only. */
/** Reflect-and-retry's settings, in the order the CLI lists them. */
export const REFLECTION_FIELDS = [
  'reflection',
  'tutorial',
  'reflectAfter',
  'successScore',
  'reflectorModel',
  'reflectorBaseUrl',
  'maxWords',
  'reflectFps',
  'reflectContext',
  'reflectMaxFrames',
  'reflectMaxSide',
  'reflectDetail',
  'reflectVideo',
] as const satisfies readonly RunSpecField[];

export const RECORDED_MODEL_FIELDS = [
  'baseUrl',
  'prompt',
  'history',
  'detail',
  'temperature',
  'maxTokens',
  'repairs',
  'timeoutMs',
  'idleTimeoutMs',
  'maxRetries',
  'retryAfterCapMs',
  'maxAnswerBytes',
  'priceIn',
  'priceOut',
  'budgetUsd',
  'gameText',
] as const satisfies readonly RunSpecField[];
export type RecordedField = (typeof RECORDED_FIELDS)[number] | (typeof RECORDED_MODEL_FIELDS)[number];

/**
 * The settings the loop (session/session-config.ts) takes as the spec gives them; the composition
 * root resolves the rest (episodes, steps and latency from the profile and the game, the model
 * from the endpoint). A setting the loop reads is added here, beside its declaration.
 */
export const SESSION_FIELDS = [
  'actionSpace',
  'imageSize',
  'format',
  'quality',
  'settleMs',
  'maxErrors',
  'effectWarnAfter',
  'paceMs',
  'takeOverOnInput',
  'keepFrames',
  'maxRunMb',
  'minFreeMb',
] as const satisfies readonly RunSpecField[];
export type SessionField = (typeof SESSION_FIELDS)[number];

/** The settings as run.json records them: record keys, absent values left out (a field with no limit: null). */
export function specRecord(values: Partial<Pick<RunSpec, RecordedField>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) if (v !== undefined) out[recordKeyOf(k)] = v;
  return out;
}

/**
 * run.json's `config` under today's names, from any run folder: older runs recorded the frame
 * encoding as `encode: {longSide, format, quality}` and a model agent's settings as `vlm: {…}`
 * under the agent's own names. Today's keys win where both are present.
 */
export function readRunConfig(config: Record<string, unknown>): Record<string, unknown> {
  const { encode, vlm, ...rest } = config as { encode?: unknown; vlm?: unknown } & Record<string, unknown>;
  const old: Record<string, unknown> = {};
  if (encode && typeof encode === 'object') {
    const e = encode as { longSide?: unknown; format?: unknown; quality?: unknown };
    Object.assign(old, { image_size: e.longSide, format: e.format, quality: e.quality });
  }
  if (vlm && typeof vlm === 'object') {
    const { baseURL, systemPrompt, includeGameText, price, model: _model, ...same } = vlm as Record<string, unknown>;
    for (const [k, v] of Object.entries(same)) old[recordKeyOf(k)] = v;
    Object.assign(old, { base_url: baseURL, prompt: systemPrompt, game_text: includeGameText });
    if (price && typeof price === 'object') {
      const p = price as { inputPerM?: unknown; outputPerM?: unknown };
      Object.assign(old, { price_in: p.inputPerM, price_out: p.outputPerM });
    }
  }
  const merged: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(old)) if (v !== undefined) merged[k] = v;
  return { ...merged, ...rest };
}
