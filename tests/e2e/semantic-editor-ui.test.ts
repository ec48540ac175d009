/**
 * A profile's semantic actions in the real UI (web shell in Debian's Chromium) on a real
 * sgt-fifteen window set to 360×460: a user's profile whose `semantic` section lays a 4×4
 * `grids.board` over the tray (measured off the window's pixels) and declares `slide(row,
 * column)` (a click on a cell) and `arrow(direction)`. The New run tab's profile form draws the
 * points, the region and the grid (its lines and 16 cells) over the window's live thumbnail, lists
 * the actions, and Try performs a call on the window: a valid one slides a tile (the window's
 * pixels change where the tile was and went), `slide(row=5, column=1)` is refused with the reason
 * and the window stays as it was. The contract's refusals: an unknown profile or window, a
 * profile with no semantic section, a Try while another is going and while a run is going. And
 * the Runs tab's replay of a step in the semantic space draws the GUI actions the call became
 * (its outcome's `expanded`) labelled with the call, beside a plain GUI step drawn as before.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';
import { launchUiBrowser, shellClient, startWebShellCli, type WebShellProcess } from '../helpers/web-ui.ts';
import { placeWindow, startWindow, stop } from '../helpers/windows.ts';
import { createCapturer } from '../../electron/capture/index.ts';
import { encodeFrame } from '../../electron/capture/encode.ts';
import type { RawFrame } from '../../electron/capture/capturer.ts';
import { RunStore } from '../../electron/store/run-store.ts';
import type { WsClient } from '../../renderer/src/api/clients.ts';
import type { WindowInfo } from '../../native/index.ts';

const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');
// Row-major, 0 = the gap at row 2, column 2: tile 5 (row 2, column 1) can slide right into it.
const LAYOUT = '4x4:1,2,3,4,5,0,6,7,9,10,11,8,13,14,15,12';
const SIZE = { width: 360, height: 460 };
const POINTS = { menu_game: { x: 0.075, y: 0.026 }, moves: { x: 0.12, y: 0.955 } };
/** Pixels of slack between the drawn layout and where its fractions put it on the thumbnail. */
const PX = 2;

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

let web: WebShellProcess;
let api: WsClient;
let browser: Browser;
let page: Page;
let fifteen: { child: ChildProcess; window: WindowInfo } | undefined;
/** The tray's tiles in window pixels, measured off the window. */
let board: Rect;
let runsDir = '';
const capturer = createCapturer();

const grab = () => capturer.grab(fifteen!.window.bounds);
const gray = (f: RawFrame, x: number, y: number) => {
  const i = (y * f.width + x) * f.channels;
  return (f.data[i]! + f.data[i + 1]! + f.data[i + 2]!) / 3;
};
const dark = (v: number) => v < 190;

/**
 * The tray of tiles, in window pixels: sgt-fifteen draws it with a dark border on its top and
 * left and a white one on its bottom and right, of one width, around 4×4 tiles.
 */
function measureBoard(f: RawFrame): Rect {
  const y = Math.round(f.height / 2);
  let left = 0;
  while (left < f.width && !dark(gray(f, left, y))) left++;
  let border = 0;
  while (dark(gray(f, left + border, y))) border++;
  let right = f.width - 1;
  while (right > left && gray(f, right, y) < 245) right--;
  // Down the left border: its longest dark run is the tray's height.
  const x = left + 1;
  let [top, bottom, runStart] = [0, 0, -1];
  for (let yy = 0; yy <= f.height; yy++) {
    const isDark = yy < f.height && dark(gray(f, x, yy));
    if (isDark && runStart < 0) runStart = yy;
    if (!isDark && runStart >= 0) {
      if (yy - runStart > bottom - top) [top, bottom] = [runStart, yy];
      runStart = -1;
    }
  }
  return {
    x: left + border,
    y: top + border,
    width: right + 1 - border - (left + border),
    height: bottom - border - (top + border),
  };
}

/** Pixels (of the window) that differ by more than a little between two captures, inside `r`. */
function changedIn(a: RawFrame, b: RawFrame, r: Rect): number {
  let n = 0;
  for (let y = Math.round(r.y); y < Math.round(r.y + r.height); y++)
    for (let x = Math.round(r.x); x < Math.round(r.x + r.width); x++)
      if (Math.abs(gray(a, x, y) - gray(b, x, y)) > 40) n++;
  return n;
}

