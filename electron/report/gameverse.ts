/**
 * GameVerse's tables from the leaderboard's rows (completed runs, VR = No / Yes / —, human
 * stages), each in the paper's shape:
 * - Table 3: title × player in the GUI space, GameVerse's fifteen titles first in the paper's
 *   order (empty columns included), then every other title played (a user's profile, an
 *   unprofiled window) by category and tier; the Random / Human Expert / Human Rookie rows first;
 *   the Avg Rank column, over the paper's rank pool only (notRankedReason); the other rows beside it,
 *   not ranked, each with the reason.
 * - the assisted rows (a person took the controls) in a table of their own: in none of the others.
 * - Table 4: GUI beside semantic for each title played in the semantic space.
 * - Table 5: one row per model × reflection mode in the semantic space, with the mean of its titles.
 * - the latency comparison, within one protocol family, with each mode's change against its stop.
 * Titles are keyed as store/run-title.ts keys them; categories and tiers come from the runs'
 * profile records, else the shipped profiles.
 */
import { LATENCY_MODES, round2, type LeaderboardRow } from '../domain.ts';
import type { ProfileCatalog } from '../profiles/registry.ts';
import { CATEGORIES, TIERS } from '../profiles/profile-schema.ts';
import { mean } from '../util/time.ts';
import type { GameverseRow, Player, ReportData, Stat } from './model.ts';

/** GameVerse's fifteen titles, as Table 3 lists them (by category: Markov grid … real-time non-linear; by tier). */
export const GAMEVERSE_TITLES = [
  'tictactoe',
  'baba-is-you',
  '2048',
  'maze',
  'angry-birds',
  'slay-the-spire',
  'ace-attorney',
  'civilization-vi',
  'scene-investigators',
  'snake',
  'plants-vs-zombies',
  'forza-horizon-5',
  'mini-metro',
  'genshin-impact',
  'red-dead-redemption-2',
] as const;
const orderIn = (list: readonly string[], v: string | null) => (v === null ? list.length : list.indexOf(v));

export function playerOf(r: LeaderboardRow): Player {
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
    assisted: r.assisted,
    vr: r.vr,
    lessons: r.lessons,
    actionSpace: r.actionSpace,
    latency: r.latency,
    protocol: r.protocol,
    label: r.assisted ? `${label} (assisted)` : label,
    baseline: r.assisted ? null : baseline,
  };
}

export const playerKey = (p: Omit<Player, 'label' | 'baseline'>) =>
  [p.player, p.model ?? '', p.assisted ? 'assisted' : '', p.vr, p.lessons ?? '', p.actionSpace, p.protocol].join('|');
const statOf = (r: LeaderboardRow): Stat => ({
  mean: r.mean,
  std: r.std,
  n: r.episodes,
  runs: r.runs,
  runs_std: r.runs_std,
  invalid: r.invalid_episodes,
  no_effect_rate: r.no_effect_rate,
  invalid_rate: r.invalid_rate,
  quality_runs: r.quality_runs,
  unreadable: r.unreadable,
});

/** Random, the human expert and the rookie first (as in GameVerse's Tab. 3), then agents by name; VR = No before Yes. */
function comparePlayers(a: Player, b: Player): number {
  const rank = (p: Player) => (p.baseline ? ['random', 'human-expert', 'human-rookie'].indexOf(p.baseline) : 3);
  const vr = { No: 0, Yes: 1, '—': 2 };
  return (
    rank(a) - rank(b) ||
    a.label.localeCompare(b.label) ||
    a.actionSpace.localeCompare(b.actionSpace) ||
    a.latency.localeCompare(b.latency) ||
    a.protocol.localeCompare(b.protocol) ||
    vr[a.vr] - vr[b.vr] ||
    (a.lessons ?? '').localeCompare(b.lessons ?? '')
  );
}

type GameInfo = ReportData['gameverse']['games'][number];

