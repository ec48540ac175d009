/**
 * Keyboard and pointer input through XTest on the thread's display connection: each event is
 * one small request, flushed at once (no round trip, no process). Keys are X keysyms; the
 * keycode that produces a keysym comes from the server's current keyboard mapping.
 */
import koffi from 'koffi';
import { X, xConnection, type XConnection } from './xlib.ts';

const XK_Shift_L = 0xffe1;
/** How long clients get to fetch a changed keyboard mapping before its keys are used. */
const MAPPING_SETTLE_MS = 20;
/**
 * How long a borrowed keycode keeps its character after the last key typed on it. A client
 * reads the mapping only when it handles the key event, which on a busy machine can be long
 * after the event was sent: a mapping given back 20 ms later turned 'é' into nothing there.
 */
const GIVE_BACK_AFTER_MS = 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pointer buttons as XTest numbers them: 4–7 are the wheel (up, down, left, right). */
export const BUTTON = { left: 1, middle: 2, right: 3, wheelUp: 4, wheelDown: 5, wheelLeft: 6, wheelRight: 7 } as const;

/** The keysym a character types: Latin-1 as is, the rest as Unicode keysyms (0x01000000 + code point). */
export function keysymOfChar(ch: string): number {
  const code = ch.codePointAt(0)!;
  if (ch === '\n' || ch === '\r') return 0xff0d; // Return
  if (ch === '\t') return 0xff09; // Tab
  if (ch === '\b') return 0xff08; // BackSpace
  if ((code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff)) return code;
  return 0x01000000 + code;
}

interface Keymap {
  generation: number;
  min: number;
  /** keysyms per keycode, as the server lists them (column 0 plain, 1 with Shift). */
  perKeycode: number;
  syms: number[];
}

export class XTestInput {
  private readonly c: XConnection;
  private keymap: Keymap | undefined;
  /** Spare keycodes mapped to a character for typing, until they are given back. */
  private readonly lent = new Set<number>();
  private giveBackTimer: NodeJS.Timeout | undefined;
  private readonly giveBackOnExit = () => this.giveBack();

  constructor(connect: () => XConnection = xConnection) {
    this.c = connect();
    const n = [0];
    if (!this.c.lib.fn.XTestQueryExtension(this.c.display, n, [0], [0], [0]))
      throw new Error('the X server has no XTEST extension');
  }

  /**
   * Presses or releases the key that produces `keysym`, as it is, without adding Shift (as
   * nut-js does: modifiers are the caller's); throws when no key produces it.
   */
  key(keysym: number, down: boolean) {
    const code = this.keycodeOf(keysym)?.code;
    if (!code) throw new Error(`no key on this keyboard produces keysym 0x${keysym.toString(16)}`);
    this.fake(() => this.c.lib.fn.XTestFakeKeyEvent(this.c.display, code, down ? X.True : X.False, 0));
  }

  button(button: number, down: boolean) {
    this.fake(() => this.c.lib.fn.XTestFakeButtonEvent(this.c.display, button, down ? X.True : X.False, 0));
  }

  /** Moves the pointer to a point of the root window (all screens' bounding box). */
  moveTo(x: number, y: number) {
    this.fake(() => this.c.lib.fn.XTestFakeMotionEvent(this.c.display, -1, Math.round(x), Math.round(y), 0));
  }

  pointer(): { x: number; y: number } {
    const x = [0];
    const y = [0];
    const { fn } = this.c.lib;
    fn.XQueryPointer(this.c.display, this.c.root, [0], [0], x, y, [0], [0], [0]);
    return { x: x[0]!, y: y[0]! };
  }

