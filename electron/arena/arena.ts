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
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CodedError } from '../domain.ts';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { tryLock } from '../util/file-lock.ts';
import type { WindowManager } from '../../native/types.ts';
import {
  parseAgentSpec,
  parseRunSpec,
  seatLabel,
  type RunSpec,
  type RunSpecField,
  type SeatSpec,
} from '../run-spec.ts';
import { prepareSeatedRun, twoSeatGame, type SeatedRunPlace } from '../session/seated-compose.ts';
import { frontDoor } from '../session/front-door.ts';
import type { ViewLauncher } from '../session/targets.ts';
import type { SeatedSession } from '../session/seated-session.ts';
import {
  ARENA_FILE,
  ArenaSpecSchema,
  arenaMatches,
  arenaTables,
  completedRuns,
  defaultMatchTrials,
  type ArenaSpec,
  type ArenaTables,
} from './tables.ts';

/** The settings every match of an arena is played with, under the spec's names (run-spec.ts). */
const MATCH_SETTINGS = [
  'actionSpace',
  'maxSteps',
  'seed',
  'latency',
  'capture',
  'imageSize',
  'format',
  'quality',
  'baseUrl',
  'apiKey',
] as const satisfies readonly RunSpecField[];

/** An arena: its matches' settings (what is left out takes the spec's default), and the arena's own. */
export type ArenaOptions = Partial<Pick<RunSpec, (typeof MATCH_SETTINGS)[number]>> &
  Required<Pick<RunSpec, 'latency' | 'actionSpace' | 'seed'>> & {
    game: string;
    /** Agent specs (parseAgentSpec), at least two for PvP, one for co-op. */
    agents: string[];
    /** Episodes of each match (default: half the game's trials, at least 1: both sides together make its count). */
    trials?: number;
    /** Co-op: pair different agents too, not only each with a copy of itself. */
    mixed?: boolean;
    /** The arena folder: created, or resumed when it holds this arena already. */
    dir: string;
    launch?: ViewLauncher;
    log: (s: string) => void;
    /** Each match's session as it starts, so a caller can stop it. */
    onSession?: (s: SeatedSession) => void;
    signal?: AbortSignal;
  };

export interface ArenaResult extends ArenaTables {
  dir: string;
  game: string;
  mode: 'pvp' | 'coop';
  agents: string[];
  /** Matches played by this invocation (a resumed arena skips the completed ones). */
  played: string[];
  skipped: string[];
  /** Matches that failed or were stopped: played again on resume; their cells are empty. */
  unfinished: string[];
}

/** One match of the arena as a two-seat run: its spec and seats from the arena's settings, and which match it is. */
export function matchRun(
  o: ArenaOptions,
  arena: Pick<ArenaSpec, 'game' | 'trials'>,
  m: { id: string; p1: string; p2: string },
  runsDir: string,
): { spec: RunSpec; seats: readonly [SeatSpec, SeatSpec]; place: SeatedRunPlace } {
  const settings = Object.fromEntries(MATCH_SETTINGS.flatMap((k) => (o[k] === undefined ? [] : [[k, o[k]]])));
  const spec = parseRunSpec({ ...settings, game: arena.game, seats: [m.p1, m.p2], episodes: arena.trials });
  return {
    spec,
    seats: frontDoor(spec).seats!,
    place: {
      outDir: runsDir,
      ...(o.launch ? { launch: o.launch } : {}),
      meta: { arena: { match: m.id, p1: m.p1, p2: m.p2 } },
    },
  };
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
  if (agents.includes('human'))
    throw new CodedError('bad-input', 'a person plays one match, not an arena: gamepilot run --seats human,<agent>');
  const spec: ArenaSpec = {
    game: def.id,
    mode,
    agents,
    trials: o.trials ?? defaultMatchTrials(def.trials),
    mixed: mode === 'coop' && !!o.mixed,
    latency: o.latency,
    action_space: o.actionSpace,
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
    const specFile = path.join(o.dir, ARENA_FILE);
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
      const match = matchRun(o, spec, m, runsDir);
      const { session, target } = await prepareSeatedRun(match.spec, match.seats, match.place, wm);
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
    const { missing: _missing, ...tables } = arenaTables(o.dir, spec);
    const result: ArenaResult = {
      dir: o.dir,
      game: spec.game,
      mode: spec.mode,
      agents: spec.agents,
      played,
      skipped,
      unfinished,
      ...tables,
    };
    writeFileAtomic(specFile, JSON.stringify({ spec, result }, null, 2));
    return result;
  } finally {
    lock.release();
  }
}
