/**
 * Files people write by hand in YAML (or JSON, which YAML's parser also reads, keeping source
 * positions) and that a zod schema then checks whole: profiles and sweep files. A file that
 * fails is refused with its file, line and field, never half-read.
 */
import { readFileSync, statSync } from 'node:fs';
import { isMap, isSeq, LineCounter, parseDocument, visit, type Document } from 'yaml';
import type { z } from 'zod';
import { CodedError } from '../domain.ts';

/** A hand-written file that cannot be used: where (file, line), which field, and what came of it. */
export class FileRefusal extends CodedError {
  constructor(
    kind: string,
    outcome: string,
    readonly file: string,
    readonly line: number | undefined,
    readonly field: string | undefined,
    readonly reason: string,
  ) {
    super(
      'bad-input',
      `${kind} ${file}${line !== undefined ? `:${line}` : ''}: ${field ? `${field}: ` : ''}${reason} (${outcome})`,
    );
  }
}

/** The largest hand-written file read: profiles and sweep files are a few KB; a huge one is refused unread. */
export const MAX_SOURCE_BYTES = 1024 * 1024;

/**
 * The file's bytes; a missing file is `not-found`, one too large or any other read error `bad-input`.
 * `maxBytes`: a larger cap for files the app writes itself and reads back (state files).
 */
export function readSourceFile(file: string, kind: string, maxBytes = MAX_SOURCE_BYTES): Buffer {
  try {
    const size = statSync(file).size;
    if (size > maxBytes)
      throw new CodedError(
        'bad-input',
        `${kind} ${file}: ${size} bytes, above the ${maxBytes / 1024} KiB ${/^[aeiou]/i.test(kind) ? 'an' : 'a'} ${kind} file may have (not read)`,
      );
    return readFileSync(file);
  } catch (err) {
    if (err instanceof CodedError) throw err;
    const e = err as NodeJS.ErrnoException;
    throw new CodedError(e.code === 'ENOENT' ? 'not-found' : 'bad-input', `cannot read ${kind} ${file}: ${e.message}`);
  }
}

export interface YamlMapping {
  data: Record<string, unknown>;
  /** The line of the deepest node of `path` that exists (a missing field points at its parent). */
  lineOf(path: PropertyKey[]): number | undefined;
}

/**
 * Parses text that must be one mapping. `refuse` is called (and must throw) with the line and
 * reason of a syntax error (`syntax` names the format in it) or of a document that is no mapping.
 */
export function parseYamlMapping(
  source: string,
  how: { syntax: string; notMapping: string },
  refuse: (line: number | undefined, reason: string) => never,
): YamlMapping {
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const syntax = doc.errors[0];
  if (syntax)
    refuse(
      syntax.linePos?.[0]?.line ?? lines.linePos(syntax.pos[0]).line,
      `not valid ${how.syntax}: ${firstLine(syntax.message)}`,
    );
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    // An alias bomb ("billion laughs"): refused at its first alias, before it expands.
    let first: number | undefined;
    visit(doc, {
      Alias(_key, node) {
        first = node.range?.[0];
        return visit.BREAK;
      },
    });
    refuse(
      first === undefined ? undefined : lines.linePos(first).line,
      `aliases that expand too far (${firstLine((err as Error).message)})`,
    );
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) refuse(1, how.notMapping);
  return { data: data as Record<string, unknown>, lineOf: (path) => lineOf(doc, lines, path) };
}

/**
 * The line of the field at `path` in JSON (or YAML) text — the deepest part of the path that
 * exists — so an error about a JSON file can name its line; undefined when the text does not parse.
 */
export function lineOfField(source: string, path: PropertyKey[]): number | undefined {
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, prettyErrors: false });
  return doc.errors.length ? undefined : lineOf(doc, lines, path);
}

/** The issue's path, with an unknown key appended so the line is the key's own. */
export function issuePath(issue: z.core.$ZodIssue): { path: PropertyKey[]; field: string } {
  const path = [...issue.path];
  if (issue.code === 'unrecognized_keys' && issue.keys.length) path.push(issue.keys[0]!);
  return { path, field: path.map(String).join('.') };
}

function lineOf(doc: Document, lines: LineCounter, path: PropertyKey[]): number | undefined {
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

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}
