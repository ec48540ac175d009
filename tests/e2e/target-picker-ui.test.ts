/**
 * The target picker in the real UI (web shell in Debian's Chromium): a window under another
 * one shows "covered by another window" instead of the covering window's pixels, a minimized
 * window says so, and a window on top shows its own picture.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';
import { launchUiBrowser, startWebShellCli } from '../helpers/web-ui.ts';
import { activate, minimize, placeWindow, settled, solidWindow, startWindow, stop } from '../helpers/windows.ts';

const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');
const children: ChildProcess[] = [];
let web: ChildProcess;
let browser: Browser;
let page: Page;

async function open(cmd: string, title: RegExp, at: { x: number; y: number }) {
  const w = await startWindow(cmd, [], title);
  children.push(w.child);
  return placeWindow(w.window.id, at.x, at.y);
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const tmp = mkdtempSync(path.join(tmpdir(), 'gp-picker-'));
  const shell = await startWebShellCli([
    '--no-demo',
    '--runs-dir',
    path.join(tmp, 'runs'),
    '--config-dir',
    path.join(tmp, 'config'),
  ]);
  web = shell.child;
  // The UI on the left; the game windows on the right, clear of it.
  ({ browser, page } = await launchUiBrowser({ x: 0, width: 860, height: 880 }));
  await page.goto(shell.url);
});

afterAll(async () => {
  await browser?.close();
  if (web) await stop(web);
  for (const c of children) await stop(c);
});

describe('target picker', () => {
  it('says "covered by another window" and "minimized" instead of showing the wrong pixels', async () => {
    const covered = await open('/usr/games/sgt-fifteen', /^Fifteen/, { x: 1000, y: 120 });
    const cover = await solidWindow('#ff00ff', 'gp-cover', { x: 1040, y: 160, width: 200, height: 150 });
    children.push(cover.child);
    activate(cover.window.id);
    await settled(cover.window.id);
    const hidden = await open('/usr/games/sgt-flip', /^Flip/, { x: 1000, y: 520 });
    minimize(hidden.id);
    await settled(hidden.id);
    const shown = await open('/usr/games/sgt-net', /^Net/, { x: 1300, y: 480 });

    await page.getByTestId('tab-targets').click();
    const card = (title: string) => page.getByTestId('window-card').filter({ hasText: title });
    await expect
      .poll(() => card('Fifteen').getByTestId('thumb-note').textContent(), { timeout: 15_000 })
      .toBe('covered by another window');
    expect(await card('Fifteen').locator('img').count()).toBe(0);
    await expect
      .poll(() => card('Flip').getByTestId('thumb-note').textContent(), { timeout: 15_000 })
      .toMatch(/^minimized/);
    expect(await card('Flip').textContent()).toMatch(/· minimized/);
    await card('Net').locator('img').waitFor({ timeout: 15_000 });
    expect(shown.minimized).toBe(false);
    expect(covered.minimized).toBe(false);
    await page.screenshot({ path: path.join(SHOTS, 'targets-covered.png') });

    // Once nothing covers it, the picker shows its picture.
    activate(covered.id);
    await settled(covered.id);
    await card('Fifteen').locator('img').waitFor({ timeout: 15_000 });
  });
});
