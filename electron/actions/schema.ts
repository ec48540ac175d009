/**
 * The one Action contract: GameVerse's GUI action set plus per-game semantic moves.
 * Coordinates in GUI actions are in the pixel space of the image the model saw;
 * `input/coordinates.ts` maps them to the screen, nowhere else.
 */
import { z } from 'zod';

const seconds = z.number().finite().min(0).max(60);
const coord = z.number().finite();
const button = z.enum(['left', 'right', 'middle']);
const key = z.string().min(1).max(32);

export const guiActionSchemas = {
  MOVE_TO: z.object({ x: coord, y: coord, duration: seconds.optional() }),
  MOVE_BY: z.object({ dx: coord, dy: coord, duration: seconds.optional() }),
  CLICK: z.object({
    x: coord.optional(),
    y: coord.optional(),
    button: button.optional(),
    num_clicks: z.number().int().min(1).max(3).optional(),
  }),
  RIGHT_CLICK: z.object({ x: coord.optional(), y: coord.optional() }),
  DOUBLE_CLICK: z.object({ x: coord.optional(), y: coord.optional() }),
  MOUSE_DOWN: z.object({ button: button.optional(), duration: seconds.optional() }),
  MOUSE_UP: z.object({ button: button.optional() }),
  DRAG_TO: z.object({ x: coord, y: coord, duration: seconds.optional() }),
  SCROLL: z.object({
    dx: z.number().int().min(-50).max(50),
    dy: z.number().int().min(-50).max(50),
    duration: seconds.optional(),
  }),
  TYPING: z.object({ text: z.string().max(500), interval: seconds.optional() }),
  PRESS: z.object({ key, duration: seconds.optional() }),
  KEY_DOWN: z.object({ key, duration: seconds.optional() }),
  KEY_UP: z.object({ key }),
  HOTKEY: z.object({ keys: z.array(key).min(1).max(5), duration: seconds.optional() }),
  WAIT: z.object({ duration: seconds }),
  DONE: z.object({}),
  FAIL: z.object({}),
} as const;

export type GuiActionType = keyof typeof guiActionSchemas;
export const GUI_ACTION_TYPES = Object.keys(guiActionSchemas) as GuiActionType[];

export type GuiAction = {
  [K in GuiActionType]: { kind: 'gui'; type: K; params: z.infer<(typeof guiActionSchemas)[K]> };
}[GuiActionType];

/** A game-specific move such as `B2` or `up`, validated by the game's own schema. */
export interface SemanticAction {
  kind: 'semantic';
  move: string;
}

export type Action = GuiAction | SemanticAction;

export function isGuiActionType(t: string): t is GuiActionType {
  return Object.hasOwn(guiActionSchemas, t);
}

/** Actions that end the episode by the agent's own word. */
export function isTerminal(a: Action): boolean {
  return a.kind === 'gui' && (a.type === 'DONE' || a.type === 'FAIL');
}

/** Short human-readable rendering, used in logs, history and overlays. */
export function describeAction(a: Action): string {
  if (a.kind === 'semantic') return a.move;
  const p = a.params as Record<string, unknown>;
  const args = Object.entries(p)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(', ');
  return args ? `${a.type}(${args})` : a.type;
}

/** Serialise back into the wire format the model is asked to produce. */
export function toWire(a: Action): unknown {
  if (a.kind === 'semantic') return { action: a.move };
  return { action_type: a.type, parameters: a.params };
}