const cell = (row: number, column: number): Rect => ({
  x: board.x + ((column - 1) * board.width) / 4,
  y: board.y + ((row - 1) * board.height) / 4,
  width: board.width / 4,
  height: board.height / 4,
});
const centre = (r: Rect) => ({ x: r.x + r.width / 2, y: r.y + r.height / 2 });
const round4 = (n: number) => Math.round(n * 10000) / 10000;

/** The user's sgt-fifteen (replacing the shipped one by id) with a semantic section over the measured tray. */
function writeProfile(file: string) {
  const profile = parse(readFileSync(path.join(ROOT, 'games', 'sgt-fifteen', 'profile.yaml'), 'utf8'));
  profile.actions = { ...profile.actions, semantic: true };
  profile.semantic = {
    resolution: `${SIZE.width}x${SIZE.height}`,
    points: POINTS,
    regions: {
      tray: {
        x: round4(board.x / SIZE.width),
        y: round4(board.y / SIZE.height),
        width: round4(board.width / SIZE.width),
        height: round4(board.height / SIZE.height),
      },
    },
    grids: { board: { region: 'tray', rows: 4, columns: 4 } },
    actions: {
      slide: {
        description: 'Click the tile at row, column (from 1 at the top left) to slide it toward the gap.',
        params: {
          row: { type: 'integer', min: 1, max: 4 },
          column: { type: 'integer', min: 1, max: 4 },
        },
        example: { row: 2, column: 1 },
        do: [{ click: { grid: 'board', row: 'row', column: 'column' } }],
      },
      arrow: {
        description: 'Slide the tile on that side of the gap into it.',
        params: { direction: { type: 'choice', values: ['up', 'down', 'left', 'right'] } },
        do: [{ press: '$direction' }],
      },
      linger: {
        description: 'Wait a long time, then slide the tile at row 1, column 1.',
        do: [{ wait: 30 }, { click: { grid: 'board', row: 1, column: 1 } }],
      },
    },
  };
  writeFileSync(file, stringify(profile));
}

/** A finished run in the semantic space whose steps the replay draws, on a real frame of the window. */
async function writeReplayRun(frame: RawFrame): Promise<string> {
  const store = RunStore.create(runsDir, {
    kind: 'agent',
    game: null,
    target: { kind: 'window', label: 'Fifteen' },
    agent: 'vlm',
    model: 'test-vlm',
    action_space: 'semantic',
    config: {},
  });
  const jpeg = await encodeFrame(frame, { imageSize: 1280, format: 'jpeg', quality: 80 });
  const latency = { locate: 0, capture: 0, encode: 0, model: 0, act: 0, total: 0 };
  const at = centre(cell(2, 1));
  const steps = [
    // A semantic call and the click it became.
    {
      actions: [{ action: 'slide(row=2, column=1)' }],
      outcomes: [
        {
          action: 'slide(row=2, column=1)',
          ok: true,
          expanded: [{ action_type: 'CLICK', parameters: { x: at.x, y: at.y } }],
        },
      ],
    },
    // A plain GUI click: numbered as before, no call label.
    {
      actions: [{ action_type: 'CLICK', parameters: { x: 100, y: 100 } }],
      outcomes: [{ action: 'CLICK', ok: true }],
    },
    // A call that became a key press only: its label is a caption, the key a badge.
    {
      actions: [{ action: 'arrow(direction=up)' }],
      outcomes: [
        {
          action: 'arrow(direction=up)',
          ok: true,
          expanded: [{ action_type: 'PRESS', parameters: { key: 'up' } }],
        },
      ],
    },
  ];
  for (const [i, s] of steps.entries())
    store.appendStep({
      step: i,
      episode: 0,
      t_capture: Date.now() + i * 500,
      frame: store.writeFrame(0, i, jpeg.data, 'jpg'),
      frame_size: { width: jpeg.width, height: jpeg.height, scale: jpeg.scale },
      reasoning: `step ${i + 1}`,
      raw: null,
      ...s,
      errors: [],
      latency_ms: latency,
    });
  store.close('completed', undefined, {
    episodes: [{ episode: 0, seed: 0, score: null, steps: steps.length, end: 'max-steps' }],
  });
  return store.meta.id;
}

