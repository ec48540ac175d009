/**
 * The web shell as a user starts it (`gamepilot web`, its URL read from the first stdout line)
 * and Debian's Chromium to look at it, shared by the UI suites.
 */
import type { ChildProcess } from 'node:child_process';
import { chromium, type Browser, type Page } from 'playwright-core';
import { spawnCli } from './cli.ts';

export interface WebShellProcess {
  child: ChildProcess;
  /** The first line it prints: the URL with the session token. */
  url: string;
  stderr: () => string;
}

/** Starts `gamepilot web …` and resolves once it printed its URL. */
export async function startWebShellCli(args: string[], env: Record<string, string> = {}): Promise<WebShellProcess> {
  const child = spawnCli(['web', ...args], env);
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0]!.trim());
    });
    child.on('exit', (c) => reject(new Error(`gamepilot web exited with ${c}: ${err}`)));
  });
  return { child, url, stderr: () => err };
}

/** The flags every test browser gets: quiet, offline, no sandbox warning bar. */
export const TEST_BROWSER_FLAGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--test-type'];

/** A headed Chromium window at a place on the test display, with one page of the given viewport. */
export async function launchUiBrowser(at: { x: number; y?: number; width: number; height: number }): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: false,
    args: [...TEST_BROWSER_FLAGS, `--window-position=${at.x},${at.y ?? 0}`, `--window-size=${at.width},${at.height}`],
  });
  const page = await browser.newPage({ viewport: { width: at.width - 20, height: at.height - 60 } });
  return { browser, page };
}
