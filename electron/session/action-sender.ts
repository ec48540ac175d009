/**
 * The act stage's sending: GUI actions through an executor (the window checked first, see
 * TargetView.readyForInput), semantic moves to a built-in's engine or through the profile's
 * expansion (semantic-calls.ts). A step with a refusal ends with nothing held.
 */
import type { Action, GuiAction } from '../actions/schema.ts';
import type { FrameGeometry } from '../input/coordinates.ts';
import type { ActionExecutor, ActionOutcome } from '../input/executor.ts';
import type { Profile } from '../profiles/profile-schema.ts';
import { performCall } from './semantic-calls.ts';
import type { Target } from './targets.ts';
import type { TargetView } from './target-view.ts';

export class ActionSender {
  constructor(
    private readonly deps: { target: Target; profile?: Profile },
    private readonly view: TargetView,
  ) {}

  /**
   * Sends the actions in order until one is refused. What the executor still holds after a
   * refusal (a KEY_DOWN of this or an earlier step) is released and listed on the refused outcome.
   */
  async perform(
    actions: Action[],
    geometry: FrameGeometry,
    windowId: string,
    executor: ActionExecutor,
    signal: AbortSignal,
  ): Promise<ActionOutcome[]> {
    const outcomes = await this.send(actions, geometry, windowId, executor, signal);
    const refused = outcomes.find((o) => !o.ok);
    if (refused && executor.held().length) {
      const released = await executor.releaseAll();
      if (released.length) refused.released = released; // an executor refusal left nothing held: this one came from elsewhere
    }
    return outcomes;
  }

  private async send(
    actions: Action[],
    geometry: FrameGeometry,
    windowId: string,
    executor: ActionExecutor,
    signal: AbortSignal,
  ): Promise<ActionOutcome[]> {
    const game = this.deps.target.game;
    const ready = (gui: GuiAction[]) => this.view.readyForInput(gui, geometry, windowId);
    const outcomes: ActionOutcome[] = [];
    let gui: GuiAction[] = [];
    const flushGui = async () => {
      if (!gui.length) return true;
      const notReady = await ready(gui);
      if (notReady) {
        outcomes.push({ action: gui[0]!.type, ok: false, error: notReady });
        gui = [];
        return false;
      }
      const out = await executor.execute(gui, geometry, signal);
      outcomes.push(...out);
      gui = [];
      return out.every((o) => o.ok);
    };
    for (const a of actions) {
      if (a.kind === 'gui') {
        gui.push(a);
        continue;
      }
      if (!(await flushGui())) return outcomes;
      if (!game) {
        const done = await performCall(this.deps.profile, a.move, geometry, ready, executor, signal);
        outcomes.push(done);
        if (!done.ok) return outcomes;
        continue;
      }
      const r = game.applyMove(a.move);
      outcomes.push(r.ok ? { action: a.move, ok: true } : { action: a.move, ok: false, error: r.error });
      if (game.instance.isOver()) break;
    }
    await flushGui();
    return outcomes;
  }
}
