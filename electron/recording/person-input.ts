/**
 * A person's input while they have the controls of a run (session/takeover.ts), heard the way
 * the recorder hears it: the global hook, and its translator into the agent's action schema —
 * window-relative, keys only while the target window has focus, the pointer only inside it.
 * The executor's own input reaches the hook too: what is heard while it acts, and the autorepeat
 * of a key it holds, is not kept and does not take over. The takeover and stop hotkeys are not the person's play either.
 */
import { contains, type Rect } from '../../native/types.ts';
import type { PersonEvent, PersonInput, PersonInputOptions } from '../session/takeover.ts';
import { keyNames, listenGlobalInput, type HookEvent } from '../input/global-hook.ts';
import { InputTranslator, type RecordedEvent } from './input-translator.ts';
import { WindowWatch, type WatchReport } from './window-watch.ts';
import { resolveKeyName } from '../actions/keys.ts';

/** Input heard this long (ms) after the executor's last action is still its own (the hook lags). */
const ECHO_GRACE_MS = 250;
const MODIFIERS = new Set(['ctrl', 'rctrl', 'shift', 'rshift', 'alt', 'ralt', 'meta']);
/** How long the translator may hold a key before it is announced as KEY_DOWN. */
const FLUSH_MS = 100;

/** Exported for its unit test; openPersonInput wires it to the hook. */
export class HookedPersonInput implements PersonInput {
  private from = Number.POSITIVE_INFINITY;
  private kept: PersonEvent[] = [];
  private agentSpans: { from: number; to: number }[] = [];
  private hotkeyPresses: number[] = [];
  bounds: Rect;
  focused = false;
  stopHook: () => void = () => {};
  timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly o: PersonInputOptions,
    readonly watch: WindowWatch,
  ) {
    this.bounds = o.bounds;
  }

  listenFrom(t: number) {
    this.from = t;
    this.kept = [];
  }

  pause() {
    this.listenFrom(Number.POSITIVE_INFINITY);
  }

  drain(): PersonEvent[] {
    return this.kept.splice(0);
  }

  agentActs(from: number, to = Number.POSITIVE_INFINITY) {
    const open = this.agentSpans.find((s) => s.from === from);
    if (open) open.to = to;
    else this.agentSpans.push({ from, to });
    const now = Number.isFinite(to) ? to : from;
    this.agentSpans = this.agentSpans.filter((s) => now - s.to < 10_000);
  }

  private byAgent(t: number): boolean {
    return this.agentSpans.some((s) => t >= s.from - 50 && t <= s.to + ECHO_GRACE_MS);
  }

  /** A key the agent holds: its keydowns now are the X server's autorepeat of the agent's press. */
  private heldByAgent(name: string | undefined): boolean {
    if (!name || !this.o.agentHeld) return false;
    const k = resolveKeyName(name);
    return !!k && this.o.agentHeld().includes(k);
  }

  /** A raw hook event: the hotkeys noted, and the person's input in the window reported (it may take over). */
  raw(e: HookEvent, name: string | undefined) {
    if (e.kind === 'keydown' && name && this.o.ignoreKeys?.includes(name)) {
      this.hotkeyPresses.push(e.t);
      this.hotkeyPresses = this.hotkeyPresses.filter((t) => e.t - t < 10_000);
      return;
    }
    if (!this.o.onInput || this.byAgent(e.t)) return;
    if ((e.kind === 'keydown' || e.kind === 'keyup') && this.heldByAgent(name)) return;
    const mine =
      e.kind === 'keydown'
        ? this.focused && !!name && !MODIFIERS.has(name) // a modifier alone may be the start of a hotkey
        : e.kind === 'mousedown' || e.kind === 'mousemove' || e.kind === 'wheel'
          ? contains(this.bounds, e.x, e.y)
          : false;
    if (mine) this.o.onInput(e.t);
  }

  /** A translated event: kept when it is the person's, from the listening time on. */
  heard(ev: RecordedEvent) {
    if (ev.t < this.from || this.byAgent(ev.t)) return;
    const key = typeof ev.parameters.key === 'string' ? ev.parameters.key : undefined;
    if (key && this.o.ignoreKeys?.includes(key)) return;
    if (key && this.heldByAgent(key)) return;
    if (key && MODIFIERS.has(key) && this.partOfHotkey(ev)) return;
    this.kept.push({ t: ev.t, action_type: ev.action_type, parameters: ev.parameters });
  }

  /** A modifier tap around a hotkey press (ctrl and shift of ctrl+shift+F11) is the hotkey's. */
  private partOfHotkey(ev: RecordedEvent): boolean {
    const end = ev.t + 1000 * (typeof ev.parameters.duration === 'number' ? ev.parameters.duration : 0);
    return this.hotkeyPresses.some((t) => t >= ev.t && t <= end + 50);
  }

  async close() {
    clearInterval(this.timer);
    this.stopHook();
    await this.watch.stop();
  }
}

/** Opens the person's input path on a window (recorder's hook and translator); rejects without a global hook. */
export async function openPersonInput(o: PersonInputOptions): Promise<PersonInput> {
  const names = await keyNames();
  const watch = WindowWatch.start({ windowId: o.windowId, focusMs: 100, boundsEvery: 5 });
  const input = new HookedPersonInput(o, watch);
  watch.on('report', (r: WatchReport) => {
    if (r.kind === 'focus') input.focused = r.focused;
    if (r.kind === 'bounds') input.bounds = r.bounds;
  });
  const translator = new InputTranslator(
    (ev) => input.heard(ev),
    (code) => names.get(code),
  );
  try {
    input.stopHook = await listenGlobalInput((e) => {
      input.raw(e, 'keycode' in e ? names.get(e.keycode) : undefined);
      translator.feed(e, { window: input.bounds, focused: input.focused });
    });
  } catch (err) {
    await watch.stop();
    throw err;
  }
  // Keys held past a tap are announced as KEY_DOWN while still held.
  input.timer = setInterval(() => translator.flush(Date.now()), FLUSH_MS);
  input.timer.unref();
  return input;
}
