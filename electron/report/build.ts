/**
 * A runs folder → the report's data model. The GameVerse tables are the leaderboard's rows
 * (completed runs only, VR = No / Yes / —, human stages) rearranged as game × player, with
 * each game's category and tier from its profile; ING-VP level runs (in the runs folder, or in
 * the runs/ of a suite folder in it), IDC folders, latency pairs and cost per score point are
 * read from the same scan. A damaged run.json is skipped with a warning. Arena folders and
 * two-seat runs are reported apart (arenas.ts); failed runs and invalid episodes are listed
 * apart, never pooled (store/run-quality.ts). Every agent run's times (run.json `timing`) are
 * listed run by run, per latency mode played.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { scanRuns, scanRunsAndSuites } from '../store/run-library.ts';
import { readRun, type RunMeta } from '../store/run-store.ts';
import { isScoredRun, leaderboardRows } from '../store/leaderboard.ts';
import { titleOf } from '../store/run-title.ts';
import { loadCatalog, type ProfileCatalog } from '../profiles/registry.ts';
import { gameverseTables, latencyComparisons } from './gameverse.ts';
import { readIdc } from '../reflection/idc-files.ts';
import { mean } from '../util/time.ts';
import { INGVP_SETTINGS } from '../ingvp/ingvp-settings.ts';
import { INGVP_SUITE_SETTINGS } from '../domain.ts';
import { tableOf, type LevelRow } from '../ingvp/table.ts';
import { INGVP_GAME_IDS } from '../../games/ingvp/games.ts';
import type { ReportData } from './model.ts';
import { readArenas, twoSeatRuns } from './arenas.ts';
import { tutorialWarnings } from './tutorial-check.ts';
import { LATENCY_MODES, round2 } from '../domain.ts';
import { modeFigures, runLatencyMode } from '../store/run-timing.ts';
import { failedRuns, invalidEpisodes, isCountedEpisode } from '../store/run-quality.ts';
import { analysesOf } from './analyses.ts';
import { latencyKinds } from './latency-kinds.ts';

export interface ReportOptions {
  /** Profiles for games whose runs do not name their category and tier (default: the shipped ones). */
  catalog?: ProfileCatalog;
  now?: Date;
}
const orderIn = (list: readonly string[], v: string) => list.indexOf(v);

export function buildReport(root: string, opts: ReportOptions = {}): ReportData {
  const dir = path.resolve(root);
  const { runs, warnings } = scanRunsAndSuites(dir);
  const damaged = warnings.length;
  const metas = runs.map((r) => r.meta);
  const ingvpMetas = metas.filter(isIngvp);
  const played = metas.filter((m) => !isIngvp(m));
  const board = leaderboardRows(played);
  const catalog = opts.catalog ?? loadCatalog();
  const ingvp = ingvpTable(ingvpMetas, warnings);
  const counted = played.filter(isScoredRun).length + ingvp.counted;
  const gameverse = gameverseTables(board, catalog);
  for (const g of gameverse.games)
    if (g.profile_versions > 1)
      warnings.push(
        `${g.title} (${g.id}): its runs followed ${g.profile_versions} versions of the profile (run.json's profile.hash differs); their scores are pooled in one column`,
      );
  warnings.push(...tutorialWarnings(played));
  return {
    generated: (opts.now ?? new Date()).toISOString(),
    runs_dir: dir,
    runs: { counted, left_out: metas.length - counted, damaged },
    warnings,
    gameverse,
    ingvp: ingvp.rows,
    ingvp_main: ingvpMain(ingvp.rows),
    ingvp_maze_study: ingvp.mazeStudy,
    idc: idcCurves(dir, warnings),
    latency: latencyComparisons(board),
    latency_kinds: latencyKinds(board),
    cost: costRows(played),
    arenas: existsSync(dir) ? readArenas(dir, warnings) : [],
    two_seat: twoSeatRuns(runs),
    failed: failedRuns(runs),
    invalid: invalidEpisodes(runs.filter((r) => isScoredRun(r.meta) || isIngvp(r.meta))),
    run_timing: runTimingRows(runs),
    analyses: analysesOf(
      runs.map((r) => ({ dir: r.dir, meta: r.meta, steps: () => readRun(r.dir).steps })),
      warnings,
      (id) => gameverse.games.find((g) => g.id === id)?.category ?? null,
    ),
  };
}

/**
 * Every agent run (whatever its status), oldest first: a row per latency mode its steps were
 * played in, or one row without figures for a run made before runs kept their times.
 */
