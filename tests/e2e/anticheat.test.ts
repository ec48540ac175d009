/**
 * The anti-cheat guard against a stand-in with a BattlEye service's image name (as Proton runs
 * it under Wine), on gnome-2048: the CLI and the web shell refuse to send input, naming the
 * system and what is at stake, until the person accepts the risk. The guard looks at every
 * process of the machine, as it must, so this file runs alone (E2E_ALONE in vitest.config.ts):
 * beside it, another file's runs would be refused too.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, runCli } from '../helpers/cli.ts';
import { activate, startWindow, stop } from '../helpers/windows.ts';
import { launchUiBrowser, startUiShell, type UiShell } from '../helpers/web-ui.ts';
import { readRun } from '../../electron/store/run-store.ts';
import type { WindowInfo } from '../../native/index.ts';

const t0 = Date.now();
let standIn: ChildProcess;
let game: { child: ChildProcess; window: WindowInfo };

beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gp-anticheat-'));
  copyFileSync('/bin/sleep', path.join(dir, 'BEService.exe'));
  standIn = spawn(path.join(dir, 'BEService.exe'), ['600'], { stdio: 'ignore' });
  game = await startWindow('/usr/games/gnome-2048', [], /^GNOME 2048$/);
});

afterAll(async () => {
  standIn?.kill('SIGKILL');
  if (game) await stop(game.child);
  process.stdout.write(`anticheat.test.ts: ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
});

describe('a window where an anti-cheat system runs', () => {
  it('gamepilot run refuses it, naming the system, unless the person accepts the risk', async () => {
    const runs = mkdtempSync(path.join(tmpdir(), 'gp-ext-'));
    const args = [
      'run',
      '--window',
      '^GNOME 2048$',
      '--agent',
      'random',
      '--max-steps',
      '2',
      '--runs-dir',
      runs,
      '--json',
    ];
    const refused = await runCli(args);
    expect(refused.code, refused.stderr).not.toBe(0);
    expect(refused.stderr).toMatch(
      /refusing to send input: BattlEye runs here \(process BEService\.exe\)\. Anti-cheat systems .*may ban the account.*--accept-anticheat-risk/,
    );
    expect(readdirSync(runs)).toEqual([]); // refused before the run folder exists, nothing pressed

    const accepted = await runCli([...args, '--accept-anticheat-risk']);
    expect(accepted.code, accepted.stderr).toBe(0);
    const { meta, steps } = readRun(json(accepted).run_dir);
    expect(meta.config.anticheat).toEqual(['BattlEye']);
    expect(meta.config.accept_anticheat_risk).toBe(true);
    expect(steps).toHaveLength(2);
  });

  describe('in the web shell', () => {
    let browser: Browser;
    let page: Page;
    let shell: UiShell;
    beforeAll(async () => {
      ({ browser, page } = await launchUiBrowser({ x: 560, width: 1300, height: 820 }));
      shell = await startUiShell();
      await page.goto(shell.web.url);
      await page.getByTestId('status').waitFor({ timeout: 30000 });
    });
    afterAll(async () => {
      await shell?.close();
      await browser?.close();
    });

    it('is refused by name until the person ticks the risk', async () => {
      const status = () => page.getByTestId('status').textContent();
      await page.getByTestId('tab-targets').click();
      activate(game.window.id);
      await page.getByTestId('window-card').filter({ hasText: 'GNOME 2048' }).click();
      await page.getByTestId('agent-select').selectOption('random');
      await page.getByLabel('Max steps').fill('200');
      await page.getByLabel('Pace (ms/step)').fill('300');
      const runs = () => (existsSync(shell.runsDir) ? readdirSync(shell.runsDir) : []);
      const before = runs().length;
      await page.getByTestId('start').click();
      await expect
        .poll(() => page.getByTestId('error').textContent(), { timeout: 15000 })
        .toMatch(/refusing to send input: BattlEye runs here \(process BEService\.exe\)/);
      expect(await status()).toBe('idle');
      expect(runs()).toHaveLength(before); // refused before a run folder exists

      await page.getByTestId('accept-anticheat-risk').check();
      await page.getByTestId('start').click();
      await expect.poll(status, { timeout: 30000 }).toBe('running');
      const id = (await shell.api.request('state')).run!.id;
      const meta = JSON.parse(readFileSync(path.join(shell.runsDir, id, 'run.json'), 'utf8'));
      expect(meta.config).toMatchObject({ accept_anticheat_risk: true, anticheat: ['BattlEye'] });
      await shell.api.request('control', { action: 'stop' });
      await expect.poll(status, { timeout: 15000 }).toBe('idle');
    });
  });
});
