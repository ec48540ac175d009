/**
 * An arena in the report and the Runs tab, through the built CLI and a real window: a small
 * arena (the solver against the random agent on PvP Tic-Tac-Toe, one trial a side) played into a
 * runs folder; `gamepilot report` over that folder and over the arena folder itself writes the
 * matrix arena.json holds, each cell naming the same run; the Runs tab (the web shell in
 * Chromium) draws it as a heat map whose cells open their run in replay.
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { ROOT, runCli } from '../helpers/cli.ts';
import { startUiShell, TEST_BROWSER_FLAGS } from '../helpers/web-ui.ts';
import { ReportDataSchema } from '../../electron/report/model.ts';
import type { ArenaResult } from '../../electron/arena/arena.ts';

const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');
const AGENTS = ['solver', 'random'];
let runs: string;
let arenaDir: string;
let saved: ArenaResult;
let browser: Browser;

/** A cell as the report writes it: player 1's rate (wins–draws–losses, games; draws the step limit made). */
const cellText = (c: NonNullable<NonNullable<ArenaResult['matrix']>[number][number]> | null) =>
  c === null
    ? 'not played (no self-play)'
    : `${Math.round((c.p1_win_rate ?? 0) * 100)}% (${c.p1_wins}–${c.draws}–${c.p2_wins}, ${c.games}${c.limit_draws ? `; ${c.limit_draws} by step limit` : ''})`;

beforeAll(async () => {
  runs = mkdtempSync(path.join(tmpdir(), 'gp-arena-report-'));
  const r = await runCli(
    [
      'arena',
      '--game',
      'tictactoe-pvp',
      '--agents',
      AGENTS.join(','),
      '--episodes',
      '1',
      '--name',
      'duel',
      '--runs-dir',
      runs,
    ],
    { timeoutMs: 240_000 },
  );
  expect(r.code, r.stderr).toBe(0);
  arenaDir = path.join(runs, 'arena-duel');
  saved = JSON.parse(readFileSync(path.join(arenaDir, 'arena.json'), 'utf8')).result;
  expect(saved.matrix!.flat().filter((c) => c?.games === 1)).toHaveLength(2);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: TEST_BROWSER_FLAGS });
}, 300_000);

afterAll(async () => {
  await browser?.close();
});

/** `gamepilot report --runs-dir <dir>`: its JSON data and CSV folder. */
async function report(dir: string, name: string) {
  const out = mkdtempSync(path.join(tmpdir(), `gp-arena-${name}-`));
  const r = await runCli([
    'report',
    '--runs-dir',
    dir,
    '--out',
    path.join(out, 'report.html'),
    '--json',
    path.join(out, 'report.json'),
    '--csv',
    path.join(out, 'csv'),
  ]);
  expect(r.code, r.stderr).toBe(0);
  return {
    data: ReportDataSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'))),
    html: readFileSync(path.join(out, 'report.html'), 'utf8'),
    csv: readFileSync(path.join(out, 'csv', 'arena-matrix.csv'), 'utf8')
      .trim()
      .split('\r\n'),
  };
}

