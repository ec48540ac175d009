/**
 * A run on disk: `run.json` (replaced atomically, after every step so its totals are current),
 * `steps.jsonl` (one line per step, written with a single write() as each step finishes),
 * `frames/`. A crash loses at most the step in flight; readers skip a torn last line. A full
 * disk ends the run as failed with a message naming the folder, and leaves no partial file.
 */
import type { GameScoreFields, RunTiming, TakeoverSpan } from '../domain.ts';
import {
  appendFileSync,
  closeSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
  existsSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { currentOwner, ownerAlive, type Owner } from '../util/owner.ts';
import { resolveRunFile, RunFileError } from './run-files.ts';
import {
  REFLECTION_MODES,
  RUN_STATUSES,
  type ListedStatus,
  type ReflectionMode,
  type ReflectVideo,
  type RunStatus,
} from '../domain.ts';
import { parseJsonFile, readJsonLines } from './json-rows.ts';
import { derivedTitle, type RunTitle } from './run-title.ts';
import { readRunConfig } from '../run-spec.ts';
import { RunTimingSchema } from './run-timing.ts';

export const STEP_EFFECTS = ['changed', 'none', 'unknown'] as const;
export type StepEffect = (typeof STEP_EFFECTS)[number];

export interface StepRecord extends Partial<GameScoreFields> {
  step: number;
  episode: number;
  t_capture: number;
  frame: string | null;
  frame_size?: { width: number; height: number; scale: number };
  window?: { x: number; y: number; width: number; height: number };
  reasoning: string;
  raw: string | null;
  actions: unknown[];
  outcomes?: unknown[];
  errors: string[];
  latency_ms: {
    locate: number;
    capture: number;
    encode: number;
    model: number;
    act: number;
    wait?: number;
    total: number;
  };
  tokens?: { input: number; output: number };
  cost_usd?: number | null;
  score?: number | null;
  game_state?: unknown;
  /**
   * What the step's actions did to the target window: `changed` (it drew, or a built-in's state
   * changed), `none` (nothing within the settle limit), `unknown` (the harness could not follow
   * it, or nothing was sent). Absent in runs made before it.
   */
  effect?: StepEffect;
  /** Milliseconds from the first injected input to the window's first change; null when none was seen. */
  effect_ms?: number | null;
  [extra: string]: unknown;
}

export interface EpisodeSummary {
  episode: number;
  seed: number;
  score: number | null;
  steps: number;
  end: string;
  /** A window scored off its screen: the number read (before normalising) and every reading. */
  raw_score?: number | null;
  screen_readings?: unknown[];
  /** A two-seat game: each seat's score (PvP 100 win, 50 draw, 0 loss; co-op the team's), and the winning seat (null: a draw). */
  seat_scores?: number[];
  winner?: number | null;
  /**
   * Why the episode does not count (most of its steps had no model answer): it is listed, never
   * pooled into a mean, a table or an export. Its `score` stays what the game said.
   */
  invalid?: string;
  /** A profile's end detector ended it (end: game_over): which one, and what it saw. */
  end_detector?: string;
  /** The frame that detector fired on, in the run folder (frames/e000-end.png). */
  end_frame?: string;
  /** End detectors that could not look during the episode (each once): they ended nothing. */
  detector_errors?: string[];
}

/**
 * How far a run's record can be trusted (run.json `quality`): of the agent's steps, how many
 * changed nothing in the target window and how many brought invalid actions (unparseable or
 * refused), and how many model calls failed. Rates are fractions (0–1), null with no steps.
 */
export interface RunQuality {
  steps: number;
  no_effect_steps: number;
  no_effect_rate: number | null;
  invalid_actions: number;
  invalid_rate: number | null;
  model_calls: number;
  model_call_failures: number;
}

export interface RunMeta {
  id: string;
  created: string;
  updated: string;
  status: RunStatus;
  kind: 'agent' | 'human';
  game: string | null;
  target: { kind: 'builtin' | 'window'; label: string; pattern?: string; window_id?: string };
  agent: string;
  model: string | null;
  action_space: string;
  config: Record<string, unknown>;
  episodes: EpisodeSummary[];
  mean: number | null;
  std: number | null;
  totals: { steps: number; tokens_in: number; tokens_out: number; cost_usd: number | null };
  error?: string;
  /** The process writing this run (pid + start time): a dead owner means the run crashed. */
  owner?: Owner;
  /** The web shell's first-launch demonstration: never scored. */
  demo?: boolean;
  /** How a model run reflected, and which episodes it played with lessons (VR = Yes). */
  reflection?: RunReflection;
  /** A human session's protocol stage: rookie play-1 / tutorial / play-2, expert play. */
  stage?: string;
  /** The title's profile the run followed: id, hash, source file, taxonomy, prompt parts and scoring. */
  profile?: Record<string, unknown>;
  /** The title the run counts under in tables (store/run-title.ts); absent in run folders made before it. */
  title?: RunTitle;
  /** The memory agent's long-term store and how it retrieves (embedding, or lexical and why). */
  memory?: RunMemory;
  /** A milestone-scored run: the judge, its calls and cost, and each episode's checklist with evidence. */
  milestones?: Record<string, unknown>;
  /** A sweep's job this run is: its id (from the matrix cell), the sweep, the cell and the attempt. */
  job?: RunJob;
  /** The sweep worker that ran it: host, pid and its private display. */
  worker?: RunWorker;
  /** What the store wrote into the run folder (frames, steps.jsonl, run.json, reflections.jsonl), in bytes. */
  bytes_written?: number;
  /**
   * What the run's model calls of every role cost (USD), as its cost meter counted them against
   * `config.budget_usd` (an attempt whose input the server did not count: at its worst case).
   */
  spent_usd?: number;
  /** Every role's model calls summed (model-calls.jsonl holds each attempt); absent in older runs. */
  model_usage?: Record<string, RoleUsage>;
  /** A two-seat game: who sat where (`agent` then reads `A vs B`). */
  seats?: RunSeat[];
  /** The arena match this run is (arena/arena.ts): its id, player 1 and player 2. */
  arena?: { match: string; p1: string; p2: string };
  /** A person took over at some point: the run is assisted, listed apart in every table. */
  assisted?: boolean;
  /** Each takeover: who began it, the steps the person played, when it ended. */
  takeovers?: TakeoverSpan[];
  human_steps?: number;
  human_ms?: number;
  /** What the steps did and how the model answered (absent in runs made before it). */
  quality?: RunQuality;
  /** Input-to-screen, model and harness times of the agent's steps, per latency mode (absent in runs made before it). */
  timing?: RunTiming;
}

/** One seat of a two-seat run: its name in the game, and its agent. */
export interface RunSeat {
  seat: number;
  name: string;
  agent: string;
  model: string | null;
}

/** One role's calls in run.json's `model_usage`. */
export interface RoleUsage {
  calls: number;
  failed: number;
  tokens_in: number;
  tokens_out: number;
  /** Some token counts were estimated from the text (the server reported none). */
  estimated?: true;
  cost_usd: number | null;
}

/** One attempt of a model call as model-calls.jsonl keeps it (agents/model-endpoint.ts writes it). */
export interface ModelCallLine {
  role: string;
  ok: boolean;
  tokens?: { input: number; output: number; estimated?: true };
  cost_usd?: number;
}

/** run.json's `job` field (a run started by a sweep). */
export interface RunJob {
  id: string;
  sweep: string;
  cell: Record<string, unknown>;
  attempt: number;
  /** The provider's real base URL when the run reached it through the sweep's rate-limiting gate. */
  upstream?: string;
}

/** run.json's `worker` field. */
export interface RunWorker {
  host: string;
  pid: number;
  display: string | null;
}

/** run.json's `memory` field (memory agent runs). */
export interface RunMemory {
  scope: string;
  file: string;
  retrieval: 'embedding' | 'lexical';
  /** Why retrieval is lexical, when it is. */
  retrieval_note?: string;
  embedding_model: string | null;
  top_k: number;
  threshold: number;
  dedupe: number;
  short_term: number;
  summary_words: number;
}

/**
 * Where lessons in the prompt came from: a reflection mode, a person who wrote or edited them
 * in the app, or lessons given when the run started.
 */
export type LessonSource = 'self-f' | 'self-t' | 'self' | 'other' | 'edited' | 'given';

/** run.json's `reflection` field. */
export interface RunReflection {
  mode: ReflectionMode;
  reflector_model: string | null;
  after?: 'failed' | 'every';
  success_score?: number;
  tutorial?: string | null;
  /** The tutorial's sha256 (store/tutorial-identity.ts): rows "after the tutorial" are checked to rest on one. */
  tutorial_sha256?: string | null;
  /** How the reflector's frames were chosen: rate, size, the token budget (and its source) and the frames it allows. */
  frames?: Record<string, number | string | null>;
  /** --reflect-video: whether the frames went as one video (each call's input is in reflections.jsonl). */
  video?: ReflectVideo;
  /** Who chose `video`: the flag, or the default for the reflector model (auto for models known to take video). */
  video_source?: 'flag' | 'known-model' | 'default';
  /** Episodes played with lessons in the prompt, and where those lessons came from. */
  lessons: { episode: number; source: LessonSource }[];
}

const num = z.number().finite();
/** A score on the papers' 0–100 scale: a run.json saying 1e308 or −5 is refused, not averaged. */
const score = num.min(0, 'a score is 0–100').max(100, 'a score is 0–100');
/** run.json as read back: what listings, the leaderboard and replay rely on. Extra fields are kept. */
export const RunMetaSchema = z.looseObject({
  id: z.string().min(1),
  created: z.string().min(1),
  updated: z.string().optional(),
  status: z.enum(RUN_STATUSES),
  kind: z.enum(['agent', 'human']),
  game: z.string().nullable(),
  target: z.looseObject({ kind: z.enum(['builtin', 'window']), label: z.string(), pattern: z.string().optional() }),
  agent: z.string(),
  model: z.string().nullable(),
  action_space: z.string(),
  config: z.record(z.string(), z.unknown()),
  episodes: z.array(
    z.looseObject({
      episode: num,
      seed: num,
      score: score.nullable(),
      steps: num,
      end: z.string(),
      invalid: z.string().optional(),
    }),
  ),
  mean: score.nullable(),
  std: score.nullable(),
  totals: z.looseObject({ steps: num, tokens_in: num, tokens_out: num, cost_usd: num.nullable() }),
  error: z.string().optional(),
  /** The tables pool these as sums: a count that is not one is refused, not added. */
  quality: z
    .looseObject({
      steps: num.int().nonnegative(),
      no_effect_steps: num.int().nonnegative(),
      invalid_actions: num.int().nonnegative(),
    })
    .optional(),
  timing: RunTimingSchema.optional(),
  owner: z.looseObject({ pid: num, started: num, host: z.string() }).optional(),
  demo: z.boolean().optional(),
  reflection: z
    .looseObject({
      mode: z.enum(REFLECTION_MODES),
      reflector_model: z.string().nullable(),
      lessons: z.array(
        z.looseObject({ episode: num, source: z.enum(['self-f', 'self-t', 'self', 'other', 'edited', 'given']) }),
      ),
    })
    .optional(),
  stage: z.string().optional(),
  job: z
    .looseObject({ id: z.string().min(1), sweep: z.string(), cell: z.record(z.string(), z.unknown()), attempt: num })
    .optional(),
  worker: z.looseObject({ host: z.string(), pid: num, display: z.string().nullable() }).optional(),
});

/** Parses a run.json's text; a clear error names the file and the first problem. */
/** A run.json as read back, its `config` under today's names whatever version wrote it. */
/** A run folder's run.json, read inside the folder only (never through a planted link), and checked. */
export function readRunMeta(dir: string): RunMeta {
  return parseRunMeta(readFileSync(resolveRunFile(dir, 'run.json'), 'utf8'), path.join(dir, 'run.json'));
}

export function parseRunMeta(text: string, file: string): RunMeta {
  const meta = parseJsonFile(text, file, RunMetaSchema, 'run') as RunMeta;
  return { ...meta, config: readRunConfig(meta.config) };
}

const rect = z.looseObject({ x: num, y: num, width: num, height: num });
/**
 * One line of steps.jsonl as read back: what replay, videos, tutorials and reflection rely on.
 * Extra fields (outcomes, model_calls, game_state, …) are kept as they are.
 */
export const StepRowSchema = z.looseObject({
  step: z.number().int().nonnegative(),
  episode: z.number().int().nonnegative(),
  t_capture: num,
  frame: z.string().nullable(),
  frame_size: z.looseObject({ width: num, height: num, scale: num }).optional(),
  window: rect.optional(),
  reasoning: z.string(),
  raw: z.string().nullable(),
  actions: z.array(z.unknown()),
  outcomes: z.array(z.unknown()).optional(),
  errors: z.array(z.string()),
  latency_ms: z.looseObject({
    locate: num,
    capture: num,
    encode: num,
    model: num,
    act: num,
    wait: num.optional(),
    total: num,
  }),
  tokens: z.looseObject({ input: num, output: num }).optional(),
  cost_usd: num.nullable().optional(),
  score: num.nullable().optional(),
});

/** The status a listing shows: `crashed` when the run says running but its owner is dead. */
export function listedStatus(meta: Pick<RunMeta, 'status' | 'owner'>): ListedStatus {
  return meta.status === 'running' && !ownerAlive(meta.owner) ? 'crashed' : meta.status;
}

/** A write into the run folder failed; for a full disk the message names the folder. */
function storeError(dir: string, what: string, err: unknown): Error {
  const e = err as NodeJS.ErrnoException;
  const wrapped = new Error(
    e.code === 'ENOSPC' || e.code === 'EDQUOT'
      ? `the disk holding ${dir} is full: cannot write ${what}; free some space and start the run again`
      : `cannot write ${what} in ${dir}: ${e.message}`,
  ) as NodeJS.ErrnoException;
  if (e.code !== undefined) wrapped.code = e.code;
  return wrapped;
}

function slug(s: string) {
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 32) || 'run'
  );
}

