/**
 * The Electron shell: with main.ts, the only code that imports `electron`. It wires the shared
 * core to a sandboxed renderer over IPC (answering only the control window's main frame), opens
 * built-in games as their own locked-down windows beside the control window, refuses every
 * permission request, keeps its own window out of captures, brings its window forward when the
 * app is launched again, and registers the global stop hotkey. The decisions live in plain
 * modules (window-policy.ts, ../util/placement.ts, startup.ts, app-settings-store.ts, secret-storage.ts,
 * ../api/ipc-transport.ts) that the tests check without Electron; main.ts loads this module once
 * the app may start.
 */
import { app, BrowserWindow, globalShortcut, ipcMain, Menu, screen, session } from 'electron';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createWindowManager } from '../../native/index.ts';
import { DEMO_GAME, GamepilotCore } from '../api/core.ts';
import { getGame } from '../../games/index.ts';
import { bindHotkeys } from '../api/hotkey-bindings.ts';
import { personOnly } from '../input/key-ledger.ts';
import { fromMainFrameOf, serveIpc } from '../api/ipc-transport.ts';
import type { LaunchedWindow, LaunchOptions } from '../games/launcher.ts';
import { ElectronSettingsStore, SafeStorageSecretStore } from './stores.ts';
import { createCapturer } from '../capture/index.ts';
import { ElectronDesktopCapturer } from './desktop-capturer.ts';
import { recoverCrashLeftovers } from '../safety/recovery.ts';
import { defaultConfigDir } from '../util/paths.ts';
import { closeLog, errorFields, log, openLogFile } from '../util/log.ts';
import { appVersion, resources } from '../util/resources.ts';
import {
  controlWindowOptions,
  denyPermissionCheck,
  denyPermissionRequest,
  gameWindowOptions,
  guardContents,
} from './window-policy.ts';
import { CONTROL_WINDOW_SIZE, controlWindowBounds, outerSize, placeBeside } from '../util/placement.ts';
import { aboutPanelOptions, appMenuTemplate, appTitle } from './startup.ts';

const CSP =
  "default-src 'self'; img-src 'self' data:; media-src blob:; style-src 'self' 'unsafe-inline'; script-src 'self'";
/** A line for the terminal that started the app, also kept in the log file. */
function warn(line: string) {
  console.error(line);
  log().warn(line);
}
const blocked = (where: string) => (what: string) => warn(`blocked ${what} in ${where}`);

let control: BrowserWindow | undefined;
const live = () => (control && !control.isDestroyed() ? control : undefined);

/**
 * Beside the control window, inside the work area of the display it is on (placement.ts). The
 * launch options' corner is the CLI's default: it applies only when there is no control window.
 */
function besideControl(opts: LaunchOptions): LaunchOptions {
  const anchor = live();
  if (!anchor) return opts;
  const bounds = anchor.getBounds();
  const size = outerSize(opts, bounds, anchor.getContentBounds());
  return { ...opts, ...placeBeside(bounds, size, screen.getDisplayMatching(bounds).workArea) };
}

/** The control window, shown and in front (a second launch of the app asks for it). */
function bringForward() {
  const win = live();
  if (!win) return;
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}

/** Built-in game views as plain, capturable BrowserWindows (no preload, no Node). */
function openGameWindow(url: string, opts: LaunchOptions): LaunchedWindow {
  const win = new BrowserWindow(gameWindowOptions(besideControl(opts)));
  guardContents(win.webContents, url, blocked('a game window'));
  void win.loadURL(url);
  return {
    pid: process.pid,
    kind: 'app',
    close: async () => {
      if (!win.isDestroyed()) win.destroy();
    },
  };
}

/** nut-js (GDI in-process on Windows) where its native library loads; otherwise Electron's own desktopCapturer. */
async function pickCapturer() {
  try {
    const capturer = createCapturer();
    await capturer.screenBounds(); // loads the native library
    return capturer;
  } catch (err) {
    warn(`nut-js capture unavailable (${(err as Error).message}); using desktopCapturer`);
    return new ElectronDesktopCapturer();
  }
}

/** Runs the app (main.ts calls it once this is the only instance); a failure ends the process. */
export function runApp(): void {
  start().catch((err: unknown) => {
    log().error(errorFields(err), 'the app failed');
    console.error(err);
    void closeLog().finally(() => app.exit(1));
  });
}

