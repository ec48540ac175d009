/**
 * The analyses the papers print beside their tables, from a runs folder:
 * - the error taxonomy (GameVerse Fig. 7, ING-VP Fig. 3): per taxonomy × model × category, how
 *   many failed episodes the judge put in each class (errors.json), how many it could not
 *   classify and how many were not judged, and its agreement with people's labels;
 * - the action budget (OmniGameArena Tables 8/9): per title × player × protocol, actions per
 *   episode and score per action, PDQ (stop with a 0 ms interval) beside LCRT. An action is one
 *   that steps.jsonl records as sent into the game (`outcomes[].ok`), not one the model proposed.
 */
import { z } from 'zod';
import { round2 } from '../domain.ts';
import { classAgreement, classPairs, readErrorLabels, type ClassPair } from '../scoring/error-labels.ts';
import {
  TAXONOMY_NAMES,
  classesOf,
  failedEpisodes,
  readErrors,
  taxonomyOf,
  type ErrorRecord,
  type Taxonomy,
} from '../scoring/error-taxonomy.ts';
import { isScoredRun } from '../store/leaderboard.ts';
import { isCountedEpisode } from '../store/run-quality.ts';
import type { RunMeta, StepRecord } from '../store/run-store.ts';
import { titleOf } from '../store/run-title.ts';
import { protocolLabel, protocolOf } from '../store/run-protocol.ts';

const count = z.number().int().nonnegative();
const num = z.number().finite();

export const ErrorCountRowSchema = z.object({
  taxonomy: z.enum(TAXONOMY_NAMES as [Taxonomy, ...Taxonomy[]]),
  player: z.string(),
  model: z.string().nullable(),
  /** GameVerse's category of the titles counted (NO_CATEGORY: titles without one); null: every title of the model together. */
  category: z.string().nullable(),
  failed: count,
  /** Failed episodes the judge put in a class. */
  classified: count,
  /** Failed episodes the judge answered about but could not classify (a bad answer, a failed call). */
  unclassified: count,
  /** Failed episodes with no verdict (never judged, or judged before the episode was). */
  not_judged: count,
  /** Class → episodes. */
  counts: z.record(z.string(), count),
  /** Class → share of the classified episodes (0–100). */
  shares: z.record(z.string(), num),
});
export type ErrorCountRow = z.output<typeof ErrorCountRowSchema>;

export const ErrorAgreementRowSchema = z.object({
  taxonomy: z.enum(TAXONOMY_NAMES as [Taxonomy, ...Taxonomy[]]),
  judge_model: z.string(),
  episodes: count,
  agreed: count,
  percent: num.nullable(),
  kappa: num.nullable(),
});

export const ActionBudgetRowSchema = z.object({
  game: z.string(),
  player: z.string(),
  model: z.string().nullable(),
  /** PDQ, LCRT, or the run's protocol (store/run-protocol.ts `protocolLabel`). */
  protocol: z.string(),
  runs: count,
  episodes: count,
  actions_per_episode: num,
  steps_per_episode: num,
  mean_score: num,
  /** Score (0–100) per action sent; null when no action was sent. */
  score_per_action: num.nullable(),
});
export type ActionBudgetRow = z.output<typeof ActionBudgetRowSchema>;

export const AnalysesSchema = z.object({
  errors: z.array(ErrorCountRowSchema),
  error_agreement: z.array(ErrorAgreementRowSchema),
  action_budget: z.array(ActionBudgetRowSchema),
});
export type Analyses = z.output<typeof AnalysesSchema>;
export const NO_ANALYSES: Analyses = { errors: [], error_agreement: [], action_budget: [] };

/** A run as the analyses read it: its folder, run.json and (read when first asked) its steps. */
export interface AnalysedRun {
  dir: string;
  meta: RunMeta;
  steps: () => StepRecord[];
}

/** A title's category where its runs recorded none (the report's catalog of profiles). */
export type CategoryOf = (titleId: string) => string | null;

export function analysesOf(runs: AnalysedRun[], warnings: string[], categoryOf: CategoryOf = () => null): Analyses {
  return { ...errorTaxonomy(runs, warnings, categoryOf), action_budget: actionBudget(runs, warnings) };
}

// ─── Error taxonomy ─────────────────────────────────────────────────────────────────────────

/** The per-category row of a title with no category. */
export const NO_CATEGORY = 'no category';

