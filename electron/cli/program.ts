/**
 * The `gamepilot` command line as one declaration (commander): every command, its options,
 * their defaults, allowed values and help. `--help` on any command prints this; the README's
 * option reference is generated from it (reference.ts) and a test keeps the two in step.
 * The commands' work lives in commands/*.ts; this file only says what they accept.
 */
import { Command, Option, type OutputConfiguration } from 'commander';
import { BUILTIN_GAMES } from '../../games/index.ts';
import { DEFAULT_VLM } from '../agents/vlm.ts';
import { DEFAULT_MEMORY } from '../agents/memory-agent.ts';
import { MEMORY_SCOPE } from '../agents/memory-store.ts';
import { DEFAULT_LATENCY } from '../latency/clock-policy.ts';
import {
  ACTION_SPACES,
  AGENT_KINDS,
  IMAGE_DETAILS,
  KEEP_FRAMES_ALLOWED,
  KEEP_FRAMES_PATTERN,
  LATENCY_MODES,
  REFLECT_AFTER,
  REFLECT_VIDEO,
  REFLECTION_MODES,
  ROLES,
  type KeepFrames,
  type LatencyMode,
  type ReflectionMode,
  type ReflectVideo,
} from '../domain.ts';
import { DEFAULT_REFLECTION_SAMPLING } from '../reflection/sampling.ts';
import { DEFAULT_JOB_LIMIT } from '../sweep/spec.ts';
import { DEFAULT_EXTRACT } from '../scoring/extract.ts';
import { IDC_DEFAULTS } from '../reflection/idc.ts';
import { DEFAULT_SESSION } from '../session/session.ts';
import { DEFAULT_RECORDER } from '../recording/recorder.ts';
import { defaultConfigDir } from '../util/paths.ts';
import { appVersion } from '../util/resources.ts';
import { KeyPolicy } from '../input/key-policy.ts';
import {
  checkedOption,
  allowEndpointOption,
  choiceOption,
  intOption,
  numberOption,
  noProfileOption,
  parseTitlePattern,
  parseWindowSize,
  patternOption,
  profileOption,
  UsageError,
} from './options.ts';

export const GAME_IDS = Object.keys(BUILTIN_GAMES);

export interface TargetFlags {
  game?: string;
  window?: string;
  windowId?: string;
}

export interface RunFlags extends TargetFlags {
  /** `model`: the memory agent where the title's profile names it, else the zero-shot one. */
  agent: 'random' | 'solver' | 'vlm' | 'memory' | 'model';
  actionSpace: 'gui' | 'semantic';
  episodes?: number;
  maxSteps?: number;
  seed: number;
  /** ING-VP games: the level (seed = level - 1). */
  level?: number;
  out: string;
  keepFrames: KeepFrames;
  maxRunMb?: number;
  minFreeMb: number;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  prompt?: string;
  history?: number;
  detail: 'low' | 'high' | 'auto';
  temperature?: number;
  maxTokens?: number;
  repairs: number;
  timeoutMs: number;
  idleTimeoutMs: number;
  maxRetries: number;
  retryAfterCapMs: number;
  maxAnswerBytes: number;
  allowKeys?: string[];
  priceIn?: number;
  priceOut?: number;
  imageSize: number;
  format: 'jpeg' | 'png';
  quality: number;
  capture: 'auto' | 'x11' | 'nut' | 'screenshot-desktop';
  settleMs: number;
  maxErrors: number;
  paceMs: number;
  latency?: LatencyMode;
  stopIntervalMs?: number;
  slowBufferMs?: number;
  pauseKey?: string;
  /** An id or a file; false: --no-profile. */
  profile?: string | false;
  reflection: ReflectionMode;
  tutorial?: string;
  reflectAfter: 'failed' | 'every';
  successScore: number;
  reflectorModel?: string;
  reflectorBaseUrl?: string;
  maxWords: number;
  reflectFps: number;
  reflectMaxFrames?: number;
  reflectContext: number;
  reflectMaxSide: number;
  reflectVideo: ReflectVideo;
  gameText?: boolean;
  memoryScope?: string;
  embeddingModel: string;
  memoryTopK: number;
  memoryThreshold: number;
  memoryDedupe: number;
  shortTerm: number;
  summaryWords: number;
  json?: boolean;
  quiet?: boolean;
  /** false: --no-judge. */
  judge: boolean;
  judgeModel?: string;
  judgeBudget?: number;
  judgeEvery: number;
}

export interface MemoryFlags {
  json?: boolean;
}

export interface RecordFlags extends TargetFlags {
  role: 'rookie' | 'expert';
  /** An id or a file; false: --no-profile. */
  profile?: string | false;
  /** The tutorial watched (a video, frames folder, run or session folder). */
  tutorial?: string;
  participant: string;
  consent: boolean;
  duration?: number;
  fps: number;
  trial: number;
  seed: number;
  stage?: string;
  windowSize?: { width: number; height: number };
  out: string;
  json?: boolean;
  quiet?: boolean;
}

export interface IdcFlags {
  game: string;
  model: string;
  rounds: number;
  episodes: number;
  maxSteps?: number;
  seed: number;
  baseUrl?: string;
  apiKey?: string;
  reflectorModel?: string;
  maxWords: number;
  rollbackDrop: number;
  heldOut?: number;
  judgeTries: number;
  latency: LatencyMode;
  stopIntervalMs: number;
  out: string;
  json?: boolean;
}

