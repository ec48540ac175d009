/**
 * A profile's semantic call on the frame the model saw: its GUI actions, from window pixels
 * (the profile's fractions of the window's client area) into that frame's image pixels, where
 * every GUI action's coordinates live.
 */
import type { GuiAction } from '../actions/schema.ts';
import { windowToImage, type FrameGeometry } from '../input/coordinates.ts';
import type { ExpansionResult, SemanticApi } from '../profiles/semantic-api.ts';

export function expandOnFrame(api: SemanticApi, call: string, g: FrameGeometry): ExpansionResult {
  const r = api.expand(call, { width: g.window.width, height: g.window.height });
  if (!r.ok) return r;
  return {
    ok: true,
    actions: r.actions.map((a) => {
      const p = a.params as { x?: number; y?: number };
      if (p.x === undefined || p.y === undefined) return a;
      return { ...a, params: { ...a.params, ...windowToImage(g, p.x, p.y) } } as GuiAction;
    }),
  };
}
