/**
 * Reading back what a run folder holds (JSON files and JSON-lines files), validated with zod
 * rather than cast. A JSON-lines file's bad rows — a torn last line after a crash, a line that
 * is not JSON, a row of the wrong shape — are skipped and reported with file and line, so one
 * bad row never stops a listing, a replay, a video, a tutorial or a leaderboard.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { z } from 'zod';

export interface JsonLines<T> {
  rows: T[];
  /** One entry per skipped row: `<file>:<line>: <why>`. */
  problems: string[];
}

/** The first problem zod found, in words: `episode: expected number, received string`. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const where = issue.path.join('.');
  return `${where ? `${where}: ` : ''}${issue.message.replace(/^Invalid input: /, '')}`;
}

/** Every valid row of a JSON-lines file (none when the file does not exist). */
export function readJsonLines<S extends z.ZodType>(file: string, schema: S): JsonLines<z.output<S>> {
  const rows: z.output<S>[] = [];
  const problems: string[] = [];
  if (!existsSync(file)) return { rows, problems };
  const lines = readFileSync(file, 'utf8').split('\n');
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

/** Reads and checks a JSON file. */
export function readJsonFile<S extends z.ZodType>(file: string, schema: S, what: string): z.output<S> {
  return parseJsonFile(readFileSync(file, 'utf8'), file, schema, what);
}
