/**
 * What each `gamepilot` command's action receives: its flags as commander parses them
 * (program.ts declares them), and the actions a shell gives the program (Actions).
 */
import type { KeepFrames } from '../domain.ts';
import type { RunSpec } from '../run-spec.ts';
import type { McpClientName } from './mcp-client-config.ts';

export interface TargetFlags {
  game?: string;
  window?: string;
  windowId?: string;
}

/** `gamepilot run`'s options: the RunSpec's fields (run-spec.ts), and where and how it reports. */
export type RunFlags = RunSpec & {
  /** The runs folder (--runs-dir). */
  runsDir: string;
  json?: boolean;
  quiet?: boolean;
  /** Check the flags and print every model role's limits; open nothing. */
  dryRun?: boolean;
};

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
  runsDir: string;
  json?: boolean;
  quiet?: boolean;
}

/** `gamepilot idc`'s options: the spec's settings it offers (program.ts declares them from the spec), and its own. */
export type IdcFlags = Pick<
  RunSpec,
  'actionSpace' | 'seed' | 'maxSteps' | 'baseUrl' | 'apiKey' | 'reflectorModel' | 'priceIn' | 'priceOut' | 'budgetUsd'
> &
  Required<Pick<RunSpec, 'game' | 'model' | 'episodes' | 'maxWords' | 'latency' | 'stopIntervalMs' | 'preflight'>> & {
    rounds: number;
    rollbackDrop: number;
    heldOut?: number;
    judgeTries: number;
    runsDir: string;
    json?: boolean;
  };

/** `gamepilot arena`'s options: the spec's settings of its matches, and the arena's own. */
export type ArenaFlags = Pick<
  RunSpec,
  'maxSteps' | 'seed' | 'actionSpace' | 'baseUrl' | 'apiKey' | 'capture' | 'imageSize'
> &
  Required<Pick<RunSpec, 'game' | 'latency'>> & {
    agents: string[];
    /** Episodes of each match (default: half the game's trials). */
    episodes?: number;
    mixed?: boolean;
    runsDir: string;
    name?: string;
    json?: boolean;
  };

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
  /** A bucket (s3://…) whose upload throughput is measured with the newest completed run of runsDir. */
  storage?: string;
  runsDir: string;
}

export interface WebFlags {
  port?: number;
  runsDir: string;
  configDir: string;
  demo: boolean;
  open?: boolean;
}

export interface McpFlags {
  http?: boolean;
  port?: number;
  runsDir: string;
  configDir: string;
  /** Seconds a client may stay quiet before its session is ended. */
  idleTimeout: number;
  open?: boolean;
  /** Windows whose title matches may be played without asking the person (RE2). */
  windows?: string;
  /** Clients may play windows where an anti-cheat system runs (the person's choice). */
  acceptAnticheatRisk?: boolean;
  /** Print this client's configuration for the server instead of serving. */
  printConfig?: McpClientName;
}

export interface SuiteFlags extends Pick<RunSpec, 'priceIn' | 'priceOut' | 'budgetUsd'> {
  agent: 'vlm' | 'solver' | 'random';
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  temperature?: number;
  maxTokens?: number;
  timeoutMs: number;
  maxRetries: number;
  preflight: boolean;
  games?: string;
  settings: string;
  levels: string;
  /** The maze-length study's lengths, e.g. "4,12,16". */
  mazeSteps?: string;
  seed: number;
  thinking?: boolean;
  runsDir: string;
  /** The suite folder (default: <runsDir>/ingvp). */
  out?: string;
  json?: boolean;
  quiet?: boolean;
}

export interface LeaderboardFlags {
  game?: string;
  runsDir: string;
  json?: boolean;
}

export interface ExportFlags {
  /** The runs folder exported when no source is given. */
  runsDir: string;
  out: string;
  format: 'hf-imagefolder';
  game?: string;
  player?: string;
  minScore?: number;
  maxScore?: number;
  assisted?: 'yes' | 'no';
  validation: number;
  /** Draws which episodes land in validation. */
  splitSeed: number;
  redactText?: string;
  json?: boolean;
}

export interface ReportFlags {
  /** A runs folder, or an s3:// location read through the cache. */
  runsDir: string;
  out: string;
  json?: string;
  csv?: string;
}

export interface SyncFlags {
  /** GETs at once. */
  parallel: number;
  json?: boolean;
  quiet?: boolean;
}

export interface SweepFlags {
  workers: number;
  runsDir: string;
  /** Check the file and count its jobs; run and queue nothing. */
  dryRun?: boolean;
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
  runsDir: string;
  storage?: string;
  maxJobs?: number;
  json?: boolean;
  allowEndpoint?: string[];
}

export interface Actions {
  windows(o: { json?: boolean }): Promise<number> | number;
  /** `playedBy`: each game's id → the commands that play it (program.ts reads them from the declaration). */
  games(o: { json?: boolean }, playedBy: ReadonlyMap<string, string[]>): Promise<number> | number;
  run(o: RunFlags): Promise<number>;
  bench(o: BenchFlags): Promise<number>;
  record(o: RecordFlags): Promise<number>;
  idc(o: IdcFlags): Promise<number>;
  arena(o: ArenaFlags): Promise<number>;
  leaderboard(o: LeaderboardFlags): Promise<number> | number;
  report(o: ReportFlags): Promise<number> | number;
  export(sources: string[], o: ExportFlags): Promise<number>;
  sync(from: string, dir: string, o: SyncFlags): Promise<number>;
  video(dir: string, o: { out?: string }): Promise<number>;
  web(o: WebFlags): Promise<number>;
  mcp(o: McpFlags): Promise<number>;
  memoryList(o: MemoryFlags): Promise<number> | number;
  memoryClear(scope: string, o: MemoryFlags): Promise<number> | number;
  profiles(o: { json?: boolean }): Promise<number> | number;
  profileNew(o: ProfileNewFlags): Promise<number>;
  profileCheck(profile: string, o: ProfileCheckFlags): Promise<number>;
  milestonesExtract(o: MilestonesExtractFlags): Promise<number>;
  milestonesJudge(run: string, o: MilestonesJudgeFlags): Promise<number>;
  milestonesLabel(run: string, o: MilestonesLabelFlags): Promise<number> | number;
  milestonesAgreement(runs: string[], o: MilestonesAgreementFlags): Promise<number> | number;
  errorsJudge(runs: string[], o: ErrorsJudgeFlags): Promise<number>;
  errorsLabel(run: string, o: ErrorsLabelFlags): Promise<number> | number;
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

export interface ErrorsJudgeFlags extends JudgeModelFlags {
  runsDir: string;
  maxSteps: number;
  maxFrames: number;
  maxSide: number;
  again?: boolean;
  json?: boolean;
}

export interface ErrorsLabelFlags {
  episode: number;
  class: string;
  json?: boolean;
}

export interface ProfileCheckFlags extends JudgeModelFlags {
  window?: string;
  windowId?: string;
  frame?: string;
  json?: boolean;
}

export interface ProfileNewFlags {
  window: string;
  out?: string;
  id?: string;
}

/** Wraps a command's action: its exit code goes to Done, a UsageError becomes commander's usage error (program.ts). */
export type Act = <A extends unknown[]>(fn: (...args: A) => Promise<number> | number) => (...args: A) => Promise<void>;

/** Called with each command's exit code once its action is done. */
export type Done = (code: number) => void;