/** Every title of the tables: the paper's fifteen in its order, then the others played. */
function titles(board: LeaderboardRow[], catalog: ProfileCatalog): GameInfo[] {
  const shipped = (id: string) => catalog.entries.find((e) => e.profile.id === id || e.profile.builtin === id)?.profile;
  const info = (id: string): GameInfo => {
    const played = board.filter((r) => r.game === id);
    const row = played[0];
    const p = shipped(id);
    return {
      id,
      title: row?.title ?? p?.title ?? id,
      kind: row?.kind ?? (p?.builtin !== undefined ? 'builtin' : 'profile'),
      category: row?.category ?? p?.category ?? null,
      tier: row?.tier ?? p?.tier ?? null,
      paper: (GAMEVERSE_TITLES as readonly string[]).includes(id),
      profile_versions: Math.max(0, ...played.map((r) => r.profile_versions)),
    };
  };
  const others = [...new Set(board.map((r) => r.game))]
    .filter((id) => !(GAMEVERSE_TITLES as readonly string[]).includes(id))
    .map(info)
    .sort(
      (a, b) =>
        orderIn(CATEGORIES, a.category) - orderIn(CATEGORIES, b.category) ||
        orderIn(TIERS, a.tier) - orderIn(TIERS, b.tier) ||
        a.id.localeCompare(b.id),
    );
  return [...GAMEVERSE_TITLES.map(info), ...others];
}

/**
 * GameVerse's Avg Rank, per row: in each title, the rows with a cell there (of the same action
 * space) are ranked by mean, 1 = best; rows with equal means (to 0.01) share the mean of the
 * positions they span. A row's Avg Rank is the mean of its ranks over the titles it played; a
 * title it did not play is left out rather than ranked last.
 */
export function averageRanks(
  rows: { cells: Record<string, Pick<Stat, 'mean'>> }[],
  games: string[],
): (number | null)[] {
  const ranks: number[][] = rows.map(() => []);
  for (const g of games) {
    const played = rows.flatMap((r, i) => (r.cells[g] ? [{ i, mean: round2(r.cells[g]!.mean) }] : []));
    played.sort((a, b) => b.mean - a.mean);
    for (let start = 0; start < played.length; ) {
      let end = start;
      while (end + 1 < played.length && played[end + 1]!.mean === played[start]!.mean) end++;
      const shared = (start + 1 + end + 1) / 2;
      for (let k = start; k <= end; k++) ranks[played[k]!.i]!.push(shared);
      start = end + 1;
    }
  }
  return ranks.map((r) => (r.length ? round2(mean(r)) : null));
}

/**
 * The latency mode of the paper's Table 3: it does not say, but its Snake cells equal the 10 s
 * column of its Tab. 20, which is normal (docs/fidelity.md); normal is also every profile's default.
 */
export const RANKED_LATENCY = 'normal';
/** A model's own reflection (failures, tutorial, both), the one Table 3's VR = Yes row ranks: both first. */
const OWN_LESSONS = ['self', 'self-f', 'self-t'];

/**
 * Why a row is not in GameVerse's rank pool, or null when it is: the paper ranks one row per
 * player × VR — played in normal latency, unassisted, and for a model's VR = Yes with lessons from
 * its own reflection (Self; Self-F or Self-T when it has no Self row). Random, the expert and the
 * rookie are in it, as in the paper. Every other row (the latency study, Table 5's Other / Edited /
 * Given, a person's takeover) is shown, not ranked: it would be a second row of the same player
 * and push everyone else's rank down.
 */
export function notRankedReason(p: Player, rows: readonly Player[]): string | null {
  if (p.assisted) return 'assisted: a person took the controls';
  if (p.latency !== RANKED_LATENCY)
    return `${p.protocol || p.latency}: the paper’s table is played in ${RANKED_LATENCY}`;
  if (p.vr !== 'Yes' || p.baseline === 'human-rookie') return null;
  if (!OWN_LESSONS.includes(p.lessons ?? '')) return `lessons ${p.lessons ?? '?'}: not the model’s own reflection`;
  const own = rows
    .filter((o) => o.vr === 'Yes' && playerKey({ ...o, lessons: null }) === playerKey({ ...p, lessons: null }))
    .map((o) => o.lessons ?? '')
    .filter((l) => OWN_LESSONS.includes(l))
    .sort((a, b) => OWN_LESSONS.indexOf(a) - OWN_LESSONS.indexOf(b));
  return own[0] === p.lessons ? null : `lessons ${p.lessons}: the model’s ${own[0]} row is ranked`;
}

