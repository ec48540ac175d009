/**
 * Windows backend, in-process through koffi (see win32-api.ts): EnumWindows for the list (in
 * Z order, so it also gives the stacking), GetClientRect + ClientToScreen for the client area
 * in physical pixels (win32-api.ts makes the process per-monitor DPI aware), GetDpiForWindow for the
 * scale, IsIconic for minimized windows. Tested under Wine (npm run test:windows).
 */
import type { Rect, WindowInfo, WindowManager } from './types.ts';
import { type Handle, type Win32Api, win32 } from './win32-api.ts';

const GWL_STYLE = -16;
const GWL_EXSTYLE = -20;
const WS_EX_TOOLWINDOW = 0x80;
const WS_EX_TOPMOST = 0x8;
const GW_HWNDPREV = 3;
const SW_RESTORE = 9;
const DWMWA_EXTENDED_FRAME_BOUNDS = 9;
const DWMWA_CLOAKED = 14;
const LOGPIXELSX = 88;
/** Where Windows parks minimized windows. */
const ICONIC_POSITION = -32000;

/** Window ids are HWNDs in hex, like X11 ids: "0x0001003a". */
export function formatWindowId(h: bigint): string {
  return `0x${h.toString(16).padStart(8, '0')}`;
}

/** The HWND of an id (hex or decimal), or undefined when it is no handle. */
export function parseWindowId(id: string): bigint | undefined {
  if (!/^(0x[0-9a-f]{1,16}|\d{1,20})$/i.test(id.trim())) return undefined;
  const h = BigInt(id.trim());
  return h > 0n && h < 1n << 64n ? h : undefined;
}

function rectOf(r: { left?: number; top?: number; right?: number; bottom?: number }): Rect {
  const left = r.left ?? 0;
  const top = r.top ?? 0;
  return { x: left, y: top, width: (r.right ?? left) - left, height: (r.bottom ?? top) - top };
}

export class Win32WindowManager implements WindowManager {
  readonly platform = 'win32';
  private readonly api: Win32Api;
  private readonly title = Buffer.alloc(2 * 1024);
  /** The client area each window last had while shown: where it comes back when restored. */
  private readonly lastShown = new Map<bigint, Rect>();

  constructor(api: Win32Api = win32()) {
    this.api = api;
  }

  /** Top-level windows people can see or restore, top of the Z order first. */
  private handles(): bigint[] {
    const out: bigint[] = [];
    this.api.EnumWindows((h) => {
      out.push(h);
      return true;
    }, 0);
    return out.filter((h) => this.listable(h));
  }

  /** Shown (or minimized), not cloaked (hidden UWP frames), not a tool window, with a title. */
  private listable(h: bigint): boolean {
    const api = this.api;
    if (!api.IsWindowVisible(h)) return false;
    if ((api.GetWindowLongW(h, GWL_EXSTYLE) & WS_EX_TOOLWINDOW) !== 0) return false;
    if (api.DwmGetWindowAttribute) {
      const cloaked = Buffer.alloc(4);
      if (api.DwmGetWindowAttribute(h, DWMWA_CLOAKED, cloaked, 4) === 0 && cloaked.readUInt32LE(0) !== 0) return false;
    }
    return this.titleOf(h).length > 0;
  }

  private titleOf(h: Handle): string {
    const n = this.api.GetWindowTextW(h, this.title, this.title.length / 2);
    return n > 0 ? this.title.toString('utf16le', 0, n * 2) : '';
  }

  private describe(h: bigint): WindowInfo | undefined {
    const api = this.api;
    if (!api.IsWindow(h) || !api.IsWindowVisible(h)) return undefined;
    const pid = [0];
    if (!api.GetWindowThreadProcessId(h, pid)) return undefined;
    const minimized = api.IsIconic(h);
    const bounds = minimized ? this.restoredClient(h) : this.client(h);
    if (!bounds) return undefined;
    if (!minimized) this.lastShown.set(h, bounds);
    const frame = minimized ? undefined : this.frame(h);
    return {
      id: formatWindowId(h),
      title: this.titleOf(h),
      pid: pid[0]!,
      bounds,
      scaleFactor: this.dpi(h) / 96,
      minimized,
      ...(frame ? { frame } : {}),
    };
  }

  private client(h: bigint): Rect | undefined {
    const r: { left?: number; top?: number; right?: number; bottom?: number } = {};
    const origin = { x: 0, y: 0 };
    if (!this.api.GetClientRect(h, r) || !this.api.ClientToScreen(h, origin)) return undefined;
    const size = rectOf(r);
    return { x: origin.x, y: origin.y, width: size.width, height: size.height };
  }

