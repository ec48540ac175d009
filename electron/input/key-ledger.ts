/**
 * Keys the harness pressed itself, so that what sees every key on the desktop (the global hook,
 * a built-in game's view) can tell them from a person's. A person at the keyboard beside a model
 * (a human seat) types into the same window the executors press keys in, and XTest input looks
 * the same as a keyboard's: each key the executors press is noted here, and the first matching
 * key seen afterwards is taken as that press's echo.
 */
import type { InputBackend } from '../../native/types.ts';
import { resolveKeyName } from '../actions/keys.ts';

export class KeyLedger {
  /** Per key (nut name): when each unanswered press was sent. */
  private readonly sent = new Map<string, number[]>();

  /** `ttlMs`: a press whose echo has not come by then is forgotten, so it cannot swallow a person's later key. */
  constructor(private readonly ttlMs = 3000) {}

  note(key: string, now = Date.now()) {
    const k = resolveKeyName(key) ?? key;
    this.sent.set(k, [...(this.sent.get(k) ?? []), now]);
  }

  /** Whether `key` (any name resolveKeyName reads: `up`, `ArrowUp`, `w`) is the echo of a noted press; if so, it is used up. */
  take(key: string, now = Date.now()): boolean {
    const k = resolveKeyName(key) ?? key;
    const times = (this.sent.get(k) ?? []).filter((t) => now - t <= this.ttlMs);
    const echo = times.length > 0;
    if (echo) times.shift();
    if (times.length) this.sent.set(k, times);
    else this.sent.delete(k);
    return echo;
  }
}

/** The backend, with every key it presses down noted in each ledger first. */
export function notingKeys(inner: InputBackend, ledgers: readonly KeyLedger[]): InputBackend {
  return {
    name: inner.name,
    keyDown: (key) => {
      for (const l of ledgers) l.note(key);
      return inner.keyDown(key);
    },
    keyUp: (key) => inner.keyUp(key),
    type: (text) => inner.type(text),
    move: (x, y) => inner.move(x, y),
    position: () => inner.position(),
    button: (state, which) => inner.button(state, which),
    scroll: (dx, dy) => inner.scroll(dx, dy),
  };
}
