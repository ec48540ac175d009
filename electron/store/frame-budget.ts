/**
 * A run's disk budget: which step frames it keeps (`keep frames`), and when it must stop before
 * its disk fills — past its own size limit (`max run size`), or when the disk holding it falls
 * below a free-space floor (`min free space`). Both end the run as `stopped`, its reason
 * starting "disk budget".
 */
import { statfsSync } from 'node:fs';
import {
  CodedError,
  KEEP_FRAMES_ALLOWED,
  KEEP_FRAMES_PATTERN,
  type KeepFrames,
  type ReflectionMode,
} from '../domain.ts';
import type { RawFrame } from '../capture/capturer.ts';

const MB = 1024 * 1024;

/** A keep-frames setting from its text; throws an Error saying what is allowed. */
export function parseKeepFrames(text: string): KeepFrames {
  if (!KEEP_FRAMES_PATTERN.test(text)) throw new Error(`Allowed: ${KEEP_FRAMES_ALLOWED}.`);
  return text as KeepFrames;
}

/** every:N's N (undefined for the other settings). */
function everyN(keep: KeepFrames): number | undefined {
  return keep.startsWith('every:') ? Number(keep.slice('every:'.length)) : undefined;
}

/**
 * Why a run keeping these frames leaves nothing to look at for whoever reads its frames
 * afterwards (reflection on its own failure, the milestone judge): none keeps no frame, and
 * every:N with N at least the episode's steps keeps only each episode's first. Undefined when
 * frames are left to read (fewer, with every:N and changed, but some of each episode's play).
 */
export function framesStarved(keep: KeepFrames, maxSteps: number | undefined): string | undefined {
  if (keep === 'none') return 'writes no frame';
  const n = everyN(keep);
  if (n !== undefined && maxSteps !== undefined && n >= maxSteps)
    return `keeps only the first frame of each episode (of ${maxSteps} steps)`;
  return undefined;
}

/** Reflection modes that look at the run's own frames (its failure): all but self-t (a tutorial only). */
export function reflectionReadsFrames(mode: ReflectionMode): boolean {
  return mode !== 'none' && mode !== 'self-t';
}

/** A keep-frames setting that starves something the run needs: refused before the run starts. */
export class FramesStarvedError extends CodedError {
  constructor(
    readonly reader: string,
    readonly keep: KeepFrames,
    readonly why: string,
  ) {
    super(
      'bad-input',
      `${reader} reads the run's frames, but keep frames ${keep} ${why}: keep more frames (all, changed or every:N)`,
    );
  }
}

/** Refuses a setting that leaves `reader` (the milestone judge, reflection on the run's failure) no frames. */
export function checkFramesFor(reader: string, keep: KeepFrames, maxSteps: number | undefined) {
  const why = framesStarved(keep, maxSteps);
  if (why) throw new FramesStarvedError(reader, keep, why);
}

/**
 * `changed`: a frame counts as changed when more than this share of its pixels differ from the
 * last kept one — a move counter ticking (2048's "Moves: 12" → 13, about 0.1 % of its window) is
 * not a change, one 2048 tile (3 %) is. Changes too small to count add up against the last kept
 * frame, so a slow drift is kept once it is large enough.
 */
export const CHANGED_SHARE = 0.0025;
/**
 * How far a channel may move before a pixel counts as different (dithering, a shimmer): small, so
 * close colours still differ (2048's 2 and 4 tiles are 18 apart in blue).
 */
const PIXEL_TOLERANCE = 8;
/** Pixels compared at most per frame: a grid over the frame, so a 4K window costs what a small one does. */
const MAX_SAMPLES = 90_000;

