/**
 * The report data model → tables and chart.js configurations, the one layout the HTML page
 * and the Runs tab both draw. Charts are plain JSON (no functions), so either side hands them
 * to `new Chart` as they are.
 */
import type { ReportChart, ReportTable } from '../domain.ts';
import type { Player, ReportData, ReportView, Stat } from './model.ts';
import { arenaReportTables } from './arena-view.ts';
import { analysesCharts, analysesTables } from './analyses-view.ts';
import { LATENCY_MODES, percentilesText, rateText, unreadableText } from '../domain.ts';

const CATEGORY_NAMES: Record<string, string> = {
  'markov-grid': 'Markov Grid',
  'nonrealtime-linear': 'Non-Real-time Linear',
  'nonrealtime-nonlinear': 'Non-Real-time Non-linear',
  'realtime-linear': 'Real-time Linear',
  'realtime-nonlinear': 'Real-time Non-linear',
};
const TIER_NAMES: Record<string, string> = { easy: 'Easy', medium: 'Medium', hard: 'Hard' };
export const NO_RUNS = 'no runs of this kind';
/** A chart dataset drawn as the whisker of the one before it; the legend leaves it out. */
export const WHISKER_SUFFIX = ' ± std';

const fix = (n: number) => n.toFixed(1);
/** ING-VP's metrics to two places, as the paper and the suite's own table print them. */
const fix2 = (n: number) => n.toFixed(2);
/**
 * A cell: mean ± std over trials (trials); where runs were pooled, the spread over those reruns
 * (the std of their means, and how many); the invalid episodes left out of it; and the trials in
 * it whose score could not be read, scored 0.
 */
export const statText = (s: Stat) => {
  const unreadable = unreadableText({ unreadable: s.unreadable, episodes: s.n });
  return `${fix(s.mean)} ± ${fix(s.std)} (${s.n})${s.runs_std === null ? '' : `; ${s.runs} runs ± ${fix(s.runs_std)}`}${s.invalid ? `; ${s.invalid} invalid` : ''}${unreadable ? `; ${unreadable}` : ''}`;
};
const vrText = (p: Pick<Player, 'vr' | 'lessons'>) => (p.vr === 'Yes' && p.lessons ? `Yes (${p.lessons})` : p.vr);
/** A row's protocol (store/run-protocol.ts); a report made before it names the mode only. */
const protocolText = (p: Pick<Player, 'protocol' | 'latency'>) => p.protocol || p.latency;
const who = (p: Player): Record<string, string | number | null> => ({
  player: p.label,
  vr: vrText(p),
  space: p.actionSpace,
  latency: p.latency,
  protocol: protocolText(p),
});
const WHO_COLUMNS = [
  { key: 'player', label: 'Player' },
  { key: 'vr', label: 'VR' },
  { key: 'space', label: 'Action space' },
  { key: 'latency', label: 'Latency' },
  { key: 'protocol', label: 'Protocol' },
];

export function reportView(data: ReportData): ReportView {
  return { data, tables: reportTables(data), charts: reportCharts(data) };
}

type Title = ReportData['gameverse']['games'][number];
const catOf = (c: string | null) => (c ? (CATEGORY_NAMES[c] ?? c) : 'no category');
/** A title's column header: its name and tier (an unprofiled window says so). */
const titleLabel = (g: Title) =>
  g.kind === 'unprofiled'
    ? `${g.title} (unprofiled window)`
    : `${g.title} (${g.tier ? (TIER_NAMES[g.tier] ?? g.tier) : '–'})`;
