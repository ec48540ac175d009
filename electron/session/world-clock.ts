/**
 * The latency mode and the world it governs: the mode a person switches (it takes effect at the
 * next step), the freeze stage's policy for that mode (latency/clock-policy.ts), a real-time
 * built-in's idle limit for it, the check that a frozen window really holds still, and making
 * the world safe (timers cancelled, thawed). Says every change as a `world` or `latency` state.
 */
import type { RawFrame } from '../capture/capturer.ts';
import type { BuiltinGame } from '../games/builtin-game.ts';
import { clockPolicyFor, type ClockPolicy, type LatencySettings } from '../latency/clock-policy.ts';
import { UnfreezableWorld, type World } from '../latency/world.ts';
import type { LatencyMode, WorldState } from '../domain.ts';
import { sleep } from '../util/time.ts';
import type { StepClock } from './session-types.ts';

/** How many of a run's first freezes of a window are checked to hold. */
const FREEZES_VERIFIED = 3;

export class WorldClock {
  private current: World;
  private policy: ClockPolicy | undefined;
  private verifiedFreezes = 0;

  constructor(
    world: World,
    private mode: LatencyMode,
    private readonly settings: LatencySettings,
    private readonly game: BuiltinGame | undefined,
    private readonly say: (event: 'world' | 'latency', state: WorldState) => void,
  ) {
    this.current = world;
  }

  /** The world as it is now (a freeze that failed leaves an unfreezable one in its place). */
  get world(): World {
    return this.current;
  }

  get state(): WorldState {
    return { mode: this.mode, frozen: this.current.frozen, world: this.current.kind };
  }

  /** Switches the latency mode; it takes effect at the next step. */
  setMode(mode: LatencyMode) {
    this.mode = mode;
    this.say('latency', this.state);
  }

  /** A real-time built-in's idle limit for the mode (its engine ends a game left idle that long). */
  applyIdleLimit() {
    const spec = this.game?.def.realtime;
    if (this.game && spec) this.game.instance.setIdleLimit?.(spec.idleLimit[this.mode]);
  }

  /** Freeze: the world waits (or not) as the latency mode says, from the capture on; a failure is one of the step's errors. */
  async freeze(errors: string[]): Promise<StepClock> {
    const mode = this.mode;
    if (this.policy?.mode !== mode && this.game) {
      this.policy = undefined;
      this.applyIdleLimit();
    }
    const policy = clockPolicyFor(mode, this.settings, () => this.sayWorld(), this.game?.def.realtime);
    this.policy = policy;
    const frozenBefore = this.current.frozenMs();
    try {
      await policy.beforeCapture(this.current);
    } catch (err) {
      errors.push(`freeze failed: ${(err as Error).message}; this window now runs as in normal mode`);
      this.current = new UnfreezableWorld((err as Error).message);
    }
    this.sayWorld();
    return { mode, policy, frozenBefore };
  }

  /**
   * A frozen world must not change on screen: for the first freezes of a window (an engine's
   * are exact) the capture is taken again after a while and compared. Returns the later frame
   * and whether the freeze held; undefined when not checked.
   */
  async checkFreeze(
    first: RawFrame,
    grab: () => Promise<RawFrame>,
    signal: AbortSignal,
  ): Promise<{ raw: RawFrame; held: boolean } | undefined> {
    const w = this.current;
    if (!w.frozen || w.kind === 'engine' || this.verifiedFreezes >= FREEZES_VERIFIED) return undefined;
    this.verifiedFreezes++;
    await sleep(250, signal);
    const again = await grab();
    return { raw: again, held: again.data.equals(first.data) };
  }

  /** Cancels the policy's timers and thaws the world (idempotent; never throws). */
  async thaw() {
    this.policy?.cancel();
    await this.current.thaw().catch(() => {}); // starts synchronously: a frozen engine or process resumes inside stop()
    this.sayWorld();
  }

  /** Says the world's state (frozen or running) to followers. */
  sayWorld() {
    this.say('world', this.state);
  }
}
