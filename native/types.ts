/** Geometry and window facts shared by every OS backend. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowInfo {
  /** OS handle as a string (X11 window id in hex, HWND, or CGWindowID). */
  id: string;
  title: string;
  pid: number;
  /** Client area in screen pixels (physical). */
  bounds: Rect;
  /** Physical pixels per logical pixel (HiDPI); 1 on X11. */
  scaleFactor: number;
}

/** Lists, finds, raises and follows top-level windows. One implementation per OS. */
export interface WindowManager {
  readonly platform: string;
  list(): Promise<WindowInfo[]>;
  /** Fresh facts for one window (it may have moved); undefined once it is gone. */
  get(id: string): Promise<WindowInfo | undefined>;
  /** Raise and give keyboard focus; resolves once the OS reports it active (or after a bounded wait). */
  focus(id: string): Promise<void>;
  /** The window that has keyboard focus now, if known. */
  activeId(): Promise<string | undefined>;
}

export async function findWindow(wm: WindowManager, pattern: RegExp, exclude: (w: WindowInfo) => boolean = () => false): Promise<WindowInfo | undefined> {
  const all = await wm.list();
  return all.find((w) => pattern.test(w.title) && !exclude(w) && w.bounds.width > 0 && w.bounds.height > 0);
}

export function contains(r: Rect, x: number, y: number): boolean {
  return x >= r.x && y >= r.y && x < r.x + r.width && y < r.y + r.height;
}
