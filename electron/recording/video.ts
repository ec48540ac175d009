/**
 * A session or run as a video file (H.264 MP4) from its frames, with ffmpeg — for people, and
 * as a tutorial for reflection. ffmpeg is an external program: a clear error when missing.
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { readJsonLines } from '../store/run-store.ts';
import path from 'node:path';

export function ffmpegMissingHint(): string {
  return process.platform === 'win32'
    ? 'install ffmpeg (winget install ffmpeg) and make sure ffmpeg.exe is on PATH'
    : process.platform === 'darwin'
      ? 'install ffmpeg (brew install ffmpeg)'
      : 'install ffmpeg (sudo apt-get install ffmpeg)';
}

/** Frames with their capture times: a recording's frames.jsonl, else a run's steps. */
function frameList(dir: string): { file: string; t: number }[] {
  const index = path.join(dir, 'frames.jsonl');
  const source = existsSync(index) ? index : path.join(dir, 'steps.jsonl');
  return readJsonLines<{ file?: string; frame?: string; t?: number; t_capture?: number }>(source).rows.flatMap((r) => {
    const file = r.file ?? r.frame;
    return file ? [{ file, t: r.t ?? r.t_capture ?? 0 }] : [];
  });
}

/** Writes `<dir>/video.mp4` (or `out`) keeping the real timing between frames. */
export async function exportVideo(dir: string, out = path.join(dir, 'video.mp4')): Promise<string> {
  const frames = frameList(dir);
  if (frames.length === 0) throw new Error(`no frames in ${dir}`);
  // ffmpeg's concat demuxer with per-frame durations reproduces the recording's pace.
  const list = frames.map((f, i) => {
    const next = frames[i + 1];
    const dur = next ? Math.max(0.001, (next.t - f.t) / 1000) : 0.5;
    return `file '${path.join(dir, f.file).replace(/'/g, "'\\''")}'\nduration ${dur.toFixed(3)}`;
  });
  const listFile = path.join(dir, 'video-frames.txt');
  writeFileSync(listFile, [...list, `file '${path.join(dir, frames.at(-1)!.file)}'`].join('\n') + '\n');
  await new Promise<void>((resolve, reject) => {
    const p = spawn('ffmpeg', ['-y', '-loglevel', 'error', '-f', 'concat', '-safe', '0', '-i', listFile, '-vf', 'scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuv420p', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-r', '30', out], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.on('error', (e) => reject((e as NodeJS.ErrnoException).code === 'ENOENT' ? new Error(`ffmpeg is not installed: ${ffmpegMissingHint()}`) : e));
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg failed (${code}): ${err.trim().slice(0, 400)}`))));
  });
  return out;
}