/** Header groups: the leading columns, then each run of titles of one category. */
function categoryGroups(lead: number, games: Title[], span = 1, tail = 0): { label: string; span: number }[] {
  const groups: { label: string; span: number }[] = [{ label: '', span: lead }];
  for (const g of games) {
    const last = groups.at(-1)!;
    if (groups.length > 1 && last.label === catOf(g.category)) last.span += span;
    else groups.push({ label: catOf(g.category), span });
  }
  if (tail) groups.push({ label: '', span: tail });
  return groups;
}
const signed = (n: number) => `${n >= 0 ? '+' : ''}${fix(n)}`;
const INGVP_MODALITIES = [
  { label: 'Image-text', settings: ['multi-step-image', 'multi-step-image-history', 'one-step-image'] },
  { label: 'Text-only', settings: ['multi-step-text', 'multi-step-text-history', 'one-step-text'] },
];
/** ING-VP §4.3's two settings: columns beside the six, never in Overall. */
const INGVP_ANALYSIS = { label: '§4.3 (not in Overall)', settings: ['best-of-10', 'forced-planning'] };
const INGVP_SETTING_NAMES: Record<string, string> = {
  'best-of-10': 'Best of 10',
  'forced-planning': 'Forced Planning',
  'multi-step-image': 'Multi-step w/o history',
  'multi-step-image-history': 'Multi-step w/ history',
  'one-step-image': 'One-step',
  'multi-step-text': 'Multi-step w/o history',
  'multi-step-text-history': 'Multi-step w/ history',
  'one-step-text': 'One-step',
};
/** An ING-VP cell's setting, player and metrics: the game table's and the maze study's alike. */
const INGVP_CELL_COLUMNS = [
  { key: 'setting', label: 'Setting' },
  { key: 'player', label: 'Player' },
  { key: 'levels', label: 'Levels' },
  { key: 'accuracy', label: 'Accuracy' },
  { key: 'completion', label: 'Completion' },
  { key: 'efficiency', label: 'Efficiency' },
];
const ingvpCells = (r: Omit<ReportData['ingvp_maze_study'][number], 'moves'>) => ({
  setting: r.setting,
  player: r.label,
  levels: r.levels,
  accuracy: fix2(r.accuracy),
  completion: fix2(r.completion),
  efficiency: fix2(r.efficiency),
});
const METRIC_NAMES = { accuracy: 'Acc.', completion: 'Comp.', efficiency: 'Eff.' } as const;