/** A grid of a raw frame's pixels (RGB in its own order), for comparing frames cheaply. */
interface Samples {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Samples `raw`, into `into`'s bytes when they are the size needed. */
function sample(raw: RawFrame, into?: Samples): Samples {
  const stride = Math.max(1, Math.floor(Math.sqrt((raw.width * raw.height) / MAX_SAMPLES)));
  const cols = Math.ceil(raw.width / stride);
  const rows = Math.ceil(raw.height / stride);
  const data = into?.data.length === cols * rows * 3 ? into.data : new Uint8Array(cols * rows * 3);
  let o = 0;
  for (let y = 0; y < raw.height; y += stride) {
    const row = y * raw.width;
    for (let x = 0; x < raw.width; x += stride) {
      const i = (row + x) * raw.channels;
      data[o++] = raw.data[i]!;
      data[o++] = raw.data[i + 1]!;
      data[o++] = raw.data[i + 2]!;
    }
  }
  return { width: raw.width, height: raw.height, data };
}

/** The share of sampled pixels that differ between two samplings of the same size. */
function changedShare(a: Samples, b: Samples): number {
  if (a.width !== b.width || a.height !== b.height) return 1;
  let changed = 0;
  for (let i = 0; i < a.data.length; i += 3) {
    if (
      Math.abs(a.data[i]! - b.data[i]!) > PIXEL_TOLERANCE ||
      Math.abs(a.data[i + 1]! - b.data[i + 1]!) > PIXEL_TOLERANCE ||
      Math.abs(a.data[i + 2]! - b.data[i + 2]!) > PIXEL_TOLERANCE
    )
      changed++;
  }
  return changed / (a.data.length / 3);
}

/** Decides, step by step, whether a step's frame is written. */
export class FrameKeeper {
  private readonly n: number | undefined;
  private last: Samples | undefined;
  /**
   * The sampling of a frame not kept, whose bytes the next sampling reuses: a new one each step
   * (about 1 MB for 2048's window) kept V8 growing its young generation in long runs (+34 MB
   * in a 3-minute soak).
   */
  private spare: Samples | undefined;
  private lastEpisode = -1;

  constructor(readonly keep: KeepFrames) {
    this.n = everyN(keep);
  }

  /** Whether to keep this step's frame: `raw` is what was captured (compared for `changed`). */
  shouldKeep(episode: number, step: number, raw: RawFrame): boolean {
    switch (this.keep) {
      case 'all':
        return true;
      case 'none':
        return false;
      case 'changed': {
        const now = sample(raw, this.spare);
        const first = episode !== this.lastEpisode || !this.last;
        if (!first && changedShare(now, this.last!) <= CHANGED_SHARE) {
          this.spare = now;
          return false;
        }
        this.lastEpisode = episode;
        this.spare = this.last;
        this.last = now;
        return true;
      }
      default:
        return step % this.n! === 0;
    }
  }
}

/** The free bytes of the disk holding `dir` (for unprivileged writers). */
export function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

export interface DiskBudgetOptions {
  /** The most the run folder may hold (MB); undefined: no limit of its own. */
  maxRunMb?: number | undefined;
  /** The free space the run leaves on its disk (MB); 0: none. */
  minFreeMb: number;
  /** How often the free space is asked of the file system (ms); in between it is estimated from what the run wrote. */
  checkEveryMs?: number;
  /** For tests: the free bytes of the disk. */
  free?: (dir: string) => number;
}

const fmt = (bytes: number) => (bytes >= MB ? `${(bytes / MB).toFixed(1)} MB` : `${(bytes / 1024).toFixed(1)} KB`);

/**
 * Checked before each step: the run stops once that step could pass the run's own limit or
 * take the disk below its floor (what one step writes at most, so far, is the estimate).
 */
export class DiskBudget {
  private readonly maxBytes: number | undefined;
  private readonly floorBytes: number;
  private readonly everyMs: number;
  private readonly free: (dir: string) => number;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private freeAtCheck = Number.POSITIVE_INFINITY;
  private writtenAtCheck = 0;

  constructor(
    private readonly dir: string,
    opts: DiskBudgetOptions,
  ) {
    this.maxBytes = opts.maxRunMb !== undefined ? opts.maxRunMb * MB : undefined;
    this.floorBytes = opts.minFreeMb * MB;
    this.everyMs = opts.checkEveryMs ?? 2000;
    this.free = opts.free ?? freeBytes;
  }

  /** Why the run must stop before its next step (starting "disk budget"), or undefined. */
  check(written: number, stepBytes: number, nowMs = Date.now()): string | undefined {
    if (this.maxBytes !== undefined && written + stepBytes > this.maxBytes)
      return `disk budget: the run has written ${fmt(written)}, and another step would pass its max run size of ${fmt(this.maxBytes)}`;
    if (this.floorBytes <= 0) return undefined;
    if (nowMs - this.checkedAt >= this.everyMs) {
      try {
        this.freeAtCheck = this.free(this.dir);
        this.checkedAt = nowMs;
        this.writtenAtCheck = written;
      } catch {
        return undefined; // a file system that cannot say: the full-disk path still ends the run cleanly
      }
    }
    const free = this.freeAtCheck - (written - this.writtenAtCheck);
    if (free - stepBytes < this.floorBytes)
      return `disk budget: ${fmt(Math.max(0, free))} free on the disk holding ${this.dir}, and another step would go below the ${fmt(this.floorBytes)} to leave free (min free space)`;
    return undefined;
  }
}