export interface BenchFlags {
  json?: boolean;
  iterations: number;
  loopSteps: number;
  record?: boolean;
  startup?: boolean;
  runs: number;
  compare?: boolean;
  python?: string;
  seconds: number;
  fps: number;
  windowSize: { width: number; height: number };
  writers?: number;
  /** Minutes of the soak: the solver plays `game` in one run, its memory, files and disk watched. */
  soak?: number;
  game?: string;
  keepFrames?: KeepFrames;
}

export interface WebFlags {
  port?: number;
  runsDir: string;
  configDir: string;
  demo: boolean;
  open?: boolean;
}

export interface SuiteFlags {
  agent: 'vlm' | 'solver' | 'random';
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  temperature?: number;
  maxTokens?: number;
  timeoutMs: number;
  maxRetries: number;
  games?: string;
  settings: string;
  levels: string;
  seed: number;
  thinking?: boolean;
  out: string;
  json?: boolean;
  quiet?: boolean;
}

export interface LeaderboardFlags {
  game?: string;
  runsDir: string;
  json?: boolean;
}

export interface ReportFlags {
  runs: string;
  out: string;
  json?: string;
  csv?: string;
}

export interface SweepFlags {
  workers: number;
  out: string;
  json?: boolean;
  budgetUsd?: number;
  queue?: string;
  queueName: string;
  wait?: boolean;
  allowEndpoint?: string[];
  jobLimit: number;
}

export interface WorkerFlags {
  queue: string;
  queueName: string;
  displays: number;
  out: string;
  storage?: string;
  maxJobs?: number;
  json?: boolean;
  allowEndpoint?: string[];
}

export interface Actions {
  windows(o: { json?: boolean }): Promise<number> | number;
  games(o: { json?: boolean }): Promise<number> | number;
  run(o: RunFlags): Promise<number>;
  bench(o: BenchFlags): Promise<number>;
  record(o: RecordFlags): Promise<number>;
  idc(o: IdcFlags): Promise<number>;
  leaderboard(o: LeaderboardFlags): Promise<number> | number;
  report(o: ReportFlags): Promise<number> | number;
  video(dir: string, o: { out?: string }): Promise<number>;
  web(o: WebFlags): Promise<number>;
  memoryList(o: MemoryFlags): Promise<number> | number;
  memoryClear(scope: string, o: MemoryFlags): Promise<number> | number;
  profiles(o: { json?: boolean }): Promise<number> | number;
  profileNew(o: ProfileNewFlags): Promise<number>;
  milestonesExtract(o: MilestonesExtractFlags): Promise<number>;
  milestonesJudge(run: string, o: MilestonesJudgeFlags): Promise<number>;
  milestonesLabel(run: string, o: MilestonesLabelFlags): Promise<number> | number;
  milestonesAgreement(runs: string[], o: MilestonesAgreementFlags): Promise<number> | number;
  suite(name: string, o: SuiteFlags): Promise<number>;
  sweep(file: string, o: SweepFlags): Promise<number>;
  worker(o: WorkerFlags): Promise<number>;
}

export interface JudgeModelFlags {
  model?: string;
  baseUrl?: string;
  apiKey?: string;
}

export interface MilestonesExtractFlags extends JudgeModelFlags {
  video?: string;
  session?: string;
  profile: string;
  fps: number;
  chunkFrames: number;
  maxFrames: number;
  maxSide: number;
  json?: boolean;
}

export interface MilestonesJudgeFlags extends JudgeModelFlags {
  profile?: string;
  judgeBudget?: number;
  judgeEvery: number;
  json?: boolean;
}

export interface MilestonesLabelFlags {
  milestone: string;
  reached: 'yes' | 'no' | 'clear';
  episode: number;
  json?: boolean;
}

export interface MilestonesAgreementFlags {
  runsDir: string;
  json?: boolean;
}

export interface ProfileNewFlags {
  window: string;
  out?: string;
  id?: string;
}

/** Called with each command's exit code once its action is done. */
export type Done = (code: number) => void;

const jsonFlag = () => new Option('--json', 'print one JSON object on stdout (progress stays on stderr)');
const quietFlag = () => new Option('--quiet', 'no progress lines on stderr');
const outDir = (what: string) => new Option('--out <dir>', `folder for ${what}`).default('runs');

function targetOptions(cmd: Command): Command {
  return cmd
    .addOption(choiceOption('--game <id>', 'a built-in game, opened as its own window', GAME_IDS))
    .addOption(
      checkedOption(
        '--window <regex>',
        'a window whose title matches (case-insensitive); it must match exactly one window',
        parseTitlePattern,
      ),
    )
    .addOption(
      patternOption(
        '--window-id <id>',
        'one exact window, by the id `gamepilot windows` lists',
        /^[\w:]{1,40}$/,
        'a window id as `gamepilot windows` lists it, e.g. 0x01e00003',
      ),
    );
}

