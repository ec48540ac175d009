/**
 * Drawing into a window, as the X server reports it (XDamage): the settle stage waits for the
 * game to draw its answer to an action and then hold still, instead of a fixed time.
 */
import { X, xConnection, type XConnection } from './xlib.ts';
import type { ChangeWatch } from '../types.ts';

/** Offset of `damage` in XDamageNotifyEvent on LP64 (type, serial, send_event, display, drawable, damage). */
const DAMAGE_FIELD = 40;
/** Offset of `timestamp` (after damage, level, more): the server's time of the draw, in ms. */
const TIMESTAMP_FIELD = 56;
/** How many recent draw times a watch keeps for `drawnSince`. */
const DRAW_HISTORY = 512;

/**
 * A draw's time on performance.now()'s clock. The X server stamps events with its own
 * millisecond clock, CLOCK_MONOTONIC on Linux as process.hrtime is, truncated to 32 bits (it
 * wraps); when the two agree to within a minute the stamp is used (measured here: draws 200 ms
 * apart read 200 ms apart, however late they were read), else the time the event was read.
 */
export function drawTime(
  serverMs: number,
  monoNowMs = Number(process.hrtime.bigint() / 1_000_000n),
  perfNow = performance.now(),
): number {
  const lag = (monoNowMs - serverMs) >>> 0;
  return lag < 60_000 ? perfNow - lag : perfNow;
}

export class DamageWatch implements ChangeWatch {
  private damage: number;
  private lastDraw = 0;
  private draws = 0;
  /** When the recent draws happened (drawTime), oldest first. */
  private readonly drawTimes: number[] = [];
  private readonly stopListening: () => void;

  private constructor(
    private readonly c: XConnection,
    window: number,
    eventBase: number,
  ) {
    const d = c.lib.damage!;
    this.damage = d.XDamageCreate(c.display, window, X.XDamageReportNonEmpty);
    this.stopListening = c.onEvent(eventBase, (ev) => {
      if (Number(ev.readBigUInt64LE(DAMAGE_FIELD)) !== this.damage) return;
      this.draws++;
      this.lastDraw = performance.now();
      this.drawTimes.push(drawTime(Number(ev.readBigUInt64LE(TIMESTAMP_FIELD))));
      if (this.drawTimes.length > DRAW_HISTORY) this.drawTimes.shift();
      d.XDamageSubtract(c.display, this.damage, X.None, X.None); // re-arms the next notification
    });
    // The server reports the whole window as drawn when the watch is made: not a draw of the
    // game's. Taken in (a round trip) and forgotten, so the first thing seen is what it draws next.
    c.lib.fn.XSync(c.display, X.False);
    c.pump();
    this.draws = 0;
    this.lastDraw = 0;
    this.drawTimes.length = 0;
  }

  /** A watch on a window; undefined where the server or the machine has no XDamage. */
  static create(window: number, connect: () => XConnection = xConnection): DamageWatch | undefined {
    const c = connect();
    const d = c.lib.damage;
    if (!d) return undefined;
    const base = [0];
    if (!d.XDamageQueryExtension(c.display, base, [0])) return undefined;
    return new DamageWatch(c, window, base[0]!);
  }

  reset(quietMs: number) {
    this.c.pump();
    const quiet = this.lastDraw === 0 || performance.now() - this.lastDraw >= quietMs;
    this.c.lib.damage!.XDamageSubtract(this.c.display, this.damage, X.None, X.None);
    this.c.lib.fn.XFlush(this.c.display);
    this.draws = 0;
    return { quiet };
  }

  async settled(opts: { quietMs: number; firstMs: number; maxMs: number; signal?: AbortSignal }) {
    const start = performance.now();
    for (;;) {
      this.c.pump();
      const t = performance.now();
      const elapsed = t - start;
      const draws = this.draws;
      if (draws > 0 && t - this.lastDraw >= opts.quietMs) return { changed: true, still: true, ms: elapsed, draws };
      if (draws === 0 && elapsed >= opts.firstMs) return { changed: false, still: true, ms: elapsed, draws };
      if (elapsed >= opts.maxMs || opts.signal?.aborted)
        return { changed: draws > 0, still: false, ms: elapsed, draws };
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  drawnSince(t: number): number | undefined {
    this.c.pump();
    return this.drawTimes.find((at) => at >= t);
  }

  close() {
    this.stopListening();
    this.c.lib.damage!.XDamageDestroy(this.c.display, this.damage); // already gone with its window: ignored
    this.c.lib.fn.XFlush(this.c.display);
  }
}