export function reportTables(d: ReportData): ReportTable[] {
  const analysed = INGVP_ANALYSIS.settings.filter((s) => d.ingvp_main.some((r) => r.cells[s] !== undefined));
  const mainGroups = analysed.length
    ? [...INGVP_MODALITIES, { ...INGVP_ANALYSIS, settings: analysed }]
    : INGVP_MODALITIES;
  const gv = d.gameverse;
  const gui = gv.rows.filter((r) => r.actionSpace === 'gui');
  const byId = new Map(gv.games.map((g) => [g.id, g]));
  const paired = gv.paired.games.map((id) => byId.get(id)!);
  const reflected = gv.reflection.games.map((id) => byId.get(id)!);
  const pivot = (
    id: string,
    title: string,
    rows: ReportData['gameverse']['by_category'],
    names: Record<string, string>,
  ) => {
    const byPlayer = new Map<string, Record<string, string | number | null>>();
    for (const r of rows) {
      const key = [r.label, r.vr, r.lessons, r.actionSpace, r.protocol].join('|');
      const row = byPlayer.get(key) ?? who(r);
      row[r.group] = `${fix(r.mean)} (${r.games})`;
      byPlayer.set(key, row);
    }
    const used = Object.keys(names).filter((k) => rows.some((r) => r.group === k));
    return {
      id,
      title,
      note: 'A player’s mean of its game means over the games of each group it played (games in brackets).',
      columns: [...WHO_COLUMNS, ...used.map((k) => ({ key: k, label: names[k]! }))],
      rows: [...byPlayer.values()],
      empty: NO_RUNS,
    };
  };
  return [
    {
      id: 'gameverse',
      title: 'GameVerse Table 3: title × player, GUI actions',
      note: 'Mean ± sample std over trials on 0–100 (trials in brackets), completed runs only; where a cell pools several runs (reruns, seeds), the spread of their means follows (“3 runs ± 4.1”), invalid episodes left out are counted (“2 invalid”), and trials whose score could not be read count as 0 and are said (“2 of 10 trials unreadable, scored 0”). GameVerse’s fifteen titles in the paper’s order, then the other titles played (a window’s profile; an unprofiled window apart, under its window title); grouped by cognitive category, tier under each title. VR = Yes: played with lessons from reflection (a rookie: after the tutorial); — : a human expert. Protocol: the latency mode with its interval or buffer and how the world is frozen; rows never pool two protocols. Avg Rank: in each title the rows of the rank pool are ranked by mean (1 = best, ties share the mean of their places), averaged over the titles a row played. The pool is the paper’s: one row per player × VR, in normal latency, and for a model’s VR = Yes its own reflection (Self; else Self-F or Self-T), with Random and the people; every other row (the latency study, lessons of another model or a person) is shown, not ranked, with the reason. Runs in which a person took the controls are in the Assisted table only.',
      groups: categoryGroups(WHO_COLUMNS.length, gv.games, 1, 2),
      columns: [
        ...WHO_COLUMNS,
        ...gv.games.map((g) => ({ key: g.id, label: titleLabel(g) })),
        { key: 'avg_rank', label: 'Avg Rank' },
        { key: 'not_ranked', label: 'Not ranked because' },
      ],
      rows: gui.map((r) => ({
        ...who(r),
        ...Object.fromEntries(gv.games.map((g) => [g.id, r.cells[g.id] ? statText(r.cells[g.id]!) : null])),
        avg_rank: r.avg_rank !== null ? fix(r.avg_rank) : r.not_ranked ? 'not ranked' : null,
        not_ranked: r.not_ranked,
      })),
      empty: NO_RUNS,
    },
    (() => {
      const played = gv.games.filter((g) => gv.assisted.some((r) => r.cells[g.id]));
      return {
        id: 'assisted',
        title: 'Assisted (a person took the controls)',
        note: 'Runs in which a person took over from the agent (a takeover), any action space: the same cells as Table 3, in no other table, no rank pool, no comparison.',
        columns: [...WHO_COLUMNS, ...played.map((g) => ({ key: g.id, label: titleLabel(g) }))],
        rows: gv.assisted.map((r) => ({
          ...who(r),
          ...Object.fromEntries(played.map((g) => [g.id, r.cells[g.id] ? statText(r.cells[g.id]!) : null])),
        })),
        empty: NO_RUNS,
      };
    })(),
    {
      id: 'paired',
      title: 'GameVerse Table 4: GUI vs semantic actions',
      note: 'The titles played in the semantic space, the same player’s GUI and semantic cells side by side (mean ± std (trials)). A person plays with GUI input only.',
      groups: categoryGroups(3, paired, 2),
      columns: [
        { key: 'player', label: 'Player' },
        { key: 'vr', label: 'VR' },
        { key: 'latency', label: 'Protocol' },
        ...paired.flatMap((g) => [
          { key: `${g.id}:gui`, label: `${g.title} GUI` },
          { key: `${g.id}:semantic`, label: `${g.title} Semantic` },
        ]),
      ],
      rows: gv.paired.rows.map((r) => ({
        player: r.label,
        vr: vrText(r),
        latency: protocolText(r),
        ...Object.fromEntries(
          paired.flatMap((g) => {
            const c = r.cells[g.id];
            return [
              [`${g.id}:gui`, c?.gui ? statText(c.gui) : null],
              [`${g.id}:semantic`, c?.semantic ? statText(c.semantic) : null],
            ];
          }),
        ),
      })),
      empty: NO_RUNS,
    },
    {
      id: 'reflection',
      title: 'GameVerse Table 5: reflection modes, semantic actions',
      note: 'One row per model and reflection mode: No, Self-F (own failures), Self-T (tutorial), Self (both), Other (another model’s lessons); Avg = the mean of the row’s title means (titles in brackets when it played fewer than all).',
      columns: [
        { key: 'player', label: 'Model' },
        { key: 'mode', label: 'VR' },
        { key: 'latency', label: 'Protocol' },
        ...reflected.map((g) => ({ key: g.id, label: g.title })),
        { key: 'avg', label: 'Avg' },
      ],
      rows: gv.reflection.rows.map((r) => ({
        player: r.label,
        mode: r.mode,
        latency: protocolText(r),
        ...Object.fromEntries(reflected.map((g) => [g.id, r.cells[g.id] ? statText(r.cells[g.id]!) : null])),
        avg: r.titles < reflected.length ? `${fix(r.mean)} (${r.titles})` : fix(r.mean),
      })),
      empty: NO_RUNS,
    },
    {
      id: 'gains',
      title: 'VR = No vs VR = Yes',
      note: 'The same player in the same game without and with reflection; gain = Yes − No in points.',
      columns: [
        { key: 'game', label: 'Game' },
        { key: 'player', label: 'Player' },
        { key: 'lessons', label: 'Lessons' },
        { key: 'space', label: 'Action space' },
        { key: 'latency', label: 'Protocol' },
        { key: 'no', label: 'VR = No' },
        { key: 'yes', label: 'VR = Yes' },
        { key: 'gain', label: 'Gain' },
      ],
      rows: gv.gains.map((g) => ({
        game: g.game,
        player: g.label,
        lessons: g.lessons,
        space: g.actionSpace,
        latency: protocolText(g),
        no: statText(g.no),
        yes: statText(g.yes),
        gain: signed(g.gain),
      })),
      empty: NO_RUNS,
    },
    pivot('categories', 'By cognitive category', gv.by_category, CATEGORY_NAMES),
    pivot('tiers', 'By tier', gv.by_tier, TIER_NAMES),
    {
      id: 'ingvp-main',
      title: 'ING-VP Table 1: player × metric over every game',
      note: `Over each player’s level runs of every game, in %: Acc. = levels solved, Comp. = mean completion degree, Eff. = mean over levels of changed / all actions. Overall = the mean of the six settings (of those played, in brackets, when fewer).${analysed.length ? ' §4.3’s Best of 10 and Forced Planning (multi-step, text, no history) are columns beside them, not part of Overall.' : ''}`,
      groups: [
        { label: '', span: 2 },
        ...mainGroups.map((m) => ({ label: m.label, span: m.settings.length })),
        { label: '', span: 1 },
      ],
      columns: [
        { key: 'player', label: 'Model' },
        { key: 'metric', label: 'Metric' },
        ...mainGroups.flatMap((m) => m.settings.map((s) => ({ key: s, label: INGVP_SETTING_NAMES[s]! }))),
        { key: 'overall', label: 'Overall' },
      ],
      rows: d.ingvp_main.map((r) => ({
        player: r.label,
        metric: METRIC_NAMES[r.metric],
        ...Object.fromEntries(
          mainGroups.flatMap((m) => m.settings).map((s) => [s, r.cells[s] === undefined ? null : fix2(r.cells[s]!)]),
        ),
        overall: r.settings < 6 ? `${fix2(r.overall)} (${r.settings})` : fix2(r.overall),
      })),
      empty: NO_RUNS,
    },
    {
      id: 'ingvp-maze-study',
      title: 'ING-VP Fig. 4: the maze by solution length',
      note: 'The maze-length study (`suite ingvp --maze-steps`): each maze level with its start moved to exactly that many moves from the target, walls and target kept; “original” = the suite’s own 4–8-move mazes. In %, per setting and player.',
      columns: [{ key: 'moves', label: 'Moves' }, ...INGVP_CELL_COLUMNS],
      rows: d.ingvp_maze_study.map((r) => ({ moves: r.moves, ...ingvpCells(r) })),
      empty: 'no maze-length study in this folder',
    },
    {
      id: 'ingvp',
      title: 'ING-VP: game × setting × player',
      note: 'Over each player’s level runs, in %: accuracy = levels solved, completion = mean completion degree, efficiency = mean over levels of changed / all actions (the paper’s formula; pooled = all changed / all actions, the authors’ code). “all” pools every game.',
      columns: [
        { key: 'game', label: 'Game' },
        ...INGVP_CELL_COLUMNS,
        { key: 'efficiency_pooled', label: 'Efficiency (pooled)' },
      ],
      rows: d.ingvp.map((r) => ({
        game: r.game,
        ...ingvpCells(r),
        efficiency_pooled: fix2(r.efficiency_pooled),
      })),
      empty: NO_RUNS,
    },
    {
      id: 'idc',
      title: 'Improvement Dynamics Curves',
      note: 'Mean score of each reflection round; R0 = round 0, played without a skill (the reference line); gain = the best round over R0; best − final = what the last round lost of the best (points).',
      columns: [
        { key: 'curve', label: 'Curve' },
        { key: 'game', label: 'Game' },
        { key: 'model', label: 'Model' },
        { key: 'rounds', label: 'Round means' },
        { key: 'r0', label: 'R0' },
        { key: 'best', label: 'Best round' },
        { key: 'gain', label: 'Gain over R0' },
        { key: 'gap', label: 'Best − final' },
      ],
      rows: d.idc.map((c) => ({
        curve: c.id,
        game: c.game,
        model: c.model,
        rounds: c.curve.map(fix).join(' → '),
        r0: fix(c.r0),
        best: c.best_round,
        gain: signed(c.gain_vs_r0),
        gap: fix(c.best_vs_final),
      })),
      empty: NO_RUNS,
    },
    {
      id: 'idc-transfer',
      title: 'IDC transfer: the best skill on held-out variants',
      note: 'OmniGameArena’s Table 5: on the game itself (origin) and on each designed variant, the mean with no skill and with the best skill, each replayed on held-out seeds, the gain in points and relative to no skill. A curve made before the origin replay shows R0 vs the best round’s own mean there, marked.',
      columns: [
        { key: 'curve', label: 'Curve' },
        { key: 'model', label: 'Model' },
        { key: 'split', label: 'Split' },
        { key: 'what', label: 'What differs' },
        { key: 'baseline', label: 'No skill' },
        { key: 'best', label: 'Best skill' },
        { key: 'gain', label: 'Gain' },
        { key: 'change', label: 'Change' },
      ],
      rows: d.idc.flatMap((c) => [
        // An idc.json from before the origin replay: the rounds' own R0 and best round stand in, said so.
        ...(c.transfer.some((t) => t.variant === 'origin')
          ? []
          : [
              {
                curve: c.id,
                model: c.model,
                split: 'origin',
                what: 'the rounds’ own R0 and best round (not replayed: an older curve)',
                baseline: fix(c.r0),
                best: fix(c.r0 + c.gain_vs_r0),
                gain: signed(c.gain_vs_r0),
                change: c.r0 ? `${signed((c.gain_vs_r0 / c.r0) * 100)} %` : null,
              },
            ]),
        ...c.transfer.map((t) => ({
          curve: c.id,
          model: c.model,
          split: t.variant,
          what: t.description,
          baseline: fix(t.baseline),
          best: fix(t.best),
          gain: signed(t.gain),
          change: t.change_pct === null ? null : `${signed(t.change_pct)} %`,
        })),
      ]),
      empty: NO_RUNS,
    },
    (() => {
      const order: readonly string[] = LATENCY_MODES;
      const seen = new Map<string, string>();
      for (const l of d.latency) for (const m of l.modes) seen.set(m.protocol || m.latency, m.latency);
      const protocols = [...seen.keys()].sort(
        (a, b) => order.indexOf(seen.get(a)!) - order.indexOf(seen.get(b)!) || a.localeCompare(b),
      );
      const frozenAt = (p: string) => seen.get(p) === 'stop';
      return {
        id: 'latency',
        title: 'Latency modes',
        note: 'The same title and player under different protocols — a latency mode with its interval or buffer and how the world is frozen — in families: the modes that freeze the world the same way (normal, which freezes nothing, in each), each with one stop protocol at most, the reference. Mean ± std (trials), and each protocol’s change against the reference in points. Two stop protocols (OmniGameArena’s PDQ, stop 0 ms, and GameVerse’s Stop, 2000 ms) are two families, never one.',
        columns: [
          { key: 'game', label: 'Game' },
          { key: 'player', label: 'Player' },
          { key: 'vr', label: 'VR' },
          { key: 'space', label: 'Action space' },
          { key: 'reference', label: 'Against' },
          ...protocols.flatMap((p) => [
            { key: p, label: p },
            ...(frozenAt(p) ? [] : [{ key: `${p}:change`, label: `${p} − stop` }]),
          ]),
        ],
        rows: d.latency.map((l) => ({
          game: l.game,
          player: l.label,
          vr: vrText(l),
          space: l.actionSpace,
          reference: l.reference,
          ...Object.fromEntries(
            l.modes.flatMap((m) => [
              [m.protocol || m.latency, statText(m)],
              ...(m.change_vs_stop === null ? [] : [[`${m.protocol || m.latency}:change`, signed(m.change_vs_stop)]]),
            ]),
          ),
        })),
        empty: NO_RUNS,
      };
    })(),
    latencyKindsTable(d),
    runTimingTable(d),
    {
      id: 'cost',
      title: 'Cost and tokens per score point',
      note: 'Runs that called a model: tokens (in + out) and USD over the sum of episode scores.',
      columns: [
        { key: 'game', label: 'Game' },
        { key: 'player', label: 'Player' },
        { key: 'model', label: 'Model' },
        { key: 'episodes', label: 'Episodes' },
        { key: 'mean', label: 'Mean score' },
        { key: 'tokens', label: 'Tokens in / out' },
        { key: 'cost', label: 'USD' },
        { key: 'tokens_per_point', label: 'Tokens / point' },
        { key: 'cost_per_point', label: 'USD / point' },
      ],
      rows: d.cost.map((c) => ({
        game: c.game,
        player: c.player,
        model: c.model,
        episodes: c.episodes,
        mean: fix(c.mean),
        tokens: `${c.tokens_in} / ${c.tokens_out}`,
        cost: c.cost_usd === null ? null : c.cost_usd.toFixed(4),
        tokens_per_point: c.tokens_per_point === null ? null : fix(c.tokens_per_point),
        cost_per_point: c.cost_per_point === null ? null : c.cost_per_point.toFixed(5),
      })),
      empty: NO_RUNS,
    },
    qualityTable(d),
    {
      id: 'failed',
      title: 'Failed runs (not pooled)',
      note: 'Runs that ended failed (e.g. the model never answered), with the error their run.json gives. No table counts them.',
      columns: [
        { key: 'run', label: 'Run' },
        { key: 'game', label: 'Title' },
        { key: 'player', label: 'Player' },
        { key: 'model', label: 'Model' },
        { key: 'error', label: 'Error' },
      ],
      rows: d.failed.map((f) => ({
        run: f.run,
        game: f.game,
        player: f.player,
        model: f.model,
        error: f.error ?? 'no error recorded',
      })),
      empty: NO_RUNS,
    },
    {
      id: 'invalid',
      title: 'Invalid episodes (not pooled)',
      note: 'Episodes of counted runs marked invalid (most of their steps had no model answer), counted from 1, with the reason and the score the game gave, which no mean includes.',
      columns: [
        { key: 'run', label: 'Run' },
        { key: 'game', label: 'Title' },
        { key: 'player', label: 'Player' },
        { key: 'episode', label: 'Episode' },
        { key: 'score', label: 'Game’s score' },
        { key: 'reason', label: 'Reason' },
      ],
      rows: d.invalid.map((e) => ({
        run: e.run,
        game: e.game,
        player: e.model ? `${e.model} (${e.player})` : e.player,
        episode: e.episode + 1,
        score: e.score === null ? null : fix(e.score),
        reason: e.reason,
      })),
      empty: NO_RUNS,
    },
    ...arenaReportTables(d, NO_RUNS),
    ...analysesTables(d.analyses, NO_RUNS, catOf),
  ];
}

