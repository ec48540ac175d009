/**
 * The runs folder as a library: list, open, read frames, export. Ids are folder names. A
 * damaged run.json is skipped with a warning naming the file, so one bad run never hides
 * the others.
 */
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { listedStatus, readRun, readRunMeta, type RunMeta, type StepRecord } from './run-store.ts';
import { resolveRunFile, RunFileError } from './run-files.ts';
import { titleOf } from './run-title.ts';
import { ARENA_RUN_ID, CodedError, round2, RUN_ID, type ListedStatus, type RunSummary } from '../domain.ts';
import { isCountedEpisode } from './run-quality.ts';
import { mean, std } from '../util/time.ts';

/**
 * The folder of the run `id` names (a folder name, or an arena's `<arena>/runs/<run>`; never any
 * other path): a plain folder in `root`. A symbolic link in its place is refused, as a suite
 * folder's is, so an id never reads outside the runs folder.
 */
export function runPath(root: string, id: string): string {
  if (!RUN_ID.test(id) && !ARENA_RUN_ID.test(id)) throw new CodedError('bad-input', `bad run id "${id}"`);
  const dir = path.join(root, id);
  if (!existsSync(path.join(dir, 'run.json'))) throw new CodedError('not-found', `no run "${id}" in ${root}`);
  // An arena's run (`<arena>/runs/<run>`): the arena folder, its runs/ and the run are plain folders.
  if (ARENA_RUN_ID.test(id)) {
    const arena = path.join(root, id.split('/')[0]!);
    refuseLinkedFolder(root, arena);
    refuseLinkedFolder(root, path.join(arena, 'runs'));
    if (!existsSync(path.join(arena, 'arena.json')))
      throw new CodedError('not-found', `no arena "${arena}" in ${root}`);
  }
  refuseLinkedFolder(root, dir);
  return dir;
}

function refuseLinkedFolder(root: string, dir: string) {
  if (lstatSync(dir).isSymbolicLink())
    throw new RunFileError(`${dir} is a symbolic link; a run folder must be a plain folder in ${root}`);
}

export function summarize(meta: RunMeta, id = meta.id): RunSummary {
  const { id: titleId, name, kind } = titleOf(meta);
  const invalid = meta.episodes.flatMap((e) =>
    e.invalid === undefined ? [] : [{ episode: e.episode, reason: e.invalid }],
  );
  // With invalid episodes the run's score is that of the others, as the tables count it.
  const counted = meta.episodes.filter(isCountedEpisode).map((e) => e.score);
  const score = invalid.length
    ? { mean: counted.length ? round2(mean(counted)) : null, std: counted.length ? round2(std(counted)) : null }
    : { mean: meta.mean, std: meta.std };
  return {
    id,
    created: meta.created,
    status: listedStatus(meta),
    kind: meta.kind,
    game: meta.game,
    title: { id: titleId, name, kind },
    target: meta.target.label,
    agent: meta.agent,
    model: meta.model,
    actionSpace: meta.action_space,
    ...score,
    episodes: meta.episodes.length,
    steps: meta.totals.steps,
    ...(meta.demo ? { demo: true } : {}),
    ...(meta.error !== undefined ? { error: meta.error } : {}),
    ...(invalid.length ? { invalid } : {}),
  };
}

export interface ScannedRun {
  /** The folder name (what getRun takes), whatever run.json says its id is. */
  id: string;
  dir: string;
  meta: RunMeta;
}

/** Every valid run under `root`, and a warning for each run.json that is not one. */
export function scanRuns(root: string): { runs: ScannedRun[]; warnings: string[] } {
  const runs: ScannedRun[] = [];
  const warnings: string[] = [];
  if (!existsSync(root)) return { runs, warnings };
  for (const name of readdirSync(root)) {
    const dir = path.join(root, name);
    const file = path.join(dir, 'run.json');
    if (!existsSync(file)) continue;
    if (!RUN_ID.test(name)) {
      warnings.push(`skipped ${dir}: a run folder's name may hold only letters, digits, '.', '-' and '_'`);
      continue;
    }
    try {
      refuseLinkedFolder(root, dir);
      runs.push({ id: name, dir, meta: readRunMeta(dir) });
    } catch (err) {
      warnings.push(`skipped ${(err as Error).message}`);
    }
  }
  return { runs, warnings };
}

