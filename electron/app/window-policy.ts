/**
 * What the app's windows may do, as plain data and decisions (no `electron` import, so tests
 * check them as they are): the locked-down web preferences, the options of a built-in game's
 * window, where a window may navigate, and the answer to every permission request (no).
 */
import type { LaunchOptions } from '../games/launcher.ts';
import { CONTROL_WINDOW_SIZE } from '../util/placement.ts';

export const SAFE_PREFS = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  spellcheck: false,
} as const;

/** A built-in game's view: plain page, no preload, no Node, no dev tools, nothing to escape to. */
export function gameWindowOptions(opts: LaunchOptions) {
  return {
    width: opts.width,
    height: opts.height,
    ...(opts.x !== undefined ? { x: opts.x } : {}),
    ...(opts.y !== undefined ? { y: opts.y } : {}),
    useContentSize: true,
    autoHideMenuBar: true,
    webPreferences: { ...SAFE_PREFS, devTools: false },
  };
}

/**
 * The control window: the renderer with the contract's preload and nothing else. `title` (the
 * product and version) stays: the app keeps the page's own <title> from replacing it.
 */

export function controlWindowOptions(
  preload: string,
  title: string,
  bounds: { x?: number; y?: number; width: number; height: number } = CONTROL_WINDOW_SIZE,
) {
  return {
    ...bounds,
    title,
    show: false,
    webPreferences: { ...SAFE_PREFS, preload },
  };
}

/**
 * A window stays on the page it was opened with: same origin (scheme, host, port) only, and a
 * file: page never navigates at all. Anything unparsable is refused.
 */
export function navigationAllowed(openedWith: string, target: string): boolean {
  let from: URL;
  let to: URL;
  try {
    from = new URL(openedWith);
    to = new URL(target);
  } catch {
    return false;
  }
  if (from.protocol === 'file:') return false;
  return (from.protocol === 'http:' || from.protocol === 'https:') && from.origin === to.origin;
}

/** The few webContents members the guards use (Electron's WebContents has them all). */
export interface GuardedContents {
  on(event: string, listener: (event: NavigationEvent, url?: string) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

type NavigationEvent = { preventDefault(): void; url?: string };

/** No new windows, no webviews, and no navigation away from the page the window was opened with. */
export function guardContents(
  contents: GuardedContents,
  openedWith: string,
  onBlocked: (what: string) => void = () => {},
): void {
  contents.setWindowOpenHandler(({ url }) => {
    onBlocked(`a new window for ${url}`);
    return { action: 'deny' };
  });
  const keepHome = (e: NavigationEvent, url?: unknown) => {
    const to = typeof url === 'string' ? url : (e.url ?? '');
    if (navigationAllowed(openedWith, to)) return;
    e.preventDefault();
    onBlocked(`navigation to ${to}`);
  };
  contents.on('will-navigate', keepHome);
  contents.on('will-redirect', keepHome);
  contents.on('will-frame-navigate', keepHome);
  contents.on('will-attach-webview', (e: NavigationEvent) => {
    e.preventDefault();
    onBlocked('a <webview>');
  });
}

/** session.setPermissionRequestHandler: camera, microphone, notifications, geolocation… all refused. */
export function denyPermissionRequest(
  _contents: unknown,
  _permission: string,
  callback: (granted: boolean) => void,
): void {
  callback(false);
}

/** session.setPermissionCheckHandler: every check answers "not granted". */
export function denyPermissionCheck(): boolean {
  return false;
}
