/**
 * Reads one profile file (YAML, or JSON — YAML's parser reads both and keeps source
 * positions) and validates it whole: a profile that fails is refused with its file, line and
 * field, never half-loaded.
 */
import { FileRefusal, issuePath, parseYamlMapping, readSourceFile } from '../util/yaml-file.ts';
import { ProfileSchema, type Profile } from './profile-schema.ts';

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
}

/** Largest profile file read: prompts are text, not media. */
const MAX_PROFILE_BYTES = 1024 * 1024;

export function loadProfileFile(file: string): LoadedProfile {
  const buf = readSourceFile(file, 'profile');
  if (buf.length > MAX_PROFILE_BYTES)
    throw new ProfileError(file, undefined, undefined, `is ${buf.length} bytes; a profile is at most 1 MiB`);
  return { profile: parseProfile(buf.toString('utf8'), file), file };
}

/** Parses and validates profile text; `file` names it in errors. */
export function parseProfile(source: string, file: string): Profile {
  const refuse = (line: number | undefined, reason: string, field?: string): never => {
    throw new ProfileError(file, line, field || undefined, reason);
  };
  const { data, lineOf } = parseYamlMapping(
    source,
    { syntax: 'YAML/JSON', notMapping: 'a profile is a mapping of fields (id, title, prompt, …)' },
    refuse,
  );
  const r = ProfileSchema.safeParse(data);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const { path, field } = issuePath(issue);
  return refuse(lineOf(path), issue.message, field);
}
