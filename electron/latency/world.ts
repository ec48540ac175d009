/**
 * How the world of a target is frozen: a built-in game's engine clock (exact), a process tree
 * (SIGSTOP/SIGCONT or NtSuspendProcess), or the game's own pause key. One interface, so the
 * clock policies do not care which.
 */
import type { BuiltinGame } from '../games/builtin-game.ts';
import type { ProcessFreezer } from '../safety/suspended.ts';
import { sleep } from '../util/time.ts';
import type { WorldKind } from '../domain.ts';

export interface World {
  readonly kind: WorldKind;
  readonly frozen: boolean;
  freeze(): Promise<void>;
  thaw(): Promise<void>;
  /**
   * Lets `ms` of game time pass (at once where the engine can simulate it, else in real time)
   * and leaves the world running.
   */
  advance(ms: number, signal?: AbortSignal): Promise<void>;
  /** Engine ticks so far (built-ins only). */
  ticks(): number | null;
  /** Total time frozen so far (ms). */
  frozenMs(): number;
}

/** Shared bookkeeping of frozen time for worlds frozen by wall-clock means. */
abstract class TimedWorld implements World {
  abstract readonly kind: World['kind'];
  private frozenAt: number | null = null;
  private total = 0;

  get frozen() {
    return this.frozenAt !== null;
  }

  protected abstract doFreeze(): Promise<void>;
  protected abstract doThaw(): Promise<void>;

  async freeze() {
    if (this.frozen) return;
    await this.doFreeze();
    this.frozenAt = performance.now();
  }

  async thaw() {
    if (!this.frozen) return;
    await this.doThaw();
    this.total += performance.now() - this.frozenAt!;
    this.frozenAt = null;
  }

  async advance(ms: number, signal?: AbortSignal) {
    await this.thaw();
    await sleep(ms, signal);
  }

  ticks() {
    return null;
  }

  frozenMs() {
    return this.total + (this.frozenAt !== null ? performance.now() - this.frozenAt : 0);
  }
}

export class EngineWorld implements World {
  readonly kind = 'engine' as const;
  constructor(private readonly game: BuiltinGame) {}

  get frozen() {
    return this.game.clock.frozen;
  }

  async freeze() {
    this.game.clock.freeze();
  }

  async thaw() {
    this.game.clock.thaw();
  }

  /** Simulated: the engine runs `ms` of ticks at once, exactly, then runs on. */
  async advance(ms: number) {
    this.game.clock.freeze();
    this.game.clock.advance(ms);
    this.game.clock.thaw();
  }

  ticks() {
    return this.game.clock.ticks;
  }

  frozenMs() {
    return this.game.clock.frozenMs();
  }
}

export class ProcessWorld extends TimedWorld {
  readonly kind = 'process' as const;
  suspendedPids: number[] = [];

  constructor(
    private readonly pid: number,
    private readonly freezer: ProcessFreezer,
  ) {
    super();
  }

  protected async doFreeze() {
    this.suspendedPids = await this.freezer.suspend(this.pid);
  }

  protected async doThaw() {
    this.freezer.resumeAll();
  }
}

export class PauseKeyWorld extends TimedWorld {
  readonly kind = 'pause-key' as const;

  constructor(private readonly press: () => Promise<void>) {
    super();
  }

  protected doFreeze() {
    return this.press();
  }

  protected doThaw() {
    return this.press();
  }
}

/** A world that cannot be frozen: every mode behaves like normal, and the step says so. */
export class UnfreezableWorld extends TimedWorld {
  readonly kind = 'none' as const;

  constructor(readonly reason: string) {
    super();
  }

  override get frozen() {
    return false;
  }

  protected async doFreeze() {}
  protected async doThaw() {}

  override async freeze() {}
}
