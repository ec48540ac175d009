/**
 * The analyses (analyses.ts) as the report draws them: the error-taxonomy tables and stacked
 * bars (one per taxonomy, as GameVerse's Fig. 7 and ING-VP's Fig. 3), the judge's agreement
 * with people, the action-budget table laid out as OmniGameArena's Tables 8/9; and as CSV.
 */
import type { ReportChart, ReportTable } from '../domain.ts';
import { TAXONOMIES, TAXONOMY_NAMES, classesOf, type Taxonomy } from '../scoring/error-taxonomy.ts';
import { NO_CATEGORY, type ActionBudgetRow, type Analyses, type ErrorCountRow } from './analyses.ts';

const TAXONOMY_TITLES: Record<Taxonomy, string> = {
  gameverse: 'Error taxonomy (GameVerse Fig. 7): failed episodes per class',
  ingvp: 'Error taxonomy (ING-VP Fig. 3): failed levels per class',
};
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948'];

const playerLabel = (r: { player: string; model: string | null }) =>
  r.model ? (r.player === 'vlm' ? r.model : `${r.model} (${r.player})`) : r.player;
const percent = (n: number | null) => (n === null ? null : `${n.toFixed(1)}%`);

/** `categoryName`: a GameVerse category as the report's other tables name it. */
export function analysesTables(a: Analyses, empty: string, categoryName: (id: string) => string): ReportTable[] {
  return [
    ...TAXONOMY_NAMES.map((t) => errorTable(t, a.errors, empty, categoryName)),
    agreementTable(a, empty),
    budgetTable(a, empty),
  ];
}

function errorTable(
  taxonomy: Taxonomy,
  all: ErrorCountRow[],
  empty: string,
  categoryName: (id: string) => string,
): ReportTable {
  const rows = all.filter((r) => r.taxonomy === taxonomy);
  const classes = classesOf(taxonomy);
  return {
    id: `errors-${taxonomy}`,
    title: TAXONOMY_TITLES[taxonomy],
    note: `A judge model classed each failed episode (score below 100; for ING-VP a level left unsolved) of completed, unassisted model runs from its steps and frames (gamepilot errors judge). Each cell: episodes (share of the classified ones). Classes: ${classes.map((c) => `${c}: ${TAXONOMIES[taxonomy][c as keyof (typeof TAXONOMIES)[typeof taxonomy]]}`).join(' ')} Unclassified: the judge's answer or call could not be used; not judged: no verdict for the episode.`,
    columns: [
      { key: 'player', label: 'Model' },
      { key: 'category', label: 'Category' },
      { key: 'failed', label: 'Failed' },
      ...classes.map((c) => ({ key: c, label: c })),
      { key: 'unclassified', label: 'Unclassified' },
      { key: 'not_judged', label: 'Not judged' },
    ],
    rows: rows.map((r) => ({
      player: playerLabel(r),
      category: r.category === null ? 'all' : r.category === NO_CATEGORY ? NO_CATEGORY : categoryName(r.category),
      failed: r.failed,
      ...Object.fromEntries(classes.map((c) => [c, `${r.counts[c] ?? 0} (${(r.shares[c] ?? 0).toFixed(1)}%)`])),
      unclassified: r.unclassified,
      not_judged: r.not_judged,
    })),
    empty,
  };
}

function agreementTable(a: Analyses, empty: string): ReportTable {
  return {
    id: 'error-agreement',
    title: 'Error judge vs people',
    note: "Over failed episodes both the judge and a person classified (gamepilot errors label): how often they gave the same class, and Cohen's kappa (agreement beyond chance; – when both gave one class throughout).",
    columns: [
      { key: 'taxonomy', label: 'Taxonomy' },
      { key: 'judge_model', label: 'Judge' },
      { key: 'episodes', label: 'Episodes' },
      { key: 'agreed', label: 'Same class' },
      { key: 'percent', label: 'Agreement' },
      { key: 'kappa', label: "Cohen's kappa" },
    ],
    rows: a.error_agreement.map((r) => ({
      taxonomy: r.taxonomy,
      judge_model: r.judge_model,
      episodes: r.episodes,
      agreed: r.agreed,
      percent: percent(r.percent),
      kappa: r.kappa === null ? null : r.kappa.toFixed(3),
    })),
    empty,
  };
}

/** PDQ, LCRT, then the other protocols played, by name. */
function protocolsOf(rows: ActionBudgetRow[]): string[] {
  const rank = (p: string) => (p.startsWith('PDQ') ? 0 : p.startsWith('LCRT') ? 1 : 2);
  return [...new Set(rows.map((r) => r.protocol))].sort((x, y) => rank(x) - rank(y) || x.localeCompare(y));
}

