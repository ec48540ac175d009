/**
 * The per-step move cap of a built-in game (GameVerse: one move per step in 2048, Tic-Tac-Toe
 * and Snake). Only actions that make moves count: a pointer move, a modifier held down, a key
 * release or a WAIT is not a move and always runs — dropping a release would leave input held.
 * A move beyond the cap is dropped whole, never executed, and the step records it.
 */
import type { Action, GuiAction } from '../actions/schema.ts';
import type { GameDefinition, MoveInputs } from '../../games/types.ts';
import { resolveKeyName } from '../actions/keys.ts';
import type { Profile } from '../profiles/profile-schema.ts';

export interface CappedActions {
  /** What runs, in the model's order. */
  kept: Action[];
  /** Moves past the cap, in the model's order. */
  dropped: Action[];
}

/** A window's profile caps every action that sends input (releases, pointer moves and WAITs always run). */
export type CapInputs = MoveInputs | 'any-input';

/** How many moves an action makes in a game whose moves are `inputs`. */
export function movesOf(a: Action, inputs: CapInputs | undefined): number {
  if (a.kind === 'semantic') return 1;
  if (!inputs) return 0;
  if (inputs === 'any-input') return ANY_INPUT_FREE.has(a.type) ? 0 : 1;
  return 'click' in inputs ? clicksOf(a) : keysOf(a).filter((k) => isMoveKey(k, inputs.keys)).length;
}

const ANY_INPUT_FREE = new Set(['WAIT', 'DONE', 'FAIL', 'KEY_UP', 'MOUSE_UP', 'MOVE_TO', 'MOVE_BY']);

/** Left-button presses the action sends (a view treats each as a click). */
function clicksOf(a: GuiAction): number {
  switch (a.type) {
    case 'CLICK':
      return (a.params.button ?? 'left') === 'left' ? (a.params.num_clicks ?? 1) : 0;
    case 'DOUBLE_CLICK':
      return 2;
    case 'MOUSE_DOWN':
      return (a.params.button ?? 'left') === 'left' ? 1 : 0;
    case 'DRAG_TO':
      return 1;
    default:
      return 0;
  }
}

/** Keys the action presses down. */
function keysOf(a: GuiAction): string[] {
  switch (a.type) {
    case 'PRESS':
    case 'KEY_DOWN':
      return [a.params.key];
    case 'HOTKEY':
      return a.params.keys;
    case 'TYPING':
      return [...a.params.text];
    default:
      return [];
  }
}

function isMoveKey(key: string, moveKeys: readonly string[]): boolean {
  const k = resolveKeyName(key);
  return k !== undefined && moveKeys.some((m) => resolveKeyName(m) === k);
}

/** The cap a step obeys: a built-in's own (its definition), or a window profile's over every input. */
export interface MoveCap {
  maxActionsPerStep?: number | undefined;
  moveInputs?: CapInputs | undefined;
}

/** A window's per-step cap from its profile: every input action counts. */
export function profileMoveCap(profile: Profile | undefined): MoveCap | undefined {
  const max = profile?.actions.maxActionsPerStep;
  return max === undefined ? undefined : { maxActionsPerStep: max, moveInputs: 'any-input' };
}

/** Splits a step's actions into those that run and the moves past the game's cap. */
export function capMoves(actions: Action[], game: GameDefinition | MoveCap | undefined): CappedActions {
  const cap = game?.maxActionsPerStep;
  if (cap === undefined) return { kept: actions, dropped: [] };
  const kept: Action[] = [];
  const dropped: Action[] = [];
  let moves = 0;
  for (const a of actions) {
    const n = movesOf(a, game!.moveInputs);
    if (n > 0 && moves + n > cap) {
      dropped.push(a);
      continue;
    }
    moves += n;
    kept.push(a);
  }
  return { kept, dropped };
}
