/**
 * The Sweeps tab in the real UI (the web shell in Debian's Chromium): a 2 games × 2 agents
 * (random, solver) × 2 trials sweep on 2 workers built in the tab's form, its progress advancing
 * and its job table filling (each job on a worker's own private display), stopped mid-sweep and
 * started again: the finished jobs are not rerun (the run folders say so) and it ends complete.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';
import { launchUiBrowser, startUiShell, type UiShell } from '../helpers/web-ui.ts';

const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');
const NAME = 'ui-sweep';
const TOTAL = 8;

let shell: UiShell;
let browser: Browser;
let page: Page;

/** The sweep's runs in the runs folder: run id, job id, status. */
function sweepRuns(): { id: string; job: string; status: string; title: string }[] {
  return readdirSync(shell.runsDir)
    .filter((n) => existsSync(path.join(shell.runsDir, n, 'run.json')))
    .map((n) => JSON.parse(readFileSync(path.join(shell.runsDir, n, 'run.json'), 'utf8')))
    .filter((m) => m.job?.sweep === NAME)
    .map((m) => ({ id: m.id, job: m.job.id, status: m.status, title: `${m.game} · ${m.agent} · ${m.status}` }));
}

/** Records, from inside the page, every progress line and every row status the tab shows. */
async function watch() {
  await page.evaluate(() => {
    const seen = { progress: [] as string[], rows: [] as number[], displays: [] as string[], labels: [] as string[] };
    (window as unknown as { seen: typeof seen }).seen = seen;
    const look = () => {
      const prog = document.querySelector('[data-testid="sweep-progress"] span')?.textContent ?? '';
      if (prog && seen.progress.at(-1) !== prog) seen.progress.push(prog);
      const done = document.querySelectorAll('[data-testid="sweep-jobs"] tr[data-status="completed"]').length;
      if (seen.rows.at(-1) !== done) seen.rows.push(done);
      for (const td of document.querySelectorAll('[data-testid="sweep-jobs"] td')) {
        const m = /display (:\d+)/.exec(td.textContent ?? '');
        if (m && !seen.displays.includes(m[1]!)) seen.displays.push(m[1]!);
      }
      const label = document.querySelector('.run-label')?.textContent ?? '';
      if (seen.labels.at(-1) !== label) seen.labels.push(label);
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

const seen = () =>
  page.evaluate(
    () =>
      (window as unknown as { seen: { progress: string[]; rows: number[]; displays: string[]; labels: string[] } })
        .seen,
  );

const doneOf = (line: string) => Number(/^(\d+) \/ 8 jobs/.exec(line)?.[1] ?? -1);

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  shell = await startUiShell();
  ({ browser, page } = await launchUiBrowser({ x: 0, width: 1280, height: 1000 }));
  await page.goto(shell.web.url);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await shell?.close();
});

describe('the Sweeps tab', () => {
  it('runs a sweep built in the form on 2 workers, stops mid-sweep, and resumes without rerunning finished jobs', async () => {
    await page.getByTestId('tab-sweeps').click();
    await page.getByTestId('sweep-game-2048').waitFor();
    for (const box of await page.locator('[data-testid^="sweep-game-"]').all()) {
      const id = (await box.getAttribute('data-testid'))!.slice('sweep-game-'.length);
      await box.setChecked(id === '2048' || id === 'tictactoe');
    }
    await page.getByTestId('sweep-agent-random').setChecked(true);
    await page.getByTestId('sweep-agent-solver').setChecked(true);
    await page.getByTestId('sweep-name').fill(NAME);
    await page.getByTestId('sweep-trials').fill('2');
    await page.getByTestId('sweep-max-steps').fill('8');
    await page.getByTestId('sweep-workers').fill('2');
    await watch();
    await page.getByTestId('sweep-start').click();

    // The table lists every job at once; progress advances as jobs finish.
    await expect.poll(() => page.getByTestId('sweep-jobs').locator('tbody tr').count(), { timeout: 30_000 }).toBe(8);
    await expect.poll(async () => (await seen()).progress.some((p) => doneOf(p) >= 2), { timeout: 180_000 }).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'sweep.png'), fullPage: true });
    await page.getByTestId('sweep-stop').click();
    await page.getByTestId('sweep-done').filter({ hasText: 'stopped' }).waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByTestId('status').textContent()).toBe('idle');

    const s1 = await seen();
    expect(s1.labels).toContain(`sweep ${NAME} · 2 workers`);
    // Both workers' displays ran jobs.
    expect(s1.displays.length).toBe(2);
    const before = sweepRuns().filter((r) => r.status === 'completed');
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(before.length).toBeLessThan(TOTAL);
    // Each finished row names its run; the table and the run folders agree.
    const rows = page.getByTestId('sweep-jobs').locator('tr[data-status="completed"]');
    expect(await rows.count()).toBe(before.length);
    for (const r of before) await expect.poll(() => rows.filter({ hasText: r.id }).count()).toBe(1);

    // The tab offers to resume the same sweep (it is now a file in the config folder).
    await expect.poll(() => page.getByTestId('sweep-resume').textContent()).toContain(`${before.length} finished`);
    await expect.poll(() => page.getByTestId('sweep-start').textContent()).toMatch(/Resume/);
    await page.getByTestId('sweep-start').click();
    await page.getByTestId('sweep-done').filter({ hasText: 'finished' }).waitFor({ timeout: 240_000 });
    await expect
      .poll(() => page.getByTestId('sweep-done').textContent())
      .toMatch(new RegExp(`finished: 8/8 completed \\(${before.length} from before\\), 0 failed`));
    expect(await page.getByTestId('sweep-jobs').locator('tr[data-status="done-before"]').count()).toBe(before.length);
    expect(await page.getByTestId('sweep-jobs').locator('tr[data-status="completed"]').count()).toBe(
      TOTAL - before.length,
    );

    // The run folders: one completed run per job; the earlier runs are the same folders, none rerun.
    const after = sweepRuns().filter((r) => r.status === 'completed');
    expect(after).toHaveLength(TOTAL);
    expect(new Set(after.map((r) => r.job)).size).toBe(TOTAL);
    const keptJobs = new Set(before.map((r) => r.job));
    expect(
      after
        .filter((r) => keptJobs.has(r.job))
        .map((r) => r.id)
        .sort(),
    ).toEqual(before.map((r) => r.id).sort());
    // Progress advanced through the jobs and never went backwards, across the stop and the resume.
    const done = (await seen()).progress.map(doneOf).filter((n) => n >= 0);
    expect(new Set(done).size).toBeGreaterThanOrEqual(4);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(done.at(-1)).toBe(TOTAL);
    await page.screenshot({ path: path.join(SHOTS, 'sweep-done.png'), fullPage: true });

    // A job's run link opens its replay in the Runs tab.
    await page.getByTestId('sweep-jobs').getByRole('button', { name: after[0]!.id }).click();
    await expect.poll(() => page.getByRole('tab', { name: 'Runs' }).getAttribute('aria-selected')).toBe('true');
    await page.getByTestId('replay-position').waitFor({ timeout: 30_000 });
    await expect.poll(() => page.locator('main').textContent()).toContain(after[0]!.title);
  }, 600_000);
});
