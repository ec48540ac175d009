/**
 * The Record tab records any window, as `gamepilot record --window` does: with the same target
 * picker as the New run tab, a participant's session on a real third-party game (Debian's
 * gnome-2048) is recorded from the web shell in Chromium, and lands in Runs with its input.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';
import { launchUiBrowser, startWebShellCli } from '../helpers/web-ui.ts';
import { placeWindow, startWindow, stop } from '../helpers/windows.ts';
import { readRun } from '../../electron/store/run-store.ts';

let web: ChildProcess;
let browser: Browser;
let page: Page;
let runsDir = '';

beforeAll(async () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'gp-recwin-'));
  runsDir = path.join(tmp, 'runs');
  const shell = await startWebShellCli(['--runs-dir', runsDir, '--config-dir', path.join(tmp, 'config'), '--no-demo']);
  web = shell.child;
  ({ browser, page } = await launchUiBrowser({ x: 700, width: 900, height: 860 }));
  await page.goto(shell.url);
});

afterAll(async () => {
  await browser?.close();
  if (web) await stop(web);
});

describe('Record tab', () => {
  it('records a participant on any window chosen with the New run tab’s picker', { timeout: 120_000 }, async () => {
    const game = await startWindow('/usr/games/gnome-2048', [], /^GNOME 2048$/);
    try {
      // Clear of the test browser (from x = 700): a covered window gets no thumbnail.
      await placeWindow(game.window.id, 0, 0, { width: 600, height: 680 });
      await page.getByTestId('tab-record').click();
      await page.getByTestId('participant').fill('w01');
      await page.getByTestId('role').selectOption('expert');
      const card = page.getByTestId('record-target').getByTestId('window-card').filter({ hasText: 'GNOME 2048' });
      await card.locator('img').waitFor({ timeout: 20_000 }); // the same cards, with live thumbnails
      await card.click();
      await expect.poll(() => card.getAttribute('aria-pressed')).toBe('true');
      await page.getByTestId('consent').check();
      const shots = path.join(ROOT, 'test-artifacts', 'ui');
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: path.join(shots, 'record-window.png'), fullPage: true });
      await page.getByTestId('begin').click();
      await expect.poll(() => page.getByTestId('recording-target').textContent()).toMatch(/GNOME 2048/);
      await expect.poll(() => page.getByTestId('prompt').textContent()).toMatch(/not a built-in game/);
      await page.getByTestId('read-done').click();

      await page.getByTestId('start-recording').click();
      await page.getByTestId('rec-indicator').waitFor({ timeout: 20_000 });
      await expect
        .poll(() => page.getByTestId('rec-indicator').textContent(), { timeout: 15_000 })
        .toMatch(/[1-9]\d* frames/);
      // The recorder gave the game the focus; a person plays it with the arrow keys.
      for (const k of ['Left', 'Up', 'Right', 'Down']) {
        execFileSync('xdotool', ['key', k]);
        await new Promise((r) => setTimeout(r, 250));
      }
      await new Promise((r) => setTimeout(r, 600));
      await page.getByTestId('stop-recording').click();
      await expect.poll(() => page.getByTestId('rec-indicator').count(), { timeout: 15_000 }).toBe(0);
      await expect.poll(() => page.getByTestId('recorded-sessions').locator('tr').count()).toBe(1);

      // On disk: a human session of that window, with the keys in the action schema.
      const id = (await page.getByTestId('recorded-sessions').locator('td').first().textContent())!;
      const { meta, steps } = readRun(path.join(runsDir, id));
      expect(meta).toMatchObject({
        kind: 'human',
        agent: 'human-expert',
        game: null,
        status: 'completed',
        target: { kind: 'window', label: expect.stringMatching(/GNOME 2048/) },
      });
      const keys = steps.flatMap((s) =>
        (s.actions as { action_type: string; parameters: { key?: string } }[]).map((a) => a.parameters.key),
      );
      expect(keys).toEqual(expect.arrayContaining(['left', 'up', 'right', 'down']));

      // And in Runs, beside the agent runs.
      await page.getByTestId('tab-runs').click();
      await expect.poll(() => page.getByTestId('run-row').filter({ hasText: 'human' }).count()).toBe(1);
    } finally {
      await stop(game.child);
    }
  });
});
