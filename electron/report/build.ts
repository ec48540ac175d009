/**
 * A runs folder → the report's data model. The GameVerse tables are the leaderboard's rows
 * (completed runs only, VR = No / Yes / —, human stages) rearranged as game × player, with
 * each game's category and tier from its profile; ING-VP runs, IDC folders, latency pairs and
 * cost per score point are read from the same scan. A damaged run.json is skipped with a warning.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { scanRuns } from '../store/run-library.ts';
import type { RunMeta } from '../store/run-store.ts';
import { isScoredRun, leaderboardRows, type LeaderboardRow } from '../store/leaderboard.ts';
import { loadCatalog, type ProfileCatalog } from '../profiles/registry.ts';
import { CATEGORIES, TIERS } from '../profiles/schema.ts';
import { readIdc } from '../reflection/idc-files.ts';
import { mean } from '../util/time.ts';
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
  const { runs, warnings } = scanRuns(dir);
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

const isIngvp = (m: RunMeta) => (m as unknown as Record<string, unknown>).suite === 'ingvp';

const metric = z.number().finite();
const IngvpMetricsSchema = z.looseObject({
  accuracy: metric,
  completion: metric,
  efficiency: metric,
  levels: z.number().int().positive().optional(),
});

/**
 * An ING-VP run: `suite: "ingvp"`, its game, its setting (top level, in `config` or in `ingvp`)
 * and its metrics (`metrics`, or `ingvp.metrics`), each weighted by the levels it covers.
 */
function ingvpTable(metas: RunMeta[], warnings: string[]): { rows: ReportData['ingvp']; counted: number } {
  const groups = new Map<
    string,
    {
      game: string;
      setting: string;
      model: string | null;
      parts: { w: number; m: z.output<typeof IngvpMetricsSchema> }[];
    }
  >();
  let counted = 0;
  for (const m of metas) {
    if (m.status !== 'completed' || m.demo) continue;
    const raw = m as unknown as Record<string, Record<string, unknown> | undefined>;
    const setting = [raw.setting, m.config.setting, raw.ingvp?.setting].find((s) => typeof s === 'string') as
      | string
      | undefined;
    const parsed = IngvpMetricsSchema.safeParse(raw.metrics ?? raw.ingvp?.metrics);
    if (!m.game || !setting || !parsed.success) {
      warnings.push(
        `skipped ING-VP run ${m.id}: it names no game, setting or metrics (accuracy, completion, efficiency)`,
      );
      continue;
    }
    counted++;
    const key = [m.game, setting, m.model ?? ''].join('|');
    const g = groups.get(key) ?? { game: m.game, setting, model: m.model, parts: [] };
    g.parts.push({ w: parsed.data.levels ?? 1, m: parsed.data });
    groups.set(key, g);
  }
  const rows = [...groups.values()]
    .map(({ parts, ...g }) => {
      const levels = parts.reduce((a, p) => a + p.w, 0);
      const avg = (k: 'accuracy' | 'completion' | 'efficiency') =>
        r2(parts.reduce((a, p) => a + p.w * p.m[k], 0) / levels);
      return {
        ...g,
        levels,
        runs: parts.length,
        accuracy: avg('accuracy'),
        completion: avg('completion'),
        efficiency: avg('efficiency'),
      };
    })
    .sort((a, b) => a.game.localeCompare(b.game) || a.setting.localeCompare(b.setting));
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
