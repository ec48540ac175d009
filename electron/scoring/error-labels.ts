/**
 * A person's class for a failed episode, kept apart from the judge's in the run folder
 * (`error-labels.json`), as milestone labels are: a label never changes errors.json, so the
 * judge's class and the person's can always be compared — percent agreement and Cohen's kappa
 * over the episodes both classified.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { CodedError, round2 } from '../domain.ts';
import { readJsonFile } from '../store/json-rows.ts';
import { resolveRunFile } from '../store/run-files.ts';
import type { RunMeta } from '../store/run-store.ts';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { classesOf, failedEpisodes, normaliseClass, taxonomyOf, type ErrorRecord } from './error-taxonomy.ts';

export const ERROR_LABELS_FILE = 'error-labels.json';

const LabelSchema = z.object({
  episode: z.number().int().nonnegative(),
  class: z.string().min(1).max(100),
  at: z.string(),
});
const LabelsSchema = z.object({ labels: z.array(LabelSchema).max(100_000) });
export type ErrorLabel = z.infer<typeof LabelSchema>;

/** The run's labels (none without a labels file); a damaged or huge file throws, naming it. */
export function readErrorLabels(dir: string): ErrorLabel[] {
  if (!existsSync(path.join(dir, ERROR_LABELS_FILE))) return [];
  return readJsonFile(resolveRunFile(dir, ERROR_LABELS_FILE), LabelsSchema, 'error labels').labels;
}

/**
 * Sets (or, with `class` null, clears) a person's class for one failed episode of the run; the
 * class must be one of the run's taxonomy.
 */
export function setErrorLabel(
  dir: string,
  meta: RunMeta,
  label: { episode: number; class: string | null },
): ErrorLabel[] {
  const failed = failedEpisodes(meta).map((e) => e.episode);
  if (!failed.includes(label.episode))
    throw new CodedError(
      'bad-input',
      `episode ${label.episode} of ${dir} is not a failed episode of a completed model run (failed episodes: ${failed.join(', ') || 'none'})`,
    );
  const labels = readErrorLabels(dir).filter((l) => l.episode !== label.episode);
  if (label.class !== null) {
    const ids = classesOf(taxonomyOf(meta));
    const c = normaliseClass(label.class);
    if (!ids.includes(c))
      throw new CodedError('bad-input', `"${label.class}" is not a class of this run's taxonomy (${ids.join(', ')})`);
    labels.push({ episode: label.episode, class: c, at: new Date().toISOString() });
  }
  labels.sort((a, b) => a.episode - b.episode);
  writeFileAtomic(path.join(dir, ERROR_LABELS_FILE), `${JSON.stringify({ labels }, null, 2)}\n`);
  return labels;
}

/** One episode both the judge and a person classified. */
export interface ClassPair {
  judge: string;
  human: string;
}

/** The pairs of one run: its labelled episodes the judge classified (unclassified ones are not paired). */
export function classPairs(record: ErrorRecord | null, labels: ErrorLabel[]): ClassPair[] {
  if (!record) return [];
  return labels.flatMap((l) => {
    const judged = record.episodes.find((v) => v.episode === l.episode)?.class;
    return judged ? [{ judge: judged, human: l.class }] : [];
  });
}

export interface ClassAgreement {
  episodes: number;
  agreed: number;
  /** Percent of episodes given the same class. */
  percent: number | null;
  /**
   * Cohen's kappa: (observed − chance agreement) / (1 − chance), chance from each side's own
   * class shares; null with no pairs, or when chance agreement is 1 (both gave one class throughout).
   */
  kappa: number | null;
}

export function classAgreement(pairs: ClassPair[]): ClassAgreement {
  const n = pairs.length;
  if (!n) return { episodes: 0, agreed: 0, percent: null, kappa: null };
  const agreed = pairs.filter((p) => p.judge === p.human).length;
  const observed = agreed / n;
  const classes = new Set(pairs.flatMap((p) => [p.judge, p.human]));
  let chance = 0;
  for (const c of classes)
    chance += (pairs.filter((p) => p.judge === c).length / n) * (pairs.filter((p) => p.human === c).length / n);
  return {
    episodes: n,
    agreed,
    percent: round2(observed * 100),
    kappa: chance >= 1 ? null : Math.round(((observed - chance) / (1 - chance)) * 1000) / 1000,
  };
}
