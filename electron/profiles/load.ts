/**
 * Reads one profile file (YAML, or JSON — YAML's parser reads both and keeps source
 * positions) and validates it whole: a profile that fails is refused with its file, line and
 * field, never half-loaded.
 */
import { readFileSync } from 'node:fs';
import { isMap, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { CodedError } from '../domain.ts';
import { ProfileSchema, type Profile } from './schema.ts';

/** A profile that cannot be used: where (file, line) and which field, in the message too. */
export class ProfileError extends CodedError {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly field: string | undefined,
    readonly reason: string,
  ) {
    super(
      'bad-input',
      `profile ${file}${line !== undefined ? `:${line}` : ''}: ${field ? `${field}: ` : ''}${reason} (the profile was not loaded)`,
    );
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
  let source: string;
  try {
    const buf = readFileSync(file);
    if (buf.length > MAX_PROFILE_BYTES)
      throw new ProfileError(file, undefined, undefined, `is ${buf.length} bytes; a profile is at most 1 MiB`);
    source = buf.toString('utf8');
  } catch (err) {
    if (err instanceof ProfileError) throw err;
    const e = err as NodeJS.ErrnoException;
    throw new CodedError(e.code === 'ENOENT' ? 'not-found' : 'bad-input', `cannot read profile ${file}: ${e.message}`);
  }
  return { profile: parseProfile(source, file), file };
}

/** Parses and validates profile text; `file` names it in errors. */
export function parseProfile(source: string, file: string): Profile {
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const syntax = doc.errors[0];
  if (syntax) {
    const line = syntax.linePos?.[0]?.line ?? lines.linePos(syntax.pos[0]).line;
    throw new ProfileError(file, line, undefined, `not valid YAML/JSON: ${firstLine(syntax.message)}`);
  }
  const data: unknown = doc.toJS({ maxAliasCount: 100 });
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new ProfileError(file, 1, undefined, 'a profile is a mapping of fields (id, title, prompt, …)');
  const r = ProfileSchema.safeParse(data);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const { path, field } = issuePath(issue);
  return refuse(file, lineOf(doc, lines, path), field, issue.message);
}

function refuse(file: string, line: number | undefined, field: string, reason: string): never {
  throw new ProfileError(file, line, field || undefined, reason);
}

/** The issue's path, with an unknown key appended so the line is the key's own (sweep files use it too). */
export function issuePath(issue: z.core.$ZodIssue): { path: PropertyKey[]; field: string } {
  const path = [...issue.path];
  if (issue.code === 'unrecognized_keys' && issue.keys.length) path.push(issue.keys[0]!);
  return { path, field: path.map(String).join('.') };
}

/** The line of the deepest node of `path` that exists (a missing field points at its parent). */
export function lineOf(doc: Document, lines: LineCounter, path: PropertyKey[]): number | undefined {
  let node: unknown = doc.contents;
  let offset = (doc.contents as { range?: [number, number, number] } | null)?.range?.[0];
  for (const key of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === key);
      if (!pair) break;
      offset = (pair.key as { range?: [number, number, number] }).range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof key === 'number') {
      const item = node.items[key] as { range?: [number, number, number] } | undefined;
      if (!item) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else break;
  }
  return offset === undefined ? undefined : lines.linePos(offset).line;
}

export function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}