function modelOptions(cmd: Command): Command {
  const v = DEFAULT_VLM;
  return cmd
    .addOption(new Option('--model <name>', 'the model (vlm agent)').env('GAMEPILOT_MODEL'))
    .addOption(new Option('--base-url <url>', 'an OpenAI-compatible endpoint (default: OPENAI_BASE_URL, else OpenAI)'))
    .addOption(
      new Option('--api-key <key>', 'API key (default: OPENAI_API_KEY); never written to run files or the log'),
    )
    .addOption(new Option('--prompt <file>', 'system prompt template (default prompts/system.md)'))
    .addOption(
      intOption(
        '--history <k>',
        "frames per request: 2 = the current frame plus the previous step's frame and answer; 1 = the current frame only",
        { min: 1 },
      ).default(undefined, `the profile's, else ${v.history}`),
    )
    .addOption(choiceOption('--detail <level>', 'image detail hint', IMAGE_DETAILS).default(v.detail))
    .addOption(numberOption('--temperature <t>', 'sampling temperature (default: the provider’s)', { min: 0 }))
    .addOption(intOption('--max-tokens <n>', 'longest answer in tokens (default: the provider’s)', { min: 1 }))
    .addOption(intOption('--repairs <n>', 're-asks after an unusable answer', { min: 0 }).default(v.repairs))
    .addOption(
      numberOption('--timeout-ms <ms>', 'total time limit of one model call, streaming included', { min: 1 }).default(
        v.timeoutMs,
      ),
    )
    .addOption(
      numberOption('--idle-timeout-ms <ms>', 'longest silence while an answer streams', { min: 1 }).default(
        v.idleTimeoutMs,
      ),
    )
    .addOption(
      intOption(
        '--max-retries <n>',
        'retries after 429/5xx/time-outs/connection errors (exponential backoff with jitter)',
        { min: 0 },
      ).default(v.maxRetries),
    )
    .addOption(
      numberOption('--retry-after-cap-ms <ms>', 'longest Retry-After honoured', { min: 0 }).default(v.retryAfterCapMs),
    )
    .addOption(
      intOption('--max-answer-bytes <n>', 'largest answer, counted in response bytes as they arrive', {
        min: 1024,
      }).default(v.maxAnswerBytes, '16 MiB'),
    )
    .addOption(numberOption('--price-in <usd>', 'USD per million input tokens (for cost)', { min: 0 }))
    .addOption(numberOption('--price-out <usd>', 'USD per million output tokens (for cost)', { min: 0 }))
    .addOption(new Option('--game-text', "send the built-in game's text rendering with the frame"));
}

function reflectionOptions(cmd: Command): Command {
  return cmd
    .addOption(
      choiceOption(
        '--reflection <mode>',
        'reflect and retry: self-f (the failure), self-t (a tutorial), self (both), other (another model’s lessons)',
        REFLECTION_MODES,
      ).default('none'),
    )
    .addOption(
      new Option(
        '--tutorial <source>',
        'a video (mp4/webm/mkv), a folder of frames, a run or session folder, or "solver"',
      ),
    )
    .addOption(
      choiceOption(
        '--reflect-after <when>',
        'reflect after failed episodes (below --success-score) or after every episode',
        REFLECT_AFTER,
      ).default('failed'),
    )
    .addOption(numberOption('--success-score <s>', 'an episode scoring below this failed').default(100))
    .addOption(new Option('--reflector-model <name>', 'mode other: the reflecting model, different from the player’s'))
    .addOption(new Option('--reflector-base-url <url>', "the reflector's endpoint (default: --base-url)"))
    .addOption(intOption('--max-words <n>', 'longest lessons, in words', { min: 10 }).default(150))
    .addOption(
      numberOption('--reflect-fps <f>', 'frames per second of play the reflector sees', { min: 0.01 }).default(
        DEFAULT_REFLECTION_SAMPLING.fps,
      ),
    )
    .addOption(
      intOption(
        '--reflect-context <tokens>',
        "tokens of the reflector's context its frames may use: frames are thinned evenly only to fit it",
        { min: 1000 },
      ).default(DEFAULT_REFLECTION_SAMPLING.contextTokens),
    )
    .addOption(
      intOption(
        '--reflect-max-frames <n>',
        'at most this many frames per reflection call, below what the budget allows (default: no cap)',
        { min: 1 },
      ),
    )
    .addOption(
      intOption('--reflect-max-side <px>', "longest side of the reflector's frames", { min: 64 }).default(
        DEFAULT_REFLECTION_SAMPLING.maxSide,
      ),
    )
    .addOption(
      choiceOption(
        '--reflect-video <mode>',
        'send the reflector its frames as one MP4 (a video_url part, as vLLM serves for Qwen-VL): on, auto (frames where the provider refuses it) or off',
        REFLECT_VIDEO,
      ).default('off'),
    );
}

function memoryOptions(cmd: Command): Command {
  const m = DEFAULT_MEMORY;
  return cmd
    .addOption(
      patternOption(
        '--memory-scope <name>',
        "memory agent: the long-term store, <config>/memory/<name>.json, e.g. one per participant (default: the profile's or game's id, else the window title)",
        MEMORY_SCOPE,
        "a plain name of letters, digits, '.', '-' or '_' (up to 64)",
      ),
    )
    .addOption(
      new Option(
        '--embedding-model <name>',
        'memory agent: embedding model served at the same endpoint (/embeddings); "none" for lexical retrieval',
      ).default(m.embeddingModel),
    )
    .addOption(
      intOption('--memory-top-k <k>', 'memory agent: memories retrieved per step', { min: 1, max: 20 }).default(m.topK),
    )
    .addOption(
      numberOption('--memory-threshold <s>', 'memory agent: least similarity of a retrieved memory', {
        min: 0,
        max: 1,
      }).default(m.threshold),
    )
    .addOption(
      numberOption('--memory-dedupe <s>', 'memory agent: a new memory this similar to a stored one is not saved', {
        min: 0,
        max: 1,
      }).default(m.dedupe),
    )
    .addOption(
      intOption('--short-term <n>', 'memory agent: recent screenshot–action pairs the history review sees', {
        min: 0,
        max: 16,
      }).default(m.shortTerm),
    )
    .addOption(
      intOption('--summary-words <n>', 'memory agent: longest running history summary, in words', {
        min: 50,
        max: 5000,
      }).default(m.summaryWords),
    );
}