function runTimingRows(runs: { id: string; meta: RunMeta }[]): ReportData['run_timing'] {
  return runs
    .filter((r) => r.meta.kind === 'agent')
    .sort((a, b) => a.meta.created.localeCompare(b.meta.created) || a.id.localeCompare(b.id))
    .flatMap(({ id, meta }): ReportData['run_timing'] => {
      const run = {
        run: id,
        created: meta.created,
        game: titleOf(meta).id,
        player: meta.agent,
        model: meta.model,
        status: meta.status,
        latency: runLatencyMode(meta.config),
      };
      if (!meta.timing)
        return [{ ...run, mode: null, steps: null, effect_ms: null, model_ms: null, overhead_ms: null }];
      const byMode = modeFigures(meta.timing.by_mode);
      const rows = LATENCY_MODES.flatMap((mode) => {
        const t = byMode[mode];
        return t ? [{ ...run, mode, ...t }] : [];
      });
      const none = { n: 0, p50: null, p95: null };
      // A run that ended before its first step: its own mode, nothing measured.
      return rows.length
        ? rows
        : [{ ...run, mode: run.latency, steps: 0, effect_ms: none, model_ms: none, overhead_ms: none }];
    });
}

/** Tokens and money per score point, per game × player × model, over the runs that called a model. */
function costRows(metas: RunMeta[]): ReportData['cost'] {
  const groups = new Map<string, RunMeta[]>();
  for (const m of metas) {
    if (!isScoredRun(m) || m.totals.tokens_in + m.totals.tokens_out === 0) continue;
    const key = [titleOf(m).id, m.agent, m.model ?? ''].join('|');
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups.values()]
    .map((runs) => {
      const scores = runs.flatMap((m) => m.episodes.filter(isCountedEpisode).map((e) => e.score));
      const points = scores.reduce((a, b) => a + b, 0);
      const tokensIn = runs.reduce((a, m) => a + m.totals.tokens_in, 0);
      const tokensOut = runs.reduce((a, m) => a + m.totals.tokens_out, 0);
      const costs = runs.map((m) => m.totals.cost_usd).filter((c): c is number => c !== null);
      const cost = costs.length ? costs.reduce((a, b) => a + b, 0) : null;
      return {
        game: titleOf(runs[0]!).id,
        player: runs[0]!.agent,
        model: runs[0]!.model,
        runs: runs.length,
        episodes: scores.length,
        points: round2(points),
        mean: scores.length ? round2(points / scores.length) : 0,
        tokens_in: tokensIn,
        tokens_out: tokensOut,
        cost_usd: cost === null ? null : Math.round(cost * 1e6) / 1e6,
        tokens_per_point: points > 0 ? round2((tokensIn + tokensOut) / points) : null,
        cost_per_point: points > 0 && cost !== null ? Math.round((cost / points) * 1e6) / 1e6 : null,
      };
    })
    .sort((a, b) => a.game.localeCompare(b.game) || a.player.localeCompare(b.player));
}

// ─── ING-VP ─────────────────────────────────────────────────────────────────────────────────

/** A level run of `gamepilot suite ingvp` (config.suite = "ingvp"); its metrics are in its `ingvp` block. */
const isIngvp = (m: RunMeta) => m.config.suite === 'ingvp';

const percent = z.number().finite().min(0).max(100);
const count = z.number().int().nonnegative();
const IngvpLevelSchema = z.looseObject({
  game: z.string().min(1),
  setting: z.enum(INGVP_SUITE_SETTINGS),
  level: z.number().int().positive(),
  /** A maze-length study level (Fig. 4): its shortest solution's length. */
  maze_steps: z.number().int().positive().optional(),
  solved: z.boolean(),
  completion: percent,
  efficiency: percent,
  actions: count,
  changed: count,
});

/** A model let think before its answer is its own row, marked: the paper asks for the answer only. */
const ingvpLabel = (agent: string, model: string | null, thinking: boolean): string =>
  thinking
    ? `${ingvpLabel(agent, model, false)} (thinking)`
    : agent === 'random'
      ? 'Random'
      : agent === 'solver'
        ? 'Solver'
        : model
          ? agent === 'vlm'
            ? model
            : `${model} (${agent})`
          : agent;
/** Random, then the solver, then models. */
const ingvpRank = (agent: string) => (agent === 'random' ? 0 : agent === 'solver' ? 1 : 2);

/**
 * The paper's table per player (agent and model): each game × setting cell over that player's
 * level runs, with the suite's own aggregation (accuracy = % solved, completion and efficiency =
 * means over levels), and an "all" row per setting over every game, as the suite's table.json;
 * §4.3's settings are cells like the six. Maze-length study levels (Fig. 4) are rows of their own.
 */
