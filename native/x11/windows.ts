/**
 * X11 windows in-process, over the thread's one display connection (xlib.ts): the managed
 * list (`_NET_CLIENT_LIST`), stacking (`_NET_CLIENT_LIST_STACKING`), titles (`_NET_WM_NAME`,
 * else `WM_NAME`), pids (`_NET_WM_PID`), minimized (`_NET_WM_STATE_HIDDEN`), frame extents
 * (`_NET_FRAME_EXTENTS`), client geometry (XGetWindowAttributes + XTranslateCoordinates) and
 * activation (`_NET_ACTIVE_WINDOW` + XRaiseWindow). A `get` is six small round trips, well
 * under a millisecond; no process is started.
 */
import koffi from 'koffi';
import { getProperty, X, xConnection, type WindowAttributes, type XConnection } from './xlib.ts';
import type { ChangeWatch, Rect, WindowInfo, WindowManager, WindowWatch } from '../types.ts';
import { DamageWatch } from './damage.ts';
import { XWindowWatch } from './window-events.ts';

export function normId(id: string | number): string {
  const n = typeof id === 'number' ? id : Number.parseInt(id, 16);
  return `0x${n.toString(16).padStart(8, '0')}`;
}

function windowNumber(id: string): number {
  const n = Number.parseInt(id, 16);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`"${id}" is not an X11 window id`);
  return n;
}

/** The properties `info` reads of a window: a change of another one does not change what a look sees. */
const LOOKED_AT = ['_NET_WM_NAME', 'WM_NAME', '_NET_WM_PID', '_NET_WM_STATE', '_NET_FRAME_EXTENTS'] as const;

/** `_NET_WM_DESKTOP` of a window on every desktop (panels, docks): not a game window. */
const ALL_DESKTOPS = 0xffffffff;

export class XlibWindowManager implements WindowManager {
  readonly platform = 'linux-x11';
  /** A window's pid never changes: asked once per window. */
  private readonly pids = new Map<number, number>();

  constructor(private readonly connect: () => XConnection = xConnection) {}

  private get c(): XConnection {
    return this.connect();
  }

  async list(): Promise<WindowInfo[]> {
    const c = this.c;
    const managed = getProperty(c, c.root, '_NET_CLIENT_LIST');
    // Without an EWMH window manager: the root's mapped children that are not popups.
    const ids = managed ? managed.longs() : this.unmanagedTopLevels(c);
    const out: WindowInfo[] = [];
    for (const w of ids) {
      if (managed && getProperty(c, w, '_NET_WM_DESKTOP')?.longs()[0] === ALL_DESKTOPS) continue;
      // A window that closes while we read is simply not listed.
      const info = this.info(c, w);
      if (info) out.push(info);
    }
    this.forgetClosed(new Set(ids));
    return out;
  }

  async get(id: string): Promise<WindowInfo | undefined> {
    return this.info(this.c, windowNumber(id));
  }

  async focus(id: string): Promise<void> {
    const c = this.c;
    const w = windowNumber(id);
    if (!this.managed(c)) return this.focusUnmanaged(c, w);
    // Active is not enough: a window may have been raised above the one that kept the focus.
    if (this.active(c) === w && this.onTop(c, w)) return;
    this.activate(c, w);
    for (let i = 0; i < 80; i++) {
      await new Promise((r) => setTimeout(r, 5));
      if (this.active(c) === w && this.onTop(c, w)) return;
    }
  }

  async activeId(): Promise<string | undefined> {
    const c = this.c;
    const w = this.managed(c) ? this.active(c) : this.inputFocus(c);
    return w ? normId(w) : undefined;
  }

  async windowManagerRunning(): Promise<boolean> {
    return this.managed(this.c);
  }

  /** A window manager announces itself on the root window (EWMH `_NET_SUPPORTING_WM_CHECK`). */
  private managed(c: XConnection): boolean {
    return !!getProperty(c, c.root, '_NET_SUPPORTING_WM_CHECK')?.longs()[0];
  }

  /**
   * With no window manager nobody gives the focus: left alone it follows the pointer, so keys
   * land wherever the pointer is. The window is raised and given the focus directly.
   */
  private focusUnmanaged(c: XConnection, w: number) {
    c.lib.fn.XRaiseWindow(c.display, w);
    c.lib.fn.XSetInputFocus(c.display, w, X.RevertToParent, X.CurrentTime);
    c.lib.fn.XSync(c.display, X.False);
  }

  /** The window holding the keyboard focus (none, or PointerRoot: 0/1, undefined). */
  private inputFocus(c: XConnection): number | undefined {
    const focus = [0];
    c.lib.fn.XGetInputFocus(c.display, focus, [0]);
    return focus[0]! > 1 ? focus[0] : undefined;
  }

  watchChanges(id: string): ChangeWatch | undefined {
    return DamageWatch.create(windowNumber(id), this.connect);
  }

  watchWindow(id: string): WindowWatch {
    return new XWindowWatch(windowNumber(id), LOOKED_AT, this.c);
  }

  async stacking(): Promise<string[]> {
    const c = this.c;
    return (getProperty(c, c.root, '_NET_CLIENT_LIST_STACKING')?.longs() ?? []).map(normId);
  }

