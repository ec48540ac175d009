/**
 * OmniGameArena's multi-agent evaluation: every pairwise matchup of a set of agents in a
 * two-seat game. PvP plays each ordered pair (A as player 1 against B, and B against A: both
 * sides), never an agent against itself, and reports the player-1 win-rate matrix, each agent's
 * win rate over both seats, and draws; co-op plays each agent with a copy of itself (and, when
 * asked, every mixed pair) and reports the team score.
 *
 * An arena is a folder: `arena.json` (what is played, then the tables) and `runs/`, one run
 * folder per match. It resumes like a sweep: a match whose run completed is never played again,
 * one killed or failed part-way is played anew; the tables are computed from the run folders
 * themselves, so each cell is the runs it names.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { CodedError, LATENCY_MODES, type ActionSpace, type LatencyMode } from '../domain.ts';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { tryLock } from '../util/file-lock.ts';
import { parseRunMeta, type RunMeta } from '../store/run-store.ts';
import type { WindowManager } from '../../native/types.ts';
import type { CaptureBackend } from '../capture/index.ts';
import type { EncodeOptions } from '../capture/encode.ts';
import { prepareSeatedRun, seatLabel, twoSeatGame, type SeatSpec } from '../session/seated-compose.ts';
import type { ViewLauncher } from '../session/targets.ts';
import type { SeatedSession } from '../session/seated-session.ts';

/** An agent of the arena: `solver`, `random`, or a model as `vlm:<model>` (a bare name is `vlm:`). */
export function parseAgentSpec(text: string): SeatSpec {
  const t = text.trim();
  if (t === 'solver' || t === 'random') return { agent: t };
  // The memory agent keeps a long-term store per title; a seat has none of its own yet.
  if (t.startsWith('memory:'))
    throw new CodedError('bad-input', `"${t}": the memory agent does not play in the arena yet; use vlm:<model>`);
  const m = /^vlm:(.+)$/.exec(t);
  if (m) return { agent: 'vlm', model: m[1]!.trim() };
  if (!/^[\w./:@-]{1,200}$/.test(t))
    throw new CodedError('bad-input', `"${t}" is not an agent: solver, random or vlm:<model>`);
  return { agent: 'vlm', model: t };
}

export interface ArenaOptions {
  game: string;
  /** Agent specs (parseAgentSpec), at least two for PvP, one for co-op. */
  agents: string[];
  /** Episodes of each match (default: half the game's trials, at least 1: both sides together make its count). */
  trials?: number;
  /** Co-op: pair different agents too, not only each with a copy of itself. */
  mixed?: boolean;
  maxSteps?: number;
  latency: LatencyMode;
  space: ActionSpace;
  seed: number;
  /** The arena folder: created, or resumed when it holds this arena already. */
  dir: string;
  vlm?: { baseURL?: string; apiKey?: string };
  capture: CaptureBackend;
  encode: EncodeOptions;
  launch?: ViewLauncher;
  log: (s: string) => void;
  /** Each match's session as it starts, so a caller can stop it. */
  onSession?: (s: SeatedSession) => void;
  signal?: AbortSignal;
}

const ArenaSpecSchema = z.object({
  game: z.string(),
  mode: z.enum(['pvp', 'coop']),
  agents: z.array(z.string()),
  trials: z.number().int(),
  mixed: z.boolean(),
  latency: z.enum(LATENCY_MODES),
  space: z.string(),
  max_steps: z.number().int().nullable(),
  seed: z.number(),
});
type ArenaSpec = z.output<typeof ArenaSpecSchema>;

export interface Match {
  id: string;
  p1: string;
  p2: string;
}

/** One cell of the PvP matrix: player 1 (row) against player 2 (column). */
export interface MatrixCell {
  games: number;
  p1_wins: number;
  p2_wins: number;
  draws: number;
  /** Player 1's wins / games; null before any game. */
  p1_win_rate: number | null;
  run: string | null;
}

export interface ArenaResult {
  dir: string;
  game: string;
  mode: 'pvp' | 'coop';
  agents: string[];
  /** Matches played by this invocation (a resumed arena skips the completed ones). */
  played: string[];
  skipped: string[];
  /** Matches that failed or were stopped: played again on resume; their cells are empty. */
  unfinished: string[];
  /** PvP: rows player 1, columns player 2; the diagonal is null (no self-play). */
  matrix?: (MatrixCell | null)[][];
  /** PvP: each agent's wins, losses, draws over both seats, and win rate (wins / games). */
  standings?: { agent: string; games: number; wins: number; losses: number; draws: number; win_rate: number | null }[];
  /** Co-op: each pair's mean team score (0–100) over its episodes. */
  teams?: { p1: string; p2: string; episodes: number; mean: number | null; run: string | null }[];
}

const matchId = (p1: string, p2: string) => `${p1}__${p2}`.replace(/[^\w.-]+/g, '_');

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

/** Completed match runs in the arena's runs folder, newest per match. */
function completedRuns(runsDir: string): Map<string, { dir: string; meta: RunMeta }> {
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
    if (meta.status !== 'completed' || !meta.arena) continue;
    out.set(meta.arena.match, { dir: path.join(runsDir, name), meta });
  }
  return out;
}

