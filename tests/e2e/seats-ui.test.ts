/**
 * A two-seat run from the app (web shell in Debian's Chromium): the New run tab starts PvP
 * Tic-Tac-Toe with two scripted models (model-a as X, model-b as O, streaming slowly) in the
 * game's real window. The Live view shows the seats side by side, each column headed by its seat
 * and agent: one seat's answer streams while the other's last reasoning stays in its own column;
 * both seats' last clicks are drawn on the one frame, each in its seat's colour; the seats'
 * scores and the winner show when an episode ends; pause, resume, the latency switch and Stop
 * work as for a one-seat run, and the Runs tab's replay draws each seat's clicks in its colour.
 * The board's cells are learned first from a solver-vs-solver run started over the contract (a
 * draw: all nine cells clicked). Screenshot: test-artifacts/ui/seats-live.png.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { ROOT } from '../helpers/cli.ts';
import { launchUiBrowser, openControlPage, startUiShell, type UiShell } from '../helpers/web-ui.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { SEAT_COLOURS } from '../../renderer/src/components/seats.ts';

const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');
const PLACE = { x: 560, width: 1400, height: 880 };
/** X plays A1, A2, A3 and O plays B1, B2: X wins on the fifth step. */
const MOVES = { X: ['A1', 'A2', 'A3'], O: ['B1', 'B2', 'B3'] };
const FILLER = 'The centre row is open, the corners are not yet contested, and a line of three ends the game. ';

let server: FakeOpenAI;
let browser: Browser;
let shell: UiShell;
let page: Page;
/** Cell → click point in the frame the models see, learned from the solver run's clicks. */
const cellAt = new Map<string, { x: number; y: number }>();
/** Each scripted model's turn within its episode. */
const turns = new Map<string, number>();

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await new FakeOpenAI(
    (body) => {
      const system = String(body.messages[0].content);
      const side = /You play X/.test(system) ? 'X' : 'O';
      const first = !body.messages.some((m: { role: string }) => m.role === 'assistant');
      const n = first ? 0 : (turns.get(body.model) ?? 0);
      turns.set(body.model, n + 1);
      const cell = MOVES[side][Math.min(n, 2)]!;
      const at = cellAt.get(cell);
      return {
        text: answer(
          `${side} (${body.model}) takes ${cell}. ${FILLER}`,
          at ? [{ action_type: 'CLICK', parameters: at }] : [],
        ),
        chunkDelayMs: 90,
      };
    },
    ['model-a', 'model-b'],
  ).start();
  shell = await startUiShell({ model: { baseUrl: server.baseURL, model: 'model-a' } });
  ({ browser } = await launchUiBrowser(PLACE));
  page = await openControlPage(browser, PLACE, shell.web.url);
});

afterAll(async () => {
  await page?.close();
  await browser?.close();
  await shell?.close();
  await server?.close();
});

const status = () => page.getByTestId('status').textContent();
const text = (id: string) =>
  page
    .getByTestId(id)
    .textContent()
    .then((t) => t ?? '');
/** The colours of the clicks drawn over the live frame. */
const clickColours = () =>
  page.$$eval('svg.overlay [data-testid="overlay-click"] circle:first-child', (cs) =>
    [...new Set(cs.map((c) => c.getAttribute('stroke')))].sort(),
  );

