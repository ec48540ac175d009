// Opens one built-in game view as a plain Electron window: `electron view-window.cjs URL W H`.
// Used by the CLI where the Electron binary is installed; the app itself opens these windows in-process
// (with the same rules, from window-policy.ts): no Node, no new windows, no navigation off the
// game's own origin, every permission refused.
const { app, BrowserWindow, session } = require('electron');
const [url, w, h] = process.argv.slice(-3);
app.whenReady().then(() => {
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  const win = new BrowserWindow({
    width: Number(w) || 520,
    height: Number(h) || 640,
    useContentSize: true,
    autoHideMenuBar: true,
    webPreferences: {
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
      devTools: false,
    },
  });
  const origin = new URL(url).origin;
  const sameOrigin = (to) => {
    try {
      return new URL(to).origin === origin;
    } catch {
      return false;
    }
  };
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  win.webContents.on('will-navigate', (e, to) => {
    if (!sameOrigin(e.url ?? to)) e.preventDefault();
  });
  win.webContents.on('will-redirect', (e, to) => {
    if (!sameOrigin(e.url ?? to)) e.preventDefault();
  });
  win.loadURL(url);
});
app.on('window-all-closed', () => app.quit());
