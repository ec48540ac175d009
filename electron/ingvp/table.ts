/**
 * The paper-style table: for each game and setting, accuracy (% of levels solved within the
 * limit), completion degree (mean, 0–100) and action efficiency (the paper's formula: the mean
 * over levels of changed / all actions, %), plus the authors' code's pooled efficiency (all
 * changed actions / all actions) beside it; an "all" row per setting over every game.
 */
import { round2 } from '../domain.ts';
import type { IngvpSetting } from './ingvp-settings.ts';

export interface CellMetrics {
  levels: number;
  accuracy: number;
  completion: number;
  efficiency: number;
  efficiency_pooled: number;
}

export interface SuiteTable {
  settings: IngvpSetting[];
  games: string[];
  /** rows[game][setting]; game "all" pools every game's levels. */
  rows: Record<string, Partial<Record<IngvpSetting, CellMetrics>>>;
}

/** One level's result: what the suite keeps in suite.json, and each level run's `ingvp` block. */
export interface LevelRow {
  game: string;
  setting: IngvpSetting;
  solved: boolean;
  completion: number;
  efficiency: number;
  actions: number;
  changed: number;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

export function cellOf(rows: LevelRow[]): CellMetrics {
  const actions = rows.reduce((n, r) => n + r.actions, 0);
  return {
    levels: rows.length,
    accuracy: round2(mean(rows.map((r) => (r.solved ? 100 : 0)))),
    completion: round2(mean(rows.map((r) => r.completion))),
    efficiency: round2(mean(rows.map((r) => r.efficiency))),
    efficiency_pooled: round2(actions ? (rows.reduce((n, r) => n + r.changed, 0) / actions) * 100 : 0),
  };
}

/** The table of level results (the suite's table.json, and the report's ING-VP table per player). */
export function tableOf(results: LevelRow[], settings: IngvpSetting[], games: string[]): SuiteTable {
  const rows: SuiteTable['rows'] = {};
  for (const game of [...games, 'all']) {
    rows[game] = {};
    for (const setting of settings) {
      const mine = results.filter((r) => r.setting === setting && (game === 'all' || r.game === game));
      if (mine.length) rows[game]![setting] = cellOf(mine);
    }
  }
  return { settings, games, rows };
}

const SHORT: Record<IngvpSetting, string> = {
  'one-step-image': 'OS img',
  'one-step-text': 'OS txt',
  'multi-step-image': 'MS img',
  'multi-step-text': 'MS txt',
  'multi-step-image-history': 'MS img+h',
  'multi-step-text-history': 'MS txt+h',
};

/** The table as text: one line per game and metric, a column per setting (Acc / Comp / Eff, %). */
export function formatTable(t: SuiteTable): string {
  const w = 10;
  const head = ['game', 'metric', ...t.settings.map((s) => SHORT[s])];
  const lines = [head.map((h, i) => (i < 2 ? h.padEnd(i ? 7 : 12) : h.padStart(w))).join(' ')];
  for (const game of [...t.games, 'all']) {
    for (const [metric, key] of [
      ['Acc.', 'accuracy'],
      ['Comp.', 'completion'],
      ['Eff.', 'efficiency'],
    ] as const) {
      const cells = t.settings.map((s) => {
        const c = t.rows[game]?.[s];
        return (c ? c[key].toFixed(2) : '–').padStart(w);
      });
      lines.push([(metric === 'Acc.' ? game : '').padEnd(12), metric.padEnd(7), ...cells].join(' '));
    }
  }
  return lines.join('\n');
}