/** The form's semantic section as a picture in test-artifacts/ui/. */
async function shotOfLayout(file: string) {
  // In a viewport tall enough that the run options, which stick to its bottom, lie below the section.
  const viewport = page.viewportSize()!;
  await page.setViewportSize({ width: viewport.width, height: 2400 });
  await page.getByTestId('semantic-layout').screenshot({ path: path.join(SHOTS, file) });
  await page.setViewportSize(viewport);
}

/** An element's box relative to the thumbnail's. */
async function onThumb(testId: string, nth = 0) {
  const img = (await page.getByTestId('semantic-thumb').boundingBox())!;
  const b = (await page.getByTestId(testId).nth(nth).boundingBox())!;
  return { img, x: b.x - img.x, y: b.y - img.y, w: b.width, h: b.height };
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const tmp = mkdtempSync(path.join(tmpdir(), 'gp-semantic-ui-'));
  const configDir = path.join(tmp, 'config');
  runsDir = path.join(tmp, 'runs');
  mkdirSync(path.join(configDir, 'profiles'), { recursive: true });
  mkdirSync(runsDir, { recursive: true });
  fifteen = await startWindow('/usr/games/sgt-fifteen', [LAYOUT], /^Fifteen$/);
  // Beside the browser, so nothing covers it and the thumbnail shows it whole.
  fifteen.window = await placeWindow(fifteen.window.id, 1100, 120, SIZE);
  expect(fifteen.window.bounds).toMatchObject(SIZE);
  await new Promise((r) => setTimeout(r, 800)); // let GTK draw at the new size
  const first = await grab();
  board = measureBoard(first);
  // Four square tiles a side, well inside the window.
  expect(Math.abs(board.width - board.height)).toBeLessThanOrEqual(4);
  expect(board.width).toBeGreaterThan(SIZE.width / 2);
  expect(board.x + board.width).toBeLessThan(SIZE.width);
  writeProfile(path.join(configDir, 'profiles', 'sgt-fifteen.yaml'));
  await writeReplayRun(first);

  web = await startWebShellCli(['--no-demo', '--runs-dir', runsDir, '--config-dir', configDir]);
  api = shellClient(web);
  ({ browser, page } = await launchUiBrowser({ x: 0, width: 1000, height: 880 }));
  await page.goto(web.url);
});

afterAll(async () => {
  await api?.request('control', { action: 'stop' }).catch(() => {});
  api?.close();
  await browser?.close();
  if (web) await stop(web.child);
  if (fifteen) await stop(fifteen.child);
});