function errorTaxonomy(
  runs: AnalysedRun[],
  warnings: string[],
  categoryOf: CategoryOf,
): Pick<Analyses, 'errors' | 'error_agreement'> {
  const rows = new Map<string, ErrorCountRow>();
  const pairs = new Map<string, { taxonomy: Taxonomy; judge_model: string; pairs: ClassPair[] }>();
  const rowFor = (taxonomy: Taxonomy, meta: RunMeta, category: string | null) => {
    const key = [taxonomy, meta.agent, meta.model ?? '', category ?? ''].join('|');
    let row = rows.get(key);
    if (!row) {
      const zero = Object.fromEntries(classesOf(taxonomy).map((c) => [c, 0]));
      row = {
        taxonomy,
        player: meta.agent,
        model: meta.model,
        category,
        failed: 0,
        classified: 0,
        unclassified: 0,
        not_judged: 0,
        counts: { ...zero },
        shares: { ...zero },
      };
      rows.set(key, row);
    }
    return row;
  };
  for (const { dir, meta } of runs) {
    const failed = failedEpisodes(meta);
    if (!failed.length) continue;
    let record: ErrorRecord | null;
    try {
      record = readErrors(dir);
    } catch (err) {
      warnings.push(`error taxonomy: ${(err as Error).message}`);
      record = null;
    }
    const taxonomy = record?.taxonomy ?? taxonomyOf(meta);
    const title = titleOf(meta);
    const category = title.category ?? categoryOf(title.id) ?? NO_CATEGORY;
    const targets = [rowFor(taxonomy, meta, null), rowFor(taxonomy, meta, category)];
    for (const f of failed) {
      const verdict = record?.episodes.find((v) => v.episode === f.episode);
      for (const row of targets) {
        row.failed++;
        if (!verdict) row.not_judged++;
        else if (verdict.class === null) row.unclassified++;
        else {
          row.classified++;
          row.counts[verdict.class] = (row.counts[verdict.class] ?? 0) + 1;
        }
      }
    }
    if (!record) continue;
    try {
      const mine = classPairs(record, readErrorLabels(dir));
      if (!mine.length) continue;
      const key = [record.taxonomy, record.judge_model].join('|');
      const p = pairs.get(key) ?? { taxonomy: record.taxonomy, judge_model: record.judge_model, pairs: [] };
      p.pairs.push(...mine);
      pairs.set(key, p);
    } catch (err) {
      warnings.push(`error labels: ${(err as Error).message}`);
    }
  }
  for (const row of rows.values())
    for (const c of Object.keys(row.counts))
      row.shares[c] = row.classified ? round2((row.counts[c]! / row.classified) * 100) : 0;
  const errors = [...rows.values()].sort(
    (a, b) =>
      TAXONOMY_NAMES.indexOf(a.taxonomy) - TAXONOMY_NAMES.indexOf(b.taxonomy) ||
      (a.model ?? a.player).localeCompare(b.model ?? b.player) ||
      a.player.localeCompare(b.player) ||
      // Each model's all-categories row first.
      (a.category === null ? -1 : b.category === null ? 1 : a.category.localeCompare(b.category)),
  );
  const error_agreement = [...pairs.values()].map((p) => ({
    taxonomy: p.taxonomy,
    judge_model: p.judge_model,
    ...classAgreement(p.pairs),
  }));
  return { errors, error_agreement };
}

// ─── Action budget ──────────────────────────────────────────────────────────────────────────

/** Actions a step sent into the game, as steps.jsonl observed them. */
const sentActions = (s: StepRecord): number =>
  Array.isArray(s.outcomes) ? s.outcomes.filter((o) => (o as { ok?: unknown })?.ok === true).length : 0;

function actionBudget(runs: AnalysedRun[], warnings: string[]): ActionBudgetRow[] {
  const groups = new Map<
    string,
    { meta: RunMeta; protocol: string; runs: number; episodes: number; actions: number; steps: number; score: number }
  >();
  for (const { dir, meta, steps } of runs) {
    if (!isScoredRun(meta) || meta.kind !== 'agent' || meta.assisted) continue;
    const episodes = meta.episodes.filter(isCountedEpisode);
    if (!episodes.length) continue;
    let all: StepRecord[];
    try {
      all = steps();
    } catch (err) {
      warnings.push(`action budget: left out ${dir}: ${(err as Error).message}`);
      continue;
    }
    const protocol = protocolLabel(protocolOf(meta));
    const key = [titleOf(meta).id, meta.agent, meta.model ?? '', protocol].join('|');
    const g = groups.get(key) ?? { meta, protocol, runs: 0, episodes: 0, actions: 0, steps: 0, score: 0 };
    g.runs++;
    for (const e of episodes) {
      const own = all.filter((s) => s.episode === e.episode);
      g.episodes++;
      g.steps += own.length;
      g.actions += own.reduce((n, s) => n + sentActions(s), 0);
      g.score += e.score;
    }
    groups.set(key, g);
  }
  const order = (p: string) => (p.startsWith('PDQ') ? 0 : p.startsWith('LCRT') ? 1 : 2);
  return [...groups.values()]
    .map((g) => ({
      game: titleOf(g.meta).id,
      player: g.meta.agent,
      model: g.meta.model,
      protocol: g.protocol,
      runs: g.runs,
      episodes: g.episodes,
      actions_per_episode: round2(g.actions / g.episodes),
      steps_per_episode: round2(g.steps / g.episodes),
      mean_score: round2(g.score / g.episodes),
      score_per_action: g.actions ? Math.round((g.score / g.actions) * 1e4) / 1e4 : null,
    }))
    .sort(
      (a, b) =>
        a.game.localeCompare(b.game) ||
        (a.model ?? a.player).localeCompare(b.model ?? b.player) ||
        order(a.protocol) - order(b.protocol) ||
        a.protocol.localeCompare(b.protocol),
    );
}
