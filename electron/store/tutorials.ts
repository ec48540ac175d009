/**
 * Tutorial videos in the runs folder: `<runs>/tutorials/<title folder>/<file>.mp4` holds the
 * walkthrough of a title, so a rookie in the Record tab watches the very video an agent's
 * `--tutorial` reflects on (GameVerse App. B). A title's folder is its title id (a built-in's or
 * a profile's); an unprofiled window's is `window-<its title, slugged>`. Only plain files inside
 * the runs folder are ever read, named by an id the contract checks (TUTORIAL_VIDEO_ID).
 *
 * A title's tutorial is declared in one place, `declaredTutorial`: the Record tab offers it to the
 * rookie and `--tutorial title` gives it to an agent (run, record, the app), so both rest on one
 * file; each run records the file's hash (store/tutorial-identity.ts) and the report warns when
 * a title's Rookie-Yes and agent-Yes rows rest on different ones.
 */
import { closeSync, existsSync, fstatSync, lstatSync, openSync, readdirSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { CodedError, TUTORIAL_VIDEO_ID, UNPROFILED_PREFIX } from '../domain.ts';
import { listRuns, runPath } from './run-library.ts';

export const TUTORIALS_DIR = 'tutorials';
const VIDEO_EXT = /\.(mp4|webm|mkv|mov)$/i;
/** Larger files are not offered: the Record tab holds the whole video in memory to play it. */
export const MAX_TUTORIAL_VIDEO_BYTES = 512 * 1024 * 1024;
/** One read of a video over the contract. */
export const TUTORIAL_CHUNK_BYTES = 4 * 1024 * 1024;

export interface TutorialVideo {
  id: string;
  file: string;
  bytes: number;
  /** The file's modification time (ISO), newest first in listings. */
  created: string;
}

/** The folder under `<runs>/tutorials/` that holds a title's videos. */
export function tutorialFolder(titleId: string): string {
  const name = titleId.startsWith(UNPROFILED_PREFIX) ? `window-${titleId.slice(UNPROFILED_PREFIX.length)}` : titleId;
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[^a-z0-9]+|-+$/g, '')
      .slice(0, 100) || 'untitled'
  );
}

const mime = (file: string) =>
  ({ mp4: 'video/mp4', webm: 'video/webm', mkv: 'video/x-matroska', mov: 'video/quicktime' })[
    path.extname(file).slice(1).toLowerCase()
  ] ?? 'application/octet-stream';

/** A title's tutorial videos, newest first; symlinks, folders and oversized files are left out. */
export function listTutorialVideos(runsDir: string, titleId: string): TutorialVideo[] {
  const folder = tutorialFolder(titleId);
  const dir = path.join(runsDir, TUTORIALS_DIR, folder);
  if (!existsSync(dir)) return [];
  const found: TutorialVideo[] = [];
  for (const name of readdirSync(dir)) {
    const id = `${TUTORIALS_DIR}/${folder}/${name}`;
    if (!TUTORIAL_VIDEO_ID.test(id) || !VIDEO_EXT.test(name)) continue;
    const st = lstatSync(path.join(dir, name));
    if (!st.isFile() || st.size === 0 || st.size > MAX_TUTORIAL_VIDEO_BYTES) continue;
    found.push({ id, file: path.join(dir, name), bytes: st.size, created: st.mtime.toISOString() });
  }
  return found.sort((a, b) => b.created.localeCompare(a.created));
}

/** The file a tutorial video id names, checked: the id's shape, a plain file, inside the runs folder. */
export function tutorialVideoPath(runsDir: string, id: string): string {
  if (!TUTORIAL_VIDEO_ID.test(id)) throw new CodedError('bad-input', `bad tutorial video id "${id}"`);
  const file = path.join(runsDir, ...id.split('/'));
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(file);
  } catch {
    throw new CodedError('not-found', `no tutorial video "${id}" in ${runsDir}`);
  }
  const inside = realpathSync(path.dirname(file)).startsWith(realpathSync(runsDir) + path.sep);
  if (!st.isFile() || !inside)
    throw new CodedError('bad-input', `tutorial video "${id}" is not a plain file inside ${runsDir}`);
  return file;
}

/** One chunk of a tutorial video, base64, and where the next starts (null: that was the last). */
export function readTutorialChunk(
  runsDir: string,
  id: string,
  offset: number,
): { data: string; offset: number; next: number | null; total: number; mime: string } {
  const file = tutorialVideoPath(runsDir, id);
  const fd = openSync(file, 'r');
  try {
    const total = fstatSync(fd).size;
    if (total > MAX_TUTORIAL_VIDEO_BYTES)
      throw new CodedError('bad-input', `tutorial video "${id}" is above ${MAX_TUTORIAL_VIDEO_BYTES / 2 ** 20} MiB`);
    const buf = Buffer.alloc(Math.max(0, Math.min(TUTORIAL_CHUNK_BYTES, total - offset)));
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    const end = offset + got;
    return {
      data: buf.subarray(0, got).toString('base64'),
      offset,
      next: end < total ? end : null,
      total,
      mime: mime(file),
    };
  } finally {
    closeSync(fd);
  }
}

/** What a contract `tutorial` names, as a path: a run or session id (its folder) or a tutorial video id (its file). */
export function tutorialSourcePath(runsDir: string, ref: string): string {
  return ref.startsWith(`${TUTORIALS_DIR}/`) ? tutorialVideoPath(runsDir, ref) : runPath(runsDir, ref);
}

/** `--tutorial title`: the title's declared tutorial (`declaredTutorial`), as the Record tab offers it to the rookie. */
export const TITLE_TUTORIAL = 'title';

/**
 * A title's declared tutorial: its newest video in `<runs>/tutorials/<title folder>/`, else its
 * latest completed human expert session; null when it has neither.
 */
export function declaredTutorial(runsDir: string, titleId: string): { id: string; file: string } | null {
  const video = listTutorialVideos(runsDir, titleId)[0];
  if (video) return { id: video.id, file: video.file };
  const expert = listRuns(runsDir).runs.find(
    (r) => r.title.id === titleId && r.status === 'completed' && r.agent === 'human-expert',
  );
  return expert ? { id: expert.id, file: runPath(runsDir, expert.id) } : null;
}

/** The file `--tutorial title` stands for, or an error naming the folder where the title's tutorial goes. */
export function declaredTutorialFile(runsDir: string, titleId: string): string {
  const found = declaredTutorial(runsDir, titleId);
  if (!found)
    throw new CodedError(
      'not-found',
      `--tutorial title: "${titleId}" has no tutorial: put a video in ${path.join(runsDir, TUTORIALS_DIR, tutorialFolder(titleId))} or record a human expert session of it`,
    );
  return found.file;
}