/** `alt+f4,super+d`: checked here, so a typo is an error and never allows something else. */
function allowedKeys(v: string): string[] {
  const list = v
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  new KeyPolicy(list); // throws, saying which entry it cannot read
  return list;
}

/** The whole command line. `actions` do the work; each returns the exit code, passed to `done`. */
export function buildProgram(actions: Actions, done: Done, output?: OutputConfiguration): Command {
  const program = new Command('gamepilot')
    .description('vision-language models play real games')
    .version(appVersion(), '-V, --version', 'print the version')
    .usage('<command> [options]')
    .showHelpAfterError()
    .exitOverride()
    .allowExcessArguments(false);
  if (output) program.configureOutput(output);
  // A UsageError from an action (options that do not fit together) is reported like commander's own: message, usage, exit 2.
  const act = <A extends unknown[]>(fn: (...args: A) => Promise<number> | number) =>
    async function (this: Command, ...args: A) {
      try {
        done(await fn(...args));
      } catch (err) {
        if (err instanceof UsageError) this.error(`error: ${err.message}`, { exitCode: 2, code: 'gamepilot.usage' });
        throw err;
      }
    };

  program
    .command('windows')
    .description('list top-level windows: id, pid, size, position, scale, title, [minimized]')
    .addOption(jsonFlag())
    .action(act((o: { json?: boolean }) => actions.windows(o)));

  program
    .command('games')
    .description('list built-in games')
    .addOption(jsonFlag())
    .action(act((o: { json?: boolean }) => actions.games(o)));

  const run = program
    .command('run')
    .description('play a built-in game or any window with an agent, recording every step')
    .addHelpText('after', '\nGive one target: --game, --window or --window-id.');
  targetOptions(run)
    .addOption(
      choiceOption(
        '--agent <kind>',
        'who plays: a model zero-shot (vlm), with memory (memory: history summary and long-term store), or as the title’s profile says (model: memory for story titles, else vlm); the game’s solver; or uniformly random valid actions',
        [...AGENT_KINDS, 'model'],
      ).default('random'),
    )
    .addOption(
      choiceOption(
        '--action-space <space>',
        'gui (keys and pointer) or semantic (the game’s own moves, e.g. B3 or left; built-ins only)',
        ACTION_SPACES,
      ).default('gui'),
    )
    .addOption(
      intOption(
        '--episodes <n>',
        "episodes to play (default: the profile's or the game's trials — Tic-Tac-Toe 20, 2048 5, Snake 10, Maze 10 — else 1)",
        { min: 1 },
      ),
    )
    .addOption(
      intOption('--max-steps <n>', "steps per episode (default: the profile's or the game's own, else 50)", {
        min: 1,
      }),
    )
    .addOption(intOption('--seed <s>', 'seed of the built-in games and of the random agent').default(0))
    .addOption(
      intOption(
        '--level <n>',
        'ING-VP games: the level to play (1–50; episode e plays level n + e); the same as --seed n-1',
        { min: 1, max: 50 },
      ),
    )
    .addOption(outDir('run folders'))
    .addOption(
      patternOption(
        '--keep-frames <which>',
        "step frames written to frames/: all; every:N, steps 0, N, 2N… of each episode; changed, each episode's first and each differing from the last kept in over 0.25% of its pixels; none (a step not kept has frame null)",
        KEEP_FRAMES_PATTERN,
        KEEP_FRAMES_ALLOWED,
      ).default(DEFAULT_SESSION.keepFrames),
    )
    .addOption(
      numberOption(
        '--max-run-mb <MB>',
        'the most the run folder may hold: the run stops (stopped, disk budget) before a step that could pass it',
        { min: 0.01 },
      ),
    )
    .addOption(
      numberOption(
        '--min-free-mb <MB>',
        'free space the run leaves on its disk: it stops (stopped, disk budget) before going below it; 0: no floor',
        { min: 0 },
      ).default(DEFAULT_SESSION.minFreeMb),
    );
  modelOptions(run)
    .addOption(
      checkedOption(
        '--allow-keys <list>',
        'system key combinations this game may press, comma-separated, e.g. alt+f4,alt+click (refused by default)',
        allowedKeys,
      ),
    )
    .addOption(intOption('--image-size <px>', 'long side of the frame sent to the model', { min: 64 }).default(1280))
    .addOption(choiceOption('--format <format>', 'frame encoding', ['jpeg', 'png']).default('jpeg'))
    .addOption(intOption('--quality <q>', 'JPEG quality', { min: 1, max: 100 }).default(80))
    .addOption(
      choiceOption(
        '--capture <backend>',
        'screen capture backend (auto: in-process XShm on Linux, GDI on Windows, nut-js on macOS)',
        ['auto', 'x11', 'nut', 'screenshot-desktop'],
      ).default('auto'),
    )
    .addOption(
      numberOption('--settle-ms <ms>', 'wait after acting on a window no engine drives, before the next capture', {
        min: 0,
      }).default(DEFAULT_SESSION.settleMs),
    )
    .addOption(
      intOption(
        '--max-errors <n>',
        'consecutive unusable steps (no usable answer, or every action refused) before the run fails',
        { min: 1 },
      ).default(DEFAULT_SESSION.maxConsecutiveErrors),
    )
    .addOption(
      numberOption('--pace-ms <ms>', 'minimum time per step, to watch fast agents', { min: 0 }).default(
        DEFAULT_SESSION.minStepMs,
      ),
    )
    .addOption(
      choiceOption('--latency <mode>', 'how the world waits for the model', LATENCY_MODES).default(
        undefined,
        "the profile's, else normal",
      ),
    )
    .addOption(
      numberOption('--stop-interval-ms <ms>', 'stop: the world runs this long after acting', { min: 0 }).default(
        undefined,
        `the profile's, else ${DEFAULT_LATENCY.stopIntervalMs}`,
      ),
    )
    .addOption(
      numberOption('--slow-buffer-ms <ms>', 'slow: the world pauses this long after each capture', { min: 0 }).default(
        undefined,
        `the profile's, else ${DEFAULT_LATENCY.slowBufferMs}`,
      ),
    )
    .addOption(
      new Option('--pause-key <key>', 'freeze a window with its own pause key instead of suspending its process'),
    )
    .addOption(profileOption())
    .addOption(noProfileOption('follow no profile: the generic prompt and no title limits'));
  judgeOptions(run);
  memoryOptions(reflectionOptions(run))
    .addOption(jsonFlag())
    .addOption(quietFlag())
    .action(act((o: RunFlags) => actions.run(o)));

  program
    .command('bench')
    .description(
      "the harness's cost per step on this machine; with --record, the recorder's frame rate and dropped frames; with --soak, a long run's memory, open files and disk use",
    )
    .addOption(jsonFlag())
    .addOption(intOption('--iterations <n>', 'captures, encodes and key presses measured', { min: 5 }).default(60))
    .addOption(intOption('--loop-steps <n>', 'steps of the full loop on built-in 2048', { min: 5 }).default(40))
    .addOption(
      new Option(
        '--compare',
        'alternate with the Python yardstick (bench/reference.py: Pillow + python-xlib) on the same region and print the ratio',
      ).conflicts('record'),
    )
    .addOption(
      new Option(
        '--python <exe>',
        'with --compare: the Python interpreter (default: python3 with Pillow and python-xlib)',
      ),
    )
    .addOption(
      new Option('--record', 'measure the recorder instead: built-in 2048, the board changing three times a second'),
    )
    .addOption(
      new Option(
        '--startup',
        'measure the CLI’s start instead: `gamepilot games` in fresh processes, built and (in a checkout) from sources',
      ).conflicts(['record', 'compare']),
    )
    .addOption(intOption('--runs <n>', 'with --startup: processes started for each variant', { min: 3 }).default(9))
    .addOption(numberOption('--seconds <s>', 'with --record: how long to record', { min: 1 }).default(30))
    .addOption(intOption('--fps <n>', 'with --record: frames per second', { min: 1 }).default(30))
    .addOption(
      checkedOption('--window-size <WxH>', 'with --record: the game window’s size', parseWindowSize).default(
        { width: 1280, height: 720 },
        '1280x720',
      ),
    )
    .addOption(
      intOption('--writers <n>', 'with --record: frame writer threads (default: one a core, at most 3)', { min: 1 }),
    )
    .addOption(
      numberOption(
        '--soak <minutes>',
        'a soak instead: the solver plays --game for this long in one `gamepilot run` (episodes restart), its RSS, open files and steps sampled every 10 s; prints steps/s, RSS (start, after warm-up, max, end), open files and bytes written per step, and fails (exit 1) when the RSS floor (lowest of each 10 s) grows more than 50 MB after the warm-up (the first minute, or the first third of a shorter soak)',
        { min: 0.1, max: 24 * 60 },
      ).conflicts(['record', 'compare', 'startup']),
    )
    .addOption(choiceOption('--game <id>', 'with --soak: the built-in game played (default: 2048)', GAME_IDS))
    .addOption(
      patternOption(
        '--keep-frames <which>',
        "with --soak: passed to the run (which step frames it writes; default: the run's)",
        KEEP_FRAMES_PATTERN,
        KEEP_FRAMES_ALLOWED,
      ),
    )
    .action(act((o: BenchFlags) => actions.bench(o)));

  const record = program
    .command('record')
    .description("record a person playing: frames of the window, and input in the agent's action schema")
    .addHelpText(
      'after',
      "\nGive one target: --game, --window or --window-id. Trial N of a built-in game is an agent's episode N-1 of seed S (its board, its side).",
    );
  targetOptions(record)
    .addOption(choiceOption('--role <role>', 'the participant’s role', ROLES).makeOptionMandatory())
    .addOption(
      patternOption(
        '--participant <id>',
        'a pseudonym, not a name',
        /^[\w.-]{1,64}$/,
        'a pseudonym of up to 64 letters, digits, dots, dashes or underscores',
      ).makeOptionMandatory(),
    )
    .addOption(
      new Option(
        '--consent',
        'confirms the participant agreed to be recorded (frames of the game window and input inside it)',
      ).makeOptionMandatory(),
    )
    .addOption(
      numberOption(
        '--duration <s>',
        'stop after this many seconds (default: when the game ends, or on Ctrl+C / the stop hotkey)',
        { min: 1 },
      ),
    )
    .addOption(intOption('--fps <n>', 'frames per second', { min: 1 }).default(DEFAULT_RECORDER.fps))
    .addOption(intOption('--trial <n>', 'trial number', { min: 1 }).default(1))
    .addOption(intOption('--seed <s>', 'seed of the built-in game').default(0))
    .addOption(
      patternOption(
        '--stage <stage>',
        'protocol stage: a rookie plays play-1, watches the tutorial, plays play-2; an expert plays once (default: rookie play-1, expert play)',
        /^[\w-]{1,32}$/,
        'letters, digits, dash or underscore: play-1, tutorial, play-2 or play',
      ),
    )
    .addOption(checkedOption('--window-size <WxH>', 'size of a built-in game’s window', parseWindowSize))
    .addOption(profileOption())
    .addOption(noProfileOption('record under the window title, unprofiled (the tables list it apart)'))
    .addOption(
      new Option(
        '--tutorial <source>',
        "the tutorial the rookie watched (the agents' --tutorial: a video, a folder of frames, a run or session folder); recorded with the session",
      ),
    )
    .addOption(outDir('session folders, beside agent runs'))
    .addOption(jsonFlag())
    .addOption(quietFlag())
    .action(act((o: RecordFlags) => actions.record(o)));

  idcCommand(program).action(act((o: IdcFlags) => actions.idc(o)));

  suiteCommand(program).action(act((name: string, o: SuiteFlags) => actions.suite(name, o)));

  const memory = program
    .command('memory')
    .description("the memory agent's long-term stores (one a scope, in the config folder)");
  memory
    .command('list')
    .description('list the memory stores: scope, memories, size, file')
    .addOption(jsonFlag())
    .action(act((o: MemoryFlags) => actions.memoryList(o)));
  memory
    .command('clear')
    .description("delete a scope's memories")
    .argument('<scope>', 'the scope, as `gamepilot memory list` shows it')
    .addOption(jsonFlag())
    .action(act((scope: string, o: MemoryFlags) => actions.memoryClear(scope, o)));

  program
    .command('profiles')
    .description("list the titles' profiles: shipped, the user's (<config>/profiles), with category, tier and scoring")
    .addOption(jsonFlag())
    .action(act((o: { json?: boolean }) => actions.profiles(o)));

  program
    .command('profile')
    .description('work on profiles')
    .command('new')
    .description('write a starter profile from a live window (title, size, executable, a first screenshot beside it)')
    .addOption(
      checkedOption(
        '--window <regex>',
        'the window whose title matches (case-insensitive); it must match exactly one',
        parseTitlePattern,
      ).makeOptionMandatory(),
    )
    .addOption(new Option('--out <file>', 'where to write it (default: <config>/profiles/<id>.yaml)'))
    .addOption(
      patternOption(
        '--id <id>',
        'the profile id (default: from the title)',
        /^[a-z0-9][a-z0-9-]{0,63}$/,
        'lower-case letters, digits and dashes',
      ),
    )
    .action(act((o: ProfileNewFlags) => actions.profileNew(o)));

  milestonesCommands(program, act, actions);

  program
    .command('leaderboard')
    .description(
      'scores pooled per title (a built-in game, a window’s profile, or an unprofiled window) × player × VR × action space × latency (completed runs only)',
    )
    .addOption(new Option('--game <id>', 'only this title: a game or profile id, or window:<title>'))
    .addOption(new Option('--runs-dir <dir>', 'the runs folder').default('runs'))
    .addOption(jsonFlag())
    .action(act((o: LeaderboardFlags) => actions.leaderboard(o)));

  program
    .command('report')
    .description(
      'one self-contained HTML page of tables and charts from a runs folder, and the same data as JSON and CSV',
    )
    .addOption(new Option('--runs <dir>', 'the runs folder').default('runs'))
    .addOption(new Option('--out <file>', 'the HTML page').default('report.html'))
    .addOption(new Option('--json <file>', 'also write the report data as JSON'))
    .addOption(new Option('--csv <dir>', 'also write one CSV file a table into this folder'))
    .action(act((o: ReportFlags) => actions.report(o)));

  program
    .command('video')
    .description('a run or session as an MP4 (needs ffmpeg), e.g. as a tutorial')
    .argument('<dir>', 'the run or session folder')
    .addOption(new Option('--out <file>', 'where to write the video (default: <dir>/video.mp4)'))
    .action(act((dir: string, o: { out?: string }) => actions.video(dir, o)));

  program
    .command('web')
    .description('serve the UI on 127.0.0.1; the first line of output is its URL with a session token')
    .addOption(intOption('--port <port>', 'port to listen on (default: a free one)', { min: 0, max: 65535 }))
    .addOption(new Option('--runs-dir <dir>', 'the runs folder').default('runs'))
    .addOption(
      new Option(
        '--config-dir <dir>',
        'where settings.json lives (default: GAMEPILOT_CONFIG_DIR, else the per-user config folder)',
      ).default(defaultConfigDir(), 'the config folder'),
    )
    .addOption(new Option('--no-demo', 'do not start the built-in demo when no model is configured'))
    .addOption(new Option('--open', 'open the UI in a Chromium/Chrome window'))
    .action(act((o: WebFlags) => actions.web(o)));

  const queueName = () =>
    patternOption(
      '--queue-name <name>',
      'the BullMQ queue',
      /^[A-Za-z0-9_-]{1,64}$/,
      'letters, digits, - and _',
    ).default('gamepilot');
  program
    .command('sweep')
    .description('run a matrix of jobs (sweep file: games × agents × models × … × trials), each an ordinary run')
    .argument('<file>', 'the sweep file (YAML)')
    .addOption(
      intOption('--workers <n>', 'parallel workers, each on its own private display', { min: 1, max: 64 }).default(2),
    )
    .addOption(new Option('--out <dir>', 'folder for run folders (finished jobs there are not rerun)').default('runs'))
    .addOption(numberOption('--budget-usd <usd>', 'start no new job once this much has been spent', { min: 0 }))
    .addOption(new Option('--queue <url>', 'enqueue the jobs on a Redis queue (redis://…) for `gamepilot worker`s'))
    .addOption(queueName())
    .addOption(new Option('--wait', 'with --queue: follow the jobs until all are done'))
    .addOption(allowEndpointOption("the sweep file's base_url"))
    .addOption(
      intOption('--job-limit <n>', 'refuse a sweep file whose matrix expands to more jobs than this', {
        min: 1,
      }).default(DEFAULT_JOB_LIMIT),
    )
    .addOption(new Option('--json', 'progress as JSON lines on stdout; the last line is the summary'))
    .action(act((file: string, o: SweepFlags) => actions.sweep(file, o)));

  program
    .command('worker')
    .description("take sweep jobs from a Redis queue and run them, each on one of this worker's private displays")
    .requiredOption('--queue <url>', 'the Redis queue (redis://host:port)')
    .addOption(queueName())
    .addOption(
      intOption('--displays <n>', 'jobs at once, each on its own private display', { min: 1, max: 64 }).default(1),
    )
    .addOption(new Option('--out <dir>', 'local folder for runs in progress').default('runs'))
    .addOption(
      new Option(
        '--storage <dir|s3://bucket/prefix>',
        'where finished run folders go (S3: endpoint and keys from env)',
      ),
    )
    .addOption(intOption('--max-jobs <n>', 'exit after this many jobs (refused ones count)', { min: 1 }))
    .addOption(allowEndpointOption("a queued job's base_url"))
    .addOption(new Option('--json', 'events as JSON lines on stdout'))
    .action(act((o: WorkerFlags) => actions.worker(o)));

  return program;
}

