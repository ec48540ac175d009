/**
 * Whether a window may have changed since it was last looked at, as the X server tells every
 * client that asks: structure events (moved, resized, mapped, unmapped, reparented, destroyed)
 * of the window and of each window it sits in up to the root (a window manager moves the frame,
 * not the window in it), and changes of the window's properties a look reads (title,
 * `_NET_WM_STATE` for minimized, `_NET_FRAME_EXTENTS`…; not the others: Chromium rewrites
 * `_NET_WM_USER_TIME` on every key). The session reuses its last look at the window until one
 * of these arrives.
 */
import { X, xConnection, type XConnection } from './xlib.ts';
import type { WindowWatch } from '../types.ts';

const MASK = X.StructureNotifyMask | X.PropertyChangeMask;
/** DestroyNotify, UnmapNotify, MapNotify, ReparentNotify, ConfigureNotify, GravityNotify, CirculateNotify, PropertyNotify. */
const EVENT_TYPES = [17, 18, 19, 21, 22, 24, 26, 28];
/** The window an event was selected on (`XAnyEvent.window`; `event` of structure events) on LP64. */
const WINDOW_FIELD = 32;
/** A window moving to another parent, or ceasing to exist: the chain of parents is read again. */
const REPARENT_OR_DESTROY = new Set([17, 21]);
const PROPERTY_NOTIFY = 28;
/** `XPropertyEvent.atom` on LP64. */
const ATOM_FIELD = 40;

/**
 * A connection selects one event mask per window: watches that share a window (two watches of
 * one window, or a frame two windows sit in) count their selections, and the last one out clears it.
 */
const selections = new WeakMap<XConnection, Map<number, number>>();

function select(c: XConnection, w: number) {
  const counts = selections.get(c) ?? new Map<number, number>();
  selections.set(c, counts);
  const n = counts.get(w) ?? 0;
  if (n === 0) c.lib.fn.XSelectInput(c.display, w, MASK); // on a window that just closed: a silent BadWindow
  counts.set(w, n + 1);
}

function unselect(c: XConnection, w: number) {
  const counts = selections.get(c);
  const n = counts?.get(w) ?? 0;
  if (n > 1) counts!.set(w, n - 1);
  else if (n === 1) {
    counts!.delete(w);
    c.lib.fn.XSelectInput(c.display, w, 0);
  }
}

/** The window and the windows it sits in, below the root. */
function chainToRoot(c: XConnection, w: number): number[] {
  const chain = [w];
  for (let at = w, i = 0; i < 16; i++) {
    const root = [0];
    const parent = [0];
    const children: (bigint | null)[] = [null];
    const n = [0];
    if (!c.lib.fn.XQueryTree(c.display, at, root, parent, children, n)) break;
    if (children[0]) c.lib.fn.XFree(children[0]);
    const p = parent[0]!;
    if (!p || p === c.root) break;
    chain.push(p);
    at = p;
  }
  return chain;
}

export class XWindowWatch implements WindowWatch {
  private watched: number[] = [];
  private dirty = true;
  private rechain = true;
  private readonly stops: (() => void)[];

  /**
   * `properties`: the names of the window properties a look at it reads (a change of any other
   * says nothing new).
   */
  constructor(
    private readonly window: number,
    properties: readonly string[],
    private readonly c: XConnection = xConnection(),
  ) {
    const read = new Set(properties.map((p) => c.atom(p)));
    const heard = (ev: Buffer) => {
      const on = Number(ev.readBigUInt64LE(WINDOW_FIELD));
      if (!this.watched.includes(on)) return;
      const type = ev.readInt32LE(0) & 0x7f;
      if (type === PROPERTY_NOTIFY && !read.has(Number(ev.readBigUInt64LE(ATOM_FIELD)))) return;
      this.dirty = true;
      if (REPARENT_OR_DESTROY.has(type)) this.rechain = true;
    };
    this.stops = EVENT_TYPES.map((t) => c.onEvent(t, heard));
  }

  changed(): boolean {
    if (this.rechain) this.follow();
    // A round trip first: every event the server generated before answering it is then ours to
    // read, so "unchanged" holds for the server's state now, as a fresh look would (an event can
    // sit in the server's output buffer for a while otherwise). About 0.02 ms on a quiet machine.
    this.c.lib.fn.XSync(this.c.display, X.False);
    this.c.pump();
    if (this.rechain) this.follow(); // reparented just now: select on the new parents too
    const was = this.dirty;
    this.dirty = false;
    return was;
  }

  close() {
    for (const stop of this.stops) stop();
    this.unfollow();
    this.c.lib.fn.XFlush(this.c.display);
  }

  /** Selects on the window and its parents as they are now (anything that changed before counts as a change). */
  private follow() {
    this.unfollow();
    this.rechain = false;
    this.dirty = true;
    this.watched = chainToRoot(this.c, this.window);
    for (const w of this.watched) select(this.c, w);
    this.c.lib.fn.XFlush(this.c.display);
  }

  private unfollow() {
    for (const w of this.watched) unselect(this.c, w);
    this.watched = [];
  }
}
