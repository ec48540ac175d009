/**
 * A runs folder → the report's data model. The GameVerse tables are the leaderboard's rows
 * (completed runs only, VR = No / Yes / —, human stages) rearranged as game × player, with
 * each game's category and tier from its profile; ING-VP level runs (in the runs folder, or in
 * the runs/ of a suite folder in it), IDC folders, latency pairs and cost per score point are
 * read from the same scan. A damaged run.json is skipped with a warning.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { scanRuns, scanRunsAndSuites } from '../store/run-library.ts';
import type { RunMeta } from '../store/run-store.ts';
import { isScoredRun, leaderboardRows, type LeaderboardRow } from '../store/leaderboard.ts';
import { loadCatalog, type ProfileCatalog } from '../profiles/registry.ts';
import { CATEGORIES, TIERS } from '../profiles/schema.ts';
import { readIdc } from '../reflection/idc-files.ts';
import { mean } from '../util/time.ts';
import { INGVP_SETTINGS } from '../ingvp/settings.ts';
import { tableOf, type LevelRow } from '../ingvp/table.ts';
import { INGVP_GAME_IDS } from '../../games/ingvp/games.ts';
import type { GameverseRow, Player, ReportData, Stat } from './model.ts';

export interface ReportOptions {
  /** Profiles for games whose runs do not name their category and tier (default: the shipped ones). */
  catalog?: ProfileCatalog;
  now?: Date;
}

const r2 = (n: number) => Math.round(n * 100) / 100;
const LATENCY_ORDER = ['stop', 'slow', 'normal', 'lcrt'];

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
  return {
    generated: (opts.now ?? new Date()).toISOString(),
    runs_dir: dir,
    runs: { counted, left_out: metas.length - counted, damaged },
    warnings,
    gameverse: gameverse(board, played, catalog),
    ingvp: ingvp.rows,
    idc: idcCurves(dir, warnings),
    latency: latencyComparisons(board),
    cost: costRows(played),
  };
}

// ─── GameVerse ──────────────────────────────────────────────────────────────────────────────

function playerOf(r: LeaderboardRow): Player {
  const baseline =
    r.player === 'random' || r.player === 'human-rookie' || r.player === 'human-expert' ? r.player : null;
  const label =
    baseline === 'random'
      ? 'Random'
      : baseline === 'human-rookie'
        ? 'Human Rookie'
        : baseline === 'human-expert'
          ? 'Human Expert'
          : r.model
            ? r.player === 'vlm'
              ? r.model
              : `${r.model} (${r.player})`
            : r.player === 'solver'
              ? 'Solver'
              : r.player;
  return {
    player: r.player,
    model: r.model,
    vr: r.vr,
    lessons: r.lessons,
    space: r.space,
    latency: r.latency,
    label,
    baseline,
  };
}

const playerKey = (p: Omit<Player, 'label' | 'baseline'>) =>
  [p.player, p.model ?? '', p.vr, p.lessons ?? '', p.space, p.latency].join('|');
const statOf = (r: LeaderboardRow): Stat => ({ mean: r.mean, std: r.std, n: r.episodes, runs: r.runs });

/** Random, the human expert and the rookie first (as in GameVerse's Tab. 3), then agents by name; VR = No before Yes. */
function comparePlayers(a: Player, b: Player): number {
  const rank = (p: Player) => (p.baseline ? ['random', 'human-expert', 'human-rookie'].indexOf(p.baseline) : 3);
  const vr = { No: 0, Yes: 1, '—': 2 };
  return (
    rank(a) - rank(b) ||
    a.label.localeCompare(b.label) ||
    a.space.localeCompare(b.space) ||
    a.latency.localeCompare(b.latency) ||
    vr[a.vr] - vr[b.vr] ||
    (a.lessons ?? '').localeCompare(b.lessons ?? '')
  );
}

function gameInfo(id: string, metas: RunMeta[], catalog: ProfileCatalog) {
  const recorded = metas.find((m) => m.game === id && m.profile)?.profile as Record<string, unknown> | undefined;
  const shipped = catalog.entries.find((e) => e.profile.id === id || e.profile.builtin === id)?.profile;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    id,
    title: str(recorded?.title) ?? shipped?.title ?? id,
    category: str(recorded?.category) ?? shipped?.category ?? null,
    tier: str(recorded?.tier) ?? shipped?.tier ?? null,
  };
}

const orderIn = (list: readonly string[], v: string | null) => (v === null ? list.length : list.indexOf(v));

function gameverse(board: LeaderboardRow[], metas: RunMeta[], catalog: ProfileCatalog): ReportData['gameverse'] {
  const games = [...new Set(board.map((r) => r.game))]
    .map((id) => gameInfo(id, metas, catalog))
    .sort(
      (a, b) =>
        orderIn(CATEGORIES, a.category) - orderIn(CATEGORIES, b.category) ||
        orderIn(TIERS, a.tier) - orderIn(TIERS, b.tier) ||
        a.id.localeCompare(b.id),
    );
  const byKey = new Map<string, GameverseRow>();
  for (const r of board) {
    const p = playerOf(r);
    const row = byKey.get(playerKey(p)) ?? { ...p, cells: {} };
    row.cells[r.game] = statOf(r);
    byKey.set(playerKey(p), row);
  }
  const rows = [...byKey.values()].sort(comparePlayers);

  const gains: ReportData['gameverse']['gains'] = [];
  for (const yes of rows.filter((r) => r.vr === 'Yes')) {
    const no = byKey.get(playerKey({ ...yes, vr: 'No', lessons: null }));
    if (!no) continue;
    for (const g of games) {
      const y = yes.cells[g.id];
      const n = no.cells[g.id];
      if (!y || !n) continue;
      const { vr: _vr, cells: _cells, ...who } = yes;
      gains.push({ ...who, game: g.id, no: n, yes: y, gain: r2(y.mean - n.mean) });
    }
  }

  const grouped = (field: 'category' | 'tier', order: readonly string[]) =>
    rows.flatMap(({ cells, ...p }) =>
      order.flatMap((group) => {
        const means = games.filter((g) => g[field] === group && cells[g.id]).map((g) => cells[g.id]!.mean);
        return means.length ? [{ ...p, group, mean: r2(mean(means)), games: means.length }] : [];
      }),
    );
  return { games, rows, gains, by_category: grouped('category', CATEGORIES), by_tier: grouped('tier', TIERS) };
}

