/**
 * The two-seat built-in games (OmniGameArena's PvP and co-op settings): each definition has
 * `seats` set and creates a SeatedInstance. Kept apart from BUILTIN_GAMES, which single-seat
 * code iterates over.
 */
import type { GameDefinition } from './types.ts';
import { tictactoePvp } from './tictactoe-pvp/index.ts';
import { lightCycles } from './light-cycles/index.ts';
import { switches } from './switches/index.ts';

export { tictactoePvp, lightCycles, switches };

/** Two-seat built-in games, by id. */
export const TWO_SEAT_GAMES: Record<string, GameDefinition> = {
  [tictactoePvp.id]: tictactoePvp,
  [lightCycles.id]: lightCycles,
  [switches.id]: switches,
};
