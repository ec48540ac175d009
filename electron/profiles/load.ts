/**
 * Reads one profile file (YAML, or JSON — YAML's parser reads both and keeps source
 * positions) and validates it whole: a profile that fails is refused with its file, line and
 * field, never half-loaded.
 */
import { dirname } from 'node:path';
import { FileRefusal, issuePath, parseYamlMapping, readSourceFile } from '../util/yaml-file.ts';
import { ProfileSchema, type Profile } from './profile-schema.ts';
import { templateProblems } from './end-templates.ts';

/** A profile that cannot be used: where (file, line) and which field, in the message too. */
export class ProfileError extends FileRefusal {
  constructor(file: string, line: number | undefined, field: string | undefined, reason: string) {
    super('profile', 'the profile was not loaded', file, line, field, reason);
  }
}

export interface LoadedProfile {
  profile: Profile;
  /** The file it came from (absolute). */
  file: string;
  /** Fields still to fill in (a starter's TODOs): a run refuses the profile until there are none. */
  placeholders: Placeholder[];
}

/** A field whose text still says TODO, as `gamepilot profile new` writes what only a person can. */
export interface Placeholder {
  field: string;
  line: number | undefined;
}
const TODO = /\bTODO\b/;

/** Largest profile file read: prompts are text, not media. */
const MAX_PROFILE_BYTES = 1024 * 1024;

export function loadProfileFile(file: string): LoadedProfile {
  const buf = readSourceFile(file, 'profile');
  if (buf.length > MAX_PROFILE_BYTES)
    throw new ProfileError(file, undefined, undefined, `is ${buf.length} bytes; a profile is at most 1 MiB`);
  return { ...parseProfileSource(buf.toString('utf8'), file), file };
}

/** Parses and validates profile text; `file` names it in errors. */
export function parseProfile(source: string, file: string): Profile {
  return parseProfileSource(source, file).profile;
}

/** The profile and the fields it leaves to fill in (comments are never fields: a TODO there is no placeholder). */
export function parseProfileSource(source: string, file: string): Omit<LoadedProfile, 'file'> {
  const refuse = (line: number | undefined, reason: string, field?: string): never => {
    throw new ProfileError(file, line, field || undefined, reason);
  };
  const { data, lineOf } = parseYamlMapping(
    source,
    { syntax: 'YAML/JSON', notMapping: 'a profile is a mapping of fields (id, title, prompt, …)' },
    refuse,
  );
  const r = ProfileSchema.safeParse(data);
  if (r.success) {
    // Templates are files beside the profile: missing or unreadable ones are refused now, not mid-run.
    const bad = templateProblems(r.data, dirname(file))[0];
    if (bad) return refuse(lineOf(bad.path), bad.message, bad.path.join('.'));
    return { profile: r.data, placeholders: placeholdersIn(data, lineOf) };
  }
  const issue = r.error.issues[0]!;
  const { path, field } = issuePath(issue);
  return refuse(lineOf(path), issue.message, field);
}

function placeholdersIn(data: unknown, lineOf: (path: PropertyKey[]) => number | undefined): Placeholder[] {
  const found: Placeholder[] = [];
  const walk = (v: unknown, at: PropertyKey[]): void => {
    if (typeof v === 'string') {
      if (TODO.test(v)) found.push({ field: at.join('.'), line: lineOf(at) });
    } else if (Array.isArray(v)) for (const [i, x] of v.entries()) walk(x, [...at, i]);
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...at, k]);
  };
  walk(data, []);
  return found;
}

/** "setup.start (line 12), prompt.task (line 15)": the placeholders as a person finds them. */
export function describePlaceholders(list: Placeholder[]): string {
  return list.map((p) => (p.line === undefined ? p.field : `${p.field} (line ${p.line})`)).join(', ');
}