/** The live milestone judge of `run` (a milestone-scored profile). */
function judgeOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--no-judge', 'no live milestone judge (a milestone-scored profile is judged by default)'))
    .addOption(new Option('--judge-model <name>', 'the milestone judge (default: --model)'))
    .addOption(
      intOption('--judge-budget <k>', 'at most this many judge calls in the run (default: no limit)', { min: 1 }),
    )
    .addOption(
      intOption('--judge-every <n>', 'judge every n steps, besides at the end of each episode', { min: 1 }).default(3),
    );
}

function judgeModelOptions(cmd: Command, what: string): Command {
  return cmd
    .addOption(new Option('--model <name>', what).env('GAMEPILOT_MODEL').makeOptionMandatory())
    .addOption(new Option('--base-url <url>', 'an OpenAI-compatible endpoint (default: OPENAI_BASE_URL, else OpenAI)'))
    .addOption(
      new Option('--api-key <key>', 'API key (default: OPENAI_API_KEY); never written to run files or the log'),
    );
}

type Act = <A extends unknown[]>(fn: (...args: A) => Promise<number> | number) => (...args: A) => Promise<void>;

/** `gamepilot milestones extract|judge|label|agreement`. */
function milestonesCommands(program: Command, act: Act, actions: Actions) {
  const m = program.command('milestones').description('milestone scoring: extract, judge, label, agreement');
  judgeModelOptions(
    m
      .command('extract')
      .description(
        "an ordered milestone list from an expert's walkthrough (a video or a session), saved into the user's copy of the profile with an evidence frame each",
      )
      .addOption(new Option('--video <file>', 'the walkthrough video (mp4, webm, mkv, mov, avi)'))
      .addOption(new Option('--session <dir>', 'a recorded session or run folder as the walkthrough'))
      .addOption(new Option('--profile <id>', 'the profile the list is for').makeOptionMandatory()),
    'the model that watches the walkthrough',
  )
    .addOption(
      numberOption('--fps <n>', 'frames sampled per second of video', { min: 0.01 }).default(DEFAULT_EXTRACT.fps),
    )
    .addOption(
      intOption('--chunk-frames <n>', 'frames per model call (long videos go in chunks)', { min: 1 }).default(
        DEFAULT_EXTRACT.chunkFrames,
      ),
    )
    .addOption(
      intOption('--max-frames <n>', 'frames sampled in all (thinned evenly)', { min: 1 }).default(
        DEFAULT_EXTRACT.maxFrames,
      ),
    )
    .addOption(
      intOption('--max-side <px>', 'long side of each frame sent', { min: 64 }).default(DEFAULT_EXTRACT.maxSide),
    )
    .addOption(jsonFlag())
    .action(act((o: MilestonesExtractFlags) => actions.milestonesExtract(o)));

  judgeModelOptions(
    m
      .command('judge')
      .description("judge a finished run or a human session's frames against its profile's milestones; writes run.json")
      .argument('<run>', 'the run or session folder')
      .addOption(
        new Option('--profile <id|file>', "the profile (default: the one the run followed, else run.json's own list)"),
      ),
    'the judge',
  )
    .addOption(intOption('--judge-budget <k>', 'at most this many judge calls (default: no limit)', { min: 1 }))
    .addOption(intOption('--judge-every <n>', 'steps per judgement', { min: 1 }).default(3))
    .addOption(jsonFlag())
    .action(act((run: string, o: MilestonesJudgeFlags) => actions.milestonesJudge(run, o)));

  m.command('label')
    .description(
      "a person's verdict on one milestone of a judged run, kept apart from the judge's (milestone-labels.json)",
    )
    .argument('<run>', 'the run or session folder')
    .addOption(new Option('--milestone <name>', 'the milestone, by its name in the checklist').makeOptionMandatory())
    .addOption(
      choiceOption('--reached <verdict>', 'reached or not; clear removes the label', [
        'yes',
        'no',
        'clear',
      ]).makeOptionMandatory(),
    )
    .addOption(intOption('--episode <n>', 'the episode (from 0)', { min: 0 }).default(0))
    .addOption(jsonFlag())
    .action(act((run: string, o: MilestonesLabelFlags) => actions.milestonesLabel(run, o)));

  m.command('agreement')
    .description('judged vs human-labelled milestone scores per game: mean judged, mean human, percentage difference')
    .argument('[runs...]', 'run or session folders (default: every run in --runs-dir)')
    .addOption(new Option('--runs-dir <dir>', 'the runs folder').default('runs'))
    .addOption(jsonFlag())
    .action(act((runs: string[], o: MilestonesAgreementFlags) => actions.milestonesAgreement(runs, o)));
}