/** Each agent run's input-to-screen, model and overhead times, a row per latency mode its steps were played in. */
function runTimingTable(d: ReportData): ReportTable {
  return {
    id: 'run-timing',
    title: 'Input to screen, model and harness, run by run',
    note: 'Every agent run, oldest first, a row per latency mode its steps were played in (the mode it was started in; another only after a switch mid-run), over the agent’s steps (not a person’s during a takeover): p50 / p95 in ms. Input → screen: from the step’s first injected input to the game window’s first changed pixel (a built-in: its first draw after its state changed), over the steps that measured one (measured). Model: the model’s time on the steps it answered (— for a solver or random agent, or a model never reached). Overhead: the harness’s own part of a step — locate + capture + encode + act (act includes what the actions take: a WAIT, a held key, and under lcrt the world running for the model’s compute time). — : a run made before Gamepilot kept these times, or nothing measured.',
    columns: [
      { key: 'run', label: 'Run' },
      { key: 'game', label: 'Title' },
      { key: 'player', label: 'Player' },
      { key: 'status', label: 'Status' },
      { key: 'latency', label: 'Latency' },
      { key: 'steps', label: 'Steps' },
      { key: 'to_screen', label: 'Input → screen p50 / p95 (ms)' },
      { key: 'measured', label: 'Measured' },
      { key: 'model', label: 'Model p50 / p95 (ms)' },
      { key: 'overhead', label: 'Overhead p50 / p95 (ms)' },
    ],
    rows: d.run_timing.map((r) => ({
      run: r.run,
      game: r.game,
      player: r.model ? `${r.model} (${r.player})` : r.player,
      status: r.status,
      latency: r.mode === null || r.mode === r.latency ? r.latency : `${r.mode} (switched from ${r.latency})`,
      steps: r.steps ?? '—',
      to_screen: percentilesText(r.effect_ms),
      measured: r.effect_ms?.n ?? '—',
      model: percentilesText(r.model_ms),
      overhead: percentilesText(r.overhead_ms),
    })),
    empty: NO_RUNS,
  };
}

