/**
 * How far a milestone judge agrees with people (GameVerse Tab. 9): over runs whose checklists a
 * person labelled, per game, the mean judged score, the mean human score and their percentage
 * difference |judged − human| / human × 100 — the paper does not define the formula; this is
 * the reading that reproduces its table (docs/fidelity.md). A person's score takes their label
 * where they gave one and the judge's verdict where they left it.
 */
import path from 'node:path';
import { titleOf } from '../store/run-title.ts';
import { mean } from '../util/time.ts';
import type { RunMeta } from '../store/run-store.ts';
import { judgedItems, readLabels } from './milestone-labels.ts';
import { round2 } from '../domain.ts';

export interface AgreementRow {
  game: string;
  runs: number;
  episodes: number;
  labels: number;
  judged: number;
  human: number;
  /** null when the human mean is 0 and the judged one is not (the ratio has no value). */
  pct_diff: number | null;
}

export interface LabelledEpisode {
  game: string;
  run: string;
  episode: number;
  judged: number;
  human: number;
  labels: number;
}

/** Each labelled episode of a judged run: its judged and human scores (0–100). */
export function labelledEpisodes(dir: string, meta: RunMeta): LabelledEpisode[] {
  const labels = readLabels(dir);
  if (!labels.length) return [];
  const out: LabelledEpisode[] = [];
  for (const [episode, items] of judgedItems(meta, path.join(dir, 'run.json'), 'its labels were not counted')) {
    const mine = labels.filter((l) => l.episode === episode);
    if (!mine.length || !items.length) continue;
    const human = items.filter((i) => mine.find((l) => l.milestone === i.name)?.reached ?? i.reached).length;
    const judged = items.filter((i) => i.reached).length;
    out.push({
      game: titleOf(meta).id,
      run: meta.id,
      episode,
      judged: (judged / items.length) * 100,
      human: (human / items.length) * 100,
      labels: mine.length,
    });
  }
  return out;
}

/** |judged − human| / human × 100 (0 when both are 0). */
export function percentDifference(judged: number, human: number): number | null {
  if (human === 0) return judged === 0 ? 0 : null;
  return round2((Math.abs(judged - human) / human) * 100);
}

export function agreement(episodes: LabelledEpisode[]): AgreementRow[] {
  const games = [...new Set(episodes.map((e) => e.game))].sort();
  return games.map((game) => {
    const mine = episodes.filter((e) => e.game === game);
    const judged = mean(mine.map((e) => e.judged));
    const human = mean(mine.map((e) => e.human));
    return {
      game,
      runs: new Set(mine.map((e) => e.run)).size,
      episodes: mine.length,
      labels: mine.reduce((n, e) => n + e.labels, 0),
      judged: round2(judged),
      human: round2(human),
      pct_diff: percentDifference(judged, human),
    };
  });
}
