/**
 * An arena folder's tables, computed from its run folders alone: `arena.json`'s spec says which
 * matches are played, each completed run in `runs/` (its run.json's `arena.match`) fills its
 * cell with its valid episodes (a failed run fills none; invalid episodes count nowhere; a co-op
 * episode whose score could not be read counts as 0, said), and
 * the cell names that run. `gamepilot arena`, the report and the Runs tab all read
 * an arena through here.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { CodedError, LATENCY_MODES, round2, type MatrixCell, type Standing, type TeamScore } from '../domain.ts';
import { parseRunMeta, type RunMeta } from '../store/run-store.ts';
import { isUnreadableEpisode } from '../store/run-quality.ts';
import { readFormerNames } from '../util/former-names.ts';

export const ARENA_FILE = 'arena.json';

/** arena.json's `spec`: snake_case like run.json's records; files written before held the action space as `space`. */
export const ArenaSpecSchema = z.preprocess(
  (spec) => readFormerNames(spec, { space: 'action_space' }),
  z.object({
    game: z.string(),
    mode: z.enum(['pvp', 'coop']),
    agents: z.array(z.string()),
    trials: z.number().int(),
    mixed: z.boolean(),
    latency: z.enum(LATENCY_MODES),
    action_space: z.string(),
    max_steps: z.number().int().nullable(),
    seed: z.number(),
  }),
);
export type ArenaSpec = z.output<typeof ArenaSpecSchema>;

export interface Match {
  id: string;
  p1: string;
  p2: string;
}

export interface ArenaTables {
  /** PvP: rows player 1, columns player 2; the diagonal is null (no self-play). */
  matrix?: (MatrixCell | null)[][];
  /** PvP: each agent's wins, losses, draws over both seats, and win rate (wins / games). */
  standings?: Standing[];
  /** Co-op: each pair's mean team score (0–100) over its episodes, an unreadable one as 0. */
  teams?: TeamScore[];
}

/**
 * How an episode ends when the harness's limit, not the game, ended it (session.ts): a two-seat
 * game left undecided there counts as a draw, and the tables say how many draws were so.
 */
export const LIMIT_ENDS: readonly string[] = ['max_steps', 'max_time'];
const decidedByLimit = (e: { winner?: number | null; end: string }) =>
  e.winner !== 0 && e.winner !== 1 && LIMIT_ENDS.includes(e.end);

export const matchId = (p1: string, p2: string) => `${p1}__${p2}`.replace(/[^\w.-]+/g, '_');

/** Episodes of each match by default: half the game's trials, at least 1 (both sides together make its count). */
export const defaultMatchTrials = (gameTrials: number) => Math.max(1, Math.floor(gameTrials / 2));

/** The matches an arena plays, in order. */
export function arenaMatches(mode: 'pvp' | 'coop', agents: string[], mixed: boolean): Match[] {
  const out: Match[] = [];
  for (const a of agents)
    for (const b of agents) {
      if (mode === 'pvp' && a === b) continue;
      if (mode === 'coop' && a !== b && (!mixed || agents.indexOf(a) > agents.indexOf(b))) continue;
      out.push({ id: matchId(a, b), p1: a, p2: b });
    }
  return out;
}

/** Completed match runs in the arena's runs folder (of `game` only, when given), newest per match. */
export function completedRuns(runsDir: string, game?: string): Map<string, { dir: string; meta: RunMeta }> {
  const out = new Map<string, { dir: string; meta: RunMeta }>();
  if (!existsSync(runsDir)) return out;
  for (const name of readdirSync(runsDir).sort()) {
    const file = path.join(runsDir, name, 'run.json');
    if (!existsSync(file)) continue;
    let meta: RunMeta;
    try {
      meta = parseRunMeta(readFileSync(file, 'utf8'), file);
    } catch {
      continue; // damaged: played again
    }
    if (meta.status !== 'completed' || !meta.arena || (game !== undefined && meta.game !== game)) continue;
    out.set(meta.arena.match, { dir: path.join(runsDir, name), meta });
  }
  return out;
}