/** Every score cell of the GameVerse rows (any action space) beside its runs' no-effect and invalid-action rates. */
function qualityTable(d: ReportData): ReportTable {
  const gv = d.gameverse;
  return {
    id: 'quality',
    title: 'Scores and the record’s quality',
    note: 'Each title × player cell: its score (as in Table 3), the invalid episodes left out of it, and over its runs’ steps the share that changed nothing in the game window (no effect) and the share with invalid actions (unparseable or refused) — summed over the runs’ steps, not a mean of their rates; n/a for runs made before Gamepilot recorded it (quality runs: how many of the runs the rates cover).',
    columns: [
      { key: 'game', label: 'Title' },
      ...WHO_COLUMNS,
      { key: 'score', label: 'Score' },
      { key: 'runs', label: 'Runs' },
      { key: 'invalid_episodes', label: 'Invalid episodes' },
      { key: 'no_effect', label: 'No effect' },
      { key: 'invalid_actions', label: 'Invalid actions' },
      { key: 'quality_runs', label: 'Quality runs' },
    ],
    rows: gv.games.flatMap((g) =>
      [...gv.rows, ...gv.assisted].flatMap((r) => {
        const c = r.cells[g.id];
        return c
          ? [
              {
                game: g.id,
                ...who(r),
                score: statText(c),
                runs: c.runs,
                invalid_episodes: c.invalid,
                no_effect: rateText(c.no_effect_rate),
                invalid_actions: rateText(c.invalid_rate),
                quality_runs: c.quality_runs,
              },
            ]
          : [];
      }),
    ),
    empty: NO_RUNS,
  };
}