/** `gamepilot suite ingvp`: ING-VP's six games × six settings × 50 levels. */
export function suiteCommand(parent: Command): Command {
  const v = DEFAULT_VLM;
  return parent
    .command('suite')
    .description(
      "ING-VP's matrix (games × settings × levels), one run per level, resumable; prints the paper-style table",
    )
    .argument('<name>', 'the suite: ingvp')
    .addOption(
      choiceOption('--agent <kind>', 'who answers: a model (vlm), the solver, or uniformly random moves', [
        'vlm',
        'solver',
        'random',
      ]).default('vlm'),
    )
    .addOption(new Option('--model <name>', 'the model (vlm agent)').env('GAMEPILOT_MODEL'))
    .addOption(new Option('--base-url <url>', 'an OpenAI-compatible endpoint (default: OPENAI_BASE_URL, else OpenAI)'))
    .addOption(
      new Option('--api-key <key>', 'API key (default: OPENAI_API_KEY); never written to run files or the log'),
    )
    .addOption(numberOption('--temperature <t>', 'sampling temperature (default: the provider’s)', { min: 0 }))
    .addOption(intOption('--max-tokens <n>', 'longest answer in tokens (default: the provider’s)', { min: 1 }))
    .addOption(
      numberOption('--timeout-ms <ms>', 'total time limit of one model call, streaming included', { min: 1 }).default(
        v.timeoutMs,
      ),
    )
    .addOption(
      intOption('--max-retries <n>', 'retries after 429/5xx/time-outs/connection errors', { min: 0 }).default(
        v.maxRetries,
      ),
    )
    .addOption(
      new Option(
        '--games <list>',
        'comma-separated: sokoban, maze (= ingvp-maze), queens, sudoku, hanoi, fifteen',
      ).default(undefined, 'all six'),
    )
    .addOption(
      new Option(
        '--settings <list>',
        'all, or comma-separated: one-step-image, one-step-text, multi-step-image, multi-step-text, multi-step-image-history, multi-step-text-history',
      ).default('all'),
    )
    .addOption(new Option('--levels <ranges>', 'levels to play, e.g. 1-50, 7 or 1-5,9').default('1-50'))
    .addOption(intOption('--seed <s>', 'seed of the random agent').default(0))
    .addOption(
      new Option(
        '--thinking',
        'let the model think before its JSON answer (the paper asks for the answer only; the tables mark such rows)',
      ),
    )
    .addOption(
      new Option('--out <dir>', 'the suite folder (suite.json, table.json, runs/); give it again to resume').default(
        'runs/ingvp',
      ),
    )
    .addOption(jsonFlag())
    .addOption(quietFlag());
}

