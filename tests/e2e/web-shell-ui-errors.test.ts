/**
 * The web shell's UI when things go wrong: the error banner can be dismissed (also an error
 * the core keeps in its state), the idle Live tab names no agent it does not have, and a
 * damaged run.json shows as a warning in Runs while the other runs stay listed. Debian's
 * Chromium (playwright-core) drives the real `gamepilot web`.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { WebSocket } from 'ws';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchUiBrowser, startWebShellCli } from '../helpers/web-ui.ts';
import { stop } from '../helpers/windows.ts';
import { wsClient, type WsClient } from '../../renderer/src/api/clients.ts';
import { RunStore } from '../../electron/store/run-store.ts';

let web: ChildProcess;
let url = '';
let browser: Browser;
let page: Page;
let api: WsClient;
let goodRun = '';
const tmp = mkdtempSync(path.join(tmpdir(), 'gp-ui-errors-'));
const runsDir = path.join(tmp, 'runs');

beforeAll(async () => {
  const store = RunStore.create(runsDir, {
    kind: 'agent',
    game: 'tictactoe',
    target: { kind: 'builtin', label: 'Tic-Tac-Toe' },
    agent: 'solver',
    model: null,
    action_space: 'gui',
    config: {},
  });
  store.close('completed', undefined, {
    episodes: [{ episode: 0, seed: 0, score: 100, steps: 5, end: 'game_over' }],
    mean: 100,
    std: 0,
  });
  goodRun = store.meta.id;
  mkdirSync(path.join(runsDir, 'damaged-run'));
  writeFileSync(path.join(runsDir, 'damaged-run', 'run.json'), '{"id": "damaged-run", "episodes": null}');

  const shell = await startWebShellCli(['--no-demo', '--runs-dir', runsDir, '--config-dir', path.join(tmp, 'config')]);
  web = shell.child;
  url = shell.url;
  const u = new URL(url);
  api = wsClient(`ws://${u.host}/api/ws?token=${u.searchParams.get('token')}`, WebSocket as never);
  ({ browser, page } = await launchUiBrowser({ x: 300, width: 1300, height: 820 }));
});

afterAll(async () => {
  api?.close();
  await browser?.close();
  if (web) await stop(web);
});

/** Makes the core fail a start: the error lands in its state (lastError), not only in the page. */
async function failAStart(tutorial: string) {
  await api.request('saveSettings', {
    settings: { provider: 'custom', baseUrl: 'http://127.0.0.1:9/v1', model: 'test-vlm' },
  });
  await expect(
    api.request('startRun', {
      target: { game: '2048' },
      agent: 'vlm',
      reflection: 'self-t',
      tutorial,
      reflectAfter: 'failed',
      maxWords: 150,
      review: false,
    }),
  ).rejects.toThrow(new RegExp(tutorial));
}

describe('web shell UI when things go wrong', () => {
  it('the idle Live tab names no agent', async () => {
    await page.goto(url);
    await expect.poll(() => page.locator('footer kbd').textContent(), { timeout: 20000 }).toMatch(/F12/);
    await page.getByTestId('tab-live').click();
    const text = (await page.getByTestId('reasoning').textContent()) ?? '';
    expect(text.trim().length).toBeGreaterThan(0);
    expect(text).not.toMatch(/The\s+baseline/);
    expect(text).not.toMatch(/\s{2}|undefined|null/);
    expect(await page.getByTestId('status').textContent()).toBe('idle');
  });

  it('the error banner can be dismissed, also for an error the core keeps in its state', async () => {
    await failAStart('missing-tutorial-1');
    const banner = page.getByTestId('error');
    await expect.poll(() => banner.textContent(), { timeout: 10000 }).toMatch(/missing-tutorial-1/);
    expect(((await api.request('state')) as { lastError: string | null }).lastError).toMatch(/missing-tutorial-1/);
    await page.getByTestId('dismiss-error').click();
    await expect.poll(() => banner.count()).toBe(0);
    await page.waitForTimeout(500);
    expect(await banner.count()).toBe(0); // stays dismissed while the core still holds the message

    // A new error shows again, and is dismissed again.
    await failAStart('missing-tutorial-2');
    await expect.poll(() => banner.textContent(), { timeout: 10000 }).toMatch(/missing-tutorial-2/);
    await page.getByTestId('dismiss-error').click();
    await expect.poll(() => banner.count()).toBe(0);
  });

  it('Runs lists the good runs and names the damaged run.json in a warning', async () => {
    await page.getByTestId('tab-runs').click();
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(1);
    expect(await page.getByTestId('run-row').first().textContent()).toMatch(/Tic-Tac-Toe.*solver.*completed/);
    await expect
      .poll(() => page.getByTestId('runs-warnings').textContent())
      .toContain(path.join(runsDir, 'damaged-run', 'run.json'));
    expect(((await api.request('listRuns')) as { runs: { id: string }[] }).runs.map((r) => r.id)).toEqual([goodRun]);
  });
});
