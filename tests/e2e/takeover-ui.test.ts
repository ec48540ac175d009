/**
 * Taking over in the web shell's UI (Debian's Chromium, the built-in 2048's real window): the
 * Live view's Take over button gives a person the controls while the solver plays, their keys
 * (xdotool into the game window, heard by the shell's hook) move the tiles, Hand back returns
 * the controls, and the solver plays on. The leaderboard lists the run as assisted, apart from
 * the solver's unassisted run; the replay colours the person's stretch.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ROOT } from '../helpers/cli.ts';
import { launchUiBrowser, openControlPage, startUiShell, type UiShell } from '../helpers/web-ui.ts';

const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');
const PLACE = { x: 620, width: 1200, height: 900 };
const PERSON_KEYS = ['Up', 'Left', 'Down', 'Right'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let browser: Browser;
let shell: UiShell;
let page: Page;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  ({ browser } = await launchUiBrowser(PLACE));
  shell = await startUiShell();
  page = await openControlPage(browser, PLACE, shell.web.url);
});

afterAll(async () => {
  await page?.close();
  await shell?.close();
  await browser?.close();
});

const state = () => shell.api.request('state');

describe('take over in the Live view', () => {
  it('takes over with the button, records the person, hands back; leaderboard and replay keep it apart', {
    timeout: 180_000,
  }, async () => {
    const api = shell.api;
    // The solver's own run first: the unassisted row.
    await api.request('startRun', { target: { game: '2048' }, agent: 'solver', episodes: 1, maxSteps: 4, seed: 3 });
    await expect.poll(async () => (await state()).status, { timeout: 60_000 }).toBe('idle');

    await api.request('startRun', {
      target: { game: '2048' },
      agent: 'solver',
      episodes: 1,
      maxSteps: 6,
      seed: 3,
      paceMs: 1000,
    });
    await expect.poll(async () => (await state()).run?.step ?? -1, { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
    const runId = (await state()).run!.id;

    await page.getByTestId('takeover').click();
    await page.getByTestId('takeover-banner').waitFor({ timeout: 10_000 });
    expect((await state()).run!.takeover).toMatchObject({ active: true, trigger: 'button', takeovers: 1 });
    expect(await page.getByTestId('takeover').textContent()).toContain('Hand back');

    // The person plays in the game window.
    const game = execFileSync('xdotool', ['search', '--name', '^Gamepilot · 2048 · '], { encoding: 'utf8' })
      .trim()
      .split('\n')[0]!;
    execFileSync('xdotool', ['windowactivate', '--sync', game]);
    await sleep(300);
    for (const k of PERSON_KEYS) {
      execFileSync('xdotool', ['key', k]);
      await sleep(350);
    }
    await sleep(600);
    await page.screenshot({ path: path.join(SHOTS, 'takeover-live.png') });
    await page.getByTestId('takeover').click();
    await expect.poll(async () => (await state()).run?.takeover?.active, { timeout: 10_000 }).toBe(false);
    await expect.poll(async () => (await state()).status, { timeout: 60_000 }).toBe('idle');

    const { meta, steps } = await api.request('getRun', { id: runId });
    const human = steps.filter((s) => s.actor === 'human');
    expect(steps.filter((s) => s.actor === 'agent')).toHaveLength(6);
    const pressed = human.flatMap((s) => s.actions as { action_type: string; parameters: { key: string } }[]);
    expect(pressed.map((a) => a.parameters.key)).toEqual(PERSON_KEYS.map((k) => k.toLowerCase()));
    // The built-in's engine took the person's keys: the board moved under them.
    const boards = human.map((s) => JSON.stringify(s.game_state));
    expect(new Set(boards).size).toBeGreaterThan(1);
    expect(meta).toMatchObject({ assisted: true, takeovers: [expect.objectContaining({ trigger: 'button' })] });

    // Apart in the leaderboard: the solver's own row, and its assisted row.
    const { rows } = await api.request('leaderboard', { game: '2048' });
    const solver = rows.filter((r) => r.player === 'solver');
    expect(solver.map((r) => [r.assisted, r.runs]).sort()).toEqual([
      [false, 1],
      [true, 1],
    ]);

    // The replay colours the person's steps.
    await page.getByTestId('tab-runs').click();
    await page.getByTestId('run-row').first().click();
    await page.getByTestId('actor-strip').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('actor-strip').locator('button.human').count()).toBe(human.length);
    await page.getByTestId('actor-strip').locator('button.human').first().click();
    await expect.poll(() => page.getByTestId('replay-position').textContent()).toContain('played by a person');
    await page.screenshot({ path: path.join(SHOTS, 'takeover-replay.png') });
  });
});
