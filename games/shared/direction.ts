/** The four-direction move syntax shared by grid games (2048, Snake). */
export type Direction = 'up' | 'down' | 'left' | 'right';
export const DIRECTIONS: Direction[] = ['up', 'down', 'left', 'right'];

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
