/**
 * Drawing into a window, as the X server reports it (XDamage): the settle stage waits for the
 * game to draw its answer to an action and then hold still, instead of a fixed time.
 */
import { X, xConnection, type XConnection } from './xlib.ts';
import type { ChangeWatch } from '../types.ts';

/** Offset of `damage` in XDamageNotifyEvent on LP64 (type, serial, send_event, display, drawable, damage). */
const DAMAGE_FIELD = 40;

export class DamageWatch implements ChangeWatch {
  private damage: number;
  private lastDraw = 0;
  private draws = 0;
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
      d.XDamageSubtract(c.display, this.damage, X.None, X.None); // re-arms the next notification
    });
    c.lib.fn.XFlush(c.display);
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

  close() {
    this.stopListening();
    this.c.lib.damage!.XDamageDestroy(this.c.display, this.damage); // already gone with its window: ignored
    this.c.lib.fn.XFlush(this.c.display);
  }
}
