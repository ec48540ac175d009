/**
 * The paper-style table: for each game and setting, accuracy (% of levels solved within the
 * limit), completion degree (mean, 0–100) and action efficiency (the paper's formula: the mean
 * over levels of changed / all actions, %), plus the authors' code's pooled efficiency (all
 * changed actions / all actions) beside it; an "all" row per setting over every game. §4.3's
 * settings (Best of 10, Forced Planning) are columns beside the six, with the same metrics; the
 * maze-length study (Fig. 4) is a table of its own: a row per shortest-solution length.
 */
import { INGVP_ANALYSIS_SETTINGS, round2, type SuiteSetting } from '../domain.ts';

export interface CellMetrics {
  levels: number;
  accuracy: number;
  completion: number;
  efficiency: number;
  efficiency_pooled: number;
}

/** Fig. 4: the maze levels by shortest-solution length ("original": the suite's own 4–8-move levels). */
export interface MazeStudyTable<S extends string = SuiteSetting> {
  lengths: (number | 'original')[];
  rows: Record<string, Partial<Record<S, CellMetrics>>>;
}

export interface SuiteTable<S extends string = SuiteSetting> {
  settings: S[];
  games: string[];
  /** rows[game][setting]; game "all" pools every game's levels. */
  rows: Record<string, Partial<Record<S, CellMetrics>>>;
  maze_study?: MazeStudyTable<S>;
}

/** One level's result: what the suite keeps in suite.json, and each level run's `ingvp` block. */
export interface LevelRow<S extends string = SuiteSetting> {
  game: string;
  setting: S;
  solved: boolean;
  completion: number;
  efficiency: number;
  actions: number;
  changed: number;
  /** A maze-length study level: its shortest solution's length. */
  maze_steps?: number;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

export function cellOf(rows: LevelRow<string>[]): CellMetrics {
  const actions = rows.reduce((n, r) => n + r.actions, 0);
  return {
    levels: rows.length,
    accuracy: round2(mean(rows.map((r) => (r.solved ? 100 : 0)))),
    completion: round2(mean(rows.map((r) => r.completion))),
    efficiency: round2(mean(rows.map((r) => r.efficiency))),
    efficiency_pooled: round2(actions ? (rows.reduce((n, r) => n + r.changed, 0) / actions) * 100 : 0),
  };
}

/**
 * The table of level results (the suite's table.json, and the report's ING-VP table per player).
 * Maze-length study levels are left out of the game rows; given `mazeSteps`, they make the study's table.
 */
export function tableOf<S extends string>(
  results: LevelRow<S>[],
  settings: S[],
  games: string[],
  mazeSteps: number[] = [],
): SuiteTable<S> {
  const standard = results.filter((r) => r.maze_steps === undefined);
  const rows: SuiteTable<S>['rows'] = {};
  for (const game of [...games, 'all']) {
    rows[game] = {};
    for (const setting of settings) {
      const mine = standard.filter((r) => r.setting === setting && (game === 'all' || r.game === game));
      if (mine.length) rows[game]![setting] = cellOf(mine);
    }
  }
  const table: SuiteTable<S> = { settings, games, rows };
  if (mazeSteps.length) {
    const original = standard.filter((r) => r.game === 'ingvp-maze');
    const lengths: (number | 'original')[] = [...(original.length ? ['original' as const] : []), ...mazeSteps];
    const study: MazeStudyTable<S> = { lengths, rows: {} };
    for (const length of lengths) {
      const mine = length === 'original' ? original : results.filter((r) => r.maze_steps === length);
      const cells: Partial<Record<S, CellMetrics>> = {};
      for (const setting of settings) {
        const inSetting = mine.filter((r) => r.setting === setting);
        if (inSetting.length) cells[setting] = cellOf(inSetting);
      }
      study.rows[String(length)] = cells;
    }
    table.maze_study = study;
  }
  return table;
}

/** Column heads; §4.3's settings are marked so. */
const SHORT: Record<SuiteSetting, string> = {
  'one-step-image': 'OS img',
  'one-step-text': 'OS txt',
  'multi-step-image': 'MS img',
  'multi-step-text': 'MS txt',
  'multi-step-image-history': 'MS img+h',
  'multi-step-text-history': 'MS txt+h',
  'best-of-10': 'BoN10 §4.3',
  'forced-planning': 'FP §4.3',
};

const METRICS = [
  ['Acc.', 'accuracy'],
  ['Comp.', 'completion'],
  ['Eff.', 'efficiency'],
] as const;

const W = 10;
const head = (first: string, settings: SuiteSetting[]) =>
  [first.padEnd(12), 'metric'.padEnd(7), ...settings.map((s) => SHORT[s].padStart(W))].join(' ');

function lines(
  label: (key: string) => string,
  keys: string[],
  t: Pick<SuiteTable, 'settings'>,
  rows: SuiteTable['rows'],
) {
  const out: string[] = [];
  for (const key of keys)
    for (const [metric, field] of METRICS) {
      const cells = t.settings.map((s) => {
        const c = rows[key]?.[s];
        return (c ? c[field].toFixed(2) : '–').padStart(W);
      });
      out.push([(metric === 'Acc.' ? label(key) : '').padEnd(12), metric.padEnd(7), ...cells].join(' '));
    }
  return out;
}

/** The table as text: one line per game and metric, a column per setting (Acc / Comp / Eff, %); then the maze-length study. */
export function formatTable(t: SuiteTable): string {
  const out = [head('game', t.settings), ...lines((g) => g, [...t.games, 'all'], t, t.rows)];
  const analysis = t.settings.filter((s) => (INGVP_ANALYSIS_SETTINGS as readonly string[]).includes(s));
  if (analysis.length)
    out.push(
      '§4.3: the paper’s adjustments of the multi-step output (text, no history): BoN10 = step-wise Best of 10 (the most frequent of ten answers played), FP = Forced Planning (the whole plan written before each move).',
    );
  if (t.maze_study) {
    out.push('', 'Maze-length study (ING-VP Fig. 4): maze levels by the length of their shortest solution');
    out.push(
      head('moves', t.settings),
      ...lines(
        (k) => (k === 'original' ? 'original' : `${k} moves`),
        t.maze_study.lengths.map(String),
        t,
        t.maze_study.rows,
      ),
    );
  }
  return out.join('\n');
}
