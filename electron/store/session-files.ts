/**
 * A recording session's own files as read back, validated: `session.json` (who, what, when,
 * how many frames), `frames.jsonl` (every frame with its time) and `events.jsonl` (input in the
 * agent's action schema). Bad rows are skipped and reported with file and line.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { readJsonFile, readJsonLines } from './json-rows.ts';
import { resolveRunFile } from './run-files.ts';

const num = z.number().finite();

/** One line of frames.jsonl: the frame's index, capture time (ms) and file in the folder. */
export const FrameRowSchema = z.looseObject({ i: z.number().int().nonnegative(), t: num, file: z.string().min(1) });
export type FrameRow = z.output<typeof FrameRowSchema>;

/** One line of events.jsonl: an input event in the agent's action schema. */
export const EventRowSchema = z.looseObject({
  t: num,
  action_type: z.string().min(1),
  parameters: z.record(z.string(), z.unknown()),
});
export type EventRow = z.output<typeof EventRowSchema>;

/** session.json: written at the start (end: null) and rewritten with the totals at the end. */
export const SessionFileSchema = z.looseObject({
  participant: z.string(),
  role: z.enum(['rookie', 'expert']),
  trial: z.number().int().positive(),
  stage: z.string().optional(),
  consent: z.literal(true),
  seed: num.optional(),
  game: z.string().nullable(),
  target: z.string(),
  start: z.string(),
  end: z.string().nullable(),
  fps: num,
  frames: num.optional(),
  dropped: num.optional(),
  events: num.optional(),
  score: num.nullable().optional(),
  error: z.string().optional(),
});
export type SessionFile = z.output<typeof SessionFileSchema>;

export interface RecordedSession {
  session: SessionFile;
  frames: FrameRow[];
  events: EventRow[];
  /** Rows skipped, each as `<file>:<line>: <why>`. */
  problems: string[];
}

/** A session folder's own files; a missing or damaged session.json throws, naming the file. */
export function readSession(dir: string): RecordedSession {
  const session = readJsonFile(resolveRunFile(dir, 'session.json'), SessionFileSchema, 'recording session');
  const lines = <S extends z.ZodType>(name: string, schema: S) =>
    existsSync(path.join(dir, name)) ? readJsonLines(resolveRunFile(dir, name), schema) : { rows: [], problems: [] };
  const frames = lines('frames.jsonl', FrameRowSchema);
  const events = lines('events.jsonl', EventRowSchema);
  return { session, frames: frames.rows, events: events.rows, problems: [...frames.problems, ...events.problems] };
}