describe('the profile form’s semantic actions', () => {
  it('draws the points, the region and the 4×4 grid over the window’s thumbnail, where their fractions say', async () => {
    await page.getByTestId('tab-targets').click();
    await page.getByTestId('window-card').filter({ hasText: 'Fifteen' }).click();
    const current = page.getByTestId('profile-current');
    await expect.poll(() => current.textContent(), { timeout: 15_000 }).toMatch(/· user:/);
    await page.getByTestId('profile-edit').click();

    const thumb = page.getByTestId('semantic-thumb');
    await thumb.waitFor({ timeout: 15_000 });
    await expect.poll(() => thumb.evaluate((i: HTMLImageElement) => i.naturalWidth)).toBeGreaterThan(0);
    const natural = await thumb.evaluate((i: HTMLImageElement) => ({ w: i.naturalWidth, h: i.naturalHeight }));
    expect(natural.w / natural.h).toBeCloseTo(SIZE.width / SIZE.height, 1);
    await thumb.evaluate((i) => i.scrollIntoView({ block: 'center' }));

    // The grid: one, 4×4, with 3 row and 3 column lines and a label in each of its 16 cells.
    const grid = page.getByTestId('semantic-grid');
    expect(await grid.count()).toBe(1);
    expect(await grid.getAttribute('data-name')).toBe('board');
    expect(await grid.getAttribute('data-rows')).toBe('4');
    expect(await page.getByTestId('semantic-grid-row').count()).toBe(3);
    expect(await page.getByTestId('semantic-grid-column').count()).toBe(3);
    const cells = await page.getByTestId('semantic-cell').allTextContents();
    expect(cells).toHaveLength(16);
    expect(cells.slice(0, 5)).toEqual(['1,1', '1,2', '1,3', '1,4', '2,1']);
    expect(cells.at(-1)).toBe('4,4');
    // The region and the points, by name.
    expect(await page.getByTestId('semantic-region').getAttribute('data-name')).toBe('tray');
    expect(await page.getByTestId('semantic-region').textContent()).toBe('tray');
    const points = page.getByTestId('semantic-point');
    expect(await points.evaluateAll((ps) => ps.map((p) => p.getAttribute('data-name')))).toEqual(Object.keys(POINTS));
    expect(await points.allTextContents()).toEqual(Object.keys(POINTS));

    // On the picture where the tray is: the grid's outer rectangle over the measured tiles
    // (its stroke straddles the edges, so compare middles, and sizes with the stroke's slack).
    const img = (await thumb.boundingBox())!;
    const s = img.width / SIZE.width;
    const rb = (await grid.locator('rect').first().boundingBox())!;
    expect(Math.abs(rb.x + rb.width / 2 - (img.x + (board.x + board.width / 2) * s))).toBeLessThanOrEqual(PX);
    expect(Math.abs(rb.y + rb.height / 2 - (img.y + (board.y + board.height / 2) * s))).toBeLessThanOrEqual(PX);
    expect(Math.abs(rb.width - board.width * s)).toBeLessThanOrEqual(PX + 3);
    expect(Math.abs(rb.height - board.height * s)).toBeLessThanOrEqual(PX + 3);
    // The region is the same rectangle, and each point's dot where its fractions put it.
    const region = await onThumb('semantic-region');
    expect(Math.abs(region.x + region.w / 2 - (board.x + board.width / 2) * s)).toBeLessThanOrEqual(PX);
    for (const [i, p] of Object.values(POINTS).entries()) {
      const dot = (await points.nth(i).locator('circle').boundingBox())!;
      expect(Math.abs(dot.x + dot.width / 2 - (img.x + p.x * img.width))).toBeLessThanOrEqual(PX);
      expect(Math.abs(dot.y + dot.height / 2 - (img.y + p.y * img.height))).toBeLessThanOrEqual(PX);
    }
    // The second row's first cell label lies on tile 5, in its top left quarter.
    const c21 = (await page.getByTestId('semantic-cell').nth(4).boundingBox())!;
    const t5 = cell(2, 1);
    expect(c21.x).toBeGreaterThanOrEqual(img.x + t5.x * s - PX);
    expect(c21.y).toBeGreaterThanOrEqual(img.y + t5.y * s - PX);
    expect(c21.x + c21.width).toBeLessThanOrEqual(img.x + centre(t5).x * s + PX);
    expect(c21.y + c21.height).toBeLessThanOrEqual(img.y + centre(t5).y * s + PX);

    // The actions with their parameters and examples.
    const actions = page.getByTestId('semantic-action');
    expect(await actions.evaluateAll((as) => as.map((a) => a.getAttribute('data-name')))).toEqual([
      'slide',
      'arrow',
      'linger',
    ]);
    expect(await actions.first().textContent()).toMatch(/slide\(row, column\).*row: integer 1–4.*column: integer 1–4/s);
    expect(await page.getByTestId('semantic-call-slide').inputValue()).toBe('slide(row=2, column=1)');
    expect(await page.getByTestId('semantic-call-arrow').inputValue()).toBe('arrow(direction=up)');
    await shotOfLayout('semantic-layout.png');
  });

  it('Try with a valid call slides the tile on the real window and shows the click it became', async () => {
    const before = await grab();
    await page.getByTestId('semantic-try-slide').click();
    const outcome = page.getByTestId('semantic-outcome-slide');
    await outcome.waitFor({ timeout: 15_000 });
    expect(await outcome.getAttribute('data-ok')).toBe('true');
    const t5 = centre(cell(2, 1));
    expect(await outcome.textContent()).toBe(
      `ok: slide(row=2, column=1) → CLICK(x=${Math.round(t5.x)}, y=${Math.round(t5.y)})`,
    );
    // Tile 5 left (2,1) for the gap at (2,2): both squares changed, the rest of the tray did not.
    // (It slides in an animation: wait until both have changed, the digit drawn.)
    await expect
      .poll(
        async () => {
          const now = await grab();
          return Math.min(changedIn(before, now, cell(2, 1)), changedIn(before, now, cell(2, 2)));
        },
        { timeout: 5000 },
      )
      .toBeGreaterThan(60);
    await new Promise((r) => setTimeout(r, 300));
    const after = await grab();
    expect(changedIn(before, after, cell(2, 1))).toBeGreaterThan(60);
    expect(changedIn(before, after, cell(2, 2))).toBeGreaterThan(60);
    expect(changedIn(before, after, cell(1, 1))).toBe(0);
    expect(changedIn(before, after, cell(3, 3))).toBe(0);
    // The click is drawn on the thumbnail where it landed.
    const mark = page.getByTestId('semantic-try-mark');
    expect(Number(await mark.getAttribute('data-x'))).toBeCloseTo(t5.x, 0);
    expect(Number(await mark.getAttribute('data-y'))).toBeCloseTo(t5.y, 0);
    await shotOfLayout('semantic-try.png');
  });

  it('Try with a row outside the grid is refused with the reason, and the window does not change', async () => {
    await page.getByTestId('semantic-call-slide').fill('slide(row=5, column=1)');
    await new Promise((r) => setTimeout(r, 300));
    const before = await grab();
    await page.getByTestId('semantic-try-slide').click();
    const outcome = page.getByTestId('semantic-outcome-slide');
    await expect.poll(() => outcome.getAttribute('data-ok')).toBe('false');
    expect(await outcome.textContent()).toBe(
      'refused: slide: row is 5; it must be a whole number from 1 to 4; nothing was sent',
    );
    await new Promise((r) => setTimeout(r, 600));
    const after = await grab();
    expect(changedIn(before, after, { x: 0, y: 0, width: SIZE.width, height: SIZE.height })).toBe(0);
    await shotOfLayout('semantic-refused.png');
  });

  it('the contract refuses an unknown profile or window, a profile without moves, and Try while busy', async () => {
    const windowId = fifteen!.window.id;
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => ({ code: 'none', message: '' }),
        (e: { code: string; message: string }) => ({ code: e.code, message: e.message }),
      );
    expect(
      await failure(api.request('trySemanticAction', { id: 'no-such-profile', windowId, call: 'slide(1, 1)' })),
    ).toMatchObject({ code: 'not-found', message: 'no profile with id "no-such-profile"' });
    expect(
      await failure(
        api.request('trySemanticAction', { id: 'sgt-fifteen', windowId: '0x7ffffff1', call: 'slide(1, 1)' }),
      ),
    ).toMatchObject({ code: 'not-found' });
    expect(
      await failure(api.request('trySemanticAction', { id: 'sgt-mines', windowId, call: 'slide(1, 1)' })),
    ).toMatchObject({ code: 'bad-input', message: expect.stringMatching(/declares no semantic actions/) });
    expect(
      await failure(api.request('trySemanticAction', { id: 'sgt-fifteen', windowId, call: 'jump(3)' })),
    ).toMatchObject({
      code: 'bad-input',
      message: expect.stringMatching(/^unknown action "jump"; the actions are slide, arrow/),
    });
    expect(await failure(api.request('trySemanticAction', { id: 'sgt-fifteen', windowId, call: '' }))).toMatchObject({
      code: 'bad-input',
      message: expect.stringMatching(/call/),
    });

    // Two at once: the second is refused while the first is sending (it answers, in order).
    const before = await grab();
    const [one, two] = await Promise.all([
      failure(api.request('trySemanticAction', { id: 'sgt-fifteen', windowId, call: 'slide(row=2, column=2)' })),
      failure(api.request('trySemanticAction', { id: 'sgt-fifteen', windowId, call: 'slide(row=2, column=2)' })),
    ]);
    expect(one.code).toBe('none');
    expect(two).toMatchObject({ code: 'busy', message: 'another action is being tried; wait for its outcome' });
    // The one sent slid tile 5 back: (2,1) drawn again.
    await expect.poll(async () => changedIn(before, await grab(), cell(2, 1)), { timeout: 5000 }).toBeGreaterThan(60);

    // Stop ends a tried action's wait at once; what came after the wait is not sent.
    // (once the slide above has finished drawing: two captures alike)
    let still = await grab();
    for (let i = 0; i < 50; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const next = await grab();
      if (changedIn(still, next, board) === 0) break;
      still = next;
    }
    const t0 = Date.now();
    const lingering = api.request('trySemanticAction', { id: 'sgt-fifteen', windowId, call: 'linger' });
    await new Promise((r) => setTimeout(r, 500));
    await api.request('control', { action: 'stop' });
    const stopped = await lingering;
    expect(Date.now() - t0).toBeLessThan(10_000); // the wait was 30 s
    expect(stopped.ok).toBe(false);
    expect(stopped.outcomes.map((o) => o.action)).toEqual(['WAIT']);
    await new Promise((r) => setTimeout(r, 500));
    expect(changedIn(still, await grab(), board)).toBe(0);

    // While a run is going, nothing else sends input.
    await api.request('startRun', {
      target: { windowId },
      agent: 'random',
      actionSpace: 'gui',
      episodes: 1,
      maxSteps: 1000,
      paceMs: 5000,
      profile: 'sgt-fifteen',
    });
    try {
      expect(
        await failure(
          api.request('trySemanticAction', { id: 'sgt-fifteen', windowId, call: 'slide(row=1, column=1)' }),
        ),
      ).toMatchObject({ code: 'busy', message: expect.stringMatching(/^a run is going/) });
    } finally {
      await api.request('control', { action: 'stop' });
    }
  });
});

