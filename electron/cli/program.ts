/**
 * The `gamepilot` command line as one declaration (commander): every command, its options,
 * their defaults, allowed values and help. `--help` on any command prints this; docs/cli.md's
 * option reference is generated from it (reference.ts) and a test keeps the two in step.
 * The commands' work lives beside it in *-command.ts (and bench*.ts); this file only says what they accept
 * (the profile commands' part of the declaration is profile-program.ts).
 */
import { Command, Option, type OutputConfiguration } from 'commander';
import { BUILTIN_GAMES, TWO_SEAT_GAMES } from '../../games/index.ts';
import { IDC_DEFAULTS, KEEP_FRAMES_ALLOWED, KEEP_FRAMES_PATTERN, ROLES } from '../domain.ts';
import { DEFAULT_JOB_LIMIT } from '../sweep/spec.ts';
import { DEFAULT_PARALLEL } from '../store/bucket-sync-plan.ts';
import { DEFAULT_RECORDER } from '../recording/recorder.ts';
import { defaultConfigDir } from '../util/paths.ts';
import { appVersion } from '../util/resources.ts';
import { KeyPolicy } from '../input/key-policy.ts';
import { RECORDED_MODEL_FIELDS, REFLECTION_FIELDS, RUN_SPEC_FIELD_NAMES, type RunSpecField } from '../run-spec.ts';
import { specOption } from './spec-option.ts';
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
  jsonFlag,
  renamedOption,
  runsDirOption,
  UsageError,
} from './options.ts';
import { profileCommands } from './profile-program.ts';
import { errorsCommands } from './errors-program.ts';
import { milestonesCommands } from './milestones-program.ts';
import { commandsPlaying } from './games-played.ts';
import { textPattern } from '../util/text-pattern.ts';
import { MCP_CLIENTS, MCP_IDLE_TIMEOUT_S } from './mcp-client-config.ts';
import type {
  RunFlags,
  MemoryFlags,
  RecordFlags,
  IdcFlags,
  ArenaFlags,
  BenchFlags,
  WebFlags,
  McpFlags,
  SuiteFlags,
  LeaderboardFlags,
  ExportFlags,
  ReportFlags,
  SyncFlags,
  SweepFlags,
  WorkerFlags,
  Actions,
  Done,
} from './command-flags.ts';
import { SETTINGS_HELP } from '../ingvp/ingvp-settings.ts';

export const GAME_IDS = Object.keys(BUILTIN_GAMES);

/** `--runs-dir` of the commands that read runs: a folder, or a bucket read through a local cache. */
const RUNS_OR_BUCKET =
  'the runs folder, or s3://bucket/prefix (its complete runs, synced into a local cache first; endpoint and keys from env)';

const quietFlag = () => new Option('--quiet', 'no progress lines on stderr');
/** `--runs-dir`, the runs folder, which these commands called `--out` before (still accepted). */
const runsDirWasOut = (cmd: Command, description?: string) =>
  renamedOption(cmd, runsDirOption(description), '--out <dir>');

function targetOptions(cmd: Command, games: readonly string[] = GAME_IDS): Command {
  return cmd
    .addOption(specOption('game', { choices: games }))
    .addOption(specOption('window', { parse: parseTitlePattern }))
    .addOption(specOption('windowId'));
}

/** The model endpoint: `run`, `suite` and `idc` share these declarations. */
const ENDPOINT_FIELDS = ['model', 'baseUrl', 'apiKey'] as const;

function modelOptions(cmd: Command): Command {
  // The endpoint, then the model agent's settings as run.json records them (its base URL among them).
  const fields: RunSpecField[] = [...ENDPOINT_FIELDS, ...RECORDED_MODEL_FIELDS.filter((f) => f !== 'baseUrl')];
  return fields.reduce((c, f) => c.addOption(specOption(f)), cmd);
}

function reflectionOptions(cmd: Command): Command {
  return addSpecOptions(cmd, [...REFLECTION_FIELDS]);
}

