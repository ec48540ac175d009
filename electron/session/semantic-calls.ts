/**
 * A profile's semantic calls on a window: a call expanded on the frame the model saw — its GUI
 * actions, from window pixels (the profile's fractions of the window's client area) into that
 * frame's image pixels, where every GUI action's coordinates live — and then sent whole or not
 * at all.
 */
import { toWire, type GuiAction } from '../actions/schema.ts';
import { windowToImage, type FrameGeometry } from '../input/coordinates.ts';
import type { ActionExecutor, ActionOutcome } from '../input/executor.ts';
import { semanticApiOf, semanticMovesProblem, type Profile } from '../profiles/profile-schema.ts';
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

/**
 * A profile's semantic call: expanded whole before anything is sent (a call that lands
 * outside the window sends nothing), then its GUI actions through the executor like any
 * others — the key policy and the profile's allowedKeys apply. One outcome for the call, with
 * the GUI actions it became. `ready` checks the window before input is sent (why not, if not).
 */
export async function performCall(
  profile: Profile | undefined,
  call: string,
  geometry: FrameGeometry,
  ready: (actions: GuiAction[]) => Promise<string | undefined>,
  executor: ActionExecutor,
  signal: AbortSignal,
): Promise<ActionOutcome> {
  const api = semanticApiOf(profile);
  if (!api) return { action: call, ok: false, error: semanticMovesProblem('semantic', false, profile)! };
  const exp = expandOnFrame(api, call, geometry);
  if (!exp.ok) return { action: call, ok: false, error: `${exp.error}; nothing was sent` };
  const expanded = exp.actions.map(toWire);
  const notReady = await ready(exp.actions);
  if (notReady) return { action: call, ok: false, error: notReady, expanded };
  const out = await executor.execute(exp.actions, geometry, signal);
  const failed = out.find((o) => !o.ok);
  if (failed) return { action: call, ok: false, error: `${failed.action}: ${failed.error}`, expanded };
  if (out.length < exp.actions.length) return { action: call, ok: false, error: 'stopped part-way', expanded };
  return { action: call, ok: true, expanded };
}