/** `gamepilot idc`: OmniGameArena's defaults (10 rounds × 5 episodes under PDQ). */
export function idcCommand(parent: Command): Command {
  return parent
    .command('idc')
    .description(
      'Improvement Dynamics Curve: rounds of play → tool-using reflection → judged skill, then held-out variants',
    )
    .addOption(choiceOption('--game <id>', 'a built-in game', GAME_IDS).makeOptionMandatory())
    .addOption(
      new Option('--model <name>', 'the player (the reflector defaults to it)')
        .env('GAMEPILOT_MODEL')
        .makeOptionMandatory(),
    )
    .addOption(intOption('--rounds <r>', 'reflection rounds after round 0', { min: 1 }).default(IDC_DEFAULTS.rounds))
    .addOption(intOption('--episodes <e>', 'episodes per round', { min: 1 }).default(IDC_DEFAULTS.episodes))
    .addOption(intOption('--max-steps <n>', "steps per episode (default: the game's own)", { min: 1 }))
    .addOption(intOption('--seed <s>', 'seed of the rounds (held-out variants use seed + 10000)').default(0))
    .addOption(new Option('--base-url <url>', 'an OpenAI-compatible endpoint (default: OPENAI_BASE_URL, else OpenAI)'))
    .addOption(
      new Option('--api-key <key>', 'API key (default: OPENAI_API_KEY); never written to run files or the log'),
    )
    .addOption(new Option('--reflector-model <name>', 'the reflecting and judging model (default: --model)'))
    .addOption(intOption('--max-words <n>', 'longest skill, in words', { min: 10 }).default(120))
    .addOption(
      numberOption('--rollback-drop <f>', 'a round below best × (1 − f) rolls back to the best skill', {
        min: 0,
        max: 1,
      }).default(0.25),
    )
    .addOption(intOption('--held-out <n>', 'held-out episodes for the best skill (default: --episodes)', { min: 1 }))
    .addOption(
      intOption('--judge-tries <n>', 'skills proposed per round until the judge accepts one', { min: 1 }).default(5),
    )
    .addOption(
      choiceOption('--latency <mode>', 'how the world waits for the model (stop = PDQ)', LATENCY_MODES).default(
        IDC_DEFAULTS.latency,
      ),
    )
    .addOption(
      numberOption('--stop-interval-ms <ms>', 'stop: the world runs this long after acting', { min: 0 }).default(
        IDC_DEFAULTS.stopIntervalMs,
      ),
    )
    .addOption(outDir('the IDC folder'))
    .addOption(jsonFlag());
}
