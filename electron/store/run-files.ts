/**
 * Files named inside a run folder (frame paths in steps.jsonl or frames.jsonl, run.json) come
 * from disk and may have been written by anyone: a run folder can be copied from elsewhere.
 * Every such name is resolved here, and only a plain file inside the folder is accepted — no
 * absolute paths, no `..`, no symlink anywhere on the way — so a crafted run cannot make us
 * read (and show, or send to a model) a file from outside it.
 */
import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';

export class RunFileError extends Error {}

/**
 * The real path of `rel` inside `runDir`, or a RunFileError saying why it is refused. `folder`
 * names the folder in messages (the same rule confines a profile's evidence frames).
 */
export function resolveRunFile(runDir: string, rel: string, folder = 'run folder'): string {
  // Control characters too: a newline in a name could smuggle a directive into an ffmpeg list file.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the regex is there to refuse control characters
  if (typeof rel !== 'string' || rel === '' || /[\x00-\x1f\x7f]/.test(rel))
    throw new RunFileError(`bad file name in ${runDir}: ${JSON.stringify(rel)}`);
  const parts = rel.split(/[\\/]+/);
  if (path.isAbsolute(rel) || path.win32.isAbsolute(rel) || parts.some((p) => p === '..' || p === '.')) {
    throw new RunFileError(`"${rel}" points outside its ${folder} ${runDir}`);
  }
  let root: string;
  try {
    root = realpathSync(runDir);
  } catch {
    throw new RunFileError(`no ${folder} ${runDir}`);
  }
  const wanted = path.join(root, ...parts.filter(Boolean));
  let real: string;
  try {
    real = realpathSync(wanted);
  } catch {
    throw new RunFileError(`${rel} is missing from ${runDir}`);
  }
  // A symlink anywhere below the run folder makes the real path differ from the one asked for.
  if (real !== wanted)
    throw new RunFileError(`${rel} in ${runDir} is a symbolic link; files must be plain files inside the ${folder}`);
  if (!lstatSync(real).isFile()) throw new RunFileError(`${rel} in ${runDir} is not a file`);
  return real;
}
