/**
 * A session or run as a video file (H.264 MP4) from its frames, with ffmpeg — for people, and
 * as a tutorial for reflection. ffmpeg is an external program: a clear error when missing.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { readJsonLines } from '../store/json-rows.ts';
import { StepRowSchema } from '../store/run-store.ts';
import { FrameRowSchema } from '../store/session-files.ts';
import { resolveRunFile } from '../store/run-files.ts';
import path from 'node:path';
import { CodedError } from '../domain.ts';
import { ffmpegMissingHint } from '../util/ffmpeg.ts';

/**
 * Frames with their capture times (a recording's frames.jsonl, else a run's steps), each
 * confined to the folder. Damaged rows are skipped and reported through `warn`.
 */
function frameList(dir: string, warn: (s: string) => void): { file: string; t: number }[] {
  const timed = (file: string, t: number) => ({ file: resolveRunFile(dir, file), t });
  if (existsSync(path.join(dir, 'frames.jsonl'))) {
    const { rows, problems } = readJsonLines(resolveRunFile(dir, 'frames.jsonl'), FrameRowSchema);
    for (const p of problems) warn(`skipped ${p}`);
    return rows.map((r) => timed(r.file, r.t));
  }
  const { rows, problems } = readJsonLines(resolveRunFile(dir, 'steps.jsonl'), StepRowSchema);
  for (const p of problems) warn(`skipped ${p}`);
  return rows.flatMap((r) => (r.frame ? [timed(r.frame, r.t_capture)] : []));
}

/** An output path ffmpeg can only take as a file name: absolute, no control characters. */
function checkedOutput(out: string): string {
  const abs = path.resolve(out);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the regex is there to refuse control characters
  if (!path.isAbsolute(abs) || abs.startsWith('-') || /[\x00-\x1f\x7f]/.test(abs))
    throw new Error(`bad video destination ${JSON.stringify(out)}`);
  return abs;
}

const quoted = (file: string) => `'${file.replace(/'/g, "'\\''")}'`;

/**
 * Writes `<dir>/video.mp4` (or `out`) keeping the real timing between frames. An existing
 * file is replaced only with `overwrite` (the command line's own default); otherwise refused.
 */
export async function exportVideo(
  dir: string,
  out = path.join(dir, 'video.mp4'),
  opts: { overwrite?: boolean; warn?: (s: string) => void } = {},
): Promise<string> {
  const runDir = path.resolve(dir);
  const dest = checkedOutput(out);
  if (!opts.overwrite && existsSync(dest))
    throw new CodedError('bad-input', `${dest} already exists; choose another name`);
  const frames = frameList(runDir, opts.warn ?? (() => {}));
  if (frames.length === 0) throw new Error(`no frames in ${runDir}`);
  // ffmpeg's concat demuxer with per-frame durations reproduces the recording's pace.
  const list = frames.map((f, i) => {
    const next = frames[i + 1];
    const dur = next ? Math.max(0.001, (next.t - f.t) / 1000) : 0.5;
    return `file ${quoted(f.file)}\nduration ${dur.toFixed(3)}`;
  });
  // The list goes to a private temp folder: nothing in the run folder (a planted symlink) is written through.
  const work = mkdtempSync(path.join(tmpdir(), 'gamepilot-video-'));
  const listFile = path.join(work, 'frames.txt');
  try {
    writeFileSync(listFile, `${[...list, `file ${quoted(frames.at(-1)!.file)}`].join('\n')}\n`);
    await new Promise<void>((resolve, reject) => {
      const args = [
        opts.overwrite ? '-y' : '-n',
        '-loglevel',
        'error',
        '-f',
        'concat',
        '-safe',
        '0',
        '-i',
        listFile,
        '-vf',
        'scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuv420p',
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-crf',
        '23',
        '-r',
        '30',
        dest,
      ];
      const p = spawn('ffmpeg', args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      p.stderr.on('data', (d) => (err += d));
      p.on('error', (e) =>
        reject(
          (e as NodeJS.ErrnoException).code === 'ENOENT'
            ? new Error(`ffmpeg is not installed: ${ffmpegMissingHint()}`)
            : e,
        ),
      );
      p.on('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`ffmpeg failed (${code}): ${err.trim().slice(0, 400)}`)),
      );
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return dest;
}