function ingvpTable(
  metas: RunMeta[],
  warnings: string[],
): { rows: ReportData['ingvp']; mazeStudy: ReportData['ingvp_maze_study']; counted: number } {
  const players = new Map<string, { agent: string; model: string | null; thinking: boolean; levels: LevelRow[] }>();
  let counted = 0;
  for (const m of metas) {
    if (m.status !== 'completed' || m.demo) continue;
    // A level played without model answers is listed among the invalid episodes, not scored.
    if (m.episodes.some((e) => e.invalid !== undefined)) continue;
    const parsed = IngvpLevelSchema.safeParse((m as { ingvp?: unknown }).ingvp);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      warnings.push(
        `skipped ING-VP run ${m.id}: its run.json has no valid "ingvp" metrics (${issue ? `${issue.path.join('.') || 'ingvp'}: ${issue.message}` : 'missing'})`,
      );
      continue;
    }
    counted++;
    const thinking = m.config.thinking === true;
    const key = [m.agent, m.model ?? '', thinking].join('|');
    const p = players.get(key) ?? { agent: m.agent, model: m.model, thinking, levels: [] };
    p.levels.push(parsed.data);
    players.set(key, p);
  }
  // The paper's game order, any other game after them, "all" last.
  const gameOrder = (g: string) =>
    g === 'all'
      ? INGVP_GAME_IDS.length + 1
      : INGVP_GAME_IDS.includes(g)
        ? INGVP_GAME_IDS.indexOf(g)
        : INGVP_GAME_IDS.length;
  const rows: ReportData['ingvp'] = [];
  const mazeStudy: ReportData['ingvp_maze_study'] = [];
  for (const { agent, model, thinking, levels } of players.values()) {
    const games = [...new Set(levels.filter((l) => l.maze_steps === undefined).map((l) => l.game))].sort(
      (a, b) => gameOrder(a) - gameOrder(b) || a.localeCompare(b),
    );
    const settings = INGVP_SUITE_SETTINGS.filter((s) => levels.some((l) => l.setting === s));
    const lengths = [...new Set(levels.flatMap((l) => (l.maze_steps === undefined ? [] : [l.maze_steps])))].sort(
      (a, b) => a - b,
    );
    const table = tableOf(levels, settings, games, lengths);
    const label = ingvpLabel(agent, model, thinking);
    for (const [game, cells] of Object.entries(table.rows))
      for (const setting of settings) {
        const cell = cells[setting];
        if (cell) rows.push({ game, setting, player: agent, model, label, ...cell });
      }
    for (const length of table.maze_study?.lengths ?? [])
      for (const setting of settings) {
        const cell = table.maze_study!.rows[String(length)]?.[setting];
        if (cell) mazeStudy.push({ moves: String(length), setting, player: agent, model, label, ...cell });
      }
  }
  rows.sort(
    (a, b) =>
      gameOrder(a.game) - gameOrder(b.game) ||
      a.game.localeCompare(b.game) ||
      orderIn(INGVP_SUITE_SETTINGS, a.setting) - orderIn(INGVP_SUITE_SETTINGS, b.setting) ||
      ingvpRank(a.player) - ingvpRank(b.player) ||
      a.label.localeCompare(b.label),
  );
  return { rows, mazeStudy, counted };
}

/**
 * ING-VP's Table 1: per player, one row per metric over every game pooled (the suite's "all"
 * cells), a cell per setting, and Overall = the mean over the six settings played (§4.3's are
 * cells beside them, never in Overall).
 */
function ingvpMain(rows: ReportData['ingvp']): ReportData['ingvp_main'] {
  const out: ReportData['ingvp_main'] = [];
  const pooled = rows.filter((r) => r.game === 'all');
  const players = [...new Map(pooled.map((r) => [r.label, r])).values()];
  for (const p of players) {
    const mine = pooled.filter((r) => r.label === p.label);
    for (const metric of ['accuracy', 'completion', 'efficiency'] as const) {
      const cells = Object.fromEntries(mine.map((r) => [r.setting, r[metric]]));
      const values = mine.filter((r) => orderIn(INGVP_SETTINGS, r.setting) >= 0).map((r) => r[metric]);
      out.push({
        player: p.player,
        model: p.model,
        label: p.label,
        metric,
        cells,
        overall: round2(mean(values)),
        settings: values.length,
      });
    }
  }
  return out;
}

// ─── IDC ────────────────────────────────────────────────────────────────────────────────────

/** Every Improvement Dynamics Curve folder (one holding idc.json) directly in the runs folder. */
function idcCurves(root: string, warnings: string[]): ReportData['idc'] {
  if (!existsSync(root)) return [];
  const curves: ReportData['idc'] = [];
  for (const d of readdirSync(root, { withFileTypes: true })) {
    const dir = path.join(root, d.name);
    if (!d.isDirectory() || !existsSync(path.join(dir, 'idc.json'))) continue;
    try {
      const { result } = readIdc(dir);
      const first = scanRuns(dir).runs[0]?.meta;
      curves.push({
        id: d.name,
        game: first ? titleOf(first).id : null,
        model: first?.model ?? null,
        curve: result.curve,
        best_round: result.best_round,
        r0: result.r0,
        gain_vs_r0: result.gain_vs_r0,
        best_vs_final: result.best_vs_final,
        transfer: result.transfer.splits.map((s) => ({
          variant: s.variant,
          description: s.description,
          baseline: s.baseline.mean,
          best: s.best.mean,
          gain: s.gain,
          change_pct: s.change_pct,
          episodes: s.best.scores.length,
        })),
      });
    } catch (err) {
      warnings.push(`skipped ${(err as Error).message}`);
    }
  }
  return curves.sort((a, b) => a.id.localeCompare(b.id));
}