const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f'];
const color = (i: number, alpha = 'cc') => `${PALETTE[i % PALETTE.length]}${alpha}`;

/** Bars of the mean with a thin bar from mean − std to mean + std over each (same stack: drawn on top, not beside). */
function meanStdBars(
  title: string,
  labels: string[],
  series: { label: string; stats: (Stat | undefined)[] }[],
  max?: number,
) {
  const datasets = series.flatMap((s, i) => [
    {
      type: 'bar',
      label: s.label,
      stack: `s${i}`,
      order: 1,
      data: s.stats.map((x) => x?.mean ?? null),
      backgroundColor: color(i),
      maxBarThickness: 64,
    },
    {
      type: 'bar',
      label: `${s.label}${WHISKER_SUFFIX}`,
      stack: `s${i}`,
      data: s.stats.map((x) => (x ? [x.mean - x.std, x.mean + x.std] : null)),
      order: 0,
      backgroundColor: '#808080',
      barPercentage: 0.1,
      maxBarThickness: 4,
      minBarLength: 2,
    },
  ]);
  return {
    type: 'bar',
    data: { labels, datasets },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      plugins: { title: { display: true, text: title } },
      scales: {
        x: { stacked: true },
        y: { stacked: false, beginAtZero: true, ...(max !== undefined ? { min: 0, max } : {}) },
      },
    },
  };
}

