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
  /** Minimized (iconified): listed, but nothing of it is on screen. Absent where the backend cannot tell. */
  minimized?: boolean;
  /** Outer rectangle with the window manager's decorations, when known (what it covers of windows below). */
  frame?: Rect;
}

/** Lists, finds, raises and follows top-level windows. One implementation per OS. */
export interface WindowManager {
  readonly platform: string;
  /** Top-level windows, minimized ones included (`minimized: true`). */
  list(): Promise<WindowInfo[]>;
  /** Fresh facts for one window (it may have moved or been minimized); undefined once it is gone. */
  get(id: string): Promise<WindowInfo | undefined>;
  /** Restore if minimized, raise and give keyboard focus; resolves once the OS reports it active (or after a bounded wait). */
  focus(id: string): Promise<void>;
  /** The window that has keyboard focus now, if known. */
  activeId(): Promise<string | undefined>;
  /** Ids of top-level windows from the bottom of the stacking order to the top; absent where the backend cannot tell. */
  stacking?(): Promise<string[]>;
  /**
   * Follows what a window draws, so that after acting the session can wait for the game to
   * react instead of a fixed time. Absent (or undefined for a window) where the backend cannot.
   */
  watchChanges?(id: string): ChangeWatch | undefined;
  /**
   * Whether a window manager runs (X11: one announces itself on the root window). Without one
   * the backend gives windows the focus itself. Absent where the question does not arise.
   */
  windowManagerRunning?(): Promise<boolean>;
  /**
   * Follows what the window system says about a window (moved, resized, minimized, retitled,
   * reparented, closed), so that a look at the window can be reused until one of these
   * happens. Absent (or undefined for a window) where the backend cannot: then every look asks.
   */
  watchWindow?(id: string): WindowWatch | undefined;
}

/** Whether a window may have changed since the last time this was asked. */
export interface WindowWatch {
  /** True when anything about the window may have changed since the last call (and on the first). */
  changed(): boolean;
  /** Stops following the window. */
  close(): void;
}

/** Drawing into one window, for the settle stage. */
export interface ChangeWatch {
  /**
   * Call just before acting: forgets what was drawn so far, and says whether the window had
   * held still for `quietMs` (nothing drawn in that time; true for a watch that has seen no
   * drawing yet), so that what it draws next is its answer to the action.
   */
  reset(quietMs: number): { quiet: boolean };
  /**
   * Resolves once the window has drawn and then stayed still for `quietMs`; when it has not
   * drawn within `firstMs`, or after `maxMs` in all, or when `signal` aborts, it stops waiting.
   * Says whether it drew, whether it ended holding still (false: still drawing at `maxMs`, or
   * aborted), how long this took and how many draws were seen.
   */
  settled(opts: {
    quietMs: number;
    firstMs: number;
    maxMs: number;
    signal?: AbortSignal;
  }): Promise<{ changed: boolean; still: boolean; ms: number; draws: number }>;
  /**
   * When the window first drew at or after `t` (performance.now()'s clock), among its recent
   * draws; undefined when it has not. The time is the display server's own stamp of the draw
   * where it can be read, so it does not depend on when this process got to read it.
   */
  drawnSince(t: number): number | undefined;
  /** Stops following the window. */
  close(): void;
}

/** What finds a window by its title: a RegExp, or a linear-time pattern (electron/util/text-pattern.ts). */
export interface TitleTest {
  test(title: string): boolean;
}

/** Every window whose title matches, with some size (minimized ones included). */
export async function findWindows(
  wm: WindowManager,
  pattern: TitleTest,
  exclude: (w: WindowInfo) => boolean = () => false,
): Promise<WindowInfo[]> {
  const all = await wm.list();
  return all.filter((w) => pattern.test(w.title) && !exclude(w) && w.bounds.width > 0 && w.bounds.height > 0);
}

export async function findWindow(
  wm: WindowManager,
  pattern: TitleTest,
  exclude: (w: WindowInfo) => boolean = () => false,
): Promise<WindowInfo | undefined> {
  return (await findWindows(wm, pattern, exclude))[0];
}

export function contains(r: Rect, x: number, y: number): boolean {
  return x >= r.x && y >= r.y && x < r.x + r.width && y < r.y + r.height;
}

/** The overlap of two rectangles; undefined when they do not overlap. */
export function intersect(a: Rect, b: Rect): Rect | undefined {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : undefined;
}

export type MouseButton = 'left' | 'right' | 'middle';

/**
 * Real OS input, one implementation per OS (SendInput on Windows, Quartz events on macOS, XTest
 * or nut-js on X11). The executor drives it; policy, confinement to the window and held-input
 * bookkeeping stay in the executor. Keys are nut-js Key names as electron/actions/keys.ts
 * resolves them ("A", "Num1", "LeftShift", "Up", "F5"); coordinates are the input system's
 * screen units: physical pixels, points on macOS (electron/input/coordinates.ts maps them).
 */
export interface InputBackend {
  readonly name: string;
  keyDown(key: string): Promise<void>;
  keyUp(key: string): Promise<void>;
  /** Types text as characters, whatever the keyboard layout. */
  type(text: string): Promise<void>;
  move(x: number, y: number): Promise<void>;
  position(): Promise<{ x: number; y: number }>;
  button(state: 'down' | 'up', which: MouseButton): Promise<void>;
  /** Wheel notches: dy > 0 scrolls down, dx > 0 right. */
  scroll(dx: number, dy: number): Promise<void>;
}