function memoryOptions(cmd: Command): Command {
  return addSpecOptions(cmd, [
    'memoryScope',
    'embeddingModel',
    'memoryTopK',
    'memoryThreshold',
    'memoryDedupe',
    'shortTerm',
    'summaryWords',
  ]);
}

function addSpecOptions(cmd: Command, fields: RunSpecField[]): Command {
  return fields.reduce((c, f) => c.addOption(specOption(f)), cmd);
}

/** `a, b,c` → ['a', 'b', 'c']. */
function commaList(v: string): string[] {
  return v
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
}

/** `alt+f4,super+d`: checked here, so a typo is an error and never allows something else. */
function allowedKeys(v: string): string[] {
  const list = commaList(v);
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
    .description('list every built-in game (the two-seat ones too) with its seats and the commands that play it')
    .addOption(jsonFlag())
    .action(act((o: { json?: boolean }) => actions.games(o, commandsPlaying(program))));

  const run = program
    .command('run')
    .description('play a built-in game or any window with an agent, recording every step')
    .addHelpText(
      'after',
      '\nGive one target: --game, --window or --window-id. A two-seat game (docs/arena.md) takes --seats, not --agent.',
    );
  targetOptions(run, [...GAME_IDS, ...Object.keys(TWO_SEAT_GAMES)]);
  addSpecOptions(run, ['agent']).addOption(specOption('seats', { parse: commaList }));
  runsDirWasOut(
    addSpecOptions(run, ['actionSpace', 'episodes', 'maxSteps', 'seed', 'level']),
    'the runs folder: each run writes its folder in it',
  );
  addSpecOptions(run, ['keepFrames', 'maxRunMb', 'minFreeMb']);
  modelOptions(run).addOption(specOption('allowKeys', { parse: allowedKeys }));
  addSpecOptions(run, [
    'imageSize',
    'format',
    'quality',
    'capture',
    'settleMs',
    'maxErrors',
    'effectWarnAfter',
    'paceMs',
    'latency',
    'stopIntervalMs',
    'slowBufferMs',
    'pauseKey',
    'takeOverOnInput',
    'acceptAnticheatRisk',
  ])
    .addOption(profileOption())
    .addOption(noProfileOption('follow no profile: the generic prompt and no title limits'));
  judgeOptions(run);
  memoryOptions(reflectionOptions(run));
  // Every other setting of the spec is a flag too, so a new setting needs no line here.
  const declared = new Set(run.options.map((o) => o.attributeName()));
  addSpecOptions(
    run,
    RUN_SPEC_FIELD_NAMES.filter((f) => !declared.has(f)),
  )
    .addOption(
      new Option(
        '--dry-run',
        "check the flags, print every model role's limits and the longest one call may take, then exit: nothing opens",
      ),
    )
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
    .addOption(
      new Option(
        '--storage <s3://bucket/prefix>',
        'measure a bucket’s upload throughput instead: the newest completed run of --runs-dir stored three times as a queue worker stores it (endpoint and credentials from the environment), then removed',
      ).conflicts(['record', 'compare', 'startup', 'soak']),
    )
    .addOption(runsDirOption('with --storage: the runs folder whose newest completed run is uploaded'))
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
    .addOption(specOption('seed', { description: 'seed of the built-in game' }))
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
        'the tutorial the rookie watched (the agents\' --tutorial: a video, a folder of frames, a run or session folder, or "title": the title\'s declared tutorial); recorded with the session and its hash',
      ),
    );
  runsDirWasOut(record, 'the runs folder: the session folder goes in it, beside agent runs')
    .addOption(jsonFlag())
    .addOption(quietFlag())
    .action(act((o: RecordFlags) => actions.record(o)));

  idcCommand(program).action(act((o: IdcFlags) => actions.idc(o)));

  const arena = program
    .command('arena')
    .description(
      "two-seat games (OmniGameArena): every pairwise matchup of the agents, both sides; PvP's player-1 win-rate matrix, co-op's team scores",
    )
    .addOption(new Option('--game <id>', 'a two-seat game').choices(Object.keys(TWO_SEAT_GAMES)).makeOptionMandatory())
    .addOption(
      new Option('--agents <list>', 'comma-separated: solver, random or vlm:<model> (a bare name is vlm:<name>)')
        .argParser(commaList)
        .makeOptionMandatory(),
    )
    .addOption(new Option('--mixed', 'co-op: pair different agents too, not only each with a copy of itself'))
    .addOption(specOption('maxSteps', { description: "steps per episode (default: the game's own)" }))
    .addOption(specOption('seed'))
    .addOption(specOption('latency', { default: { value: 'normal' } }))
    .addOption(specOption('actionSpace'))
    .addOption(specOption('baseUrl'))
    .addOption(specOption('apiKey'))
    .addOption(specOption('capture'))
    .addOption(specOption('imageSize'));
  renamedOption(
    arena,
    intOption('--episodes <n>', "episodes of each match (default: half the game's trials)", { min: 1, max: 1000 }),
    '--trials <n>',
  );
  runsDirWasOut(arena, 'the runs folder: the arena folder goes in it')
    .addOption(
      patternOption(
        '--name <name>',
        'the arena folder (<runs-dir>/arena-<name>); the same name and settings resume it (default: game and agents)',
        /^[\w.-]{1,80}$/,
        'letters, digits, dot, dash or underscore',
      ),
    )
    .addOption(jsonFlag())
    .action(act((o: ArenaFlags) => actions.arena(o)));

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

  profileCommands(program, act, actions);

  milestonesCommands(program, act, actions);

  errorsCommands(program, act, actions);

  program
    .command('leaderboard')
    .description(
      'scores pooled per title (a built-in game, a window’s profile, or an unprofiled window) × player × VR × action space × latency, with no-effect and invalid-action rates (completed runs only; failed runs and invalid episodes listed apart, never pooled)',
    )
    .addOption(new Option('--game <id>', 'only this title: a game or profile id, or window:<title>'))
    .addOption(runsDirOption(RUNS_OR_BUCKET))
    .addOption(jsonFlag())
    .action(act((o: LeaderboardFlags) => actions.leaderboard(o)));

  const exportCmd = program
    .command('export')
    .description(
      'runs and human sessions as a training dataset (Hugging Face imagefolder: images, metadata.jsonl per split, a dataset card); resumable',
    )
    .argument(
      '[sources...]',
      'run or session folders, folders holding them, or s3://bucket/prefix (default: the --runs-dir folder)',
    )
    .addOption(runsDirOption(RUNS_OR_BUCKET))
    .requiredOption('--out <dir>', 'the dataset folder (an export there with the same options resumes)')
    .addOption(
      new Option('--format <format>', 'the dataset layout').choices(['hf-imagefolder']).default('hf-imagefolder'),
    )
    .addOption(new Option('--game <id>', 'only this title: a game or profile id, or window:<title>'))
    .addOption(
      new Option(
        '--player <name>',
        'only this player, as the leaderboard names it (vlm, mcp:<client>, human-expert, …)',
      ),
    )
    .addOption(
      numberOption('--min-score <score>', 'only runs whose mean score is at least this (0–100)', { min: 0, max: 100 }),
    )
    .addOption(
      numberOption('--max-score <score>', 'only runs whose mean score is at most this (0–100)', { min: 0, max: 100 }),
    )
    .addOption(
      new Option('--assisted <which>', 'only runs a person took over (yes), or only those nobody did (no)').choices([
        'yes',
        'no',
      ]),
    )
    .addOption(
      numberOption('--validation <share>', 'the share of episodes in the validation split', {
        min: 0,
        max: 0.9,
      }).default(0.1),
    )
    .addOption(
      new Option(
        '--redact-text <regex>',
        'blur text matching this pattern (OCR, case-insensitive) in every frame, e.g. names in a chat',
      ),
    )
    .addOption(jsonFlag());
  // Not --seed: that is the seed of the games played; this one only draws the split.
  renamedOption(
    exportCmd,
    intOption('--split-seed <n>', 'which episodes land in validation', { min: 0, max: 2 ** 31 - 1 }).default(0),
    '--seed <n>',
  ).action(
    act((sources: string[], o: ExportFlags, cmd: Command) => {
      if (sources.length && cmd.getOptionValueSource('runsDir') === 'cli')
        throw new UsageError('give run folders or --runs-dir, not both');
      return actions.export(sources.length ? sources : [o.runsDir], o);
    }),
  );

  const report = program
    .command('report')
    .description(
      'one self-contained HTML page of tables and charts from a runs folder, and the same data as JSON and CSV',
    )
    .addOption(new Option('--out <file>', 'the HTML page').default('report.html'))
    .addOption(new Option('--json <file>', 'also write the report data as JSON'))
    .addOption(new Option('--csv <dir>', 'also write one CSV file a table into this folder'));
  renamedOption(report, runsDirOption(RUNS_OR_BUCKET), '--runs <dir>').action(
    act((o: ReportFlags) => actions.report(o)),
  );

  program
    .command('sync')
    .description(
      "download a bucket's complete runs (run.json uploaded) and job records into a folder; again, it fetches only what is new, changed or missing",
    )
    .argument('<from>', 's3://bucket/prefix (endpoint and keys from env, as for `gamepilot worker --storage`)')
    .argument('<dir>', 'the local folder (a runs folder: report, leaderboard and export read it)')
    .addOption(intOption('--parallel <n>', 'downloads at once', { min: 1, max: 32 }).default(DEFAULT_PARALLEL))
    .addOption(jsonFlag())
    .addOption(quietFlag())
    .action(act((from: string, dir: string, o: SyncFlags) => actions.sync(from, dir, o)));

  program
    .command('video')
    .description('a run or session as an MP4 (needs ffmpeg), e.g. as a tutorial')
    .argument('<dir>', 'the run or session folder')
    .addOption(new Option('--out <file>', 'where to write the video (default: <dir>/video.mp4)'))
    .action(act((dir: string, o: { out?: string }) => actions.video(dir, o)));

  const web = program
    .command('web')
    .description('serve the UI on 127.0.0.1; the first line of output is its URL with a session token');
  for (const o of loopbackShellOptions()) web.addOption(o);
  web
    .addOption(new Option('--no-demo', 'do not start the built-in demo when no model is configured'))
    .action(act((o: WebFlags) => actions.web(o)));

  const mcp = program
    .command('mcp')
    .description(
      'serve Gamepilot to MCP clients (Claude Desktop, Claude Code, agent frameworks) over stdio; the web shell runs beside it to watch and stop the play',
    )
    .addOption(
      new Option(
        '--http',
        'serve MCP over streamable HTTP only (loopback, token required); the first line of output is its URL',
      ),
    );
  for (const o of loopbackShellOptions()) mcp.addOption(o);
  mcp
    .addOption(
      intOption('--idle-timeout <seconds>', 'end a session whose client calls no tool for this long (keys released)', {
        min: 5,
        max: 86400,
      }).default(MCP_IDLE_TIMEOUT_S),
    )
    .addOption(
      checkedOption(
        '--windows <regex>',
        'windows (by title) clients may play without asking you; others need a profile or your yes in the Live view; terminals, shells and password managers never',
        (v) => textPattern(v).source,
      ),
    )
    .addOption(specOption('acceptAnticheatRisk'))
    .addOption(
      new Option(
        '--print-config [client]',
        "print the client's configuration that starts this server (absolute paths, the env it needs; claude-desktop when no client is named) and exit; where it goes on stderr",
      )
        .choices(MCP_CLIENTS)
        .preset('claude-desktop'),
    )
    .action(act((o: McpFlags) => actions.mcp(o)));

  const queueName = () =>
    patternOption(
      '--queue-name <name>',
      'the BullMQ queue',
      /^[A-Za-z0-9_-]{1,64}$/,
      'letters, digits, - and _',
    ).default('gamepilot');
  const sweep = program
    .command('sweep')
    .description('run a matrix of jobs (sweep file: games × agents × models × … × trials), each an ordinary run')
    .argument('<file>', 'the sweep file (YAML)')
    .addOption(
      intOption('--workers <n>', 'parallel workers, each on its own private display', { min: 1, max: 64 }).default(2),
    )
    .addOption(
      specOption('budgetUsd', {
        description:
          "the most the sweep may spend on model calls, in USD (default: the sweep file's budget_usd): each job runs with a share of what is left as its own --budget-usd, so the sweep never passes it",
      }),
    )
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
    .addOption(
      new Option('--dry-run', 'check the sweep file and print the jobs it makes, then exit: nothing runs or is queued'),
    );
  runsDirWasOut(
    sweep,
    'the runs folder: each job writes its run folder in it (finished jobs there are not rerun)',
  ).action(act((file: string, o: SweepFlags) => actions.sweep(file, o)));

  const worker = program
    .command('worker')
    .description("take sweep jobs from a Redis queue and run them, each on one of this worker's private displays")
    .requiredOption('--queue <url>', 'the Redis queue (redis://host:port)')
    .addOption(queueName())
    .addOption(
      intOption('--displays <n>', 'jobs at once, each on its own private display', { min: 1, max: 64 }).default(1),
    )
    .addOption(
      new Option(
        '--storage <dir|s3://bucket/prefix>',
        'where finished run folders go (S3: endpoint and keys from env)',
      ),
    )
    .addOption(intOption('--max-jobs <n>', 'exit after this many jobs (refused ones count)', { min: 1 }))
    .addOption(allowEndpointOption("a queued job's base_url"))
    .addOption(new Option('--json', 'events as JSON lines on stdout'));
  runsDirWasOut(worker, 'the local runs folder: runs in progress (and finished ones without --storage)').action(
    act((o: WorkerFlags) => actions.worker(o)),
  );

  return program;
}

