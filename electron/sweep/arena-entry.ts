/**
 * A sweep file's `arena:` entries: an arena (`gamepilot arena`'s game, agents, trials and mixed)
 * played as sweep jobs, one per match in `arenaMatches`' order, each a `gamepilot run --seats`.
 * Each entry is checked here with the path of the field at fault, so the sweep file can name its
 * line.
 */
import { z } from 'zod';
import { TWO_SEAT_GAMES } from '../../games/index.ts';
import { arenaMatches, defaultMatchTrials } from '../arena/tables.ts';
import { parseAgentSpec, RUN_SPEC_FIELDS as F, seatLabel } from '../run-spec.ts';

export const ArenaEntrySchema = z.strictObject({
  game: z.union([z.string().min(1), z.number()]).transform(String),
  agents: z.array(z.string().min(1).max(200)).min(1).max(100),
  /** Episodes of each match (default: half the game's trials, as `gamepilot arena`). */
  trials: F.episodes.unwrap().optional(),
  /** Co-op: pair different agents too. */
  mixed: z.boolean().default(false),
  latency: F.latency.unwrap().default('normal'),
  action_space: F.actionSpace.unwrap().default('gui'),
  max_steps: F.maxSteps.unwrap().optional(),
  seed: F.seed.unwrap().default(0),
});
export type ArenaEntry = z.output<typeof ArenaEntrySchema>;

/** One match of an entry: its seats' agents (as seatLabel names them) and the settings it is played with. */
export interface EntryMatch {
  game: string;
  seats: [string, string];
  episodes: number;
  entry: ArenaEntry;
}

/** Why an entry cannot be played, at the path (within the entry) of the field at fault. */
export function arenaEntryRefusal(e: ArenaEntry): { at: PropertyKey[]; reason: string } | undefined {
  const def = TWO_SEAT_GAMES[e.game];
  if (!def)
    return {
      at: ['game'],
      reason: `"${e.game}" is not a two-seat game (two-seat games: ${Object.keys(TWO_SEAT_GAMES).join(', ')})`,
    };
  for (const [i, a] of e.agents.entries()) {
    try {
      if (parseAgentSpec(a).agent === 'human')
        return {
          at: ['agents', i],
          reason: 'a person plays at a keyboard, not in a sweep: gamepilot run --seats human,…',
        };
    } catch (err) {
      return { at: ['agents', i], reason: (err as Error).message };
    }
  }
  if (def.seats!.mode === 'pvp' && labels(e).length < 2)
    return { at: ['agents'], reason: `a PvP arena needs at least two different agents (got ${labels(e).join(', ')})` };
  if (e.mixed && def.seats!.mode !== 'coop') return { at: ['mixed'], reason: 'mixed pairs are for co-op games' };
  return undefined;
}

/** The agents as the arena names them, each once, in the file's order. */
const labels = (e: ArenaEntry) => [...new Set(e.agents.map((a) => seatLabel(parseAgentSpec(a))))];

/** The entry's matches, in `gamepilot arena`'s order (the entry has been checked). */
export function entryMatches(e: ArenaEntry): EntryMatch[] {
  const def = TWO_SEAT_GAMES[e.game]!;
  const episodes = e.trials ?? defaultMatchTrials(def.trials);
  return arenaMatches(def.seats!.mode, labels(e), e.mixed).map((m) => ({
    game: def.id,
    seats: [m.p1, m.p2],
    episodes,
    entry: e,
  }));
}