/**
 * Creates a run folder nobody else holds: runs started in the same second by the same agent share
 * the prefix, so the folder is made exclusively and a taken suffix is drawn again. Two runs merged
 * into one folder would silently interleave their steps.
 */
function claimRunDir(root: string, prefix: string): { id: string; dir: string } {
  try {
    mkdirSync(root, { recursive: true });
  } catch (err) {
    throw storeError(root, 'the runs folder', err);
  }
  for (let attempt = 0; ; attempt++) {
    const id = `${prefix}-${randomBytes(3).toString('hex')}`;
    const dir = path.resolve(root, id);
    try {
      mkdirSync(dir);
      return { id, dir };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 20)
        throw storeError(dir, 'the run folder', err);
    }
  }
}

export class RunStore {
  readonly framesDir: string;
  private stepsFd: number;
  private stepsSize: number;
  private closed = false;
  /** Bytes of the frames and other files written (run.json's and steps.jsonl's are known apart). */
  private framesBytes = 0;
  private otherBytes = 0;
  private metaBytes = 0;
  /** Whether run.json records `bytes_written`. */
  private trackBytes = false;
  meta: RunMeta;

  private constructor(
    readonly dir: string,
    meta: RunMeta,
  ) {
    this.framesDir = path.join(dir, 'frames');
    try {
      mkdirSync(this.framesDir, { recursive: true });
      this.stepsFd = openSync(path.join(dir, 'steps.jsonl'), 'a');
    } catch (err) {
      throw storeError(dir, 'the run folder', err);
    }
    this.stepsSize = fstatSync(this.stepsFd).size;
    this.meta = meta;
    this.writeMeta();
  }

