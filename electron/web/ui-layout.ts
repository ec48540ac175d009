/**
 * `gamepilot web --open` lays its browser windows out as the Electron app does (placement.ts):
 * the UI window at the screen's top-left, narrowed so that a built-in game's window fits on its
 * right, and every built-in game window the shell opens placed beside the UI window's frame as
 * the window manager drew it — never over it.
 */
import {
  CONTROL_WINDOW_SIZE,
  controlWindowBounds,
  outerSize,
  placeBeside,
  type Rect,
  type Size,
} from '../util/placement.ts';
import type { WindowInfo, WindowManager } from '../../native/types.ts';
import { launchViewWindow, type LaunchedWindow, type LaunchOptions } from '../games/launcher.ts';
import type { ViewLauncher } from '../session/targets.ts';
import { sleep } from '../util/time.ts';

export interface UiLayout {
  /** Where the UI window opens (its outer frame). */
  ui: Rect;
  /** Opens a built-in game's window beside the UI window, once that is on the screen. */
  launchView: ViewLauncher;
  /** The UI window as launched; undefined when it could not be: games then open where they ask. */
  uiOpened(ui: LaunchedWindow | undefined): void;
}

/** The window a process shows, once the window manager has mapped it; undefined after `timeoutMs`. */
async function windowOf(wm: WindowManager, pid: number, timeoutMs: number): Promise<WindowInfo | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const w = (await wm.list()).find((x) => x.pid === pid && !x.minimized && x.bounds.width > 0);
    if (w || Date.now() > deadline) return w;
    await sleep(100);
  }
}

/**
 * The layout on a screen (`screen`: the root window, in pixels) that leaves room for a game of
 * size `room` beside the UI window (its frame's few pixels come out of the gap between them).
 * A browser is given the position of its content, and the window manager puts its frame around
 * it: a game is asked for the spot that puts its frame, as large as the UI window's, beside it.
 */
export function uiLayout(wm: WindowManager, screen: Rect, room: Size, timeoutMs = 20_000): UiLayout {
  const ui = controlWindowBounds(screen, CONTROL_WINDOW_SIZE, room);
  let opened!: (ui: LaunchedWindow | undefined) => void;
  const launched = new Promise<LaunchedWindow | undefined>((resolve) => (opened = resolve));
  const launchView = async (url: string, opts: LaunchOptions) => {
    const host = await launched;
    const win = host && (await windowOf(wm, host.pid, timeoutMs));
    if (!win) return launchViewWindow(url, opts);
    const frame = win.frame ?? win.bounds;
    const at = placeBeside(frame, outerSize(opts, frame, win.bounds), screen);
    return launchViewWindow(url, {
      ...opts,
      x: at.x + (win.bounds.x - frame.x),
      y: at.y + (win.bounds.y - frame.y),
    });
  };
  return { ui, launchView, uiOpened: opened };
}
