/**
 * Every run-like folder under an export's source folders, so that none is left out unsaid: a
 * folder holding run.json, steps.jsonl, session.json or frames/ — plain runs and sessions, the
 * level runs a `gamepilot suite` keeps in its runs/, an arena's matches in its runs/, a sweep's
 * work folders — however deep. Each is found with its run.json read, or with the reason it cannot
 * be (no run.json, a damaged one, a symbolic link, a name that cannot name files). A run folder
 * is never entered (its frames/ are its own); a symbolic link is never followed.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { CodedError } from '../domain.ts';
import { readRunMeta, type RunMeta } from '../store/run-store.ts';

/** What a run folder records: a plain run, a person's session, an ING-VP suite's level, or a two-seat match. */
export const ORIGINS = ['run', 'session', 'suite', 'arena'] as const;
export type Origin = (typeof ORIGINS)[number];

/** A run folder's origin, from its own run.json. */
export function originOf(meta: RunMeta): Origin {
  if (meta.kind === 'human') return 'session';
  if (meta.seats?.length || meta.arena) return 'arena';
  if (meta.config.suite === 'ingvp') return 'suite';
  return 'run';
}

/** A run folder found: `id` is its path under the source folder (`arena-x/runs/<run>`), or its name when given itself. */
export interface FoundRun {
  id: string;
  dir: string;
  meta: RunMeta;
}

export interface Walked {
  runs: FoundRun[];
  /** Run-like folders that cannot be exported, each `<id>: <why>`. */
  unreadable: string[];
}

const MARKERS = ['run.json', 'steps.jsonl', 'session.json', 'frames'];
/** A path segment that can name the dataset's image folder and part file as it is. */
const PLAIN_NAME = /^[\w.-]{1,200}$/;

const isRunLike = (dir: string) => MARKERS.some((m) => existsSync(path.join(dir, m)));

/** A message about a run folder without the machine's path to it (a home folder names its user). */
export function withoutPath(message: string, dir: string): string {
  return message
    .split(dir + path.sep)
    .join('')
    .split(dir)
    .join('.');
}

/** Every run-like folder of the sources; `exclude` (the dataset folder, when inside a source) is not searched. */
export function walkSources(sources: string[], exclude: string): Walked {
  const out: Walked = { runs: [], unreadable: [] };
  for (const src of sources) {
    const dir = path.resolve(src);
    if (!existsSync(dir)) throw new CodedError('not-found', `${src}: no such folder`);
    if (isRunLike(dir)) take(dir, path.basename(dir), out);
    else walk(dir, '', exclude, out);
  }
  return out;
}

function walk(dir: string, rel: string, exclude: string, out: Walked) {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    const full = path.join(dir, e.name);
    const id = rel ? `${rel}/${e.name}` : e.name;
    if (full === exclude) continue;
    if (e.isSymbolicLink()) {
      let target: ReturnType<typeof statSync> | undefined;
      try {
        target = statSync(full);
      } catch {
        target = undefined; // a dangling link holds nothing
      }
      if (target?.isDirectory()) out.unreadable.push(`${id}: a symbolic link to a folder; links are not followed`);
      continue;
    }
    if (!e.isDirectory()) continue;
    if (isRunLike(full)) take(full, id, out);
    else walk(full, id, exclude, out);
  }
}

function take(dir: string, id: string, out: Walked) {
  if (!id.split('/').every((s) => PLAIN_NAME.test(s))) {
    out.unreadable.push(`${id}: a folder's name may hold only letters, digits, '.', '-' and '_'`);
    return;
  }
  if (!existsSync(path.join(dir, 'run.json'))) {
    const has = MARKERS.filter((m) => existsSync(path.join(dir, m))).join(', ');
    out.unreadable.push(`${id}: no run.json (it holds ${has}): a run cut short before its first record, or damaged`);
    return;
  }
  try {
    out.runs.push({ id, dir, meta: readRunMeta(dir) });
  } catch (err) {
    out.unreadable.push(`${id}: ${withoutPath((err as Error).message, dir)}`);
  }
}
