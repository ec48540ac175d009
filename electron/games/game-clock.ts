/**
 * A built-in game's own clock. Ticks follow wall time while running (catching up exactly,
 * whatever setInterval's jitter) and stop dead while frozen; `advance` simulates a span of
 * running time at once, for the lcrt mode.
 */
export class GameClock {
  ticks = 0;
  private runningMs = 0;
  private since: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  private frozenTotal = 0;
  private frozenAt: number | null = null;

  constructor(
    readonly tickMs: number,
    private readonly onTick: () => void,
  ) {}

  start() {
    if (this.timer) return;
    this.since = performance.now();
    this.timer = setInterval(() => this.catchUp(), Math.max(5, this.tickMs / 4));
    this.timer.unref?.();
  }

  dispose() {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  get frozen() {
    return this.frozenAt !== null;
  }

  /** Total time spent frozen so far (ms). */
  frozenMs() {
    return this.frozenTotal + (this.frozenAt !== null ? performance.now() - this.frozenAt : 0);
  }

  freeze() {
    if (this.frozen) return;
    this.catchUp();
    if (this.since !== null) this.runningMs += performance.now() - this.since;
    this.since = null;
    this.frozenAt = performance.now();
  }

  thaw() {
    if (!this.frozen) return;
    this.frozenTotal += performance.now() - this.frozenAt!;
    this.frozenAt = null;
    this.since = performance.now();
  }

  /** Runs `ms` of game time now (the clock stays as frozen or running as it was). */
  advance(ms: number) {
    this.runningMs += ms;
    this.catchUp();
  }

  private elapsed() {
    return this.runningMs + (this.since !== null ? performance.now() - this.since : 0);
  }

  private catchUp() {
    const due = Math.floor(this.elapsed() / this.tickMs);
    while (this.ticks < due) {
      this.ticks++;
      this.onTick();
    }
  }
}
