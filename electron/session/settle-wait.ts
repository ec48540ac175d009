/**
 * The settle stage's wait: after acting, the game gets to answer before the next capture. A
 * built-in view reports each input it received, so the wait lasts exactly until they all
 * arrived and were drawn; another window is waited for until it has drawn its answer and holds
 * still (X11: its drawing is followed), or for a fixed time.
 */
import type { Action } from '../actions/schema.ts';
import type { ActionOutcome } from '../input/executor.ts';
import type { ChangeWatch, WindowManager } from '../../native/types.ts';
import { sleep } from '../util/time.ts';
import { VIEW_SETTLE_MAX_MS, type SessionConfig } from './session-config.ts';
import type { SessionStepRecord } from './session-types.ts';
import { viewInputsSent } from './step-outcomes.ts';
import { builtinEffect, inputsSent, windowEffect, type EffectRecord } from './step-effect.ts';
import type { Target } from './targets.ts';

export type SettleRecord = NonNullable<SessionStepRecord['settle']>;

export class SettleWait {
  /**
   * The target's drawing, followed (a window no engine drives, where the backend can): whether
   * the last wait for it ended with the window still drawing (it animates by itself), and
   * whether it was drawing when this step acted.
   */
  private drawing: { id: string; watch: ChangeWatch | undefined; busy: boolean; quiet: boolean } | undefined;
  /** When this step's first input went out (performance.now()), and a built-in's state version then. */
  private actedAt = 0;
  private versionBefore: number | undefined;

  constructor(
    private readonly deps: { target: Target; wm: WindowManager },
    private readonly config: Pick<SessionConfig, 'settleMs' | 'settleQuietMs' | 'settleMaxMs'>,
  ) {}

  /**
   * Just before acting: what the target draws from here on is its answer; noted whether it had
   * held still until now. A window still finishing its last answer (a slide, then the new tile)
   * gets to finish first, for at most `settleMaxMs`, so that its drawing is not taken for this
   * step's answer; one that animates by itself is not waited for.
   */
  async prepare(id: string, signal: AbortSignal) {
    const { target, wm } = this.deps;
    this.versionBefore = target.game?.version;
    if (!target.game && wm.watchChanges) {
      try {
        if (this.drawing?.id !== id) {
          this.drawing?.watch?.close();
          this.drawing = { id, watch: wm.watchChanges(id), busy: false, quiet: true };
        }
        const { watch, busy } = this.drawing;
        const quietMs = this.config.settleQuietMs;
        if (watch && !busy) await watch.settled({ quietMs, firstMs: 0, maxMs: this.config.settleMaxMs, signal });
        this.drawing.quiet = watch?.reset(quietMs).quiet ?? true;
      } catch {
        this.drawing = { id, watch: undefined, busy: false, quiet: true }; // the fixed wait, then
      }
    }
    this.actedAt = performance.now();
  }

  /**
   * After acting: waits for the target's answer to the actions that ran, and says what they
   * did to it (step-effect.ts).
   */
  async wait(
    actions: Action[],
    outcomes: ActionOutcome[],
    signal: AbortSignal,
  ): Promise<{ settle: SettleRecord; effect: EffectRecord }> {
    const game = this.deps.target.game;
    const settle = game ? await this.viewAnswer(actions, outcomes, signal) : await this.windowAnswer(signal);
    const sent = inputsSent(actions, outcomes);
    const effect = game
      ? builtinEffect({ sent, stateChanged: game.version !== this.versionBefore, drawing: game.drawing }, this.actedAt)
      : windowEffect(
          { sent, settle, quietBefore: this.drawing?.quiet ?? true, drawing: this.drawing?.watch },
          this.actedAt,
        );
    return { settle, effect };
  }

  close() {
    this.drawing?.watch?.close();
    this.drawing = undefined;
  }

  /** A built-in's view: until every input it was sent arrived and the new state is drawn. */
  private async viewAnswer(actions: Action[], outcomes: ActionOutcome[], signal: AbortSignal): Promise<SettleRecord> {
    const game = this.deps.target.game!;
    const deadline = performance.now() + VIEW_SETTLE_MAX_MS;
    const expected = viewInputsSent(actions, outcomes);
    const arrived = expected === 0 || (await game.waitForInputs(expected, VIEW_SETTLE_MAX_MS, signal));
    const shown = await game.shows(Math.max(0, deadline - performance.now()), signal);
    return { by: 'view', inputs_arrived: arrived, ...shown };
  }

  /**
   * A window no engine drives: wait until it has drawn and then held still for `settleQuietMs`
   * (at most `settleMaxMs`; when it does not start drawing within `settleMs`, no longer). A
   * window whose drawing cannot be followed gets the fixed `settleMs`, and so does one that was
   * drawing when we acted and, the last time we waited, never held still (it animates by itself:
   * its answer cannot be told apart from the rest); once it holds still before an action, its
   * drawing is waited for again.
   */
  private async windowAnswer(signal: AbortSignal): Promise<SettleRecord> {
    const d = this.drawing;
    const { settleMs, settleQuietMs, settleMaxMs } = this.config;
    if (d?.watch && !(d.busy && !d.quiet)) {
      try {
        const r = await d.watch.settled({
          quietMs: settleQuietMs,
          firstMs: settleMs,
          maxMs: Math.max(settleMs, settleMaxMs),
          signal,
        });
        d.busy = !r.still;
        return { by: 'drawing', drew: r.changed, still: r.still, draws: r.draws };
      } catch {
        /* the fixed wait below */
      }
    }
    await sleep(settleMs, signal);
    return { by: 'fixed' };
  }
}
