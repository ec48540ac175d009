/**
 * macOS backend, in-process through koffi: CGWindowListCopyWindowInfo for the list (front to
 * back, so also the stacking), the Accessibility API to restore, raise and activate a window.
 * Window titles need the Screen Recording permission (without it the owner's name stands in);
 * raising needs the Accessibility permission. Bounds are the whole window in pixels. Written
 * to Apple's documentation; only its pure part (macos-convert.ts, macos-keys.ts) is tested
 * here, since CI has no Mac — see README.
 */
import { type CGWindowDescription, type Display, toWindowInfo } from './macos-convert.ts';
import { cfString, fromCF, type MacApi, macos, type Ref } from './macos-api.ts';
import type { WindowInfo, WindowManager } from './types.ts';

const kCGWindowListOptionAll = 0;
const kCGWindowListOptionOnScreenOnly = 1 << 0;
const kCGWindowListExcludeDesktopElements = 1 << 4;
const kAXErrorSuccess = 0;

export class MacWindowManager implements WindowManager {
  readonly platform = 'darwin';
  private readonly api: MacApi;

  constructor(api: MacApi = macos()) {
    this.api = api;
  }

  /** Displays with their bounds in points and backing scale; the main display first. */
  private displays(): Display[] {
    const api = this.api;
    const ids = new Uint32Array(16);
    const count = [0];
    if (api.CGGetActiveDisplayList(ids.length, ids, count) !== 0) return [];
    return [...ids.subarray(0, count[0])].map((id) => {
      const r = api.CGDisplayBounds(id);
      const mode = api.CGDisplayCopyDisplayMode(id);
      let scale = 1;
      if (mode) {
        scale = api.CGDisplayModeGetPixelWidth(mode) / Math.max(1, api.CGDisplayModeGetWidth(mode)) || 1;
        api.CGDisplayModeRelease(mode);
      }
      return { bounds: { x: r.origin.x, y: r.origin.y, width: r.size.width, height: r.size.height }, scale };
    });
  }

  private descriptions(option: number): CGWindowDescription[] {
    const list = this.api.CGWindowListCopyWindowInfo(option | kCGWindowListExcludeDesktopElements, 0);
    if (!list) throw new Error('CGWindowListCopyWindowInfo failed (no window server connection?)');
    try {
      return (fromCF(list) as CGWindowDescription[] | undefined) ?? [];
    } finally {
      this.api.CFRelease(list);
    }
  }

  async list(): Promise<WindowInfo[]> {
    const displays = this.displays();
    return this.descriptions(kCGWindowListOptionAll)
      .map((d) => toWindowInfo(d, displays))
      .filter((w): w is WindowInfo => !!w);
  }

  async get(id: string): Promise<WindowInfo | undefined> {
    return (await this.list()).find((w) => w.id === id);
  }

  /** The AX element of window `id` and its application's (both to be released). */
  private axWindow(pid: number, id: string): { app: Ref; window: Ref } | undefined {
    const api = this.api;
    const app = api.AXUIElementCreateApplication(pid);
    const out: Ref[] = [null];
    if (api.AXUIElementCopyAttributeValue(app, cfString('AXWindows'), out) !== kAXErrorSuccess || !out[0]) {
      api.CFRelease(app);
      return undefined;
    }
    const windows = out[0];
    try {
      const n = api.CFArrayGetCount(windows);
      for (let i = 0; i < n; i++) {
        const w = api.CFArrayGetValueAtIndex(windows, i);
        const wid = [0];
        if (api._AXUIElementGetWindow?.(w, wid) === kAXErrorSuccess && String(wid[0]) === id)
          return { app, window: api.CFRetain(w) };
      }
    } finally {
      api.CFRelease(windows);
    }
    api.CFRelease(app);
    return undefined;
  }

  async focus(id: string): Promise<void> {
    const api = this.api;
    const target = await this.get(id);
    if (!target) throw new Error(`no window ${id}`);
    if (!api.AXIsProcessTrusted())
      throw new Error(
        'Gamepilot needs the Accessibility permission to raise windows (System Settings → Privacy & Security → Accessibility)',
      );
    const found = this.axWindow(target.pid, id);
    if (!found) throw new Error(`window ${id} is not reachable through the Accessibility API`);
    try {
      api.AXUIElementSetAttributeValue(found.window, cfString('AXMinimized'), api.kCFBooleanFalse);
      api.AXUIElementSetAttributeValue(found.app, cfString('AXFrontmost'), api.kCFBooleanTrue);
      api.AXUIElementPerformAction(found.window, cfString('AXRaise'));
    } finally {
      api.CFRelease(found.window);
      api.CFRelease(found.app);
    }
    for (let i = 0; i < 40 && (await this.activeId()) !== id; i++) await new Promise((r) => setTimeout(r, 10));
  }

  /** The focused window of the frontmost application. */
  async activeId(): Promise<string | undefined> {
    const api = this.api;
    const system = api.AXUIElementCreateSystemWide();
    const app: Ref[] = [null];
    const window: Ref[] = [null];
    try {
      if (api.AXUIElementCopyAttributeValue(system, cfString('AXFocusedApplication'), app) !== kAXErrorSuccess)
        return undefined;
      if (api.AXUIElementCopyAttributeValue(app[0] ?? null, cfString('AXFocusedWindow'), window) !== kAXErrorSuccess)
        return undefined;
      const wid = [0];
      return api._AXUIElementGetWindow?.(window[0] ?? null, wid) === kAXErrorSuccess ? String(wid[0]) : undefined;
    } finally {
      for (const r of [window[0], app[0], system]) if (r) api.CFRelease(r);
    }
  }

  /** On-screen windows come front to back: reversed, bottom to top. */
  async stacking(): Promise<string[]> {
    return this.descriptions(kCGWindowListOptionOnScreenOnly)
      .filter((d) => (d.kCGWindowLayer ?? 0) === 0 && d.kCGWindowNumber !== undefined)
      .map((d) => String(d.kCGWindowNumber))
      .reverse();
  }
}