describe('an arena in the report and the Runs tab', () => {
  it('gamepilot report writes the matrix arena.json holds, each cell naming its run', async () => {
    const { data, html, csv } = await report(runs, 'runs');
    expect(data.arenas.map((a) => a.id)).toEqual(['arena-duel']);
    const [a] = data.arenas;
    const relative = (c: { run: string | null } | null) => c && { ...c, run: path.relative(runs, c.run!) };
    expect(a!.matrix).toEqual(saved.matrix!.map((row) => row.map(relative)));
    expect(a!.standings).toEqual(saved.standings);
    expect(a!.missing).toEqual([]);
    // The two arena runs are the arena's, not ordinary runs of the runs folder.
    expect(data.runs.counted).toBe(0);
    expect(data.gameverse.rows).toEqual([]);
    for (const [i, row] of saved.matrix!.entries())
      for (const [j, c] of row.entries()) {
        const td = new RegExp(`<td data-key="p2:${j}"[^>]*>([^<]*)</td>`, 'g');
        const body = html.split('<table id="table-arena-matrix-arena-duel">')[1]!.split('</table>')[0]!;
        const cells = [...body.split('<tr>')[2 + i]!.matchAll(td)];
        expect(cells.map((m) => m[1])).toEqual([cellText(c)]);
        if (c) expect(cells[0]![0]).toContain(`data-run="${path.relative(runs, c.run!)}"`);
        else expect(cells[0]![0]).toContain('class="heat not-played"');
      }
    expect(csv.slice(1)).toEqual(
      saved.matrix!.flatMap((row, i) =>
        row.flatMap((c, j) =>
          c
            ? [
                [
                  'arena-duel',
                  'tictactoe-pvp',
                  AGENTS[i],
                  AGENTS[j],
                  c.games,
                  c.p1_wins,
                  c.p2_wins,
                  c.draws,
                  c.limit_draws,
                  c.p1_win_rate,
                  path.relative(runs, c.run!),
                ].join(','),
              ]
            : [],
        ),
      ),
    );

    // The arena folder itself: the same matrix, its runs named from there.
    const own = (await report(arenaDir, 'own')).data.arenas;
    expect(own.map((x) => x.id)).toEqual(['.']);
    expect(own[0]!.matrix).toEqual(
      saved.matrix!.map((row) => row.map((c) => c && { ...c, run: path.relative(arenaDir, c.run!) })),
    );
  }, 120_000);

  it('the Runs tab draws the matrix as a heat map whose cells open their run', async () => {
    const shell = await startUiShell({ runsDir: runs });
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    try {
      await page.goto(shell.web.url);
      await page.getByTestId('tab-runs').click();
      const arenas = page.getByTestId('arenas');
      const matrix = arenas.getByTestId('report-table-arena-matrix-arena-duel');
      await matrix.waitFor({ timeout: 30_000 });
      expect(await arenas.getByTestId('arena-row').allTextContents()).toEqual([expect.stringContaining('arena-duel')]);
      const cells = await matrix.locator('tbody tr').evaluateAll((trs) =>
        trs.map((tr) =>
          [...tr.querySelectorAll('td')].slice(1).map((td) => ({
            text: td.textContent,
            run: td.dataset.run ?? null,
            value: td.dataset.value ?? null,
            background: getComputedStyle(td).backgroundColor,
            off: td.classList.contains('heat-off'),
          })),
        ),
      );
      for (const [i, row] of saved.matrix!.entries())
        for (const [j, c] of row.entries()) {
          const got = cells[i]![j]!;
          expect(got.text).toBe(cellText(c));
          if (c === null) {
            expect(got).toMatchObject({ off: true, run: null, value: 'none' });
            continue;
          }
          expect(got).toMatchObject({ off: false, run: path.relative(runs, c.run!), value: String(c.p1_win_rate) });
          // Shaded by the rate: the accent colour's alpha grows with it.
          const alpha = Number(/rgba\([^)]*,\s*([\d.]+)\)/.exec(got.background)?.[1]);
          expect(alpha).toBeCloseTo(0.08 + c.p1_win_rate! * 0.72, 2);
        }
      const standings = await arenas
        .getByTestId('report-table-arena-standings-arena-duel')
        .locator('tbody tr td:first-child')
        .allTextContents();
      expect(standings).toEqual(AGENTS);
      mkdirSync(SHOTS, { recursive: true });
      await arenas.screenshot({ path: path.join(SHOTS, 'arena-matrix.png') });

      // A cell opens the run it was counted from.
      await matrix.locator('tbody tr').nth(0).locator('td').nth(2).getByRole('button').click();
      await page.getByTestId('replay-position').waitFor({ timeout: 30_000 });
      expect(await page.locator('.replay-head h2').textContent()).toContain('tictactoe-pvp');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await shell.close();
    }
  }, 180_000);
});
