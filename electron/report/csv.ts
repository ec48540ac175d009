/**
 * The report's data as CSV: one file a section, one row a measurement (long format, numbers
 * unformatted), with a header even when the section is empty. Text cells that a spreadsheet
 * would run as a formula (=, +, -, @ first) are prefixed with an apostrophe.
 */
import type { Player, ReportData } from './model.ts';
import { analysesCsv } from './analyses-view.ts';

type Cell = string | number | boolean | null | undefined;

function cell(v: Cell): string {
  if (v === null || v === undefined) return '';
  if (typeof v !== 'string') return String(v);
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function csv(header: string[], rows: Cell[][]): string {
  return `${[header, ...rows].map((r) => r.map(cell).join(',')).join('\r\n')}\r\n`;
}

const WHO = ['player', 'label', 'model', 'vr', 'lessons', 'space', 'latency'];

/** A row's player cells, in WHO's order. */
function whoCells(r: Player): Cell[] {
  return [r.player, r.label, r.model, r.vr, r.lessons, r.actionSpace, r.latency];
}

/** A by-category or by-tier table: the group, the player, its mean over the group's games. */
function groupCsv(group: string, rows: ReportData['gameverse']['by_tier']): string {
  return csv(
    [group, ...WHO, 'mean', 'games'],
    rows.map((r) => [r.group, ...whoCells(r), r.mean, r.games]),
  );
}

/**
 * Table 3's rows, or the assisted ones (the same shape): a line a title × player cell. Columns
 * added after issue 37 come last (protocol, unreadable, not_ranked), so older readers keep theirs.
 */
function tableThreeCsv(rows: ReportData['gameverse']['rows'], d: ReportData): string {
  const games = new Map(d.gameverse.games.map((g) => [g.id, g]));
  return csv(
    [
      'game',
      'title',
      'kind',
      'category',
      'tier',
      ...WHO,
      'mean',
      'std',
      'n',
      'runs',
      'avg_rank',
      'runs_std',
      'invalid_episodes',
      'no_effect_rate',
      'invalid_rate',
      'quality_runs',
      'protocol',
      'unreadable',
      'not_ranked',
    ],
    rows.flatMap((r) =>
      Object.entries(r.cells).map(([game, s]) => {
        const g = games.get(game);
        return [
          game,
          g?.title,
          g?.kind,
          g?.category,
          g?.tier,
          ...whoCells(r),
          s.mean,
          s.std,
          s.n,
          s.runs,
          r.avg_rank,
          s.runs_std,
          s.invalid,
          s.no_effect_rate,
          s.invalid_rate,
          s.quality_runs,
          r.protocol,
          s.unreadable,
          r.not_ranked,
        ];
      }),
    ),
  );
}

/** File name → CSV text. */
/** An ING-VP cell's setting, player and metrics, in the game table's CSV and the maze study's alike. */
const INGVP_CSV_FIELDS = ['setting', 'player', 'label', 'model', 'levels', 'accuracy', 'completion', 'efficiency'];
const ingvpCsvCells = (r: Omit<ReportData['ingvp_maze_study'][number], 'moves'>) => [
  r.setting,
  r.player,
  r.label,
  r.model,
  r.levels,
  r.accuracy,
  r.completion,
  r.efficiency,
];

export function reportCsv(d: ReportData): Record<string, string> {
  return {
    'gameverse.csv': tableThreeCsv(d.gameverse.rows, d),
    'assisted.csv': tableThreeCsv(d.gameverse.assisted, d),
    'paired.csv': csv(
      ['game', 'player', 'label', 'model', 'vr', 'lessons', 'latency', 'space', 'mean', 'std', 'n', 'runs'],
      d.gameverse.paired.rows.flatMap((r) =>
        Object.entries(r.cells).flatMap(([game, pair]) =>
          (['gui', 'semantic'] as const).flatMap((space) => {
            const s = pair[space];
            return s
              ? [[game, r.player, r.label, r.model, r.vr, r.lessons, r.latency, space, s.mean, s.std, s.n, s.runs]]
              : [];
          }),
        ),
      ),
    ),
    'reflection.csv': csv(
      ['player', 'label', 'model', 'latency', 'mode', 'game', 'mean', 'std', 'n', 'runs', 'row_mean', 'row_titles'],
      d.gameverse.reflection.rows.flatMap((r) =>
        Object.entries(r.cells).map(([game, s]) => [
          r.player,
          r.label,
          r.model,
          r.latency,
          r.mode,
          game,
          s.mean,
          s.std,
          s.n,
          s.runs,
          r.mean,
          r.titles,
        ]),
      ),
    ),
    'ingvp-main.csv': csv(
      ['player', 'label', 'model', 'metric', 'setting', 'value', 'overall', 'settings'],
      d.ingvp_main.flatMap((r) =>
        Object.entries(r.cells).map(([setting, v]) => [
          r.player,
          r.label,
          r.model,
          r.metric,
          setting,
          v,
          r.overall,
          r.settings,
        ]),
      ),
    ),
    'gains.csv': csv(
      [
        'game',
        'player',
        'label',
        'model',
        'lessons',
        'space',
        'latency',
        'no_mean',
        'no_std',
        'no_n',
        'yes_mean',
        'yes_std',
        'yes_n',
        'gain',
      ],
      d.gameverse.gains.map((g) => [
        g.game,
        g.player,
        g.label,
        g.model,
        g.lessons,
        g.actionSpace,
        g.latency,
        g.no.mean,
        g.no.std,
        g.no.n,
        g.yes.mean,
        g.yes.std,
        g.yes.n,
        g.gain,
      ]),
    ),
    'categories.csv': groupCsv('category', d.gameverse.by_category),
    'tiers.csv': groupCsv('tier', d.gameverse.by_tier),
    'ingvp.csv': csv(
      ['game', ...INGVP_CSV_FIELDS, 'efficiency_pooled'],
      d.ingvp.map((r) => [r.game, ...ingvpCsvCells(r), r.efficiency_pooled]),
    ),
    'ingvp-maze-study.csv': csv(
      ['moves', ...INGVP_CSV_FIELDS],
      d.ingvp_maze_study.map((r) => [r.moves, ...ingvpCsvCells(r)]),
    ),
    'idc.csv': csv(
      ['curve', 'game', 'model', 'round', 'mean', 'best_round', 'r0', 'gain_vs_r0', 'best_vs_final'],
      d.idc.flatMap((c) =>
        c.curve.map((m, i) => [c.id, c.game, c.model, i, m, c.best_round, c.r0, c.gain_vs_r0, c.best_vs_final]),
      ),
    ),
    'idc-transfer.csv': csv(
      ['curve', 'game', 'model', 'variant', 'description', 'episodes', 'baseline', 'best', 'gain', 'change_pct'],
      d.idc.flatMap((c) =>
        c.transfer.map((t) => [
          c.id,
          c.game,
          c.model,
          t.variant,
          t.description,
          t.episodes,
          t.baseline,
          t.best,
          t.gain,
          t.change_pct,
        ]),
      ),
    ),
    'latency-kinds.csv': csv(
      ['game', 'action_space', 'kind', 'models', 'protocol', 'mean', 'models_with_cell'],
      d.latency_kinds.rows.flatMap((r) =>
        Object.entries(r.cells).map(([p, c]) => [
          r.game,
          r.actionSpace,
          r.kind,
          r.models.join(' '),
          p,
          c.mean,
          c.models,
        ]),
      ),
    ),
    'latency.csv': csv(
      ['game', ...WHO, 'mean', 'std', 'n', 'runs', 'change_vs_stop', 'protocol', 'freeze', 'reference'],
      d.latency.flatMap((l) =>
        l.modes.map((m) => [
          l.game,
          l.player,
          l.label,
          l.model,
          l.vr,
          l.lessons,
          l.actionSpace,
          m.latency,
          m.mean,
          m.std,
          m.n,
          m.runs,
          m.change_vs_stop,
          m.protocol,
          l.freeze,
          l.reference,
        ]),
      ),
    ),
    'arena-matrix.csv': csv(
      ['arena', 'game', 'p1', 'p2', 'games', 'p1_wins', 'p2_wins', 'draws', 'limit_draws', 'p1_win_rate', 'run'],
      d.arenas.flatMap((a) =>
        (a.matrix ?? []).flatMap((row, i) =>
          row.flatMap((c, j) =>
            c
              ? [
                  [
                    a.id,
                    a.game,
                    a.agents[i],
                    a.agents[j],
                    c.games,
                    c.p1_wins,
                    c.p2_wins,
                    c.draws,
                    c.limit_draws,
                    c.p1_win_rate,
                    c.run,
                  ],
                ]
              : [],
          ),
        ),
      ),
    ),
    'arena-standings.csv': csv(
      ['arena', 'game', 'agent', 'games', 'wins', 'losses', 'draws', 'limit_draws', 'win_rate'],
      d.arenas.flatMap((a) =>
        (a.standings ?? []).map((s) => [
          a.id,
          a.game,
          s.agent,
          s.games,
          s.wins,
          s.losses,
          s.draws,
          s.limit_draws,
          s.win_rate,
        ]),
      ),
    ),
    'arena-teams.csv': csv(
      ['arena', 'game', 'p1', 'p2', 'episodes', 'mean', 'run'],
      d.arenas.flatMap((a) => (a.teams ?? []).map((t) => [a.id, a.game, t.p1, t.p2, t.episodes, t.mean, t.run])),
    ),
    'two-seat.csv': csv(
      ['run', 'game', 'seats', 'status', 'episodes', 'p1_wins', 'p2_wins', 'draws', 'mean'],
      d.two_seat.map((r) => [
        r.run,
        r.game,
        r.seats.join('; '),
        r.status,
        r.episodes,
        r.p1_wins,
        r.p2_wins,
        r.draws,
        r.mean,
      ]),
    ),
    'failed.csv': csv(
      ['run', 'created', 'game', 'player', 'model', 'error'],
      d.failed.map((f) => [f.run, f.created, f.game, f.player, f.model, f.error]),
    ),
    'invalid.csv': csv(
      ['run', 'game', 'player', 'model', 'episode', 'score', 'reason'],
      d.invalid.map((e) => [e.run, e.game, e.player, e.model, e.episode, e.score, e.reason]),
    ),
    'cost.csv': csv(
      [
        'game',
        'player',
        'model',
        'runs',
        'episodes',
        'points',
        'mean',
        'tokens_in',
        'tokens_out',
        'cost_usd',
        'tokens_per_point',
        'cost_per_point',
      ],
      d.cost.map((c) => [
        c.game,
        c.player,
        c.model,
        c.runs,
        c.episodes,
        c.points,
        c.mean,
        c.tokens_in,
        c.tokens_out,
        c.cost_usd,
        c.tokens_per_point,
        c.cost_per_point,
      ]),
    ),
    // Empty cells where a run kept no times (made before it) or measured none: never 0.
    'run-timing.csv': csv(
      [
        'run',
        'created',
        'game',
        'player',
        'model',
        'status',
        'latency',
        'mode',
        'steps',
        ...(['effect', 'model', 'overhead'] as const).flatMap((k) => [`${k}_n`, `${k}_p50_ms`, `${k}_p95_ms`]),
      ],
      d.run_timing.map((r) => [
        r.run,
        r.created,
        r.game,
        r.player,
        r.model,
        r.status,
        r.latency,
        r.mode,
        r.steps,
        ...[r.effect_ms, r.model_ms, r.overhead_ms].flatMap((f) => [f?.n, f?.p50, f?.p95]),
      ]),
    ),
    ...Object.fromEntries(Object.entries(analysesCsv(d.analyses)).map(([file, t]) => [file, csv(t.header, t.rows)])),
  };
}