async function start() {
  // The same core logger as the CLI and the web shell: gamepilot.log in the config folder.
  openLogFile(defaultConfigDir(), { shell: 'app' }, (w) => console.error(`warning: ${w}`));
  const version = appVersion();
  log().info(
    {
      version,
      electron: process.versions.electron,
      platform: process.platform,
      packaged: app.isPackaged,
    },
    'app started',
  );
  app.on('second-instance', bringForward);
  await app.whenReady();
  app.setAboutPanelOptions(aboutPanelOptions(version, process.versions));
  Menu.setApplicationMenu(Menu.buildFromTemplate(appMenuTemplate(process.platform)));
  session.defaultSession.setPermissionRequestHandler(denyPermissionRequest);
  session.defaultSession.setPermissionCheckHandler(denyPermissionCheck);
  // Whatever else ever gets a webContents opens no windows and attaches no webviews.
  app.on('web-contents-created', (_e, contents) => {
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    contents.on('will-attach-webview', (e) => e.preventDefault());
  });
  session.defaultSession.webRequest.onHeadersReceived((details, done) => {
    const isRenderer = details.url.startsWith('file:');
    done({
      responseHeaders: { ...details.responseHeaders, ...(isRenderer ? { 'Content-Security-Policy': [CSP] } : {}) },
    });
  });
  recoverCrashLeftovers(defaultConfigDir(), warn, { releaseInProcess: true });
  // The config folder every shell uses (GAMEPILOT_CONFIG_DIR honoured): one settings.json for all.
  const settings = new ElectronSettingsStore(defaultConfigDir());
  const secrets = new SafeStorageSecretStore(settings);
  settings.addWarning(secrets.description.warning);
  if (settings.warning) warn(`warning: ${settings.warning}`);
  const appPids = () => new Set(app.getAppMetrics().map((m) => m.pid));
  const core = new GamepilotCore({
    wm: createWindowManager(),
    settings,
    secrets,
    runsDir: path.join(app.getPath('userData'), 'runs'),
    exportDir: app.getPath('downloads'),
    shell: 'electron',
    version,
    launchView: openGameWindow,
    capturer: await pickCapturer(),
    isOwnWindow: (w) => appPids().has(w.pid),
  });

  const paths = resources();
  const rendererPage = path.join(paths.renderer, 'index.html');
  // Narrowed where needed so that the demo's game window fits beside it (1280- and 1366-wide screens).
  const bounds = controlWindowBounds(
    screen.getPrimaryDisplay().workArea,
    CONTROL_WINDOW_SIZE,
    getGame(DEMO_GAME).viewSize,
  );
  control = new BrowserWindow(
    controlWindowOptions(path.join(paths.bundleDir, 'preload.cjs'), appTitle(version), bounds),
  );
  control.setContentProtection(true); // never part of a capture, even when it overlaps the game
  control.on('page-title-updated', (e) => e.preventDefault()); // the product and version stay in the title
  const rendererUrl = pathToFileURL(rendererPage).href;
  guardContents(control.webContents, rendererUrl, blocked('the control window'));
  control.once('ready-to-show', () => control?.show());
  await control.loadFile(rendererPage);

  serveIpc(
    core,
    ipcMain,
    () => (live() ? [live()!.webContents] : []),
    (event) => fromMainFrameOf(event, live()?.webContents, rendererUrl),
  );

  // The stop and take-over hotkeys from Settings, registered again whenever a save changes one.
  await bindHotkeys(
    core,
    async (accelerator, onPress) => {
      if (!globalShortcut.register(accelerator, personOnly(accelerator, onPress)))
        throw new Error('another program holds it, or it is not a key combination Electron knows');
      return () => globalShortcut.unregister(accelerator);
    },
    warn,
  );

  void core.startDemo().catch((err: Error) => warn(`demo: ${err.message}`));

  let quitting = false;
  app.on('before-quit', (e) => {
    if (quitting) return;
    e.preventDefault();
    quitting = true;
    void core
      .stop()
      .finally(async () => {
        log().info('app quit');
        await closeLog(); // its writes are asynchronous: flushed before the process ends
      })
      .finally(() => app.quit());
  });
  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', () => globalShortcut.unregisterAll());
}