export async function runArena(o: ArenaOptions, wm?: WindowManager): Promise<ArenaResult> {
  const def = twoSeatGame(o.game);
  const mode = def.seats!.mode;
  const agents = [...new Set(o.agents.map((a) => seatLabel(parseAgentSpec(a))))];
  if (mode === 'pvp' && agents.length < 2)
    throw new CodedError(
      'bad-input',
      `a PvP arena needs at least two different agents (got ${agents.join(', ') || 'none'})`,
    );
  if (agents.length < 1) throw new CodedError('bad-input', 'an arena needs agents');
  const spec: ArenaSpec = {
    game: def.id,
    mode,
    agents,
    trials: o.trials ?? Math.max(1, Math.floor(def.trials / 2)),
    mixed: mode === 'coop' && !!o.mixed,
    latency: o.latency,
    space: o.space,
    max_steps: o.maxSteps ?? null,
    seed: o.seed,
  };
  mkdirSync(o.dir, { recursive: true });
  const lock = tryLock(path.join(o.dir, 'arena.lock'));
  if (!('release' in lock))
    throw new CodedError(
      'busy',
      `another arena (pid ${lock.held?.pid ?? '?'}) is playing in ${o.dir}; wait for it or stop it`,
    );
  try {
    const specFile = path.join(o.dir, 'arena.json');
    if (existsSync(specFile)) {
      const before = ArenaSpecSchema.safeParse(JSON.parse(readFileSync(specFile, 'utf8')).spec);
      if (!before.success || JSON.stringify(before.data) !== JSON.stringify(spec))
        throw new CodedError(
          'bad-input',
          `${o.dir} holds another arena (${before.success ? `${before.data.game}: ${before.data.agents.join(', ')}, ${before.data.trials} trials, ${before.data.latency}` : 'unreadable arena.json'}); give a new folder, or the same settings to resume it`,
        );
    } else writeFileAtomic(specFile, JSON.stringify({ spec }, null, 2));
    const runsDir = path.join(o.dir, 'runs');
    const matches = arenaMatches(mode, agents, spec.mixed);
    const done = completedRuns(runsDir);
    const played: string[] = [];
    const unfinished: string[] = [];
    const skipped = matches.filter((m) => done.has(m.id)).map((m) => m.id);
    if (skipped.length) o.log(`resuming: ${skipped.length} of ${matches.length} matches already played`);
    for (const [i, m] of matches.entries()) {
      if (done.has(m.id) || o.signal?.aborted) continue;
      o.log(`match ${i + 1}/${matches.length}: ${m.p1} (${def.seats!.names[0]}) vs ${m.p2} (${def.seats!.names[1]})`);
      const { session, target } = await prepareSeatedRun(
        {
          game: def.id,
          seats: [parseAgentSpec(m.p1), parseAgentSpec(m.p2)],
          space: o.space,
          episodes: spec.trials,
          ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
          seed: o.seed,
          outDir: runsDir,
          capture: o.capture,
          encode: o.encode,
          latency: o.latency,
          ...(o.vlm ? { vlm: o.vlm } : {}),
          ...(o.launch ? { launch: o.launch } : {}),
          meta: { arena: { match: m.id, p1: m.p1, p2: m.p2 } },
        },
        wm,
      );
      try {
        o.onSession?.(session);
        const r = await session.run();
        if (r.status === 'completed') played.push(m.id);
        else unfinished.push(m.id);
        if (r.status !== 'completed')
          o.log(`match ${m.id} ${r.status}${r.error ? `: ${r.error}` : ''}; it is played again on resume`);
      } finally {
        await target.close();
      }
    }
    const result = arenaTables(o.dir, spec, matches, { played, skipped, unfinished });
    writeFileAtomic(specFile, JSON.stringify({ spec, result }, null, 2));
    return result;
  } finally {
    lock.release();
  }
}

/** The tables of an arena, from its completed run folders. */
function arenaTables(
  dir: string,
  spec: ArenaSpec,
  matches: Match[],
  progress: Pick<ArenaResult, 'played' | 'skipped' | 'unfinished'>,
): ArenaResult {
  const runs = completedRuns(path.join(dir, 'runs'));
  const base = { dir, game: spec.game, mode: spec.mode, agents: spec.agents, ...progress };
  const eps = (id: string) => runs.get(id)?.meta.episodes ?? [];
  if (spec.mode === 'coop') {
    return {
      ...base,
      teams: matches.map((m) => {
        const scores = eps(m.id)
          .map((e) => e.score)
          .filter((s): s is number => s !== null);
        return {
          p1: m.p1,
          p2: m.p2,
          episodes: scores.length,
          mean: scores.length ? r2(scores.reduce((a, b) => a + b, 0) / scores.length) : null,
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
        p1_win_rate: e.length ? r2(p1 / e.length) : null,
        run: runs.get(matchId(a, b))?.dir ?? null,
      };
    }),
  );
  const standings = spec.agents.map((a, i) => {
    let [games, wins, losses] = [0, 0, 0];
    spec.agents.forEach((_b, j) => {
      const asP1 = matrix[i]![j];
      const asP2 = matrix[j]![i];
      if (asP1) [games, wins, losses] = [games + asP1.games, wins + asP1.p1_wins, losses + asP1.p2_wins];
      if (asP2) [games, wins, losses] = [games + asP2.games, wins + asP2.p2_wins, losses + asP2.p1_wins];
    });
    return { agent: a, games, wins, losses, draws: games - wins - losses, win_rate: games ? r2(wins / games) : null };
  });
  return { ...base, matrix, standings };
}

const r2 = (n: number) => Math.round(n * 100) / 100;