function budgetTable(a: Analyses, empty: string): ReportTable {
  const protocols = protocolsOf(a.action_budget);
  const byCell = new Map<string, Record<string, string | number | null>>();
  for (const r of a.action_budget) {
    const key = [r.game, r.player, r.model ?? ''].join('|');
    const row = byCell.get(key) ?? { game: r.game, player: playerLabel(r) };
    row[`actions:${r.protocol}`] = `${r.actions_per_episode.toFixed(1)} (${r.episodes})`;
    row[`score:${r.protocol}`] = r.score_per_action === null ? null : r.score_per_action.toFixed(4);
    byCell.set(key, row);
  }
  return {
    id: 'action-budget',
    title: 'Action budget (OmniGameArena Tables 8/9): actions per episode and score per action',
    note: 'Per title × player × protocol over completed, unassisted runs: actions per episode are the actions steps.jsonl records as sent into the game (outcomes marked ok), episodes in brackets; score per action is the episodes’ total score (0–100) over their total actions. PDQ: stop with a 0 ms interval; LCRT: the model’s own time charged to the game.',
    groups: protocols.length
      ? [
          { label: '', span: 2 },
          { label: 'Actions / episode', span: protocols.length },
          { label: 'Score / action', span: protocols.length },
        ]
      : undefined,
    columns: [
      { key: 'game', label: 'Title' },
      { key: 'player', label: 'Player' },
      ...protocols.map((p) => ({ key: `actions:${p}`, label: p })),
      ...protocols.map((p) => ({ key: `score:${p}`, label: p })),
    ],
    rows: [...byCell.values()],
    empty,
  };
}

/** A stacked bar per model (every category together), a segment per class, as the papers' figures. */
export function analysesCharts(a: Analyses): ReportChart[] {
  return TAXONOMY_NAMES.flatMap((taxonomy) => {
    const rows = a.errors.filter((r) => r.taxonomy === taxonomy && r.category === null && r.classified > 0);
    if (!rows.length) return [];
    return [
      {
        id: `errors-${taxonomy}-bars`,
        title: TAXONOMY_TITLES[taxonomy],
        section: `errors-${taxonomy}`,
        config: {
          type: 'bar',
          data: {
            labels: rows.map(playerLabel),
            datasets: classesOf(taxonomy).map((c, i) => ({
              label: c,
              data: rows.map((r) => r.counts[c] ?? 0),
              backgroundColor: PALETTE[i % PALETTE.length],
            })),
          },
          options: {
            animation: false,
            responsive: true,
            maintainAspectRatio: false,
            plugins: { title: { display: true, text: `${TAXONOMY_TITLES[taxonomy]} (episodes)` } },
            scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } },
          },
        },
      },
    ];
  });
}

type Cell = string | number | null;

/** File name → header and rows, long format (one row a measurement), for the report's CSV writer. */
export function analysesCsv(a: Analyses): Record<string, { header: string[]; rows: Cell[][] }> {
  return {
    'errors.csv': {
      header: [
        'taxonomy',
        'player',
        'model',
        'category',
        'failed',
        'classified',
        'unclassified',
        'not_judged',
        'class',
        'episodes',
        'share',
      ],
      rows: a.errors.flatMap((r) =>
        classesOf(r.taxonomy).map((c) => [
          r.taxonomy,
          r.player,
          r.model,
          r.category ?? 'all',
          r.failed,
          r.classified,
          r.unclassified,
          r.not_judged,
          c,
          r.counts[c] ?? 0,
          r.shares[c] ?? 0,
        ]),
      ),
    },
    'error-agreement.csv': {
      header: ['taxonomy', 'judge_model', 'episodes', 'agreed', 'percent', 'kappa'],
      rows: a.error_agreement.map((r) => [r.taxonomy, r.judge_model, r.episodes, r.agreed, r.percent, r.kappa]),
    },
    'action-budget.csv': {
      header: [
        'game',
        'player',
        'model',
        'protocol',
        'runs',
        'episodes',
        'actions_per_episode',
        'steps_per_episode',
        'mean_score',
        'score_per_action',
      ],
      rows: a.action_budget.map((r) => [
        r.game,
        r.player,
        r.model,
        r.protocol,
        r.runs,
        r.episodes,
        r.actions_per_episode,
        r.steps_per_episode,
        r.mean_score,
        r.score_per_action,
      ]),
    },
  };
}