/** Whether `dir` is an arena folder: a plain folder holding a plain arena.json. */
export function isArenaFolder(dir: string): boolean {
  const file = path.join(dir, ARENA_FILE);
  return existsSync(file) && !lstatSync(dir).isSymbolicLink() && lstatSync(file).isFile();
}

/** An arena folder's spec, from its arena.json. */
export function readArenaSpec(dir: string): ArenaSpec {
  const file = path.join(dir, ARENA_FILE);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CodedError('bad-input', `${file} is not readable JSON: ${(err as Error).message}`);
  }
  const spec = ArenaSpecSchema.safeParse((raw as { spec?: unknown } | null)?.spec);
  if (!spec.success)
    throw new CodedError('bad-input', `${file} has no valid arena spec: ${spec.error.issues[0]?.message}`);
  return spec.data;
}

/** The tables of an arena, from its completed run folders; `missing` names the matches not completed yet. */
export function arenaTables(dir: string, spec: ArenaSpec): ArenaTables & { missing: string[] } {
  return runsTables(path.join(dir, 'runs'), spec);
}

/**
 * The tables of an arena's matches among the completed runs of any folder: an arena's `runs/`,
 * or a sweep's out folder, whose `arena:` matches are runs like the others (of the spec's game).
 */
export function runsTables(runsDir: string, spec: ArenaSpec): ArenaTables & { missing: string[] } {
  const runs = completedRuns(runsDir, spec.game);
  const matches = arenaMatches(spec.mode, spec.agents, spec.mixed);
  const missing = matches.filter((m) => !runs.has(m.id)).map((m) => m.id);
  // An episode marked invalid (no model answers) decides no match and adds to no team score.
  const eps = (id: string) => (runs.get(id)?.meta.episodes ?? []).filter((e) => e.invalid === undefined);
  if (spec.mode === 'coop') {
    return {
      missing,
      teams: matches.map((m) => {
        const meta = runs.get(m.id)?.meta;
        // A team score that could not be read counts as 0, and the pair says how many.
        const unreadable = meta ? eps(m.id).filter((e) => isUnreadableEpisode(e, meta)).length : 0;
        const scores = [...eps(m.id).flatMap((e) => (e.score === null ? [] : [e.score])), ...Array(unreadable).fill(0)];
        return {
          p1: m.p1,
          p2: m.p2,
          episodes: scores.length,
          unreadable,
          mean: scores.length ? round2(scores.reduce((a, b) => a + b, 0) / scores.length) : null,
          run: runs.get(m.id)?.dir ?? null,
        };
      }),
    };
  }
  const matrix = spec.agents.map((a) =>
    spec.agents.map((b): MatrixCell | null => {
      if (a === b) return null;
      const e = eps(matchId(a, b));
      const p1 = e.filter((x) => x.winner === 0).length;
      const p2 = e.filter((x) => x.winner === 1).length;
      return {
        games: e.length,
        p1_wins: p1,
        p2_wins: p2,
        draws: e.length - p1 - p2,
        limit_draws: e.filter(decidedByLimit).length,
        p1_win_rate: e.length ? round2(p1 / e.length) : null,
        run: runs.get(matchId(a, b))?.dir ?? null,
      };
    }),
  );
  const standings = spec.agents.map((a, i): Standing => {
    let [games, wins, losses, limitDraws] = [0, 0, 0, 0];
    spec.agents.forEach((_b, j) => {
      for (const [cell, won, lost] of [
        [matrix[i]![j], 'p1_wins', 'p2_wins'],
        [matrix[j]![i], 'p2_wins', 'p1_wins'],
      ] as const) {
        if (!cell) continue;
        [games, wins, losses] = [games + cell.games, wins + cell[won], losses + cell[lost]];
        limitDraws += cell.limit_draws;
      }
    });
    return {
      agent: a,
      games,
      wins,
      losses,
      draws: games - wins - losses,
      limit_draws: limitDraws,
      win_rate: games ? round2(wins / games) : null,
    };
  });
  return { missing, matrix, standings };
}