  static create(
    root: string,
    init: Omit<
      RunMeta,
      'id' | 'created' | 'updated' | 'status' | 'episodes' | 'mean' | 'std' | 'totals' | 'owner' | 'title'
    >,
  ): RunStore {
    const created = new Date();
    const stamp = created.toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
    const { id, dir } = claimRunDir(root, `${stamp}-${slug(init.game ?? init.target.label)}-${slug(init.agent)}`);
    return new RunStore(dir, {
      ...init,
      title: derivedTitle(init),
      id,
      created: created.toISOString(),
      updated: created.toISOString(),
      status: 'running',
      owner: currentOwner(),
      episodes: [],
      mean: null,
      std: null,
      totals: { steps: 0, tokens_in: 0, tokens_out: 0, cost_usd: null },
    });
  }

  /**
   * From now on run.json records `bytes_written`: for a run whose folder is written only through
   * the store (a human session's recorder writes its own files beside it).
   */
  recordBytesWritten() {
    this.trackBytes = true;
    this.writeMeta();
  }

  /** What the store has written into the run folder so far (bytes): frames, steps.jsonl, run.json as it is now, other files. */
  get bytesWritten(): number {
    return this.framesBytes + this.stepsSize + this.metaBytes + this.otherBytes;
  }

  /** Writes a frame file and returns its path relative to the run folder; a failed write leaves nothing behind. */
  writeFrame(episode: number, step: number, data: Buffer, ext: 'jpg' | 'png'): string {
    return this.writeFrameFile(
      `frames/e${String(episode).padStart(3, '0')}-s${String(step).padStart(5, '0')}.${ext}`,
      data,
    );
  }

