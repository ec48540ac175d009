/**
 * The web shell as a user starts it (`gamepilot web`, its URL read from the first stdout line)
 * and Debian's Chromium to look at it, shared by the UI suites.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebSocket } from 'ws';
import { chromium, type Browser, type Page } from 'playwright-core';
import { wsClient, type WsClient } from '../../renderer/src/api/clients.ts';
import { spawnCli } from './cli.ts';
import { stop as stopProcess } from './windows.ts';

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
/** A contract client over the WebSocket of a `gamepilot web` the tests started (its URL carries the token). */
export function shellClient(web: { url: string }): WsClient {
  const u = new URL(web.url);
  return wsClient(`ws://${u.host}/api/ws?token=${u.searchParams.get('token')}`, WebSocket as never);
}

export const TEST_BROWSER_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--test-type',
];

export interface BrowserPlace {
  x: number;
  y?: number;
  width: number;
  height: number;
}

/** A headed Chromium window at a place on the test display, with one page of the given viewport. */
export async function launchUiBrowser(at: BrowserPlace): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: false,
    args: [...TEST_BROWSER_FLAGS, `--window-position=${at.x},${at.y ?? 0}`, `--window-size=${at.width},${at.height}`],
  });
  return { browser, page: await newUiPage(browser, at) };
}

/** Another page (its own context: no storage shared) in a browser from launchUiBrowser. */
export function newUiPage(browser: Browser, at: BrowserPlace): Promise<Page> {
  return browser.newPage({ viewport: { width: at.width - 20, height: at.height - 60 } });
}

/** A new page (newUiPage) on the control page at `url`, once it shows the core's status: connected. */
export async function openControlPage(browser: Browser, at: BrowserPlace, url: string): Promise<Page> {
  const page = await newUiPage(browser, at);
  await page.goto(url);
  await page.getByTestId('status').waitFor({ timeout: 30000 });
  return page;
}

/** `gamepilot web` in folders of its own, with a contract client; optionally a model already configured. */
export interface UiShell {
  web: WebShellProcess;
  api: WsClient;
  runsDir: string;
  configDir: string;
  close(): Promise<void>;
}

export async function startUiShell(
  opts: { demo?: boolean; model?: { baseUrl: string; model: string }; runsDir?: string } = {},
): Promise<UiShell> {
  const tmp = mkdtempSync(path.join(tmpdir(), 'gp-web-'));
  const runsDir = opts.runsDir ?? path.join(tmp, 'runs');
  const configDir = path.join(tmp, 'config');
  const web = await startWebShellCli([
    ...(opts.demo ? [] : ['--no-demo']),
    '--runs-dir',
    runsDir,
    '--config-dir',
    configDir,
  ]);
  const api = shellClient(web);
  if (opts.model)
    await api.request('saveSettings', {
      settings: { provider: 'custom', baseUrl: opts.model.baseUrl, model: opts.model.model },
    });
  return {
    web,
    api,
    runsDir,
    configDir,
    close: async () => {
      await api.request('control', { action: 'stop' }).catch(() => {});
      api.close();
      await stopProcess(web.child);
    },
  };
}
