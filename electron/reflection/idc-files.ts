/**
 * An Improvement Dynamics Curve's folder as read back, validated: `idc.json` (the curve, the
 * best skill, the held-out transfer, every round) and `skills.jsonl` (the skill after each
 * round). Bad rows of skills.jsonl are skipped and reported with file and line.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { MAX_STATE_BYTES, readJsonFile, readJsonLines } from '../store/json-rows.ts';
import { resolveRunFile } from '../store/run-files.ts';
import type { IdcResult } from './idc.ts';
import { round2 } from '../domain.ts';

const num = z.number().finite();
const round = z.number().int().nonnegative();
const judge = z.looseObject({
  tries: z.number().int().nonnegative(),
  accepted: z.boolean(),
  reasons: z.array(z.string()),
});

/** A check of a proposed skill (validate_skill, or the harness before judging). */
const validation = z.looseObject({
  skill: z.string(),
  ok: z.boolean(),
  problems: z.array(z.string()),
  by: z.literal('harness').optional(),
});

const IdcRoundSchema = z.looseObject({
  round,
  run_dir: z.string(),
  skill: z.string(),
  scores: z.array(num),
  mean: num,
  rollback: z.boolean().optional(),
  note: z.string().optional(),
  diagnosis: z.string().optional(),
  reflector_mode: z.enum(['tools', 'staged (no tool calling)']).optional(),
  tool_calls: num.optional(),
  judge: judge.optional(),
  validations: z.array(validation).optional(),
  proposer_note: z.string().optional(),
  error: z.string().optional(),
});

const scored = z.looseObject({ scores: z.array(num), mean: num });
const SplitSchema = z.looseObject({
  variant: z.string(),
  description: z.string(),
  seed: num,
  baseline: scored,
  best: scored,
  gain: num,
  change_pct: num.nullable(),
});

/**
 * idc.json. Folders written before the transfer test had a baseline kept one split's scores
 * (`transfer: {seed, scores, mean}`) and no R0 fields: they are read with no splits and the
 * R0 figures computed from the curve.
 */
export const IdcFileSchema = z
  .looseObject({
    run_dir: z.string(),
    curve: z.array(num).min(1),
    best_round: round,
    best_skill: z.string(),
    transfer: z.union([
      z.looseObject({ episodes: num, splits: z.array(SplitSchema) }),
      z.looseObject({ seed: num, scores: z.array(num), mean: num.nullable() }),
    ]),
    rounds: z.array(IdcRoundSchema),
  })
  .transform((f) => {
    const r0 = f.curve[0]!;
    const bestMean = f.curve[f.best_round] ?? r0;
    return {
      ...f,
      r0,
      gain_vs_r0: round2(bestMean - r0),
      best_vs_final: round2(bestMean - f.curve.at(-1)!),
      transfer: 'splits' in f.transfer ? f.transfer : { episodes: f.transfer.scores.length, splits: [] },
    };
  });

/** One line of skills.jsonl: the skill in force after a round (or the rollback to the best one). */
export const SkillRowSchema = z.looseObject({
  after_round: round,
  skill: z.string(),
  rollback_to_round: round.optional(),
  diagnosis: z.string().optional(),
  judge: judge.optional(),
  validations: z.array(validation).optional(),
  reflector_mode: z.string().optional(),
});
export type SkillRow = z.output<typeof SkillRowSchema>;

/**
 * An IDC folder: idc.json (throws, naming the file, when missing, damaged, too large, or not a
 * plain file inside the folder — a symlink is never followed) and the valid rows of skills.jsonl
 * (the same rules). The paths idc.json holds (`run_dir`) are records, never read from.
 */
export function readIdc(dir: string): { result: IdcResult; skills: SkillRow[]; problems: string[] } {
  const idcFile = resolveRunFile(dir, 'idc.json', 'IDC folder');
  const result = readJsonFile(idcFile, IdcFileSchema, 'IDC result') as unknown as IdcResult;
  const { rows, problems } = existsSync(path.join(dir, 'skills.jsonl'))
    ? readJsonLines(resolveRunFile(dir, 'skills.jsonl', 'IDC folder'), SkillRowSchema, {
        kind: 'IDC skills',
        bytes: MAX_STATE_BYTES,
      })
    : { rows: [], problems: [] };
  return { result, skills: rows, problems };
}