  /**
   * Where a minimized window's client area will be once restored: its normal rectangle less the
   * frame. Wine (8.0) reports the icon's rectangle there (at -32000): then the last one seen.
   */
  private restoredClient(h: bigint): Rect | undefined {
    const api = this.api;
    const wp: { length: number; rcNormalPosition?: { left: number; top: number; right: number; bottom: number } } = {
      length: api.koffi.sizeof('GP_WINDOWPLACEMENT'),
    };
    const seen = this.lastShown.get(h);
    if (!api.GetWindowPlacement(h, wp) || !wp.rcNormalPosition) return seen;
    const insets = { left: 0, top: 0, right: 0, bottom: 0 };
    api.AdjustWindowRectEx(
      insets,
      api.GetWindowLongW(h, GWL_STYLE) >>> 0,
      api.GetMenu(h) !== null,
      api.GetWindowLongW(h, GWL_EXSTYLE) >>> 0,
    );
    const n = wp.rcNormalPosition;
    const restored = rectOf({
      left: n.left - insets.left,
      top: n.top - insets.top,
      right: n.right - insets.right,
      bottom: n.bottom - insets.bottom,
    });
    const plausible = n.left > ICONIC_POSITION && restored.width > 0 && restored.height > 0;
    return plausible ? restored : (seen ?? restored);
  }

  /** The outer rectangle as drawn: DWM's extended frame bounds (no invisible resize borders) where there is DWM. */
  private frame(h: bigint): Rect | undefined {
    const api = this.api;
    if (api.DwmGetWindowAttribute) {
      const out = Buffer.alloc(16);
      if (api.DwmGetWindowAttribute(h, DWMWA_EXTENDED_FRAME_BOUNDS, out, 16) === 0)
        return rectOf({
          left: out.readInt32LE(0),
          top: out.readInt32LE(4),
          right: out.readInt32LE(8),
          bottom: out.readInt32LE(12),
        });
    }
    const r: { left?: number; top?: number; right?: number; bottom?: number } = {};
    return api.GetWindowRect(h, r) ? rectOf(r) : undefined;
  }

  /** The window's DPI (96 = 100 %); before Windows 10 1607 the system DPI. */
  private dpi(h: bigint): number {
    const api = this.api;
    const own = api.GetDpiForWindow?.(h);
    if (own) return own;
    const dc = api.GetDC(null);
    try {
      return api.GetDeviceCaps(dc, LOGPIXELSX) || 96;
    } finally {
      api.ReleaseDC(null, dc);
    }
  }

  async list(): Promise<WindowInfo[]> {
    const handles = this.handles();
    for (const h of this.lastShown.keys()) if (!handles.includes(h)) this.lastShown.delete(h);
    return handles.map((h) => this.describe(h)).filter((w): w is WindowInfo => !!w);
  }

  async get(id: string): Promise<WindowInfo | undefined> {
    const h = parseWindowId(id);
    return h === undefined ? undefined : this.describe(h);
  }

  async focus(id: string): Promise<void> {
    const h = parseWindowId(id);
    const api = this.api;
    if (h === undefined || !api.IsWindow(h)) throw new Error(`no window ${id}`);
    // Active is not enough: a window started meanwhile may sit above the one that kept the focus.
    const done = () => !api.IsIconic(h) && api.GetForegroundWindow() === h && this.onTop(h);
    // Under Wine the foreground changes at once, the Z order a moment later, and the window
    // manager's answer to an earlier minimize or switch may still undo it: ask again every 100 ms.
    for (let i = 0; i < 40 && !done(); i++) {
      if (i % 10 === 0) this.bringForward(h);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Restores, raises and activates h. */
  private bringForward(h: bigint) {
    const api = this.api;
    if (api.IsIconic(h)) api.ShowWindow(h, SW_RESTORE);
    // Windows lets only the foreground thread hand over the foreground: join its input queue
    // for the switch. BringWindowToTop raises where SetForegroundWindow alone may not (Wine).
    const foreground = api.GetForegroundWindow();
    const theirs = foreground ? api.GetWindowThreadProcessId(foreground, [0]) : 0;
    const ours = api.GetCurrentThreadId();
    const attached = theirs !== 0 && theirs !== ours && api.AttachThreadInput(ours, theirs, true);
    try {
      api.BringWindowToTop(h);
      api.SetForegroundWindow(h);
    } finally {
      if (attached) api.AttachThreadInput(ours, theirs, false);
    }
  }

  /**
   * No window people can see lies above h, other than always-on-top ones (overlays, tooltips)
   * and the game's own (its dialogs sit above it by design).
   */
  private onTop(h: bigint): boolean {
    const api = this.api;
    const pid = [0];
    api.GetWindowThreadProcessId(h, pid);
    const own = pid[0];
    for (let above = api.GetWindow(h, GW_HWNDPREV); above; above = api.GetWindow(above, GW_HWNDPREV)) {
      if ((api.GetWindowLongW(above, GWL_EXSTYLE) & WS_EX_TOPMOST) !== 0) continue;
      if (!this.listable(above)) continue;
      api.GetWindowThreadProcessId(above, pid);
      if (pid[0] !== own) return false;
    }
    return true;
  }

  async activeId(): Promise<string | undefined> {
    const h = this.api.GetForegroundWindow();
    return h ? formatWindowId(h) : undefined;
  }

  /** EnumWindows walks the Z order from the top: reversed, bottom to top. */
  async stacking(): Promise<string[]> {
    return this.handles().reverse().map(formatWindowId);
  }
}
