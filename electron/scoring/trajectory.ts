/**
 * Frames for a model to look at — a reflector's, the milestone extractor's, the judge's: a run's
 * or session's frames (or a tutorial video's, or a folder of images) sampled at a set rate,
 * thinned evenly to a budget, and shrunk to a maximum side. How many frames a reflection call
 * may take is reflection/sampling.ts.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadSharp } from '../util/sharp.ts';
import { ffmpegMissingHint } from '../util/ffmpeg.ts';
import { parseRunMeta, StepRowSchema } from '../store/run-store.ts';
import { readJsonLines } from '../store/json-rows.ts';
import { FrameRowSchema } from '../store/session-files.ts';
import { resolveRunFile } from '../store/run-files.ts';

export interface SampleOptions {
  /** Frames per second of gameplay to keep (default 1). */
  fps: number;
  /** At most this many frames reach the model. */
  maxFrames: number;
  /** Longest side of each frame (px). */
  maxSide: number;
}

export interface SampledFrame {
  /** Seconds from the start of the trajectory. */
  at: number;
  /** The file it was read from, for the record: a video's decoded frames are removed once read, so use `dataUrl`. */
  source: string;
  dataUrl: string;
}

/** A sampled frame's image bytes (its data URL decoded): what the model is shown of it. */
export function frameBytes(f: SampledFrame): Buffer {
  return Buffer.from(f.dataUrl.slice(f.dataUrl.indexOf(',') + 1), 'base64');
}

export interface Trajectory {
  kind: 'run' | 'session' | 'video' | 'frames';
  source: string;
  frames: SampledFrame[];
  /** Frames available before sampling. */
  available: number;
  /** Text notes for the reflector (score, steps), when known. */
  notes: string;
  /** Damaged rows of the folder's files that were skipped, each with file and line. */
  warnings: string[];
}

interface TimedFile {
  file: string;
  t: number;
}

/** Keeps frames at least 1/fps apart, then thins evenly to the budget (first and last kept). */
export function sampleTimes<T extends { t: number }>(items: T[], fps: number, maxFrames: number): T[] {
  const gap = 1000 / fps;
  const spaced: T[] = [];
  for (const it of items) if (!spaced.length || it.t - spaced.at(-1)!.t >= gap - 1) spaced.push(it);
  return thinEvenly(spaced, maxFrames);
}

/** At most `max` of `items`, evenly spread, first and last kept (one: the last). */
export function thinEvenly<T>(items: T[], max: number): T[] {
  if (items.length <= max) return items;
  if (max === 1) return [items.at(-1)!];
  return Array.from({ length: max }, (_, i) => items[Math.round((i * (items.length - 1)) / (max - 1))]!);
}

/** A frame file as a JPEG data URL, its long side at most `maxSide`. */
export async function toDataUrl(file: string, maxSide: number): Promise<string> {
  const sharp = await loadSharp();
  const buf = await sharp(file)
    .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 75 })
    .toBuffer();
  return `data:image/jpeg;base64,${buf.toString('base64')}`;
}

async function build(
  kind: Trajectory['kind'],
  source: string,
  files: TimedFile[],
  opts: SampleOptions,
  notes = '',
  warnings: string[] = [],
): Promise<Trajectory> {
  if (files.length === 0)
    throw new Error(`${source}: no frames to look at${warnings.length ? ` (skipped: ${warnings.join('; ')})` : ''}`);
  const picked = sampleTimes(files, opts.fps, opts.maxFrames);
  const t0 = files[0]!.t;
  const frames = await Promise.all(
    picked.map(async (f) => ({
      at: Math.round((f.t - t0) / 100) / 10,
      source: f.file,
      dataUrl: await toDataUrl(f.file, opts.maxSide),
    })),
  );
  return { kind, source, frames, available: files.length, notes, warnings };
}