  /**
   * A frame kept as evidence of what happened between steps (`end`: the frame that ended the
   * episode; `reset-failed`: the window when the next game did not start): frames/e000-end.png.
   */
  writeEvidenceFrame(episode: number, what: 'end' | 'reset-failed', data: Buffer, ext: 'jpg' | 'png'): string {
    return this.writeFrameFile(`frames/e${String(episode).padStart(3, '0')}-${what}.${ext}`, data);
  }

  /** Removes a frame written for a step that was never recorded (its player did not answer it). */
  discardFrame(rel: string) {
    const file = path.join(this.dir, rel);
    try {
      this.framesBytes -= lstatSync(file).size;
      rmSync(file, { force: true });
    } catch {
      // already gone: nothing to take back
    }
  }

  private writeFrameFile(rel: string, data: Buffer): string {
    const file = path.join(this.dir, rel);
    try {
      writeFileSync(file, data, { flag: 'wx' }); // never through a planted symlink, never over another frame
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') rmSync(file, { force: true });
      throw storeError(this.dir, rel, err);
    }
    this.framesBytes += data.length;
    return rel;
  }

  /**
   * One attempt of a model call of any role (player, reflector, judge, screen reader…): a line of
   * model-calls.jsonl, and its role's sums in run.json's `model_usage`.
   */
  recordModelCall(rec: ModelCallLine, step?: { episode: number; step: number }) {
    this.appendFile('model-calls.jsonl', `${JSON.stringify({ ...step, ...rec })}\n`);
    this.meta.model_usage ??= {};
    const usage = this.meta.model_usage;
    usage[rec.role] ??= { calls: 0, failed: 0, tokens_in: 0, tokens_out: 0, cost_usd: null };
    const u = usage[rec.role]!;
    u.calls++;
    if (!rec.ok) u.failed++;
    u.tokens_in += rec.tokens?.input ?? 0;
    u.tokens_out += rec.tokens?.output ?? 0;
    if (rec.tokens?.estimated) u.estimated = true;
    if (rec.cost_usd !== undefined) u.cost_usd = (u.cost_usd ?? 0) + rec.cost_usd;
  }

