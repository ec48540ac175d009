/** The four-direction move syntax shared by grid games (2048, Snake, Maze). */
import type { MoveResult, ViewInput } from '../types.ts';

export type Direction = 'up' | 'down' | 'left' | 'right';
export const DIRECTIONS: Direction[] = ['up', 'down', 'left', 'right'];

/** The arrow keys in a game's window. */
export const ARROW_KEY_DIRECTIONS: Readonly<Record<string, Direction>> = {
  ArrowUp: 'up',
  ArrowDown: 'down',
  ArrowLeft: 'left',
  ArrowRight: 'right',
};

/** A key that `keys` maps to a direction, played as that move; any other input does nothing. */
export function directionKeyInput(
  input: ViewInput,
  keys: Readonly<Record<string, Direction>>,
  apply: (move: Direction) => MoveResult,
): MoveResult {
  const dir = input.type === 'key' ? keys[input.key] : undefined;
  return dir ? apply(dir) : { ok: true };
}

/** "Up", "ArrowUp", " left " → canonical direction, or the reason it is not one. */
export function parseDirection(move: string): { ok: true; move: Direction } | { ok: false; error: string } {
  const m = move
    .trim()
    .toLowerCase()
    .replace(/^arrow/, '');
  return (DIRECTIONS as string[]).includes(m)
    ? { ok: true, move: m as Direction }
    : { ok: false, error: `"${move}" is not a direction (up, down, left, right)` };
}