/** GameVerse's reflection modes as Table 5 names them. */
function reflectionMode(p: Pick<Player, 'vr' | 'lessons'>): string {
  if (p.vr !== 'Yes') return 'No';
  const names: Record<string, string> = {
    'self-f': 'Self-F',
    'self-t': 'Self-T',
    self: 'Self',
    other: 'Other',
    edited: 'Edited',
    given: 'Given',
  };
  return names[p.lessons ?? ''] ?? p.lessons ?? 'Yes';
}

export function gameverseTables(board: LeaderboardRow[], catalog: ProfileCatalog): ReportData['gameverse'] {
  const games = titles(board, catalog);
  const byKey = new Map<string, Omit<GameverseRow, 'avg_rank' | 'not_ranked'>>();
  for (const r of board) {
    const p = playerOf(r);
    const row = byKey.get(playerKey(p)) ?? { ...p, cells: {} };
    row.cells[r.game] = statOf(r);
    byKey.set(playerKey(p), row);
  }
  const all = [...byKey.values()].sort(comparePlayers);
  const ids = games.map((g) => g.id);
  const reasons = new Map(all.map((r) => [r, notRankedReason(r, all)]));
  const rankOf = new Map<object, number | null>();
  for (const space of new Set(all.map((r) => r.actionSpace))) {
    const pool = all.filter((r) => r.actionSpace === space && reasons.get(r) === null);
    for (const [i, rank] of averageRanks(pool, ids).entries()) rankOf.set(pool[i]!, rank);
  }
  const ranked = (r: (typeof all)[number]): GameverseRow => ({
    ...r,
    avg_rank: rankOf.get(r) ?? null,
    not_ranked: reasons.get(r) ?? null,
  });
  // An assisted row is in no table but its own.
  const rows = all.filter((r) => !r.assisted).map(ranked);
  const assisted = all.filter((r) => r.assisted).map(ranked);

  const gains: ReportData['gameverse']['gains'] = [];
  for (const yes of rows.filter((r) => r.vr === 'Yes')) {
    const no = byKey.get(playerKey({ ...yes, vr: 'No', lessons: null }));
    if (!no) continue;
    for (const g of games) {
      const y = yes.cells[g.id];
      const n = no.cells[g.id];
      if (!y || !n) continue;
      const { vr: _vr, cells: _cells, avg_rank: _rank, not_ranked: _why, ...who } = yes;
      gains.push({ ...who, game: g.id, no: n, yes: y, gain: round2(y.mean - n.mean) });
    }
  }

  const grouped = (field: 'category' | 'tier', order: readonly string[]) =>
    rows.flatMap(({ cells, avg_rank: _rank, not_ranked: _why, ...p }) =>
      order.flatMap((group) => {
        const means = games.filter((g) => g[field] === group && cells[g.id]).map((g) => cells[g.id]!.mean);
        return means.length ? [{ ...p, group, mean: round2(mean(means)), games: means.length }] : [];
      }),
    );
  return {
    games,
    rows,
    gains,
    by_category: grouped('category', CATEGORIES),
    by_tier: grouped('tier', TIERS),
    paired: pairedTable(rows, ids),
    reflection: reflectionTable(rows, ids),
    assisted,
  };
}