/** The same game and player under two or more latency modes. */
function latencyComparisons(board: LeaderboardRow[]): ReportData['latency'] {
  const groups = new Map<string, { row: LeaderboardRow; modes: ReportData['latency'][number]['modes'] }>();
  for (const r of board) {
    const key = [r.game, playerKey({ ...playerOf(r), latency: '' })].join('|');
    const g = groups.get(key) ?? { row: r, modes: [] };
    g.modes.push({ latency: r.latency, ...statOf(r) });
    groups.set(key, g);
  }
  return [...groups.values()]
    .filter((g) => g.modes.length > 1)
    .map(({ row, modes }) => {
      const { latency: _l, ...p } = playerOf(row);
      return {
        ...p,
        game: row.game,
        modes: modes.sort((a, b) => orderIn(LATENCY_ORDER, a.latency) - orderIn(LATENCY_ORDER, b.latency)),
      };
    });
}

/** Tokens and money per score point, per game × player × model, over the runs that called a model. */
function costRows(metas: RunMeta[]): ReportData['cost'] {
  const groups = new Map<string, RunMeta[]>();
  for (const m of metas) {
    if (!isScoredRun(m) || m.totals.tokens_in + m.totals.tokens_out === 0) continue;
    const key = [m.game, m.agent, m.model ?? ''].join('|');
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups.values()]
    .map((runs) => {
      const scores = runs.flatMap((m) => m.episodes.flatMap((e) => (typeof e.score === 'number' ? [e.score] : [])));
      const points = scores.reduce((a, b) => a + b, 0);
      const tokensIn = runs.reduce((a, m) => a + m.totals.tokens_in, 0);
      const tokensOut = runs.reduce((a, m) => a + m.totals.tokens_out, 0);
      const costs = runs.map((m) => m.totals.cost_usd).filter((c): c is number => c !== null);
      const cost = costs.length ? costs.reduce((a, b) => a + b, 0) : null;
      return {
        game: runs[0]!.game!,
        player: runs[0]!.agent,
        model: runs[0]!.model,
        runs: runs.length,
        episodes: scores.length,
        points: r2(points),
        mean: scores.length ? r2(points / scores.length) : 0,
        tokens_in: tokensIn,
        tokens_out: tokensOut,
        cost_usd: cost === null ? null : Math.round(cost * 1e6) / 1e6,
        tokens_per_point: points > 0 ? r2((tokensIn + tokensOut) / points) : null,
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
  setting: z.enum(INGVP_SETTINGS),
  level: z.number().int().positive(),
  solved: z.boolean(),
  completion: percent,
  efficiency: percent,
  actions: count,
  changed: count,
});

const ingvpLabel = (agent: string, model: string | null) =>
  agent === 'random'
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
 * means over levels), and an "all" row per setting over every game, as the suite's table.json.
 */
function ingvpTable(metas: RunMeta[], warnings: string[]): { rows: ReportData['ingvp']; counted: number } {
  const players = new Map<string, { agent: string; model: string | null; levels: LevelRow[] }>();
  let counted = 0;
  for (const m of metas) {
    if (m.status !== 'completed' || m.demo) continue;
    const parsed = IngvpLevelSchema.safeParse((m as { ingvp?: unknown }).ingvp);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      warnings.push(
        `skipped ING-VP run ${m.id}: its run.json has no valid "ingvp" metrics (${issue ? `${issue.path.join('.') || 'ingvp'}: ${issue.message}` : 'missing'})`,
      );
      continue;
    }
    counted++;
    const key = [m.agent, m.model ?? ''].join('|');
    const p = players.get(key) ?? { agent: m.agent, model: m.model, levels: [] };
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
  for (const { agent, model, levels } of players.values()) {
    const games = [...new Set(levels.map((l) => l.game))].sort(
      (a, b) => gameOrder(a) - gameOrder(b) || a.localeCompare(b),
    );
    const settings = INGVP_SETTINGS.filter((s) => levels.some((l) => l.setting === s));
    const table = tableOf(levels, settings, games);
    for (const [game, cells] of Object.entries(table.rows))
      for (const setting of settings) {
        const cell = cells[setting];
        if (cell) rows.push({ game, setting, player: agent, model, label: ingvpLabel(agent, model), ...cell });
      }
  }
  rows.sort(
    (a, b) =>
      gameOrder(a.game) - gameOrder(b.game) ||
      a.game.localeCompare(b.game) ||
      orderIn(INGVP_SETTINGS, a.setting) - orderIn(INGVP_SETTINGS, b.setting) ||
      ingvpRank(a.player) - ingvpRank(b.player) ||
      a.label.localeCompare(b.label),
  );
  return { rows, counted };
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
        game: first?.game ?? null,
        model: first?.model ?? null,
        curve: result.curve,
        best_round: result.best_round,
        transfer_mean: result.transfer.mean,
      });
    } catch (err) {
      warnings.push(`skipped ${(err as Error).message}`);
    }
  }
  return curves.sort((a, b) => a.id.localeCompare(b.id));
}
