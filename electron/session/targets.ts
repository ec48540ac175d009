/**
 * What a session plays: a built-in game opened as its own real window, or any existing
 * window found by title. Either way the session only sees a window to capture and drive.
 */
import type { ChangeWatch, WindowInfo, WindowManager, WindowWatch } from '../../native/types.ts';
import { findWindows } from '../../native/types.ts';
import type { GameDefinition, HitRect } from '../../games/types.ts';
import { BuiltinGame } from '../games/builtin-game.ts';
import { GameViewServer } from '../games/view-server.ts';
import { launchViewWindow, type LaunchedWindow, type LaunchOptions } from '../games/launcher.ts';
import { randomBytes } from 'node:crypto';
import { sleep } from '../util/time.ts';
import type { TitleTest } from '../../native/types.ts';
import { CodedError } from '../domain.ts';

/** Opens a URL as a top-level window: a browser process from the CLI, a BrowserWindow in the app. */
export type ViewLauncher = (url: string, opts: LaunchOptions) => LaunchedWindow | Promise<LaunchedWindow>;

/** The window is gone (closed, or its id names none). */
export class TargetGoneError extends CodedError {
  constructor(message: string) {
    super('target-gone', message);
  }
}

/** More than one window matches a title pattern: the caller must pick one by id. */
export class AmbiguousTargetError extends CodedError {
  constructor(message: string) {
    super('bad-input', message);
  }
}

export interface Target {
  readonly kind: 'builtin' | 'window';
  readonly label: string;
  /** Present for built-in games: engine, view and ground truth. */
  readonly game?: BuiltinGame;
  /**
   * Fresh facts of the window (it may have moved or been minimized); throws TargetGoneError when
   * it is gone. With `reuse`, the last look, unless the window system said the window changed
   * since then or cannot say (a step looks once and reuses that look).
   */
  locate(o?: { reuse?: boolean }): Promise<WindowInfo>;
  /** How many times the window system was asked about the window (a step's record says how many of them were its own). */
  readonly lookups?: number;
  /** Interactive elements of a built-in view, in window pixels. */
  hits(): HitRect[] | undefined;
  /** The process that owns the window, when known. */
  readonly pid?: number;
  close(): Promise<void>;
}

/** One line per window for messages: id, title, pid, size and place, and whether it is minimized. */
export function describeWindow(w: WindowInfo): string {
  const b = w.bounds;
  return `${w.id}  "${w.title}"  (pid ${w.pid || '?'}, ${b.width}×${b.height} at ${b.x},${b.y}${w.minimized ? ', minimized' : ''})`;
}

async function waitForWindows(wm: WindowManager, pattern: TitleTest, timeoutMs: number): Promise<WindowInfo[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await findWindows(wm, pattern);
    if (found.length || Date.now() >= deadline) return found;
    await sleep(100);
  }
}

/**
 * An existing window, followed by its id for the whole run. When it closes the run ends:
 * it never moves on to another window with the same title.
 */
export class WindowTarget implements Target {
  readonly kind = 'window' as const;
  readonly game = undefined;
  private current: WindowInfo;
  /** What the window system says of the window; null until first asked for, undefined where it cannot. */
  private watch: WindowWatch | undefined | null = null;
  private asked = 0;
  /** Whether `current` is the answer of the last look (not after a look that failed: the next one asks again). */
  private answered = true;

  private constructor(
    private readonly wm: WindowManager,
    first: WindowInfo,
  ) {
    this.current = first;
  }

  get label() {
    return this.current.title;
  }

  get id() {
    return this.current.id;
  }

  get pid() {
    return this.current.pid || undefined;
  }

  /** A window picked by id (from a list, or --window-id). */
  static async byId(wm: WindowManager, id: string): Promise<WindowTarget> {
    const w = await wm.get(id);
    if (!w) {
      const open = (await wm.list()).map((x) => `  ${describeWindow(x)}`).join('\n');
      throw new TargetGoneError(`no window with id ${id}. Open windows:\n${open || '  (none)'}`);
    }
    return new WindowTarget(wm, w);
  }