describe('two seats in the app', () => {
  it('a solver-vs-solver run over the contract maps the board', async () => {
    const { id } = await shell.api.request('startRun', {
      target: { game: 'tictactoe-pvp' },
      seats: ['solver', 'solver'],
      actionSpace: 'gui',
      episodes: 1,
    });
    await expect.poll(status, { timeout: 60000 }).toBe('idle');
    const { meta, steps } = readRun(path.join(shell.runsDir, id));
    expect(meta.status).toBe('completed');
    expect(meta.episodes[0]).toMatchObject({ winner: null, seat_scores: [50, 50] });
    for (const s of steps) {
      const hit = (s.view_inputs as { hit?: string }[] | undefined)?.[0]?.hit;
      const click = (s.actions as { parameters: { x: number; y: number } }[])[0];
      if (hit && click) cellAt.set(hit, click.parameters);
    }
    expect(cellAt.size).toBe(9);
  });

  it('starts PvP Tic-Tac-Toe with a model in each seat and shows both seats live', async () => {
    await page.getByTestId('tab-targets').click();
    await page.getByTestId('game-tictactoe-pvp').click();
    await page.getByTestId('seat-agent-0').selectOption('vlm');
    await page.getByTestId('seat-model-0').fill('model-a');
    await page.getByTestId('seat-agent-1').selectOption('vlm');
    await page.getByTestId('seat-model-1').fill('model-b');
    await page.getByLabel('Episodes').fill('3');
    await page.getByTestId('start').click();
    await expect.poll(status, { timeout: 30000 }).toBe('running');
    await expect.poll(() => page.getByTestId('tab-live').getAttribute('aria-selected')).toBe('true');
    expect((await shell.api.request('state')).run?.seats).toEqual([
      { seat: 0, name: 'X', agent: 'vlm:model-a', model: 'model-a' },
      { seat: 1, name: 'O', agent: 'vlm:model-b', model: 'model-b' },
    ]);
    expect(await text('seat-head-0')).toMatch(/^X · vlm:model-a/);
    expect(await text('seat-head-1')).toMatch(/^O · vlm:model-b/);

    // One seat's answer streams (part of it, no actions yet) while the other's stays in its own column.
    const seen = { streamingBeside: false };
    await expect
      .poll(
        async () => {
          const [x, o] = [await text('seat-reasoning-0'), await text('seat-reasoning-1')];
          const partial = (t: string) => t.startsWith('### Reasoning') && !t.includes('### Actions');
          if ((partial(x) && o.includes('O (model-b) takes')) || (partial(o) && x.includes('X (model-a) takes')))
            seen.streamingBeside = true;
          return seen.streamingBeside && x.includes('X (model-a)') && o.includes('O (model-b)');
        },
        { timeout: 30000, interval: 40 },
      )
      .toBe(true);
    expect(await text('seat-reasoning-0')).not.toContain('O (model-b)');
    expect(await text('seat-reasoning-1')).not.toContain('X (model-a)');

    // Both seats' last clicks on the one frame, each in its seat's colour.
    await expect.poll(clickColours, { timeout: 20000 }).toEqual([...SEAT_COLOURS].sort());

    // The first episode: X wins, and the scores and the winner show.
    await expect.poll(() => text('seat-result'), { timeout: 40000 }).toMatch(/^episode 1: X won \(X 100 · O 0\)/);
    expect(await text('seat-score-0')).toMatch(/^\d+$/);
    expect(await text('seat-score-1')).toMatch(/^\d+$/);
    // For the screenshot: X's answer half streamed beside O's last one, both seats' clicks on the board.
    await expect
      .poll(
        async () => {
          const x = await text('seat-reasoning-0');
          const streaming = x.startsWith('### Reasoning') && x.includes('centre row') && !x.includes('### Actions');
          return streaming && (await clickColours()).length === 2;
        },
        { timeout: 30000, interval: 40 },
      )
      .toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'seats-live.png') });
  });

  it('pauses, steps once, resumes, switches latency, and Stop ends it', async () => {
    await page.getByRole('button', { name: /Pause/ }).click();
    await expect.poll(status, { timeout: 15000 }).toBe('paused');
    const frame = page.getByTestId('live-frame');
    // Steps in order across episodes (a step may start the next episode).
    const frameStep = async () =>
      Number(await frame.getAttribute('data-episode')) * 1000 + Number(await frame.getAttribute('data-step'));
    const before = await frameStep();
    await page.getByRole('button', { name: /Step/ }).click();
    await expect.poll(frameStep, { timeout: 15000 }).toBeGreaterThan(before);
    await page.getByRole('button', { name: /Resume/ }).click();
    await expect.poll(status, { timeout: 15000 }).toBe('running');
    expect(await shell.api.request('setLatency', { mode: 'stop' })).toMatchObject({ mode: 'stop' });
    await expect(shell.api.request('setReflection', { mode: 'self-f' })).rejects.toMatchObject({
      code: 'bad-input',
      message: 'a two-seat run has no reflection yet',
    });
    const runId = (await shell.api.request('state')).run!.id;
    await page.getByRole('button', { name: /Stop/ }).click();
    await expect.poll(status, { timeout: 15000 }).toBe('idle');
    const { meta } = readRun(path.join(shell.runsDir, runId));
    expect(meta.status).toBe('stopped');
    expect(meta.episodes[0]).toMatchObject({ winner: 0, seat_scores: [100, 0] });
  });

  it('the Runs tab replays it, each seat’s click in its colour', async () => {
    await page.getByTestId('tab-runs').click();
    await page.getByTestId('run-row').filter({ hasText: 'vlm:model-a vs vlm:model-b' }).click();
    await page.getByTestId('replay-frame').waitFor({ timeout: 15_000 });
    const click = page.locator('svg[aria-label="actions overlay"] [data-testid="overlay-click"]');
    const mark = async () => [await click.locator('circle').first().getAttribute('stroke'), await click.textContent()];
    await expect.poll(mark).toEqual([SEAT_COLOURS[0], 'X']);
    await page.getByRole('button', { name: 'next step' }).click();
    await expect.poll(() => text('replay-position')).toMatch(/step 2 /);
    await expect.poll(mark).toEqual([SEAT_COLOURS[1], 'O']);
  });
});
