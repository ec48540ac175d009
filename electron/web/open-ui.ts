/**
 * Opens the web shell's UI in a browser window without the session token on any command line
 * (argv is readable by every local user). The browser gets a private file (0600, in a 0700
 * folder) that forwards it to a one-time launch code; the server answers that code once with a
 * redirect that carries the token in the URL fragment. The file is removed once the code is
 * used or has expired.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchViewWindow, type LaunchedWindow, type LaunchOptions } from '../games/launcher.ts';
import type { WebShell } from './loopback-server.ts';

export function openUiInBrowser(shell: WebShell, window: LaunchOptions, log: (s: string) => void): LaunchedWindow {
  const code = shell.launch();
  const dir = mkdtempSync(path.join(tmpdir(), 'gamepilot-open-'));
  const page = path.join(dir, 'open.html');
  writeFileSync(
    page,
    `<!doctype html><meta http-equiv="refresh" content="0;url=${code.url}"><title>Gamepilot</title><p>Opening Gamepilot…</p>\n`,
    { mode: 0o600 },
  );
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  void code.used.then((used) => {
    cleanup();
    if (!used) log('the browser did not open the UI in time; open the URL printed above instead');
  });
  let ui: LaunchedWindow;
  try {
    ui = launchViewWindow(pathToFileURL(page).href, { ...window, uncappedFrames: false }, 'chromium');
  } catch (err) {
    cleanup();
    throw err;
  }
  return {
    ...ui,
    close: async () => {
      cleanup();
      await ui.close();
    },
  };
}
