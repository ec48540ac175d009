/**
 * The New run tab's profile panel in the real UI (web shell in Debian's Chromium): a window's
 * matching profile and the setup it expects, editing its main fields in a form and saving them
 * as the user's own profile, and a choice when two profiles fit one window.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';
import { launchUiBrowser, startWebShellCli } from '../helpers/web-ui.ts';
import { placeWindow, startWindow, stop } from '../helpers/windows.ts';
import { loadProfileFile } from '../../electron/profiles/load.ts';

const children: ChildProcess[] = [];
let web: ChildProcess;
let browser: Browser;
let page: Page;
let configDir = '';

beforeAll(async () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'gp-profile-ui-'));
  configDir = path.join(tmp, 'config');
  const shell = await startWebShellCli(['--no-demo', '--runs-dir', path.join(tmp, 'runs'), '--config-dir', configDir]);
  web = shell.child;
  for (const [cmd, title, y] of [
    ['/usr/games/sgt-mines', /^Mines$/, 120],
    ['/usr/games/sgt-fifteen', /^Fifteen$/, 500],
  ] as const) {
    const w = await startWindow(cmd, [], title);
    children.push(w.child);
    await placeWindow(w.window.id, 1100, y);
  }
  ({ browser, page } = await launchUiBrowser({ x: 0, width: 1000, height: 880 }));
  await page.goto(shell.url);
});

afterAll(async () => {
  await browser?.close();
  if (web) await stop(web);
  for (const c of children) await stop(c);
});

const card = (title: string) => page.getByTestId('window-card').filter({ hasText: title });

describe('the profile panel', () => {
  it('shows the matching profile and its setup, and saves an edit as the user’s own profile', async () => {
    await page.getByTestId('tab-targets').click();
    await card('Mines').click();
    const current = page.getByTestId('profile-current');
    await expect.poll(() => current.textContent(), { timeout: 15_000 }).toMatch(/Mines \(sgt-puzzles\)/);
    expect(await current.textContent()).toMatch(/markov-grid · easy · scoring screen · zero-shot agent · shipped/);
    expect(await page.getByTestId('profile-setup').textContent()).toMatch(/^Before you start: A fresh game/);

    await page.getByTestId('profile-edit').click();
    expect(await page.getByTestId('profile-rules').inputValue()).toMatch(/^A grid of covered squares/);
    await page.getByTestId('profile-rules').fill('Edited in the UI: open every safe square, never a mine.');
    await page.getByTestId('profile-keys').fill('space, enter, up');
    await page.getByTestId('profile-max-steps').fill('42');
    await page.getByTestId('profile-save').click();
    await expect.poll(() => current.textContent()).toMatch(/· user:/);

    const file = path.join(configDir, 'profiles', 'sgt-mines.yaml');
    const { profile } = loadProfileFile(file);
    expect(profile.prompt.rules).toBe('Edited in the UI: open every safe square, never a mine.');
    expect(profile.actions.allowedKeys).toEqual(['space', 'enter', 'up']);
    expect(profile.episode.maxSteps).toBe(42);
    // The rest of the shipped profile came along unchanged.
    expect(profile.scoring).toMatchObject({ kind: 'screen', normaliser: { divisor: 1 } });
    expect(readFileSync(file, 'utf8')).toMatch(/^# Edited in Gamepilot's New run tab/);
  });

  it('a key name the form cannot use is refused and nothing is saved', async () => {
    await page.getByTestId('profile-edit').click();
    await page.getByTestId('profile-keys').fill('space, flurb');
    const before = readFileSync(path.join(configDir, 'profiles', 'sgt-mines.yaml'), 'utf8');
    await page.getByTestId('profile-save').click();
    await expect
      .poll(() => page.locator('body').textContent())
      .toMatch(/not saved: actions\.allowedKeys\.1: is not a key name/);
    expect(readFileSync(path.join(configDir, 'profiles', 'sgt-mines.yaml'), 'utf8')).toBe(before);
  });

  it('offers a choice when two profiles fit one window', async () => {
    mkdirSync(path.join(configDir, 'profiles'), { recursive: true });
    const shipped = readFileSync(path.join(ROOT, 'games', 'sgt-mines', 'profile.yaml'), 'utf8');
    writeFileSync(path.join(configDir, 'profiles', 'my-mines.yaml'), shipped.replace('id: sgt-mines', 'id: my-mines'));
    await card('Fifteen').click();
    await expect.poll(() => page.getByTestId('profile-current').textContent()).toMatch(/Fifteen \(sgt-puzzles\)/);
    await card('Mines').click();
    const choice = page.getByTestId('profile-choice');
    await expect.poll(() => choice.textContent(), { timeout: 15_000 }).toMatch(/2 profiles fit this window/);
    expect(await page.getByTestId('profile-current').count()).toBe(0); // nothing is guessed
    await choice.getByLabel(/my-mines/).check();
    await expect.poll(() => page.getByTestId('profile-current').textContent()).toMatch(/my-mines\.yaml/);
  });
});