export function reportCharts(d: ReportData): ReportChart[] {
  const charts: ReportChart[] = [];
  const gv = d.gameverse;
  if (gv.rows.length) {
    const title = 'Mean ± std per title (0–100)';
    const played = gv.games.filter((g) => gv.rows.some((r) => r.cells[g.id]));
    charts.push({
      id: 'gameverse-bars',
      title,
      section: 'gameverse',
      config: meanStdBars(
        title,
        played.map((g) => g.title),
        gv.rows.map((r) => ({
          label: [r.label, r.vr === '—' ? '' : `VR ${vrText(r)}`, r.actionSpace, protocolText(r)]
            .filter(Boolean)
            .join(' · '),
          stats: played.map((g) => r.cells[g.id]),
        })),
        100,
      ),
    });
  }
  if (d.ingvp.length) {
    const keys = ['accuracy', 'completion', 'efficiency'] as const;
    charts.push({
      id: 'ingvp-bars',
      title: 'ING-VP metrics per game and setting (%)',
      section: 'ingvp',
      config: {
        type: 'bar',
        data: {
          labels: d.ingvp.map((r) => `${r.game} · ${r.setting} · ${r.label}`),
          datasets: keys.map((k, i) => ({ label: k, data: d.ingvp.map((r) => r[k]), backgroundColor: color(i) })),
        },
        options: {
          animation: false,
          responsive: true,
          maintainAspectRatio: false,
          scales: { y: { beginAtZero: true, max: 100 } },
        },
      },
    });
  }
  if (d.idc.length) {
    const rounds = Math.max(...d.idc.map((c) => c.curve.length));
    charts.push({
      id: 'idc-lines',
      title: 'Improvement Dynamics Curves: mean score per round',
      section: 'idc',
      config: {
        type: 'line',
        data: {
          labels: Array.from({ length: rounds }, (_, i) => `round ${i}`),
          datasets: d.idc.flatMap((c, i) => [
            {
              label: [c.game, c.model, c.id].filter(Boolean).join(' · '),
              data: c.curve,
              borderColor: color(i, 'ff'),
              backgroundColor: color(i),
              tension: 0,
            },
            {
              // OmniGameArena's reference line: R0, the no-skill round, across every round.
              label: `${[c.game, c.model].filter(Boolean).join(' · ')} R0`,
              data: c.curve.map(() => c.r0),
              borderColor: color(i, '88'),
              borderDash: [6, 4],
              pointRadius: 0,
              tension: 0,
            },
          ]),
        },
        options: {
          animation: false,
          responsive: true,
          maintainAspectRatio: false,
          scales: { y: { beginAtZero: true } },
        },
      },
    });
  }
  if (d.latency.length) {
    const modes = [...new Set(d.latency.flatMap((l) => l.modes.map((m) => m.protocol || m.latency)))];
    const title = 'Mean ± std per latency protocol';
    charts.push({
      id: 'latency-bars',
      title,
      section: 'latency',
      config: meanStdBars(
        title,
        d.latency.map(
          (l) =>
            `${l.game} · ${l.label}${l.vr === 'No' ? '' : ` · VR ${vrText(l)}`}${l.reference ? ` · vs ${l.reference}` : ''}`,
        ),
        modes.map((m) => ({
          label: m,
          stats: d.latency.map((l) => l.modes.find((x) => (x.protocol || x.latency) === m)),
        })),
      ),
    });
  }
  charts.push(...analysesCharts(d.analyses));
  return charts;
}

