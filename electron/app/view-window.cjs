// Opens one built-in game view as a plain Electron window: `electron view-window.cjs URL W H`.
// Used by the CLI where the Electron binary is installed; the app itself opens these windows in-process.
const { app, BrowserWindow } = require('electron');
const [url, w, h] = process.argv.slice(-3);
app.whenReady().then(() => {
  const win = new BrowserWindow({
    width: Number(w) || 520, height: Number(h) || 640, useContentSize: true, autoHideMenuBar: true,
    webPreferences: { contextIsolation: true, sandbox: true, nodeIntegration: false },
  });
  win.loadURL(url);
});
app.on('window-all-closed', () => app.quit());