  /**
   * Types text: each character through the key that produces it (with Shift when it is the
   * shifted level). Characters the keyboard lacks are mapped onto spare (empty) keycodes, each
   * onto its own, as xdotool does; one keycode per character, because a client reads the
   * mapping only when it handles the key event, so a keycode remapped for the next character
   * would turn this one into that one. For the same reason the mapping is given back only
   * GIVE_BACK_AFTER_MS after the last character (a character lent already is typed on its
   * keycode again), or, when every spare keycode is lent, that long after the keys typed on them.
   * Xlib and GTK clients follow such changes; Chromium under Xvfb ignores them (as it does for
   * nut-js and xdotool), so it receives only the characters its keyboard has.
   */
  async type(text: string) {
    clearTimeout(this.giveBackTimer);
    const syms = [...text].map(keysymOfChar);
    try {
      for (let i = 0; i < syms.length; ) {
        // As many characters as there are spare keycodes for the ones missing.
        const spares = this.spareKeycodes();
        const borrowed = new Map<number, number>();
        let end = i;
        for (; end < syms.length; end++) {
          const sym = syms[end]!;
          if (borrowed.has(sym) || this.keycodeOf(sym)) continue;
          if (borrowed.size === spares.length) break;
          borrowed.set(sym, spares[borrowed.size]!);
        }
        if (end === i) {
          if (!this.lent.size) throw new Error(`no free keycode to type keysym 0x${syms[i]!.toString(16)}`);
          // Every spare keycode is lent: give them back once their characters had time to arrive.
          this.c.lib.fn.XSync(this.c.display, X.False);
          await sleep(GIVE_BACK_AFTER_MS);
          this.giveBack();
          continue;
        }
        if (borrowed.size) {
          if (!this.lent.size) process.once('exit', this.giveBackOnExit);
          for (const [sym, code] of borrowed) {
            this.setMapping(code, sym);
            this.lent.add(code);
          }
          await sleep(MAPPING_SETTLE_MS); // clients fetch the new mapping first
        }
        for (const sym of syms.slice(i, end)) {
          const code = borrowed.get(sym);
          const k = code ? { code, shift: false } : this.keycodeOf(sym)!;
          if (k.shift) this.key(XK_Shift_L, true);
          this.fake(() => this.c.lib.fn.XTestFakeKeyEvent(this.c.display, k.code, X.True, 0));
          this.fake(() => this.c.lib.fn.XTestFakeKeyEvent(this.c.display, k.code, X.False, 0));
          if (k.shift) this.key(XK_Shift_L, false);
        }
        i = end;
      }
    } finally {
      if (this.lent.size) this.giveBackTimer = setTimeout(() => this.giveBack(), GIVE_BACK_AFTER_MS).unref();
    }
  }

  /** Empties the keycodes lent to characters (at once: the caller has waited for their keys). */
  giveBack() {
    clearTimeout(this.giveBackTimer);
    if (!this.lent.size) return;
    for (const code of this.lent) this.setMapping(code, 0);
    this.lent.clear();
    process.removeListener('exit', this.giveBackOnExit);
  }

  private fake(send: () => number) {
    if (!send()) throw new Error('the X server refused an XTest event');
    this.c.lib.fn.XFlush(this.c.display);
  }

  private map(): Keymap {
    this.c.pump(); // picks up MappingNotify, which bumps the generation
    if (this.keymap?.generation === this.c.keymapGeneration) return this.keymap;
    const { fn } = this.c.lib;
    const min = [0];
    const max = [0];
    fn.XDisplayKeycodes(this.c.display, min, max);
    const count = max[0]! - min[0]! + 1;
    const per = [0];
    const ptr = fn.XGetKeyboardMapping(this.c.display, min[0]!, count, per);
    if (!ptr) throw new Error('cannot read the keyboard mapping');
    const syms = Array.from(koffi.decode(ptr, 'unsigned long', count * per[0]!) as ArrayLike<bigint>, Number);
    fn.XFree(ptr);
    this.keymap = { generation: this.c.keymapGeneration, min: min[0]!, perKeycode: per[0]!, syms };
    return this.keymap;
  }

  /** The keycode producing `keysym` at the plain level, else at the Shift level. */
  private keycodeOf(keysym: number): { code: number; shift: boolean } | undefined {
    const m = this.map();
    for (const column of [0, 1]) {
      if (column >= m.perKeycode) break;
      for (let i = 0; i * m.perKeycode < m.syms.length; i++) {
        if (m.syms[i * m.perKeycode + column] !== keysym) continue;
        return { code: m.min + i, shift: column === 1 };
      }
    }
    return undefined;
  }

  /** Keycodes with no keysym at all, from the top (where keyboards have the fewest keys). */
  private spareKeycodes(): number[] {
    const m = this.map();
    const spares: number[] = [];
    for (let i = m.syms.length / m.perKeycode - 1; i >= 0; i--)
      if (m.syms.slice(i * m.perKeycode, (i + 1) * m.perKeycode).every((s) => s === 0)) spares.push(m.min + i);
    return spares;
  }

  private setMapping(code: number, keysym: number) {
    const { fn } = this.c.lib;
    fn.XChangeKeyboardMapping(this.c.display, code, 2, [keysym, keysym], 1);
    fn.XSync(this.c.display, X.False);
  }
}
