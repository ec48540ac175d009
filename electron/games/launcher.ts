/**
 * Opens a built-in game's view as a real top-level window outside the app: Electron where
 * its binary is installed, else an installed Chromium/Chrome in app mode.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { listWindowGroup } from './window-groups.ts';
import { resources } from '../util/resources.ts';

export interface LaunchedWindow {
  pid: number;
  kind: 'electron' | 'chromium' | 'app';
  close(): Promise<void>;
}

export interface LaunchOptions {
  width: number;
  height: number;
  x?: number;
  y?: number;
  /** Draw frames as soon as they are ready (built-in game views; default). Off for other pages,
   *  which would otherwise animate as fast as the CPU allows. */
  uncappedFrames?: boolean;
}

const BROWSER_CANDIDATES: Record<string, string[]> = {
  linux: [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
    '/snap/bin/chromium',
  ],
  darwin: [
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
  ],
  win32: [
    `${process.env.PROGRAMFILES ?? 'C:\\Program Files'}\\Google\\Chrome\\Application\\chrome.exe`,
    `${process.env['PROGRAMFILES(X86)'] ?? 'C:\\Program Files (x86)'}\\Microsoft\\Edge\\Application\\msedge.exe`,
  ],
};

export function findBrowser(): string | undefined {
  const fromEnv = process.env.GAMEPILOT_BROWSER;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  return (BROWSER_CANDIDATES[process.platform] ?? []).find((p) => existsSync(p));
}

/**
 * The Electron binary when it was downloaded at install time (not on the dev machines).
 * Read from the package's path.txt: requiring `electron` would try to download it.
 */
export function findElectron(): string | undefined {
  try {
    const pkgDir = path.dirname(createRequire(import.meta.url).resolve('electron/package.json'));
    const rel = readFileSync(path.join(pkgDir, 'path.txt'), 'utf8').trim();
    const bin = path.join(pkgDir, 'dist', rel);
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

/** Flags that keep a Chromium window quiet, offline and rendering even when not focused. */
export const CHROMIUM_FLAGS = [
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-extensions',
  '--test-type',
  '--no-sandbox',
  '--disable-renderer-backgrounding',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-features=Translate,MediaRouter',
  '--force-device-scale-factor=1',
  '--password-store=basic',
];

/**
 * Built-in views only: frames as soon as they are drawn, not on a 60 Hz tick. A step waits two
 * of them for the view's "rendered" (34 against 27 steps/s on built-in 2048 here); the views
 * draw only when the game changes, so an idle one still draws nothing. Not for other pages: one
 * that animates would draw as fast as the CPU allows.
 */
const UNCAPPED_FRAMES = ['--disable-frame-rate-limit', '--disable-gpu-vsync'];

/** Where process groups exist, a window host runs in its own, so its helpers end with it. */
const OWN_GROUP = process.platform !== 'win32';

function signalTree(child: ChildProcess, sig: NodeJS.Signals) {
  try {
    if (OWN_GROUP && child.pid) process.kill(-child.pid, sig);
    else child.kill(sig);
  } catch {
    /* already gone */
  }
}

/**
 * Ends a window host and its helper processes (Chromium's zygote and renderers): SIGTERM to the
 * whole group, SIGKILL after 2 s. Resolves once the host has exited.
 */
function killTree(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      signalTree(child, 'SIGKILL'); // helpers that outlived the host
      resolve();
    };
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const timer = setTimeout(() => signalTree(child, 'SIGKILL'), 2000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    signalTree(child, 'SIGTERM');
  });
}

export function launchViewWindow(
  url: string,
  opts: LaunchOptions,
  prefer: 'auto' | 'chromium' | 'electron' = 'auto',
): LaunchedWindow {
  const electron = prefer !== 'chromium' ? findElectron() : undefined;
  if (electron) {
    const child = spawn(electron, [resources().viewWindowScript, url, String(opts.width), String(opts.height)], {
      stdio: 'ignore',
      detached: OWN_GROUP,
    });
    const unlist = OWN_GROUP ? listWindowGroup(child.pid) : () => {};
    return {
      pid: child.pid!,
      kind: 'electron',
      close: () => killTree(child).then(unlist),
    };
  }
  const browser = findBrowser();
  if (!browser) {
    throw new Error(
      'no window host for built-in games: install Chromium or Chrome (or set GAMEPILOT_BROWSER), or run inside the Gamepilot app',
    );
  }
  const profile = mkdtempSync(path.join(tmpdir(), 'gamepilot-view-'));
  const args = [
    ...CHROMIUM_FLAGS,
    ...(opts.uncappedFrames === false ? [] : UNCAPPED_FRAMES),
    `--user-data-dir=${profile}`,
    `--window-size=${opts.width},${opts.height}`,
    ...(opts.x !== undefined ? [`--window-position=${opts.x},${opts.y ?? 0}`] : []),
    `--app=${url}`,
  ];
  const child = spawn(browser, args, { stdio: 'ignore', detached: OWN_GROUP });
  const unlist = OWN_GROUP ? listWindowGroup(child.pid) : () => {};
  return {
    pid: child.pid!,
    kind: 'chromium',
    close: async () => {
      await killTree(child);
      unlist();
      // Its helpers are gone with the group, so the profile is no longer written; cleanup is best effort.
      try {
        rmSync(profile, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
      } catch {
        /* a leftover temp profile is harmless */
      }
    },
  };
}
