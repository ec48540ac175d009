/**
 * A two-seat game as one seat sees it: the rules with its own role, its own keys, and an engine
 * whose moves, solver and gestures are that seat's. Every agent (model, solver, random) plays a
 * seat through this view unchanged, as it plays a one-seat game.
 */
import type { GameDefinition, GameInstance, Seat, SeatedInstance } from '../../games/types.ts';

/** The game's definition for one seat: its role in the rules, its keys in the controls and action space. */
export function seatDefinition(def: GameDefinition, seat: Seat): GameDefinition {
  const seats = def.seats!;
  const keys = seats.keys?.[seat];
  const otherKeys = seats.keys?.[(1 - seat) as Seat];
  const keyNote = keys
    ? ` You are ${seats.names[seat]}: your keys are ${keys.join(', ')}; the other player's keys (${otherKeys?.join(', ')}) are refused to you.`
    : '';
  return {
    ...def,
    rules: `${def.rules}\n\n${seats.roles[seat]}`,
    controls: { gui: `${def.controls.gui}${keyNote}`, semantic: def.controls.semantic },
    actionSpace: keys ? { semantic: def.actionSpace.semantic, gui: { press: keys } } : def.actionSpace,
    variants: [],
  };
}

/** The engine as one seat plays it: its moves, valid moves, solver and gestures. */
export function seatInstance(w: SeatedInstance, seat: Seat): GameInstance {
  return {
    applyMove: (move) => w.applySeatMove(seat, move),
    handleInput: (input) => w.handleInput(input),
    validMoves: () => w.seatValidMoves(seat),
    isOver: () => w.isOver(),
    score: () => w.seatScore(seat),
    text: () => w.text(),
    html: () => w.html(),
    status: () => w.seatStatus(seat),
    snapshot: () => w.snapshot(),
    solverMove: () => w.seatSolverMove(seat),
    gestureFor: (move, hits) => (w.seatGestureFor ? w.seatGestureFor(seat, move, hits) : w.gestureFor(move, hits)),
  };
}
