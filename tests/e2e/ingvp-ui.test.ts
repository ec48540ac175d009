/**
 * The ING-VP tab in the real UI (the web shell in Debian's Chromium): a solver suite on 2 games ×
 * 2 settings × levels 1-3 started from the tab, the level in play and the progress changing while
 * it runs, the paper-style table filling in at 100 %; then a suite stopped mid-way and started
 * again under the same folder name plays only the levels it had not finished (the run folders say so).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';
import { launchUiBrowser, startUiShell, type UiShell } from '../helpers/web-ui.ts';

const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');
const GAMES = ['sokoban', 'hanoi'];
const SETTINGS = ['multi-step-image', 'multi-step-text'];
const ALL_GAMES = ['sokoban', 'ingvp-maze', 'queens', 'sudoku', 'hanoi', 'fifteen'];
const ALL_SETTINGS = [
  'one-step-image',
  'one-step-text',
  'multi-step-image',
  'multi-step-text',
  'multi-step-image-history',
  'multi-step-text-history',
];

let shell: UiShell;
let browser: Browser;
let page: Page;

interface LevelRun {
  id: string;
  key: string;
  status: string;
}

/** Every level run in a suite folder: its id, game/setting/level and status. */
function levelRuns(name: string): LevelRun[] {
  const dir = path.join(shell.runsDir, name, 'runs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).map((id) => {
    const m = JSON.parse(readFileSync(path.join(dir, id, 'run.json'), 'utf8'));
    return { id, key: `${m.game}/${m.config.setting}/${m.config.level}`, status: m.status };
  });
}

/** Fills the tab's form: two games, two settings, levels 1-3, the solver, a pace and a folder name. */
async function fillForm(name: string, paceMs: number) {
  await page.getByTestId('tab-ingvp').click();
  for (const g of ALL_GAMES) await page.getByTestId(`ingvp-game-${g}`).setChecked(GAMES.includes(g));
  for (const s of ALL_SETTINGS) await page.getByTestId(`ingvp-setting-${s}`).setChecked(SETTINGS.includes(s));
  await page.getByTestId('ingvp-levels').fill('1-3');
  await page.getByTestId('ingvp-agent').selectOption('solver');
  await page.getByTestId('ingvp-pace').fill(String(paceMs));
  await page.getByTestId('ingvp-name').fill(name);
}

