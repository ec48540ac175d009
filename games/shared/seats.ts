/**
 * What the two-seat games share: PvP scores, and the key map of the key-driven ones (as in local
 * two-player games, player 1 on W A S D, player 2 on the arrows).
 */
import type { MoveResult, Seat, ViewInput } from '../types.ts';
import type { Direction } from './direction.ts';

/** PvP on 0–100 once over: 100 a win, 50 a draw, 0 a loss (and 0 while playing). */
export function pvpSeatScore(winner: Seat | null | undefined, seat: Seat): number {
  if (winner === undefined) return 0;
  return winner === null ? 50 : winner === seat ? 100 : 0;
}

/**
 * The keys each seat owns, as local two-player games share a keyboard: seat 0 W A S D, seat 1 the
 * arrows. Browser key (KeyboardEvent.key) → seat and direction.
 */
export const SEAT_BROWSER_KEYS: Readonly<Record<string, { seat: Seat; dir: Direction }>> = {
  w: { seat: 0, dir: 'up' },
  a: { seat: 0, dir: 'left' },
  s: { seat: 0, dir: 'down' },
  d: { seat: 0, dir: 'right' },
  W: { seat: 0, dir: 'up' },
  A: { seat: 0, dir: 'left' },
  S: { seat: 0, dir: 'down' },
  D: { seat: 0, dir: 'right' },
  ArrowUp: { seat: 1, dir: 'up' },
  ArrowLeft: { seat: 1, dir: 'left' },
  ArrowDown: { seat: 1, dir: 'down' },
  ArrowRight: { seat: 1, dir: 'right' },
};

/** A seat's key for a direction, as models name keys (and SeatsSpec.keys lists them). */
export const SEAT_MODEL_KEYS: readonly [Record<Direction, string>, Record<Direction, string>] = [
  { up: 'w', left: 'a', down: 's', right: 'd' },
  { up: 'up', left: 'left', down: 'down', right: 'right' },
];

/** SeatsSpec.keys of the key-driven two-seat games. */
export const SEAT_KEYS: readonly [readonly string[], readonly string[]] = [
  ['w', 'a', 's', 'd'],
  ['up', 'down', 'left', 'right'],
];

/** A key from the window moves the seat that owns it; other input does nothing. */
export function keyedSeatInput(input: ViewInput, apply: (seat: Seat, dir: Direction) => MoveResult): MoveResult {
  if (input.type !== 'key') return { ok: true };
  const k = SEAT_BROWSER_KEYS[input.key];
  return k ? apply(k.seat, k.dir) : { ok: true };
}
