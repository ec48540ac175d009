/**
 * A person's verdicts on a judged run's milestones, kept apart from the judge's in the run
 * folder (`milestone-labels.json`): a label never changes run.json, so the judge's verdict and
 * the human one can always be compared (GameVerse Tab. 9).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { CodedError } from '../domain.ts';
import { issueAt, readJsonFile, refuseJsonField } from '../store/json-rows.ts';
import { resolveRunFile } from '../store/run-files.ts';
import { writeFileAtomic } from '../util/atomic-file.ts';

export const LABELS_FILE = 'milestone-labels.json';

const LabelSchema = z.object({
  episode: z.number().int().nonnegative(),
  milestone: z.string().min(1).max(400),
  reached: z.boolean(),
  at: z.string(),
});
const LabelsSchema = z.object({ labels: z.array(LabelSchema).max(100_000) });
export type MilestoneLabel = z.infer<typeof LabelSchema>;

/** The run's labels (none when it has no labels file); a damaged or huge file throws, naming it. */
export function readLabels(runDir: string): MilestoneLabel[] {
  if (!existsSync(path.join(runDir, LABELS_FILE))) return [];
  return readJsonFile(resolveRunFile(runDir, LABELS_FILE), LabelsSchema, 'milestone labels').labels;
}

/** run.json's `milestones` record as far as labels read it: each judged episode's checklist. */
const JudgedSchema = z.looseObject({
  episodes: z
    .array(
      z.looseObject({
        episode: z.number().int().nonnegative(),
        items: z.array(z.looseObject({ name: z.string().min(1).max(400), reached: z.boolean() })).max(10_000),
      }),
    )
    .max(100_000)
    .optional(),
});

/**
 * The milestones the run's judge had, per episode, from run.json's `milestones` record (`file`:
 * that run.json). A record of the wrong shape is refused, naming file, line and field; `outcome`
 * says what did not happen.
 */
export function judgedItems(
  meta: { milestones?: unknown },
  file: string,
  outcome: string,
): Map<number, { name: string; reached: boolean }[]> {
  if (meta.milestones === undefined) return new Map();
  const r = JudgedSchema.safeParse(meta.milestones);
  if (!r.success) {
    const { path: field, reason } = issueAt(r.error, ['milestones']);
    refuseJsonField(file, 'run', field, reason, outcome);
  }
  return new Map(
    (r.data.episodes ?? []).map((e) => [e.episode, e.items.map((i) => ({ name: i.name, reached: i.reached }))]),
  );
}

/**
 * Sets (or, with `reached` null, clears) a person's label on one milestone of a judged run.
 * The milestone must be one of that episode's checklist.
 */
export function setLabel(
  runDir: string,
  meta: { milestones?: unknown },
  label: { episode: number; milestone: string; reached: boolean | null },
): MilestoneLabel[] {
  const items = judgedItems(meta, path.join(runDir, 'run.json'), 'no label was saved').get(label.episode);
  if (!items)
    throw new CodedError('bad-input', `episode ${label.episode} of ${runDir} was not judged; judge the run first`);
  const item = items.find((i) => i.name.trim().toLowerCase() === label.milestone.trim().toLowerCase());
  if (!item)
    throw new CodedError(
      'bad-input',
      `no milestone "${label.milestone}" in episode ${label.episode} (milestones: ${items.map((i) => i.name).join(', ')})`,
    );
  const labels = readLabels(runDir).filter((l) => !(l.episode === label.episode && l.milestone === item.name));
  if (label.reached !== null)
    labels.push({ episode: label.episode, milestone: item.name, reached: label.reached, at: new Date().toISOString() });
  labels.sort((a, b) => a.episode - b.episode);
  writeFileAtomic(path.join(runDir, LABELS_FILE), `${JSON.stringify({ labels }, null, 2)}\n`);
  return labels;
}