  /** Appends text to another file of the run folder, counted in `bytes_written`. */
  appendFile(name: 'reflections.jsonl' | 'model-calls.jsonl' | 'corrections.jsonl', text: string) {
    const data = Buffer.from(text);
    try {
      appendFileSync(path.join(this.dir, name), data);
    } catch (err) {
      throw storeError(this.dir, name, err);
    }
    this.otherBytes += data.length;
  }

  /**
   * Appends one step line and brings run.json's totals (and `patch`, in the same write) up to
   * date; a failed write is undone.
   */
  appendStep(rec: StepRecord, patch: Partial<RunMeta> = {}) {
    const line = Buffer.from(`${JSON.stringify(rec)}\n`);
    try {
      for (let off = 0; off < line.length; ) off += writeSync(this.stepsFd, line, off, line.length - off);
    } catch (err) {
      try {
        ftruncateSync(this.stepsFd, this.stepsSize); // no torn line left by a full disk
      } catch {
        /* the reader skips a torn last line anyway */
      }
      throw storeError(this.dir, 'steps.jsonl', err);
    }
    this.stepsSize += line.length;
    const t = this.meta.totals;
    t.steps++;
    t.tokens_in += rec.tokens?.input ?? 0;
    t.tokens_out += rec.tokens?.output ?? 0;
    if (typeof rec.cost_usd === 'number') t.cost_usd = (t.cost_usd ?? 0) + rec.cost_usd;
    Object.assign(this.meta, patch);
    // Rewritten every step without fsync: a crash may lose this update, never the file.
    this.writeMeta({ fsync: false });
  }

