/** The seats of a two-seat run as the live view and the replay draw them: a colour each, and their actions on one frame. */
import type { SeatStepWire } from '../../../electron/api/contract.ts';

/** Seat 1 blue, seat 2 orange, as the two-seat games draw their players; bright enough over any frame. */
export const SEAT_COLOURS = ['#3d8bff', '#ff8a1f'] as const;
export const seatColour = (seat: number): string => SEAT_COLOURS[seat % SEAT_COLOURS.length]!;

type SeatActions = Pick<SeatStepWire, 'seat' | 'name' | 'actions' | 'outcomes'>;

/** What the Overlay draws of a step. */
interface OverlayActions {
  actions: unknown[];
  outcomes?: unknown[] | undefined;
  colors?: string[];
  labels?: string[];
}

/** The Overlay's props for seats' actions: all of them in seat order, each in its seat's colour and named by its seat. */
export function seatOverlay(seats: readonly SeatActions[]): OverlayActions {
  return {
    actions: seats.flatMap((s) => s.actions),
    // A seat sends fewer outcomes than actions when sending stopped: keep each seat's aligned with its actions.
    outcomes: seats.flatMap((s) => s.actions.map((_, i) => s.outcomes[i])),
    colors: seats.flatMap((s) => s.actions.map(() => seatColour(s.seat))),
    labels: seats.flatMap((s) => s.actions.map((_, i) => (s.actions.length > 1 ? `${s.name}${i + 1}` : s.name))),
  };
}

/** A replayed step's actions for the Overlay: a two-seat step's in its seats' colours, any other's as recorded. */
export function stepOverlay(step: {
  actions: unknown[];
  outcomes?: unknown[] | undefined;
  seats?: unknown;
}): OverlayActions {
  const seats = recordedSeats(step);
  return seats ? seatOverlay(seats) : { actions: step.actions, outcomes: step.outcomes };
}

/** A replayed step's seats (steps.jsonl), when it has them: only what the overlay reads, checked. */
function recordedSeats(step: { seats?: unknown }): SeatActions[] | null {
  if (!Array.isArray(step.seats)) return null;
  return step.seats
    .filter(
      (s): s is SeatActions => !!s && typeof s === 'object' && typeof s.seat === 'number' && Array.isArray(s.actions),
    )
    .map((s) => ({
      seat: s.seat,
      name: typeof s.name === 'string' ? s.name : String(s.seat + 1),
      actions: s.actions,
      outcomes: Array.isArray(s.outcomes) ? s.outcomes : [],
    }));
}