  /** The one window whose title matches; refuses when none or several match (waits up to timeoutMs for one to appear). */
  static async find(wm: WindowManager, pattern: TitleTest, timeoutMs = 0): Promise<WindowTarget> {
    const found = timeoutMs > 0 ? await waitForWindows(wm, pattern, timeoutMs) : await findWindows(wm, pattern);
    if (found.length === 1) return new WindowTarget(wm, found[0]!);
    if (found.length > 1) {
      throw new AmbiguousTargetError(
        `${found.length} windows match ${pattern}; pick one by id (--window-id ID):\n${found.map((w) => `  ${describeWindow(w)}`).join('\n')}`,
      );
    }
    const titles = (await wm.list()).map((x) => `  ${describeWindow(x)}`).join('\n');
    throw new CodedError(
      'not-found',
      `no window title matches ${pattern}${timeoutMs > 0 ? ` within ${timeoutMs} ms` : ''}. Open windows:\n${titles || '  (none)'}`,
    );
  }

  get lookups() {
    return this.asked;
  }

  async locate(o: { reuse?: boolean } = {}): Promise<WindowInfo> {
    // Asked every time, so that a plain look also starts the next reuse from now.
    const changed = this.windowWatch()?.changed() ?? true;
    if (o.reuse && !changed && this.answered) return this.current;
    this.asked++;
    this.answered = false;
    const fresh = await this.wm.get(this.current.id);
    if (!fresh) throw new TargetGoneError(`the target window "${this.current.title}" is gone (id ${this.current.id})`);
    this.current = fresh;
    this.answered = true;
    return fresh;
  }

  private windowWatch(): WindowWatch | undefined {
    if (this.watch === null) {
      try {
        this.watch = this.wm.watchWindow?.(this.current.id);
      } catch {
        this.watch = undefined; // every look asks, then
      }
    }
    return this.watch;
  }

  hits() {
    return undefined;
  }

  async close() {
    this.watch?.close();
    this.watch = undefined;
  }
}

/** The window's drawing, where the display server reports it (X11); a watch that fails is none. */
function followDrawing(wm: WindowManager, id: string): ChangeWatch | undefined {
  try {
    return wm.watchChanges?.(id);
  } catch {
    return undefined;
  }
}

export class BuiltinTarget implements Target {
  readonly kind = 'builtin' as const;

  private constructor(
    readonly game: BuiltinGame,
    private readonly window: WindowTarget,
    private readonly server: GameViewServer,
    private readonly launched: LaunchedWindow,
  ) {}

  get label() {
    return this.game.def.title;
  }

  /** Opens the game's view as a real window and waits until it shows the first state. */
  static async open(
    def: GameDefinition,
    wm: WindowManager,
    opts: { x?: number; y?: number; width?: number; height?: number; timeoutMs?: number; launch?: ViewLauncher } = {},
  ): Promise<BuiltinTarget> {
    const nonce = randomBytes(3).toString('hex');
    const game = new BuiltinGame(def, `Gamepilot · ${def.title} · ${nonce}`);
    const server = new GameViewServer();
    await server.start();
    const url = server.add(game);
    const launched = await (opts.launch ?? launchViewWindow)(url, {
      width: opts.width ?? def.viewSize.width,
      height: opts.height ?? def.viewSize.height,
      x: opts.x ?? 40,
      y: opts.y ?? 40,
    });
    try {
      const window = await WindowTarget.find(wm, new RegExp(`Gamepilot · .* · ${nonce}$`), opts.timeoutMs ?? 20000);
      if (!(await game.waitRendered(opts.timeoutMs ?? 20000))) throw new Error('the game view did not render');
      game.drawing = followDrawing(wm, window.id);
      return new BuiltinTarget(game, window, server, launched);
    } catch (err) {
      await launched.close();
      await server.close();
      throw err;
    }
  }

  get pid() {
    return this.launched.pid;
  }

  locate(o?: { reuse?: boolean }) {
    return this.window.locate(o);
  }

  get lookups() {
    return this.window.lookups;
  }

  /** Hit rectangles shifted from viewport to window coordinates (window frames may add chrome). */
  hits(): HitRect[] {
    const m = this.game.metrics;
    const dx = m ? Math.max(0, (m.outerWidth - m.innerWidth) / 2) * m.dpr : 0;
    const dy = m ? Math.max(0, m.outerHeight - m.innerHeight) * m.dpr - dx : 0;
    return this.game.hits.map((h) => ({ ...h, x: h.x + dx, y: h.y + dy }));
  }

  async close() {
    this.game.dispose();
    await this.window.close();
    await this.launched.close();
    await this.server.close();
  }
}