  update(patch: Partial<RunMeta>) {
    Object.assign(this.meta, patch);
    // The title follows what it is derived from: a profile attached after the start re-keys the run.
    if ('profile' in patch || 'game' in patch || 'target' in patch) this.meta.title = derivedTitle(this.meta);
    this.writeMeta();
  }

  /**
   * Ends the run with its final status. Never throws: on a full disk, where no new file can be
   * made, run.json is overwritten in place so the run still reads as failed with its reason.
   */
  close(status: RunStatus, error?: string, patch: Partial<RunMeta> = {}) {
    if (this.closed) return;
    this.closed = true;
    Object.assign(this.meta, patch);
    this.meta.status = status;
    if (error) this.meta.error = error;
    try {
      this.writeMeta();
    } catch (err) {
      this.meta.status = 'failed';
      if (!this.meta.error) this.meta.error = (err as Error).message;
      this.overwriteMetaInPlace();
    }
    try {
      fsyncSync(this.stepsFd);
      closeSync(this.stepsFd);
    } catch {
      /* already closed, or nothing more can be flushed to a full disk */
    }
  }

  private writeMeta(opts: { fsync?: boolean } = {}) {
    this.meta.updated = new Date().toISOString();
    const text = this.metaText();
    writeFileAtomic(path.join(this.dir, 'run.json'), text, opts);
    this.metaBytes = Buffer.byteLength(text);
  }

  /** run.json's text; with `bytes_written`, a count that includes run.json itself (its digits change its length). */
  private metaText(): string {
    if (!this.trackBytes) return JSON.stringify(this.meta, null, 2);
    const rest = this.framesBytes + this.stepsSize + this.otherBytes;
    let size = this.metaBytes;
    let text = '';
    for (let i = 0; i < 4; i++) {
      this.meta.bytes_written = rest + size;
      text = JSON.stringify(this.meta, null, 2);
      const n = Buffer.byteLength(text);
      if (n === size) break;
      size = n;
    }
    return text;
  }

  /** Last resort for a full disk: rewrite run.json's own blocks (compact JSON is no longer than before). */
  private overwriteMetaInPlace() {
    const file = path.join(this.dir, 'run.json');
    let fd: number | undefined;
    try {
      fd = openSync(file, 'r+');
      let buf = Buffer.from(JSON.stringify(this.meta));
      // Growing the file would need a new block the disk does not have: shorten the reason instead.
      const room = fstatSync(fd).size;
      if (buf.length > room && this.meta.error)
        buf = Buffer.from(
          JSON.stringify({
            ...this.meta,
            error: this.meta.error.slice(0, Math.max(0, this.meta.error.length - (buf.length - room))),
          }),
        );
      writeSync(fd, buf, 0, buf.length, 0);
      ftruncateSync(fd, buf.length);
      fsyncSync(fd);
    } catch {
      /* nothing more can be done; the listing will show the run as crashed once we exit */
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
}

/**
 * Reads a run folder: run.json (a damaged one throws, naming the file) and every valid line of
 * steps.jsonl; bad lines (a torn last line after a crash, a row of the wrong shape) are skipped
 * and listed in `problems` with file and line.
 */
export function readRun(dir: string): { meta: RunMeta; steps: StepRecord[]; problems: string[]; skippedLines: number } {
  const metaFile = resolveRunFile(dir, 'run.json');
  const meta = parseRunMeta(readFileSync(metaFile, 'utf8'), metaFile);
  let stepsFile: string | undefined;
  try {
    stepsFile = resolveRunFile(dir, 'steps.jsonl');
  } catch (err) {
    if (!(err instanceof RunFileError) || existsSync(path.join(dir, 'steps.jsonl'))) throw err;
  }
  const { rows, problems } = stepsFile ? readJsonLines(stepsFile, StepRowSchema) : { rows: [], problems: [] };
  return { meta, steps: rows as StepRecord[], problems, skippedLines: problems.length };
}