/** GameVerse's Fig. 5 as a table: per title, the reasoning and the reactive models' mean under each protocol. */
function latencyKindsTable(d: ReportData): ReportTable {
  const k = d.latency_kinds;
  return {
    id: 'latency-kinds',
    title: 'Reasoning vs reactive models under latency (GameVerse Fig. 5)',
    note: `Per title and action space, the mean of the models’ means of each kind under each protocol (models with a cell there in brackets): reasoning models think before they answer (Gemini-2.5-Pro, Seed-1.8 in the paper), reactive ones answer at once (GPT-4o, Qwen3-VL-8B); agents/model-kind.ts names the rest. Unassisted VR = No rows, titles played under more than one protocol.${k.unknown.length ? ` Of no known kind, left out: ${k.unknown.join(', ')}.` : ''}`,
    columns: [
      { key: 'game', label: 'Game' },
      { key: 'space', label: 'Action space' },
      { key: 'kind', label: 'Models' },
      { key: 'models', label: 'Averaged' },
      ...k.protocols.map((p) => ({ key: p, label: p })),
    ],
    rows: k.rows.map((r) => ({
      game: r.game,
      space: r.actionSpace,
      kind: r.kind === 'reasoning' ? 'Reasoning' : 'Reactive',
      models: r.models.join(', '),
      ...Object.fromEntries(Object.entries(r.cells).map(([p, c]) => [p, `${fix(c.mean)} (${c.models})`])),
    })),
    empty: NO_RUNS,
  };
}