/** Watches the tab from inside the page: every heading of the level in play and every progress line it shows. */
async function watch() {
  await page.evaluate(() => {
    const seen = { current: [] as string[], progress: [] as string[], labels: [] as string[], frames: 0, texts: 0 };
    (window as unknown as { seen: typeof seen }).seen = seen;
    const look = () => {
      const cur = document.querySelector('[data-testid="ingvp-current"]')?.textContent ?? '';
      const prog = document.querySelector('[data-testid="ingvp-progress"] span')?.textContent ?? '';
      if (cur && seen.current.at(-1) !== cur) seen.current.push(cur);
      if (prog && seen.progress.at(-1) !== prog) seen.progress.push(prog);
      const label = document.querySelector('.run-label')?.textContent ?? '';
      if (seen.labels.at(-1) !== label) seen.labels.push(label);
      if (document.querySelector('[data-testid="ingvp-frame"]')) seen.frames++;
      if (document.querySelector('[data-testid="ingvp-text"]')) seen.texts++;
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

const seen = () =>
  page.evaluate(
    () =>
      (
        window as unknown as {
          seen: { current: string[]; progress: string[]; labels: string[]; frames: number; texts: number };
        }
      ).seen,
  );

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  shell = await startUiShell();
  ({ browser, page } = await launchUiBrowser({ x: 0, width: 1280, height: 1000 }));
  await page.goto(shell.web.url);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await shell?.close();
});

describe('the ING-VP tab', () => {
  it('runs a solver suite from the tab: the level in play and the progress change, the table fills in at 100 %', async () => {
    await fillForm('ui-suite', 120);
    await watch();
    await page.getByTestId('ingvp-start').click();
    // Mid-suite (Hanoi's image levels): the screenshot the model answered beside the half-filled table.
    await expect
      .poll(async () => (await seen()).progress.some((p) => /^[6-9] \/ 12 levels/.test(p)), { timeout: 120_000 })
      .toBe(true);
    await page
      .getByTestId('ingvp-frame')
      .waitFor({ timeout: 3000 })
      .catch(() => {}); // only for the picture: it may already be on the text levels
    await page.screenshot({ path: path.join(SHOTS, 'ingvp.png'), fullPage: true });
    await page.getByTestId('ingvp-done').filter({ hasText: 'finished' }).waitFor({ timeout: 120_000 });
    await expect.poll(() => page.getByTestId('ingvp-done').textContent()).toMatch(/finished: 12 played, 0 from before/);

    const s = await seen();
    // The level in play changed while it ran: levels of both games and both settings were shown.
    const levels = new Set(s.current);
    expect(levels.size).toBeGreaterThanOrEqual(6);
    for (const title of ['Sokoban', 'Tower of Hanoi'])
      for (const setting of ['multi-step · image', 'multi-step · text'])
        expect(s.current.some((c) => c.startsWith(`${title} · ${setting} · level`))).toBe(true);
    // The screenshot the model answered in image settings, the text state in text settings.
    expect(s.frames).toBeGreaterThan(0);
    // The header says what holds the activity slot while it runs.
    expect(s.labels).toContain('ING-VP suite ui-suite · solver');
    expect(s.texts).toBeGreaterThan(0);
    // Progress moved through the levels, never backwards, with the running accuracy at 100 %.
    const done = s.progress.map((p) => Number(/^(\d+) \/ 12/.exec(p)?.[1] ?? -1)).filter((n) => n >= 0);
    expect(new Set(done).size).toBeGreaterThanOrEqual(6);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(s.progress.at(-1)).toMatch(/^12 \/ 12 levels · accuracy 100\.0 %/);

    for (const game of [...GAMES, 'all'])
      for (const setting of SETTINGS)
        for (const metric of ['accuracy', 'completion', 'efficiency'])
          await expect.poll(() => page.getByTestId(`cell-${game}-${setting}-${metric}`).textContent()).toBe('100.00');
    await expect.poll(() => page.getByTestId('ingvp-results').locator('li').count()).toBe(8); // the latest eight
    const runs = levelRuns('ui-suite');
    expect(runs.filter((r) => r.status === 'completed')).toHaveLength(12);
    expect(new Set(runs.map((r) => r.key)).size).toBe(12);
    await page.screenshot({ path: path.join(SHOTS, 'ingvp-done.png'), fullPage: true });
  }, 300_000);

  it('a suite stopped mid-way and started again under the same name plays only its unfinished levels', async () => {
    await fillForm('ui-stop', 250);
    await page.getByTestId('ingvp-start').click();
    await page
      .getByTestId('ingvp-progress')
      .filter({ hasText: /^([2-9]|1[01]) \/ 12 levels/ })
      .waitFor({
        timeout: 120_000,
      });
    await page.getByTestId('ingvp-stop').click();
    await page.getByTestId('ingvp-done').filter({ hasText: 'stopped' }).waitFor({ timeout: 20_000 });
    await expect.poll(() => page.getByTestId('status').textContent()).toBe('idle');

    const before = levelRuns('ui-stop');
    const kept = before.filter((r) => r.status === 'completed');
    expect(kept.length).toBeGreaterThanOrEqual(2);
    expect(kept.length).toBeLessThan(12);
    // The level in play when it stopped is kept as a stopped run, not counted as finished.
    expect(before.filter((r) => r.status !== 'completed').every((r) => r.status === 'stopped')).toBe(true);
    const suiteFile = JSON.parse(readFileSync(path.join(shell.runsDir, 'ui-stop', 'suite.json'), 'utf8'));
    expect(Object.keys(suiteFile.results).sort()).toEqual(kept.map((r) => r.key).sort());

    // The tab offers to resume that folder and says what it holds.
    await expect
      .poll(() => page.getByTestId('ingvp-resume').textContent())
      .toContain(`holds ${kept.length} finished levels of solver`);
    await expect.poll(() => page.getByTestId('ingvp-start').textContent()).toMatch(/Resume/);
    await page.getByTestId('ingvp-pace').fill('0');
    await page.getByTestId('ingvp-start').click();
    await page.getByTestId('ingvp-done').filter({ hasText: 'finished' }).waitFor({ timeout: 120_000 });
    await expect
      .poll(() => page.getByTestId('ingvp-done').textContent())
      .toMatch(new RegExp(`finished: ${12 - kept.length} played, ${kept.length} from before`));

    const after = levelRuns('ui-stop');
    const keptIds = new Set(before.map((r) => r.id));
    const fresh = after.filter((r) => !keptIds.has(r.id));
    // Only unfinished levels ran: none of the new runs repeats a finished level, and together they make all 12.
    expect(fresh.every((r) => r.status === 'completed')).toBe(true);
    expect(fresh).toHaveLength(12 - kept.length);
    const keptKeys = new Set(kept.map((r) => r.key));
    expect(fresh.filter((r) => keptKeys.has(r.key))).toEqual([]);
    expect(new Set([...kept, ...fresh].map((r) => r.key)).size).toBe(12);
    for (const setting of SETTINGS)
      await expect.poll(() => page.getByTestId(`cell-all-${setting}-accuracy`).textContent()).toBe('100.00');
  }, 300_000);
});