describe('the replay of a semantic step', () => {
  it('draws the GUI actions a call became, labelled with the call; a plain GUI step as before', async () => {
    await page.getByTestId('tab-runs').click();
    await page.getByTestId('run-row').filter({ hasText: 'test-vlm' }).click();
    await page.getByTestId('replay-frame').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('replay-position').textContent()).toMatch(/step 1 /);
    const overlay = page.locator('svg[aria-label="actions overlay"]');
    await overlay.waitFor();

    // Step 1: the call's click where the expansion put it, and the call's text by it.
    const t5 = centre(cell(2, 1));
    const click = overlay.getByTestId('overlay-click');
    expect(await click.count()).toBe(1);
    expect(Number(await click.getAttribute('data-x'))).toBeCloseTo(t5.x, 3);
    expect(Number(await click.getAttribute('data-y'))).toBeCloseTo(t5.y, 3);
    const label = overlay.getByTestId('overlay-call');
    expect(await label.count()).toBe(1);
    expect(await label.textContent()).toBe('slide(row=2, column=1)');
    // On the screen: the mark over tile 5 of the frame, the label beside it and inside the frame.
    const frame = (await page.getByTestId('replay-frame').boundingBox())!;
    const s = frame.width / SIZE.width;
    const dot = (await click.locator('circle').nth(1).boundingBox())!;
    expect(Math.abs(dot.x + dot.width / 2 - (frame.x + t5.x * s))).toBeLessThanOrEqual(PX);
    expect(Math.abs(dot.y + dot.height / 2 - (frame.y + t5.y * s))).toBeLessThanOrEqual(PX);
    const lb = (await label.boundingBox())!;
    expect(lb.x).toBeGreaterThanOrEqual(frame.x - 1);
    expect(lb.x + lb.width).toBeLessThanOrEqual(frame.x + frame.width + 1);
    expect(Math.hypot(lb.x + lb.width / 2 - dot.x, lb.y + lb.height / 2 - dot.y)).toBeLessThan(frame.width);
    // The call is not also a key badge (the badges are the translated groups at the bottom).
    expect(await overlay.locator('g[transform^="translate"]').count()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, 'semantic-replay.png'), fullPage: true });

    // Step 2: a plain GUI click, numbered, with no call label.
    await page.getByRole('button', { name: 'next step' }).click();
    await expect.poll(() => page.getByTestId('replay-position').textContent()).toMatch(/step 2 /);
    await expect.poll(() => overlay.getByTestId('overlay-click').getAttribute('data-x')).toBe('100');
    expect(await overlay.getByTestId('overlay-call').count()).toBe(0);
    expect(await overlay.getByTestId('overlay-click').textContent()).toBe('1');

    // Step 3: a call that became a key press: the call as a caption, the key as a badge, no mark.
    await page.getByRole('button', { name: 'next step' }).click();
    await expect.poll(() => page.getByTestId('replay-position').textContent()).toMatch(/step 3 /);
    await expect.poll(() => overlay.getByTestId('overlay-call').textContent()).toBe('arrow(direction=up)');
    expect(await overlay.getByTestId('overlay-click').count()).toBe(0);
    expect(await overlay.locator('g[transform^="translate"]').allTextContents()).toEqual(['up']);
  });
});