/** The live milestone judge of `run` (a milestone-scored profile). */
function judgeOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--no-judge', 'no live milestone judge (a milestone-scored profile is judged by default)'))
    .addOption(specOption('judgeModel'))
    .addOption(specOption('judgeBudget'))
    .addOption(specOption('judgeEvery'));
}

/** `gamepilot suite ingvp`: ING-VP's six games × six settings × 50 levels. */
export function suiteCommand(parent: Command): Command {
  const cmd = parent
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
    .addOption(specOption('model', { description: 'the model (vlm agent)' }).env('GAMEPILOT_MODEL'))
    .addOption(specOption('baseUrl'))
    .addOption(specOption('apiKey'))
    .addOption(specOption('temperature'))
    .addOption(specOption('maxTokens'))
    .addOption(specOption('timeoutMs'))
    .addOption(specOption('maxRetries'))
    .addOption(specOption('preflight'));
  costCapOptions(cmd, "the whole suite (every level's run)", "the model's price");
  return cmd
    .addOption(
      new Option(
        '--games <list>',
        'comma-separated: sokoban, maze (= ingvp-maze), queens, sudoku, hanoi, fifteen',
      ).default(undefined, 'all six'),
    )
    .addOption(new Option('--settings <list>', SETTINGS_HELP).default('all'))
    .addOption(new Option('--levels <ranges>', 'levels to play, e.g. 1-50, 7 or 1-5,9').default('1-50'))
    .addOption(new Option('--maze-steps <list>', 'also the maze at these solution lengths (Fig. 4), e.g. 4,12,16'))
    .addOption(specOption('seed', { description: "seed of the random agent and of the maze-length study's starts" }))
    .addOption(
      new Option(
        '--thinking',
        'let the model think before its JSON answer (the paper asks for the answer only; the tables mark such rows)',
      ),
    )
    .addOption(runsDirOption())
    .addOption(
      new Option('--out <dir>', 'the suite folder (suite.json, table.json, runs/); give it again to resume').default(
        undefined,
        '<runs-dir>/ingvp',
      ),
    )
    .addOption(jsonFlag())
    .addOption(quietFlag());
}

