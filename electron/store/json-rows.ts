/**
 * Reading back what a run folder holds (JSON files and JSON-lines files), validated with zod
 * rather than cast. A JSON-lines file's bad rows — a torn last line after a crash, a line that
 * is not JSON, a row of the wrong shape — are skipped and reported with file and line, so one
 * bad row never stops a listing, a replay, a video, a tutorial or a leaderboard.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { z } from 'zod';
import { FileRefusal, lineOfField, readSourceFile } from '../util/yaml-file.ts';

/**
 * The largest state file read back whole (idc.json, suite.json, milestone-labels.json, …): far
 * above what the app writes, so a huge one is planted or damaged, and refused unread.
 */
export const MAX_STATE_BYTES = 16 * 1024 * 1024;

export interface JsonLines<T> {
  rows: T[];
  /** One entry per skipped row: `<file>:<line>: <why>`. */
  problems: string[];
}

/** What a zod issue says, without zod's "Invalid input: " in front; `invalid` for none. */
export function issueReason(issue: z.core.$ZodIssue | undefined): string {
  return issue ? issue.message.replace(/^Invalid input: /, '') : 'invalid';
}

/** The first problem zod found, in words: `episode: expected number, received string`. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const where = issue.path.join('.');
  return `${where ? `${where}: ` : ''}${issueReason(issue)}`;
}

/**
 * Every valid row of a JSON-lines file (none when the file does not exist). With `cap`, a file
 * above `cap.bytes` is refused unread, naming the file (`cap.kind` says what it is).
 */
export function readJsonLines<S extends z.ZodType>(
  file: string,
  schema: S,
  cap?: { kind: string; bytes: number },
): JsonLines<z.output<S>> {
  const rows: z.output<S>[] = [];
  const problems: string[] = [];
  if (!existsSync(file)) return { rows, problems };
  const text = cap ? readSourceFile(file, cap.kind, cap.bytes).toString('utf8') : readFileSync(file, 'utf8');
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      problems.push(
        `${file}:${i + 1}: ${i === lines.length - 1 ? 'a torn last line (cut off by a crash?)' : 'not JSON'}`,
      );
      return;
    }
    const r = schema.safeParse(value);
    if (r.success) rows.push(r.data);
    else problems.push(`${file}:${i + 1}: ${firstIssue(r.error)}`);
  });
  return { rows, problems };
}

/** A whole JSON file checked against `schema`; the error names the file and the first problem. */
export function parseJsonFile<S extends z.ZodType>(text: string, file: string, schema: S, what: string): z.output<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  const r = schema.safeParse(raw);
  if (!r.success) throw new Error(`${file} is not a valid ${what}: ${firstIssue(r.error)}`);
  return r.data;
}

/** Reads and checks a JSON file; one above MAX_STATE_BYTES is refused unread. */
export function readJsonFile<S extends z.ZodType>(file: string, schema: S, what: string): z.output<S> {
  return parseJsonFile(readSourceFile(file, what, MAX_STATE_BYTES).toString('utf8'), file, schema, what);
}

/**
 * Refuses one field of a JSON file the app wrote (`kind`: run, …) that cannot be used: the error
 * names the file, the field's line (when the file still reads) and the field, and `outcome`
 * says what did not happen.
 */
export function refuseJsonField(
  file: string,
  kind: string,
  field: PropertyKey[],
  reason: string,
  outcome: string,
): never {
  let line: number | undefined;
  try {
    line = lineOfField(readSourceFile(file, kind, MAX_STATE_BYTES).toString('utf8'), field);
  } catch {
    line = undefined; // the field is still named
  }
  throw new FileRefusal(kind, outcome, file, line, field.map(String).join('.'), reason);
}

/** The first issue's path and words, for refuseJsonField: the path under `prefix`. */
export function issueAt(error: z.ZodError, prefix: PropertyKey[]): { path: PropertyKey[]; reason: string } {
  const issue = error.issues[0];
  return {
    path: [...prefix, ...(issue?.path ?? [])],
    reason: issueReason(issue),
  };
}
