// A stand-in for the `electron` module (see fake-electron.mjs): the main-process APIs the app
// uses, behaving as Electron 45 documents them where the app depends on it — quit() runs
// before-quit and will-quit (either may be prevented) and then ends the process; whenReady()
// resolves only if the app has not quit first; new windows are centred on the primary display's
// work area unless given x/y, with a frame around their content; loadFile() fails for a missing
// file, and the page's <title> replaces the window's unless 'page-title-updated' is prevented;
// crashReporter.start() needs a submitURL unless uploadToServer is false. FAKE_ELECTRON_PACKAGED=1:
// app.isPackaged, and process.resourcesPath the folder holding the app.asar the entry is in.
// Every call the tests look at is appended to FAKE_ELECTRON_LOG as one JSON line. Commands from
// the test arrive over the IPC channel: invoke (a contract request as the given window's main
// frame sends it), second-instance, minimize, quit.
import { appendFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const LOG = process.env.FAKE_ELECTRON_LOG;

/** One line in the log file (synchronous: the process may end right after). */
function record(api, detail = {}) {
  if (LOG) appendFileSync(LOG, `${JSON.stringify({ api, ...detail })}\n`);
}

function preventable() {
  const e = { defaultPrevented: false, preventDefault: () => (e.defaultPrevented = true) };
  return e;
}

function findPackage(from) {
  for (let dir = path.dirname(from); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
    if (path.dirname(dir) === dir) return { name: 'Electron', version: '0.0.0' };
  }
}

const pkg = findPackage(process.env.FAKE_ELECTRON_ENTRY ?? process.cwd());
// A packaged app's resources folder: the one holding app.asar.
if (process.env.FAKE_ELECTRON_PACKAGED === '1')
  process.resourcesPath = path.dirname(
    /^(.*[\\/]app\.asar)(?:[\\/]|$)/.exec(process.env.FAKE_ELECTRON_ENTRY ?? '')?.[1] ?? '.',
  );

// ---- screen: one display; FAKE_ELECTRON_SCREEN=WxH, a 32 px panel at the top ----
const [screenW, screenH] = (process.env.FAKE_ELECTRON_SCREEN ?? '1920x1080').split('x').map(Number);
const display = {
  id: 1,
  bounds: { x: 0, y: 0, width: screenW, height: screenH },
  workArea: { x: 0, y: 32, width: screenW, height: screenH - 32 },
  scaleFactor: 1,
  rotation: 0,
};
export const screen = {
  getPrimaryDisplay: () => display,
  getAllDisplays: () => [display],
  getDisplayMatching: (rect) => {
    record('screen.getDisplayMatching', { rect, display });
    return display;
  },
  getDisplayNearestPoint: () => display,
  getCursorScreenPoint: () => ({ x: 0, y: 0 }),
};

// ---- app ----
const userData = process.env.FAKE_ELECTRON_USER_DATA ?? mkdtempSync(path.join(os.tmpdir(), 'fake-electron-'));
const paths = {
  userData,
  appData: path.dirname(userData),
  home: os.homedir(),
  temp: os.tmpdir(),
  downloads: path.join(userData, 'Downloads'),
  logs: path.join(userData, 'logs'),
  crashDumps: path.join(userData, 'Crash Reports'),
};
let ready = false;
let quitting = false;
let resolveReady;
const readyPromise = new Promise((r) => (resolveReady = r));

class App extends EventEmitter {
  name = pkg.productName ?? pkg.name;
  isPackaged = process.env.FAKE_ELECTRON_PACKAGED === '1';
  commandLine = { appendSwitch: () => {}, hasSwitch: () => false, getSwitchValue: () => '' };
  getName = () => this.name;
  getVersion = () => pkg.version;
  isReady = () => ready;
  whenReady = () => readyPromise;
  getPath(name) {
    if (!(name in paths)) throw new Error(`Failed to get '${name}' path`);
    return paths[name];
  }
  setPath(name, value) {
    record('app.setPath', { name, path: value });
    paths[name] = value;
  }
  requestSingleInstanceLock() {
    const got = process.env.FAKE_ELECTRON_LOCK !== 'held';
    record('app.requestSingleInstanceLock', { got });
    return got;
  }
  getAppMetrics = () => [{ pid: process.pid, type: 'Browser' }];
  setAboutPanelOptions(options) {
    record('app.setAboutPanelOptions', { options });
  }
  showAboutPanel() {}
  quit() {
    record('app.quit', { ready });
    quitting = true;
    setImmediate(() => {
      const before = preventable();
      this.emit('before-quit', before);
      if (before.defaultPrevented) return record('app.quit.prevented', { by: 'before-quit' });
      for (const w of BrowserWindow.getAllWindows()) w.destroy();
      const will = preventable();
      this.emit('will-quit', will);
      if (will.defaultPrevented) return record('app.quit.prevented', { by: 'will-quit' });
      this.emit('quit', preventable(), 0);
      record('exit', { code: 0 });
      process.exit(0);
    });
  }
  exit(code = 0) {
    record('app.exit', { code });
    record('exit', { code });
    process.exit(code);
  }
  focus() {}
}
export const app = new App();

// Electron's 'ready' comes after the entry module ran; never after the app quit.
setTimeout(() => {
  if (quitting) return;
  ready = true;
  record('ready');
  app.emit('ready');
  resolveReady();
}, 20);

// ---- windows ----
const FRAME = { top: 30, side: 1, menu: 20 };
let nextId = 1;
const windows = new Map();

class WebContents extends EventEmitter {
  constructor(win) {
    super();
    this.id = win.id;
    this.mainFrame = { processId: 1000 + win.id, routingId: 1, url: '' };
    this.win = win;
  }
  setWindowOpenHandler(handler) {
    this.openHandler = handler;
  }
  send() {}
  isDestroyed = () => this.win.isDestroyed();
  getURL = () => this.mainFrame.url;
}

export class BrowserWindow extends EventEmitter {
  static getAllWindows = () => [...windows.values()].filter((w) => !w.isDestroyed());
  #destroyed = false;
  #minimized = false;
  #bounds;
  #frame;

  constructor(options = {}) {
    super();
    this.id = nextId++;
    this.options = options;
    this.#frame = { top: FRAME.top + (options.autoHideMenuBar ? 0 : FRAME.menu), side: FRAME.side };
    const extra = { width: 2 * this.#frame.side, height: this.#frame.top + this.#frame.side };
    const width = (options.width ?? 800) + (options.useContentSize ? extra.width : 0);
    const height = (options.height ?? 600) + (options.useContentSize ? extra.height : 0);
    const wa = display.workArea;
    this.#bounds = {
      x: options.x ?? Math.round(wa.x + (wa.width - width) / 2),
      y: options.y ?? Math.round(wa.y + (wa.height - height) / 2),
      width,
      height,
    };
    this.title = options.title ?? pkg.productName ?? pkg.name;
    this.webContents = new WebContents(this);
    windows.set(this.id, this);
    record('BrowserWindow', { id: this.id, options, bounds: this.getBounds(), title: this.title });
  }
  getBounds = () => ({ ...this.#bounds });
  getContentBounds() {
    const b = this.#bounds;
    const f = this.#frame;
    return { x: b.x + f.side, y: b.y + f.top, width: b.width - 2 * f.side, height: b.height - f.top - f.side };
  }
  setPosition(x, y) {
    this.#bounds = { ...this.#bounds, x, y };
    record('win.setPosition', { id: this.id, x, y });
  }
  setBounds(b) {
    this.#bounds = { ...this.#bounds, ...b };
    record('win.setBounds', { id: this.id, bounds: this.getBounds() });
  }
  setTitle(title) {
    this.title = title;
    record('win.title', { id: this.id, title });
  }
  getTitle = () => this.title;
  isDestroyed = () => this.#destroyed;
  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    record('win.destroy', { id: this.id });
    this.emit('closed');
  }
  close() {
    this.destroy();
  }
  isMinimized = () => this.#minimized;
  minimize() {
    this.#minimized = true;
    record('win.minimize', { id: this.id });
  }
  restore() {
    this.#minimized = false;
    record('win.restore', { id: this.id });
  }
  show() {
    record('win.show', { id: this.id });
  }
  focus() {
    record('win.focus', { id: this.id });
  }
  isVisible = () => true;
  setContentProtection(on) {
    record('win.setContentProtection', { id: this.id, on });
  }
  async loadFile(file) {
    const exists = existsSync(file);
    record('win.loadFile', { id: this.id, file, exists });
    if (!exists) throw new Error(`ERR_FILE_NOT_FOUND (-6) loading '${pathToFileURL(file).href}'`);
    this.webContents.mainFrame.url = pathToFileURL(file).href;
    const pageTitle = /<title>([^<]*)<\/title>/i.exec(readFileSync(file, 'utf8'))?.[1];
    if (pageTitle !== undefined) {
      const e = preventable();
      this.emit('page-title-updated', e, pageTitle, true);
      if (!e.defaultPrevented) this.setTitle(pageTitle);
    }
    this.emit('ready-to-show');
  }
  async loadURL(url) {
    record('win.loadURL', { id: this.id, url });
    this.webContents.mainFrame.url = url;
  }
}

// ---- IPC ----
class IpcMain extends EventEmitter {
  handlers = new Map();
  handle(channel, fn) {
    record('ipcMain.handle', { channel });
    this.handlers.set(channel, fn);
  }
  removeHandler(channel) {
    this.handlers.delete(channel);
  }
}
export const ipcMain = new IpcMain();

// ---- the rest of what the main process touches ----
export const globalShortcut = {
  register(accelerator) {
    record('globalShortcut.register', { accelerator });
    return true;
  },
  unregister() {},
  unregisterAll() {},
};
export const session = {
  defaultSession: {
    setPermissionRequestHandler: () => record('session.setPermissionRequestHandler'),
    setPermissionCheckHandler: () => record('session.setPermissionCheckHandler'),
    webRequest: { onHeadersReceived: () => record('session.webRequest.onHeadersReceived') },
  },
};
export const crashReporter = {
  start(options) {
    if ((options.uploadToServer ?? true) && !options.submitURL)
      throw new Error('submitURL must be specified when uploadToServer is true');
    record('crashReporter.start', { options, crashDumps: paths.crashDumps });
  },
};
export const safeStorage = {
  isEncryptionAvailable: () => true,
  getSelectedStorageBackend: () => 'basic_text',
  encryptString: (s) => Buffer.from(`fake:${s}`),
  decryptString: (b) => b.toString().replace(/^fake:/, ''),
};
export const desktopCapturer = { getSources: async () => [] };
export const Menu = {
  buildFromTemplate: (template) => ({ template }),
  setApplicationMenu: (menu) => record('Menu.setApplicationMenu', { template: menu?.template ?? null }),
};
export const shell = { openPath: async () => '', openExternal: async () => {} };

export default {
  app,
  BrowserWindow,
  crashReporter,
  desktopCapturer,
  globalShortcut,
  ipcMain,
  Menu,
  safeStorage,
  screen,
  session,
  shell,
};

// ---- commands from the test ----
process.on('message', async (m) => {
  if (m.do === 'invoke') {
    const win = windows.get(m.window);
    const handler = ipcMain.handlers.get(m.channel);
    const event = { sender: win?.webContents, senderFrame: win?.webContents.mainFrame };
    const reply = handler ? await handler(event, { method: m.method, params: m.params }) : { error: 'no handler' };
    record('reply', { seq: m.seq, method: m.method, reply });
  } else if (m.do === 'second-instance') {
    app.emit('second-instance', preventable(), m.argv ?? [], process.cwd(), null);
    record('second-instance.done');
  } else if (m.do === 'minimize') {
    windows.get(m.window)?.minimize();
  } else if (m.do === 'quit') {
    app.quit();
  }
});
