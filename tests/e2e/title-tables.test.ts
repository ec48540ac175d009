/**
 * Every title counts, end to end through the CLI on a real Debian game (sgt-puzzles' Fifteen):
 * a window run under a user's milestone-scored profile (judged live), a window run under the
 * shipped screen-scored profile, and a human expert session recorded on the same window and
 * judged afterwards all reach `gamepilot leaderboard --json` and `gamepilot report --json` under
 * their profile's id, category and tier; with runs of the four built-ins beside them the report
 * prints GameVerse's Table 3 shape (the fifteen titles in the paper's order, then the two window
 * titles, Avg Rank), and the HTML page shows it in Chromium. The local test server is the only
 * stand-in: it plays, reads the score off the screen and judges milestones.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, runCli } from '../helpers/cli.ts';
import { writeFifteenProfile } from '../helpers/profiles.ts';
import { startWindow, stop } from '../helpers/windows.ts';
import { TEST_BROWSER_FLAGS } from '../helpers/web-ui.ts';
import { ReportDataSchema } from '../../electron/report/model.ts';
import { GAMEVERSE_TITLES } from '../../electron/report/gameverse.ts';
import type { WindowInfo } from '../../native/index.ts';

const tmp = (p: string) => mkdtempSync(path.join(tmpdir(), p));
let fifteen: { child: ChildProcess; window: WindowInfo };
let server: FakeOpenAI;
const runs = tmp('gp-titles-runs-');
const profileFile = path.join(tmp('gp-titles-profile-'), 'fifteen-quest.yaml');

beforeAll(async () => {
  let plays = 0;
  server = await new FakeOpenAI((body) => {
    if (body.stream)
      return { text: answer('slide', [{ action_type: 'PRESS', parameters: { key: ['up', 'left'][plays++ % 2]! } }]) };
    const text = JSON.stringify(body.messages);
    if (text.includes('how many of the fifteen numbered tiles')) return { text: '{"value": 6, "level": null}' };
    // The milestone judge: the tray is on every frame it is shown; it claims nothing else.
    const step = /step (\d+)/.exec(text)?.[1];
    return {
      text: JSON.stringify({
        reached: step ? [{ milestone: 'Tray shown', step: Number(step), reason: 'the tiles fill the window' }] : [],
      }),
    };
  }).start();
  writeFifteenProfile(profileFile, {
    id: 'fifteen-quest',
    category: 'nonrealtime-nonlinear',
    tier: 'hard',
    scoring: [
      'kind: milestones',
      'linear: true',
      'milestones:',
      '  - { title: Tray shown, description: the tray of numbered tiles is on the screen }',
      '  - { title: Puzzle solved, description: the status line says COMPLETED! }',
    ],
  });
  fifteen = await startWindow('/usr/games/sgt-fifteen', [], /^Fifteen$/);
  await new Promise((r) => setTimeout(r, 800)); // let GTK draw
});

afterAll(async () => {
  await stop(fifteen?.child);
  await server?.close();
});

async function cli(args: string[]) {
  const r = await runCli(args, { timeoutMs: 180_000 });
  expect(r.code, `gamepilot ${args.join(' ')}\n${r.stderr}`).toBe(0);
  return r;
}
const model = () => ['--model', 'test-vlm', '--base-url', server.baseURL];

describe('window runs and sessions in the tables', () => {
  it('lists a milestone-scored run, a screen-scored run and an expert session on one window under their profiles', async () => {
    const onWindow = ['--window-id', fifteen.window.id, '--runs-dir', runs, '--json', '--quiet'];
    const milestone = json(
      await cli(['run', ...onWindow, '--profile', profileFile, '--agent', 'vlm', ...model(), '--max-steps', '3']),
    );
    expect(milestone.mean).toBe(50); // Tray shown, 1 of 2
    const screen = json(
      await cli(['run', ...onWindow, '--profile', 'sgt-fifteen', '--agent', 'vlm', ...model(), '--max-steps', '2']),
    );
    expect(screen.mean).toBe(40); // 6 of 15 tiles
    const session = json(
      await cli([
        'record',
        ...onWindow,
        '--profile',
        profileFile,
        '--role',
        'expert',
        '--participant',
        'e1',
        '--consent',
        '--duration',
        '2',
        '--fps',
        '4',
      ]),
    );
    await cli(['milestones', 'judge', session.session_dir, ...model(), '--json']);
    for (const game of ['tictactoe', '2048', 'maze', 'snake'])
      await cli([
        'run',
        '--game',
        game,
        '--agent',
        'random',
        '--episodes',
        '1',
        '--max-steps',
        '4',
        '--runs-dir',
        runs,
      ]);

    const board = json(await cli(['leaderboard', '--runs-dir', runs, '--json'])) as Record<string, unknown>[];
    const quest = { game: 'fifteen-quest', kind: 'profile', category: 'nonrealtime-nonlinear', tier: 'hard' };
    expect(board).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ ...quest, player: 'vlm', model: 'test-vlm', mean: 50 }),
        expect.objectContaining({ ...quest, player: 'human-expert', vr: '—', mean: 50 }),
        expect.objectContaining({ game: 'sgt-fifteen', category: 'markov-grid', tier: 'medium', mean: 40 }),
      ]),
    );

    const html = path.join(runs, 'report.html');
    const jsonFile = path.join(runs, 'report.json');
    await cli(['report', '--runs-dir', runs, '--out', html, '--json', jsonFile]);
    const data = ReportDataSchema.parse(JSON.parse(readFileSync(jsonFile, 'utf8')));
    expect(data.gameverse.games.map((g) => g.id)).toEqual([...GAMEVERSE_TITLES, 'sgt-fifteen', 'fifteen-quest']); // others by category
    expect(data.gameverse.games.find((g) => g.id === 'fifteen-quest')).toMatchObject({
      kind: 'profile',
      category: 'nonrealtime-nonlinear',
      tier: 'hard',
      paper: false,
    });
    const expert = data.gameverse.rows.find((r) => r.baseline === 'human-expert')!;
    expect(expert.cells['fifteen-quest']).toMatchObject({ mean: 50, n: 1 });
    const vlm = data.gameverse.rows.find((r) => r.model === 'test-vlm')!;
    expect(vlm.cells).toMatchObject({ 'fifteen-quest': { mean: 50 }, 'sgt-fifteen': { mean: 40 } });
    // Tied at 50 with the expert in fifteen-quest (places 1–2 → 1.5), alone in sgt-fifteen (1).
    expect(vlm.avg_rank).toBe(1.25);
    const random = data.gameverse.rows.find((r) => r.baseline === 'random')!;
    expect(Object.keys(random.cells).sort()).toEqual(['2048', 'maze', 'snake', 'tictactoe']);

    // The page shows the same shape.
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: TEST_BROWSER_FLAGS,
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
      await page.goto(`file://${html}`);
      await page.waitForSelector('body[data-charts-drawn]', { timeout: 30_000 });
      const header = await page.$$eval('#table-gameverse thead tr:last-child th', (ths) =>
        ths.map((th) => th.textContent),
      );
      // Player, VR, action space, latency, protocol; then the titles; then Avg Rank and why a row is not ranked.
      expect(header.slice(5, 8)).toEqual(['Tic-Tac-Toe (Easy)', 'Baba Is You (Medium)', '2048 (Hard)']);
      expect(header.slice(-4)).toEqual([
        'Fifteen (sgt-puzzles) (Medium)',
        'Fifteen (sgt-puzzles) (Hard)',
        'Avg Rank',
        'Not ranked because',
      ]);
      const groups = await page.$$eval('#table-gameverse thead tr.groups th', (ths) => ths.map((th) => th.textContent));
      expect(groups).toEqual(
        expect.arrayContaining(['Markov Grid', 'Non-Real-time Non-linear', 'Real-time Non-linear']),
      );
      const rows = await page.$$eval('#table-gameverse tbody tr', (trs) =>
        trs.map((tr) =>
          Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.key!, td.textContent!])),
        ),
      );
      const shown = rows.find((r) => r.player === 'test-vlm')!;
      expect(shown['fifteen-quest']).toBe('50.0 ± 0.0 (1)');
      expect(shown.avg_rank).toBe('1.3'); // 1.25 to one place, as the page prints
      expect(rows.find((r) => r.player === 'Human Expert')!['fifteen-quest']).toBe('50.0 ± 0.0 (1)');
    } finally {
      await browser.close();
    }
  });
});
