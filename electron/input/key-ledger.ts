/**
 * Keys the harness pressed itself, so that what sees every key on the desktop (the global hook,
 * a built-in game's view) can tell them from a person's. A person at the keyboard beside a model
 * (a human seat) types into the same window the executors press keys in, and XTest input looks
 * the same as a keyboard's: each key the executors press is noted here, and the first matching
 * key seen afterwards is taken as that press's echo.
 */
import type { InputBackend } from '../../native/types.ts';
import { resolveKeyName } from '../actions/keys.ts';
import { parseAccelerator } from './accelerator.ts';

export class KeyLedger {
  /** Per key (nut name): when each unanswered press was sent. */
  private readonly sent = new Map<string, number[]>();
  /** Per key: when it went down and came up again (Infinity while held). */
  private readonly holds = new Map<string, { from: number; to: number }[]>();

  /** `ttlMs`: a press whose echo has not come by then is forgotten, so it cannot swallow a person's later key. */
  constructor(private readonly ttlMs = 3000) {}

  note(key: string, now = Date.now()) {
    const k = resolveKeyName(key) ?? key;
    // Forgotten here too: nobody may ever ask about a key no hotkey uses (the arrows of a long run).
    this.sent.set(k, [...(this.sent.get(k) ?? []).filter((t) => now - t <= this.ttlMs), now]);
    const holds = (this.holds.get(k) ?? []).filter((h) => now - h.to <= this.ttlMs);
    this.holds.set(k, [...holds, { from: now, to: Number.POSITIVE_INFINITY }]);
  }

  /** How many presses of `key` still wait for their echo (none older than the TTL). */
  awaiting(key: string, now = Date.now()): number {
    return (this.sent.get(resolveKeyName(key) ?? key) ?? []).filter((t) => now - t <= this.ttlMs).length;
  }

  /** `key` is up again (after the release was sent). */
  noteUp(key: string, now = Date.now()) {
    const open = this.holds.get(resolveKeyName(key) ?? key)?.find((h) => h.to === Number.POSITIVE_INFINITY);
    if (open) open.to = now;
  }

  /**
   * Whether `key` (any name resolveKeyName reads: `up`, `ArrowUp`, `w`) is the echo of a press
   * noted at most `withinMs` before `now`; if so, it is used up.
   */
  take(key: string, now = Date.now(), withinMs = this.ttlMs): boolean {
    const k = resolveKeyName(key) ?? key;
    const times = (this.sent.get(k) ?? []).filter((t) => now - t <= this.ttlMs);
    const i = times.findIndex((t) => now - t <= withinMs);
    if (i >= 0) times.splice(i, 1);
    if (times.length) this.sent.set(k, times);
    else this.sent.delete(k);
    return i >= 0;
  }

  /**
   * Whether `key` was held by the harness at `t` (epoch ms, the event's own time): a keydown then
   * is the X server's autorepeat of the harness's press, however late the hook delivers it.
   */
  heldAt(key: string, t: number): boolean {
    const k = resolveKeyName(key) ?? key;
    return (this.holds.get(k) ?? []).some((h) => t >= h.from && t <= h.to + HOLD_EDGE_MS);
  }
}

/** Slack at a hold's end: the event time and the noted release come from two clocks. */
const HOLD_EDGE_MS = 50;

/** The backend, with every key it presses down noted in each ledger first. */
export function notingKeys(inner: InputBackend, ledgers: readonly KeyLedger[]): InputBackend {
  return {
    name: inner.name,
    keyDown: (key) => {
      for (const l of ledgers) l.note(key);
      return inner.keyDown(key);
    },
    keyUp: async (key) => {
      await inner.keyUp(key);
      for (const l of ledgers) l.noteUp(key);
    },
    type: (text) => inner.type(text),
    move: (x, y) => inner.move(x, y),
    position: () => inner.position(),
    button: (state, which) => inner.button(state, which),
    scroll: (dx, dy) => inner.scroll(dx, dy),
  };
}

/**
 * How late the global hook may hand on an injected press: XRecord keeps events in the X
 * server's buffer until some client's output flushes it, so on a quiet display (or a busy
 * machine) a batch comes seconds late, and its event times, mapped from the first events the
 * hook heard, may be as late. Every press of a hotkey's key is judged in the hook's order, so
 * the echo is used up by the agent's own press, never held for a person's.
 */
const HOOK_ECHO_MS = 10_000;

/** Every key this process's executors pressed down (executor.ts notes them): the hotkeys' ledger. */
export const injectedKeys = new KeyLedger(HOOK_ECHO_MS);

/**
 * How soon an injected press's echo reaches a hotkey listener. Shorter than the ledger's own
 * TTL: a hotkey listener that never sees a non-matching press (globalShortcut) would otherwise
 * take a person's hotkey, seconds after the agent pressed its key alone, for that press's echo.
 */
const HOTKEY_ECHO_MS = 1000;

/**
 * Whether a press of `key` heard at `t` (epoch ms, the event's own time) is the harness's: the
 * echo of a press one of this process's executors injected just before (used up), or the X
 * server's autorepeat of a key it held then. A hotkey heard so is never a person's.
 */
export function pressedByHarness(key: string, t = Date.now(), echoWithinMs = HOTKEY_ECHO_MS): boolean {
  return injectedKeys.take(key, t, echoWithinMs) || injectedKeys.heldAt(key, t);
}

/**
 * Judges the global hook's events of one hotkey's key, in the order the hook hands them on:
 * true for a press that is the harness's. The X server autorepeats a held key as presses with
 * no release between; once the first is known for the harness's, the rest of that run is too,
 * however late the batch and its times come. A run ends at the key's release, or when the hook
 * was silent about the key for a second (a lost release must not keep ignoring a person).
 */
export function hookPressJudge(key: string): (e: { kind: 'keydown' | 'keyup'; t: number }) => boolean {
  let harnessRunUntil = 0;
  return (e) => {
    const now = Date.now();
    if (e.kind === 'keyup') {
      harnessRunUntil = 0;
      return false;
    }
    const ours = now < harnessRunUntil || pressedByHarness(key, e.t, HOOK_ECHO_MS);
    harnessRunUntil = ours ? now + AUTOREPEAT_GAP_MS : 0;
    return ours;
  };
}

/** The longest gap between two autorepeats the hook hands on (X: 660 ms delay, then 25 a second). */
const AUTOREPEAT_GAP_MS = 1000;

/**
 * `onPress` for one of Gamepilot's hotkeys where only its own presses are heard (Electron's
 * globalShortcut): called when a person pressed it, `onIgnored` when the harness did. The key
 * policy refuses the hotkeys to agents already; this holds even when Settings changed the
 * hotkey under a running executor.
 */
export function personOnly(accelerator: string, onPress: () => void, onIgnored?: () => void): (t?: number) => void {
  const key = parseAccelerator(accelerator).key;
  return (t = Date.now()) => {
    if (pressedByHarness(key, t)) onIgnored?.();
    else onPress();
  };
}
