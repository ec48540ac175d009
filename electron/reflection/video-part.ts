/**
 * Native video input for video-capable reflectors (GameVerse gives such models the video, not
 * frames): the sampled frames of a trajectory encoded as one H.264 MP4 and sent as a
 * `video_url` content part, the shape vLLM serves for Qwen-VL. Encoding the sampled frames
 * (not the source file) keeps both inputs identical in content and bounded in size.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ffmpegMissingHint } from '../util/ffmpeg.ts';
import type { Trajectory } from '../scoring/trajectory.ts';

/** Larger videos are not sent (providers cap request bodies well below this). */
export const MAX_VIDEO_BYTES = 20 * 1024 * 1024;

export interface VideoPart {
  dataUrl: string;
  bytes: number;
  frames: number;
  fps: number;
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

/** Encodes the trajectory's frames as an MP4 data URL; throws with the reason (ffmpeg missing, too large). */
export async function trajectoryVideo(t: Trajectory, signal?: AbortSignal): Promise<VideoPart> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gamepilot-reflect-video-'));
  try {
    t.frames.forEach((f, i) => {
      const jpeg = Buffer.from(f.dataUrl.slice(f.dataUrl.indexOf(',') + 1), 'base64');
      writeFileSync(path.join(dir, `f${String(i).padStart(5, '0')}.jpg`), jpeg);
    });
    const fps = videoRate(t.frames.map((f) => f.at));
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
    const mp4 = readFileSync(out);
    if (mp4.length > MAX_VIDEO_BYTES)
      throw new Error(
        `the reflection video is ${(mp4.length / 1e6).toFixed(1)} MB, above the ${MAX_VIDEO_BYTES / 1e6} MB sent`,
      );
    return {
      dataUrl: `data:video/mp4;base64,${mp4.toString('base64')}`,
      bytes: mp4.length,
      frames: t.frames.length,
      fps,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A provider refusing the request's shape (a `video_url` part it does not serve), not a network or server fault. */
export function isInputRefusal(err: unknown): boolean {
  const status = (err as { status?: unknown }).status;
  return status === 400 || status === 415 || status === 422;
}
