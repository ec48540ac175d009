/**
 * Native video input for video-capable reflectors (GameVerse gives such models the video, not
 * frames): the trajectory's frames at the sampling rate (not the fewer frames an image budget
 * allows) encoded as one H.264 MP4 and sent as a `video_url` content part, the shape vLLM
 * serves for Qwen-VL. Encoding the sampled frames (not the source file) keeps the rate and size
 * known; a video above the provider's size limit is thinned evenly until it fits, and says so.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ffmpegMissingHint } from '../util/ffmpeg.ts';
import { frameBytes, thinEvenly, type SampledFrame, type Trajectory } from '../scoring/trajectory.ts';

/**
 * The largest video sent (providers cap request bodies: Gemini's inline data is 20 MB a
 * request); a longer trajectory is thinned to fit.
 */
export const MAX_VIDEO_BYTES = 20 * 1024 * 1024;

const size = (bytes: number) => (bytes >= 100_000 ? `${(bytes / 1e6).toFixed(1)} MB` : `${bytes} bytes`);

/** Encodings tried before a trajectory too large even when thinned is given up. */
const FIT_TRIES = 5;

export interface VideoPart {
  dataUrl: string;
  bytes: number;
  /** The frames in the video and their times (s). */
  frames: number;
  times: number[];
  fps: number;
  /** Seconds of play the video spans. */
  seconds: number;
  /** How many frames the trajectory had when some were dropped to fit the size limit. */
  thinned_from?: number;
}

/**
 * The frame rate that keeps the video as long as the play it shows: thinned frames are further
 * apart than 1/fps, so the rate follows their span (at least one frame a minute).
 */
export function videoRate(times: number[]): number {
  if (times.length < 2) return 1;
  const span = times.at(-1)! - times[0]!;
  if (span <= 0) return 1;
  return Math.min(30, Math.max(1 / 60, (times.length - 1) / span));
}

/**
 * Encodes the trajectory's frames as an MP4 data URL, thinned evenly only as far as `maxBytes`
 * needs; throws with the reason (ffmpeg missing, too large even thinned).
 */
export async function trajectoryVideo(
  t: Trajectory,
  opts: { maxBytes?: number; signal?: AbortSignal } = {},
): Promise<VideoPart> {
  const maxBytes = opts.maxBytes ?? MAX_VIDEO_BYTES;
  let frames = t.frames;
  for (let tries = 1; ; tries++) {
    const mp4 = await encode(frames, opts.signal);
    if (mp4.length <= maxBytes) {
      const times = frames.map((f) => f.at);
      return {
        dataUrl: `data:video/mp4;base64,${mp4.toString('base64')}`,
        bytes: mp4.length,
        frames: frames.length,
        times,
        fps: videoRate(times),
        seconds: Math.round(((times.at(-1) ?? 0) - (times[0] ?? 0)) * 10) / 10,
        ...(frames.length < t.frames.length ? { thinned_from: t.frames.length } : {}),
      };
    }
    // Bytes grow about with the frame count: aim a tenth below the limit.
    const fit = Math.floor((frames.length * maxBytes * 0.9) / mp4.length);
    if (tries >= FIT_TRIES || fit < 2)
      throw new Error(
        `the reflection video is ${size(mp4.length)} with ${frames.length} frames, above the ${size(maxBytes)} sent`,
      );
    frames = thinEvenly(t.frames, Math.min(fit, frames.length - 1));
  }
}

async function encode(frames: SampledFrame[], signal?: AbortSignal): Promise<Buffer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gamepilot-reflect-video-'));
  try {
    frames.forEach((f, i) => {
      writeFileSync(path.join(dir, `f${String(i).padStart(5, '0')}.jpg`), frameBytes(f));
    });
    const fps = videoRate(frames.map((f) => f.at));
    const out = path.join(dir, 'trajectory.mp4');
    await new Promise<void>((resolve, reject) => {
      execFile(
        'ffmpeg',
        [
          '-v',
          'error',
          '-framerate',
          fps.toFixed(4),
          '-i',
          path.join(dir, 'f%05d.jpg'),
          // yuv420p needs even sides; frames keep their aspect.
          '-vf',
          'scale=trunc(iw/2)*2:trunc(ih/2)*2',
          '-c:v',
          'libx264',
          '-pix_fmt',
          'yuv420p',
          '-movflags',
          '+faststart',
          out,
        ],
        { timeout: 300_000, ...(signal ? { signal } : {}) },
        (err, _o, stderr) => {
          if (!err) return resolve();
          if ((err as NodeJS.ErrnoException).code === 'ENOENT')
            return reject(new Error(`ffmpeg is not installed: ${ffmpegMissingHint()}`));
          reject(
            new Error(`cannot encode the reflection video: ${String(stderr).trim().split('\n').at(-1) || err.message}`),
          );
        },
      );
    });
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A provider refusing the request's shape (a `video_url` part it does not serve), not a network or server fault. */
export function isInputRefusal(err: unknown): boolean {
  const status = (err as { status?: unknown }).status;
  return status === 400 || status === 415 || status === 422;
}