  /**
   * No window people see lies above w in the stacking: windows on every desktop (panels, docks),
   * minimized ones, always-on-top ones (`_NET_WM_STATE_ABOVE`) and the game's own (its dialogs
   * sit above it by design) do not count. Without an EWMH stacking list there is nothing to go
   * by: on top.
   */
  private onTop(c: XConnection, w: number): boolean {
    const order = getProperty(c, c.root, '_NET_CLIENT_LIST_STACKING')?.longs();
    const at = order?.indexOf(w) ?? -1;
    if (!order || at < 0) return true;
    const above = c.atom('_NET_WM_STATE_ABOVE');
    const own = this.pid(c, w);
    return order.slice(at + 1).every((o) => {
      if (own && this.pid(c, o) === own) return true;
      if (getProperty(c, o, '_NET_WM_DESKTOP')?.longs()[0] === ALL_DESKTOPS) return true;
      if (getProperty(c, o, '_NET_WM_STATE')?.longs().includes(above)) return true;
      const info = this.info(c, o);
      return !info || info.minimized;
    });
  }

  private active(c: XConnection): number | undefined {
    const w = getProperty(c, c.root, '_NET_ACTIVE_WINDOW')?.longs()[0];
    return w ? w : undefined;
  }

  /**
   * Asks the window manager to activate the window (it also de-iconifies it and switches to its
   * desktop, as `wmctrl -a` does), as a pager (source 2), whose requests window managers honour,
   * then raises it.
   */
  private activate(c: XConnection, w: number) {
    const desktop = getProperty(c, w, '_NET_WM_DESKTOP')?.longs()[0];
    const current = getProperty(c, c.root, '_NET_CURRENT_DESKTOP')?.longs()[0];
    if (desktop !== undefined && current !== undefined && desktop !== current && desktop !== ALL_DESKTOPS)
      this.message(c, c.root, '_NET_CURRENT_DESKTOP', [desktop, 0]);
    this.message(c, w, '_NET_ACTIVE_WINDOW', [2, 0, 0]);
    c.lib.fn.XRaiseWindow(c.display, w);
    c.lib.fn.XFlush(c.display);
  }

  /** An EWMH client message to the root window, about `w`. */
  private message(c: XConnection, w: number, type: string, data: number[]) {
    const l = [0, 0, 0, 0, 0];
    data.forEach((v, i) => {
      l[i] = v;
    });
    c.lib.fn.XSendEvent(c.display, c.root, X.False, X.SubstructureRedirectMask | X.SubstructureNotifyMask, {
      type: X.ClientMessage,
      serial: 0,
      send_event: X.True,
      display: c.display,
      window: w,
      message_type: c.atom(type),
      format: 32,
      l,
      pad: new Array(12).fill(0),
    });
  }

  /**
   * A window as the session sees it: shown, or minimized (the window manager's hidden state,
   * even while it may still be mapped). Unmapped without that state (withdrawn, being
   * destroyed) counts as gone, as does a window that no longer exists.
   */
  private info(c: XConnection, w: number): WindowInfo | undefined {
    const { fn } = c.lib;
    const attrs = {} as WindowAttributes;
    if (!fn.XGetWindowAttributes(c.display, w, attrs)) return undefined;
    const state = getProperty(c, w, '_NET_WM_STATE')?.longs() ?? [];
    const minimized = state.includes(c.atom('_NET_WM_STATE_HIDDEN'));
    if (attrs.map_state !== X.IsViewable && !minimized) return undefined;
    const x = [0];
    const y = [0];
    const child = [0];
    if (!fn.XTranslateCoordinates(c.display, w, c.root, 0, 0, x, y, child)) return undefined;
    const bounds: Rect = { x: x[0]!, y: y[0]!, width: attrs.width, height: attrs.height };
    const [l = 0, r = 0, t = 0, b = 0] = getProperty(c, w, '_NET_FRAME_EXTENTS')?.longs() ?? [];
    return {
      id: normId(w),
      title: this.title(c, w),
      pid: this.pid(c, w),
      bounds,
      scaleFactor: 1,
      minimized,
      frame: { x: bounds.x - l, y: bounds.y - t, width: bounds.width + l + r, height: bounds.height + t + b },
    };
  }

  private title(c: XConnection, w: number): string {
    const net = getProperty(c, w, '_NET_WM_NAME');
    if (net) return net.text();
    const legacy = getProperty(c, w, 'WM_NAME');
    // WM_NAME of type STRING is Latin-1 (ICCCM); UTF8_STRING and the rest are read as UTF-8.
    return legacy ? legacy.text(legacy.type === 31 /* XA_STRING */) : '';
  }

  private pid(c: XConnection, w: number): number {
    let pid = this.pids.get(w);
    if (pid === undefined) {
      pid = getProperty(c, w, '_NET_WM_PID')?.longs()[0] ?? 0;
      if (pid) this.pids.set(w, pid);
    }
    return pid;
  }

  private forgetClosed(open: Set<number>) {
    for (const w of this.pids.keys()) if (!open.has(w)) this.pids.delete(w);
  }

  private unmanagedTopLevels(c: XConnection): number[] {
    const { fn } = c.lib;
    const root = [0];
    const parent = [0];
    const children: (bigint | null)[] = [null];
    const n = [0];
    if (!fn.XQueryTree(c.display, c.root, root, parent, children, n) || !children[0]) return [];
    const ids = decodeWindows(children[0], n[0]!);
    fn.XFree(children[0]);
    return ids.filter((w) => {
      const attrs = {} as WindowAttributes;
      return (
        fn.XGetWindowAttributes(c.display, w, attrs) &&
        attrs.map_state === X.IsViewable &&
        !attrs.override_redirect &&
        (getProperty(c, w, '_NET_WM_NAME') ?? getProperty(c, w, 'WM_NAME')) !== undefined
      );
    });
  }
}

/** An array of Window (C unsigned long) as numbers. */
function decodeWindows(ptr: bigint, n: number): number[] {
  return n > 0 ? Array.from(koffi.decode(ptr, 'unsigned long', n) as ArrayLike<bigint>, Number) : [];
}