/**
 * The runs of a runs folder and those of each suite folder in it: a folder holding suite.json
 * keeps its level runs in its own runs/ (where `gamepilot suite` puts them). One level deep (the
 * runs folder itself, then its direct subfolders); a suite folder must be a plain folder with a
 * plain suite.json and runs/ inside it — a symbolic link is refused with a warning, as run files are.
 */
export function scanRunsAndSuites(root: string): { runs: ScannedRun[]; warnings: string[] } {
  const { runs, warnings } = scanRuns(root);
  if (!existsSync(root)) return { runs, warnings };
  const subfolders = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() || d.isSymbolicLink())
    .map((d) => d.name)
    .sort();
  for (const dir of [root, ...subfolders.map((name) => path.join(root, name))]) {
    if (!existsSync(path.join(dir, 'suite.json'))) continue;
    const name = path.basename(dir);
    if (dir !== root && !RUN_ID.test(name)) {
      warnings.push(`skipped suite folder ${dir}: a folder's name may hold only letters, digits, '.', '-' and '_'`);
      continue;
    }
    const sub = path.join(dir, 'runs');
    try {
      if (dir !== root && lstatSync(dir).isSymbolicLink())
        throw new RunFileError(`${dir} is a symbolic link; a suite folder must be a plain folder in ${root}`);
      resolveRunFile(dir, 'suite.json', 'suite folder');
      if (!existsSync(sub)) continue; // a suite that has not finished a level yet
      if (!lstatSync(sub).isDirectory())
        throw new RunFileError(`${sub} is not a plain folder (a symbolic link?); a suite's runs must be inside it`);
    } catch (err) {
      warnings.push(`skipped suite folder: ${(err as Error).message}`);
      continue;
    }
    const found = scanRuns(sub);
    runs.push(...found.runs);
    warnings.push(...found.warnings);
  }
  return { runs, warnings };
}

export function listRuns(root: string): { runs: RunSummary[]; warnings: string[] } {
  const { runs, warnings } = scanRuns(root);
  return {
    runs: runs.map((r) => summarize(r.meta, r.id)).sort((a, b) => b.created.localeCompare(a.created)),
    warnings,
  };
}

/** A run for replay: its meta, its valid steps, and a warning (file and line) for each row skipped. */
export function openRun(
  root: string,
  id: string,
): { meta: Omit<RunMeta, 'status'> & { status: ListedStatus }; steps: StepRecord[]; warnings: string[] } {
  const run = readRun(runPath(root, id));
  return { meta: { ...run.meta, id, status: listedStatus(run.meta) }, steps: run.steps, warnings: run.problems };
}

export function readFrame(root: string, id: string, frame: string): { data: Buffer; mime: string } {
  const dir = runPath(root, id);
  if (!/^frames\/[^/]+$/.test(frame)) throw new Error('frame path outside the run');
  const file = resolveRunFile(dir, frame);
  return { data: readFileSync(file), mime: file.endsWith('.png') ? 'image/png' : 'image/jpeg' };
}

/**
 * Copies a run folder to `dest` (a new folder; an existing one is never overwritten). Only
 * plain files and folders are copied: a symlink planted in a run is left behind.
 */
export function exportRun(root: string, id: string, dest: string): string {
  const dir = runPath(root, id);
  if (!path.isAbsolute(dest)) throw new Error(`export destination must be an absolute path, got "${dest}"`);
  mkdirSync(path.dirname(dest), { recursive: true });
  try {
    mkdirSync(dest); // fails when anything, even a dangling symlink, already has this name
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw new CodedError('bad-input', `${dest} already exists; choose another name`);
    throw err;
  }
  // Entry by entry into the folder just claimed (Node 24's cpSync refuses an existing target folder).
  const plain = (src: string) => !lstatSync(src).isSymbolicLink();
  for (const name of readdirSync(dir)) {
    const src = path.join(dir, name);
    if (plain(src))
      cpSync(src, path.join(dest, name), { recursive: true, errorOnExist: true, force: false, filter: plain });
  }
  return dest;
}