/** Table 4: the titles with a semantic cell; per player × VR (any space), its GUI and semantic cells there. */
function pairedTable(rows: GameverseRow[], order: string[]): ReportData['gameverse']['paired'] {
  const games = order.filter((g) => rows.some((r) => r.actionSpace === 'semantic' && r.cells[g]));
  const byWho = new Map<string, ReportData['gameverse']['paired']['rows'][number]>();
  for (const r of rows) {
    if (r.actionSpace !== 'gui' && r.actionSpace !== 'semantic') continue;
    if (!games.some((g) => r.cells[g])) continue;
    const key = playerKey({ ...r, actionSpace: '' });
    const { actionSpace: _s, cells, avg_rank: _rank, not_ranked: _why, ...who } = r;
    const row = byWho.get(key) ?? { ...who, cells: {} };
    for (const g of games) {
      if (!cells[g]) continue;
      const pair = row.cells[g] ?? { gui: null, semantic: null };
      pair[r.actionSpace] = cells[g]!;
      row.cells[g] = pair;
    }
    byWho.set(key, row);
  }
  return { games, rows: [...byWho.values()] };
}

/** Table 5: model rows of the semantic space, one per reflection mode, with the mean of their title means. */
function reflectionTable(rows: GameverseRow[], order: string[]): ReportData['gameverse']['reflection'] {
  const semantic = rows.filter((r) => r.actionSpace === 'semantic' && r.model !== null);
  const games = order.filter((g) => semantic.some((r) => r.cells[g]));
  const modes = ['No', 'Self-F', 'Self-T', 'Self', 'Other', 'Edited', 'Given'];
  const out = semantic.map((r) => {
    const means = games.flatMap((g) => (r.cells[g] ? [r.cells[g]!.mean] : []));
    return {
      player: r.player,
      model: r.model,
      label: r.label,
      latency: r.latency,
      protocol: r.protocol,
      mode: reflectionMode(r),
      cells: Object.fromEntries(games.flatMap((g) => (r.cells[g] ? [[g, r.cells[g]!]] : []))),
      mean: round2(mean(means)),
      titles: means.length,
    };
  });
  out.sort(
    (a, b) =>
      a.label.localeCompare(b.label) ||
      a.protocol.localeCompare(b.protocol) ||
      orderIn(modes, a.mode) - orderIn(modes, b.mode),
  );
  return { games, rows: out };
}

/**
 * The same title and player under two or more protocols, unassisted, in protocol families: the
 * rows that freeze the world the same way (normal, which freezes nothing, in every family), each
 * family with at most one stop protocol as the reference its modes' changes are against. A family
 * with two stop protocols (OmniGameArena's PDQ, stop 0 ms, and GameVerse's Stop, 2000 ms) is two
 * comparisons, one per stop: a change against stop never mixes them.
 */
export function latencyComparisons(board: LeaderboardRow[]): ReportData['latency'] {
  const groups = new Map<string, LeaderboardRow[]>();
  for (const r of board) {
    if (r.assisted) continue;
    const key = [r.game, playerKey({ ...playerOf(r), latency: '', protocol: '' })].join('|');
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const out: ReportData['latency'] = [];
  for (const rows of groups.values()) {
    const freezes = [...new Set(rows.filter((r) => r.latency !== 'normal').map((r) => r.freeze))];
    for (const freeze of freezes) {
      const family = rows.filter((r) => r.latency === 'normal' || r.freeze === freeze);
      const stops = family.filter((r) => r.latency === 'stop');
      for (const stop of stops.length ? stops : [null]) {
        const modes = family.filter((r) => r.latency !== 'stop' || r === stop);
        if (modes.length < 2) continue;
        const { latency: _l, protocol: _p, ...p } = playerOf(rows[0]!);
        out.push({
          ...p,
          game: rows[0]!.game,
          freeze,
          reference: stop?.protocol ?? null,
          modes: modes
            .sort(
              (a, b) =>
                orderIn(LATENCY_MODES, a.latency) - orderIn(LATENCY_MODES, b.latency) ||
                a.protocol.localeCompare(b.protocol),
            )
            .map((m) => ({
              latency: m.latency,
              protocol: m.protocol,
              ...statOf(m),
              change_vs_stop: stop && m !== stop ? round2(m.mean - stop.mean) : null,
            })),
        });
      }
    }
  }
  return out;
}