/** `gamepilot idc`: OmniGameArena's defaults (10 rounds × 5 episodes under PDQ). */
export function idcCommand(parent: Command): Command {
  const cmd = parent
    .command('idc')
    .description(
      'Improvement Dynamics Curve: rounds of play → tool-using reflection → judged skill, then held-out variants',
    )
    .addOption(specOption('game', { description: 'a built-in game', choices: GAME_IDS }).makeOptionMandatory())
    .addOption(specOption('actionSpace', { description: "gui (keys and pointer) or semantic (the game's own moves)" }))
    .addOption(
      specOption('model', { description: 'the player (the reflector defaults to it)' })
        .env('GAMEPILOT_MODEL')
        .makeOptionMandatory(),
    )
    .addOption(intOption('--rounds <r>', 'reflection rounds after round 0', { min: 1 }).default(IDC_DEFAULTS.rounds))
    .addOption(
      specOption('episodes', {
        description: 'episodes per round',
        default: { value: IDC_DEFAULTS.episodes },
      }),
    )
    .addOption(specOption('maxSteps', { description: "steps per episode (default: the game's own)" }))
    .addOption(specOption('seed', { description: 'seed of the rounds (held-out variants use seed + 10000)' }))
    .addOption(specOption('baseUrl'))
    .addOption(specOption('apiKey'))
    .addOption(specOption('reflectorModel', { description: 'the reflecting and judging model (default: --model)' }))
    .addOption(specOption('preflight'));
  costCapOptions(cmd, "the whole IDC (every round's runs, the reflector and the judge)", 'a price for each model');
  cmd
    .addOption(
      specOption('maxWords', { description: 'longest skill, in words', default: { value: IDC_DEFAULTS.maxWords } }),
    )
    .addOption(
      numberOption('--rollback-drop <f>', 'a round below best × (1 − f) rolls back to the best skill', {
        min: 0,
        max: 1,
      }).default(IDC_DEFAULTS.rollbackDrop),
    )
    .addOption(intOption('--held-out <n>', 'held-out episodes for the best skill (default: --episodes)', { min: 1 }))
    .addOption(
      intOption('--judge-tries <n>', 'skills proposed per round until the judge accepts one', { min: 1 }).default(
        IDC_DEFAULTS.judgeTries,
      ),
    )
    .addOption(
      specOption('latency', {
        description: 'how the world waits for the model (stop = PDQ)',
        default: { value: IDC_DEFAULTS.latency },
      }),
    )
    .addOption(specOption('stopIntervalMs', { default: { value: IDC_DEFAULTS.stopIntervalMs } }))
    .addOption(jsonFlag());
  return runsDirWasOut(cmd, "the runs folder: the IDC folder (its rounds' runs) goes in it");
}

/** The model's price and the cost cap of a command that runs many runs under one cap. */
function costCapOptions(cmd: Command, whole: string, needs: string): Command {
  return cmd
    .addOption(specOption('priceIn'))
    .addOption(specOption('priceOut'))
    .addOption(
      specOption('budgetUsd', {
        description: `the most ${whole} may spend on model calls, in USD: it stops before a call that could pass it; needs ${needs} (--price-in/--price-out, else a known list price)`,
      }),
    );
}

/** The options of a command that serves the UI on loopback (`web`, `mcp`): port, folders, opening it. */
function loopbackShellOptions(): Option[] {
  return [
    intOption('--port <port>', 'port to listen on (default: a free one)', { min: 0, max: 65535 }),
    runsDirOption(),
    new Option(
      '--config-dir <dir>',
      'where settings.json lives (default: GAMEPILOT_CONFIG_DIR, else the per-user config folder)',
    ).default(defaultConfigDir(), 'the config folder'),
    new Option('--open', 'open the UI in a Chromium/Chrome window'),
  ];
}
