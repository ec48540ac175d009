import type { GameDefinition } from './types.ts';
import { CodedError } from '../electron/domain.ts';
import { tictactoe } from './tictactoe/index.ts';
import { g2048 } from './g2048/index.ts';
import { snake } from './snake/index.ts';
import { maze } from './maze/index.ts';
import { INGVP_GAMES } from './ingvp/games.ts';

export * from './types.ts';
export { TWO_SEAT_GAMES } from './two-seat.ts';

/** Built-in games, by id. */
export const BUILTIN_GAMES: Record<string, GameDefinition> = {
  [tictactoe.id]: tictactoe,
  [g2048.id]: g2048,
  [snake.id]: snake,
  [maze.id]: maze,
  ...Object.fromEntries(INGVP_GAMES.map((g) => [g.def.id, g.def])),
};

export function getGame(id: string): GameDefinition {
  const g = BUILTIN_GAMES[id];
  if (!g)
    throw new CodedError(
      'not-found',
      `unknown game "${id}" (built-in games: ${Object.keys(BUILTIN_GAMES).join(', ')})`,
    );
  return g;
}