/** One episode of a run (or a whole session) as a trajectory. */
export async function runTrajectory(dir: string, opts: SampleOptions, episode?: number): Promise<Trajectory> {
  if (!existsSync(path.join(dir, 'run.json'))) throw new Error(`${dir} is not a run or session folder (no run.json)`);
  const metaFile = resolveRunFile(dir, 'run.json');
  const meta = parseRunMeta(readFileSync(metaFile, 'utf8'), metaFile);
  // Frame names come from the folder's own files: each must be a plain file inside it.
  if (meta.kind === 'human' && existsSync(path.join(dir, 'frames.jsonl'))) {
    const { rows, problems } = readJsonLines(resolveRunFile(dir, 'frames.jsonl'), FrameRowSchema);
    const files = rows.map((r) => ({ file: resolveRunFile(dir, r.file), t: r.t }));
    return build(
      'session',
      dir,
      files,
      opts,
      `A ${meta.agent} session of ${meta.game ?? meta.target.label}; score ${meta.mean ?? 'unknown'}.`,
      problems,
    );
  }
  const { rows, problems } = existsSync(path.join(dir, 'steps.jsonl'))
    ? readJsonLines(resolveRunFile(dir, 'steps.jsonl'), StepRowSchema)
    : { rows: [], problems: [] };
  const steps = rows.filter(
    (s): s is typeof s & { frame: string } => !!s.frame && (episode === undefined || s.episode === episode),
  );
  const files = steps.map((s) => ({ file: resolveRunFile(dir, s.frame), t: s.t_capture }));
  const last = steps.at(-1);
  const actions = steps.map(
    (s) =>
      `step ${s.step + 1}: ${s.actions.map(describeStoredAction).join(', ') || '(nothing)'}${s.errors.length ? ` [${s.errors.join('; ')}]` : ''}`,
  );
  return build(
    'run',
    dir,
    files,
    opts,
    `${steps.length} steps; final score ${last?.score ?? 'unknown'}.\nActions taken:\n${actions.slice(-40).join('\n')}`,
    problems,
  );
}

/** An action as stored in steps.jsonl (a semantic move or a GUI action in wire form), in a few words. */
function describeStoredAction(a: unknown): string {
  if (!a || typeof a !== 'object') return String(a);
  const o = a as { action?: unknown; action_type?: unknown; parameters?: unknown };
  if (typeof o.action === 'string') return o.action;
  return `${String(o.action_type ?? '?')}${o.parameters ? JSON.stringify(o.parameters) : ''}`;
}

/** A folder of images: frames in name order, one second apart unless the names say otherwise. */
async function folderTrajectory(dir: string, opts: SampleOptions): Promise<Trajectory> {
  const images = readdirSync(dir)
    .filter((f) => /\.(png|jpe?g|webp)$/i.test(f))
    .sort();
  return build(
    'frames',
    dir,
    images.map((f, i) => ({ file: path.join(dir, f), t: i * 1000 })),
    opts,
  );
}

/** A video decoded with ffmpeg at the sampling rate into a temporary folder, removed once read. */
async function videoTrajectory(file: string, opts: SampleOptions, signal?: AbortSignal): Promise<Trajectory> {
  const out = mkdtempSync(path.join(tmpdir(), 'gamepilot-tutorial-'));
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(
        'ffmpeg',
        [
          '-v',
          'error',
          '-i',
          file,
          '-vf',
          `fps=${opts.fps},scale='min(${opts.maxSide},iw)':-2`,
          '-q:v',
          '4',
          path.join(out, 'f%05d.jpg'),
        ],
        { timeout: 300_000, ...(signal ? { signal } : {}) },
        (err, _o, stderr) => {
          if (!err) return resolve();
          if (signal?.aborted) return reject(new Error(`decoding the tutorial video ${file} was stopped`));
          if ((err as NodeJS.ErrnoException).code === 'ENOENT')
            return reject(new Error(`ffmpeg is not installed: ${ffmpegMissingHint()}`));
          reject(
            new Error(
              `cannot decode the tutorial video ${file}: ${String(stderr).trim().split('\n').at(-1) || err.message}`,
            ),
          );
        },
      );
    });
    const images = readdirSync(out)
      .filter((f) => f.endsWith('.jpg'))
      .sort();
    if (!images.length) throw new Error(`the tutorial video ${file} has no frames`);
    return await build(
      'video',
      file,
      images.map((f, i) => ({ file: path.join(out, f), t: (i * 1000) / opts.fps })),
      { ...opts, fps: opts.fps },
    );
  } finally {
    // The frames are read into the trajectory (data URLs); the decoded files are not needed after.
    rmSync(out, { recursive: true, force: true });
  }
}

/** A tutorial from any of: a video file, a folder of frames, or a run/session folder; a stop (`signal`) ends a video's decoding. */
export async function loadTutorial(given: string, opts: SampleOptions, signal?: AbortSignal): Promise<Trajectory> {
  const source = path.resolve(given); // absolute: a name like "-version" never reaches ffmpeg as an option
  if (!existsSync(source)) throw new Error(`tutorial not found: ${given}`);
  if (statSync(source).isDirectory()) {
    return existsSync(path.join(source, 'run.json')) ? runTrajectory(source, opts) : folderTrajectory(source, opts);
  }
  if (!/\.(mp4|webm|mkv|mov|avi)$/i.test(source))
    throw new Error(
      `tutorial ${source}: expected a video (mp4, webm, mkv), a folder of frames, or a run/session folder`,
    );
  return videoTrajectory(source, opts, signal);
}
