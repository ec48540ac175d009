/**
 * The profile form's region picker in the real UI (web shell in Debian's Chromium) on a real
 * sgt-fifteen window: a user's profile scored by OCR of a region shows that region drawn over the
 * window's live thumbnail; typing a fraction moves the box, dragging a rectangle on the picture
 * sets a new region, and saving writes it (and the OCR reader) to the profile file on disk; OCR
 * with no region is refused.
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';
import { writeFifteenProfile } from '../helpers/profiles.ts';
import { launchUiBrowser, startWebShellCli } from '../helpers/web-ui.ts';
import { placeWindow, startWindow, stop } from '../helpers/windows.ts';
import { loadProfileFile } from '../../electron/profiles/load.ts';
import type { WindowInfo } from '../../native/index.ts';

const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');
const REGION = { x: 0, y: 0.86, width: 0.7, height: 0.14 };
/** Two pixels of slack for the box's edges (rounding of percentages to device pixels). */
const PX = 2;

let web: ChildProcess;
let browser: Browser;
let page: Page;
let fifteen: { child: ChildProcess; window: WindowInfo } | undefined;
let profileFile = '';

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const tmp = mkdtempSync(path.join(tmpdir(), 'gp-profile-region-'));
  const configDir = path.join(tmp, 'config');
  mkdirSync(path.join(configDir, 'profiles'), { recursive: true });
  // The user's own Fifteen (replacing the shipped one by id), its move count read by OCR.
  profileFile = path.join(configDir, 'profiles', 'sgt-fifteen.yaml');
  writeFifteenProfile(profileFile, {
    id: 'sgt-fifteen',
    scoring: [
      'kind: screen',
      'read: the move count in the status line at the bottom',
      'reader: ocr',
      `region: ${JSON.stringify(REGION)}`,
      'normaliser: { divisor: 20 }',
      'combine: last',
    ],
  });
  const shell = await startWebShellCli(['--no-demo', '--runs-dir', path.join(tmp, 'runs'), '--config-dir', configDir]);
  web = shell.child;
  fifteen = await startWindow('/usr/games/sgt-fifteen', [], /^Fifteen$/);
  // Beside the browser, so nothing covers it and the thumbnail shows it whole.
  fifteen.window = await placeWindow(fifteen.window.id, 1100, 120);
  ({ browser, page } = await launchUiBrowser({ x: 0, width: 1000, height: 880 }));
  await page.goto(shell.url);
});

afterAll(async () => {
  await browser?.close();
  if (web) await stop(web);
  if (fifteen) await stop(fifteen.child);
});

interface BoxOnThumb {
  img: { width: number; height: number };
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The region box's place and size in pixels from the thumbnail's top left, as laid out, with the thumbnail's size. */
async function boxOnThumb(): Promise<BoxOnThumb> {
  const img = (await page.getByTestId('region-thumb').boundingBox())!;
  const box = (await page.getByTestId('region-box').boundingBox())!;
  return { img, x: box.x - img.x, y: box.y - img.y, w: box.width, h: box.height };
}

function expectBoxAt(b: BoxOnThumb, r: typeof REGION) {
  expect(Math.abs(b.x - r.x * b.img.width)).toBeLessThanOrEqual(PX);
  expect(Math.abs(b.y - r.y * b.img.height)).toBeLessThanOrEqual(PX);
  expect(Math.abs(b.w - r.width * b.img.width)).toBeLessThanOrEqual(PX);
  expect(Math.abs(b.h - r.height * b.img.height)).toBeLessThanOrEqual(PX);
}

describe('the profile form’s region picker', () => {
  it('draws the profile’s region on the window’s thumbnail, and saves a dragged one', async () => {
    await page.getByTestId('tab-targets').click();
    await page.getByTestId('window-card').filter({ hasText: 'Fifteen' }).click();
    const current = page.getByTestId('profile-current');
    await expect.poll(() => current.textContent(), { timeout: 15_000 }).toMatch(/· user:/);
    await page.getByTestId('profile-edit').click();

    // The live picture of the window itself: its shape is the window's.
    const thumb = page.getByTestId('region-thumb');
    await thumb.waitFor({ timeout: 15_000 });
    await expect.poll(() => thumb.evaluate((i: HTMLImageElement) => i.naturalWidth)).toBeGreaterThan(0);
    const natural = await thumb.evaluate((i: HTMLImageElement) => ({ w: i.naturalWidth, h: i.naturalHeight }));
    const { width, height } = fifteen!.window.bounds;
    expect(Math.max(natural.w, natural.h)).toBeLessThanOrEqual(480);
    expect(natural.w / natural.h).toBeCloseTo(width / height, 1);
    expect(await page.getByTestId('score-reader').inputValue()).toBe('ocr');
    expectBoxAt(await boxOnThumb(), REGION);

    // A typed fraction moves the box.
    await page.getByTestId('region-x').fill('0.2');
    await expect
      .poll(async () => {
        const b = await boxOnThumb();
        return Math.abs(b.x - 0.2 * b.img.width) <= PX;
      })
      .toBe(true);
    expectBoxAt(await boxOnThumb(), { ...REGION, x: 0.2 });

    // Drag a new rectangle, from its bottom right corner to its top left (either way spans it).
    // The mouse reaches only what is in view, and the run options stick to the viewport's bottom.
    await thumb.evaluate((i) => i.scrollIntoView({ block: 'center' }));
    const img = (await thumb.boundingBox())!;
    const from = { x: img.x + 0.65 * img.width, y: img.y + 0.55 * img.height };
    const to = { x: img.x + 0.15 * img.width, y: img.y + 0.25 * img.height };
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 8 });
    await page.mouse.up();
    const dragged = { x: 0.15, y: 0.25, width: 0.5, height: 0.3 };
    expectBoxAt(await boxOnThumb(), dragged);
    // The fields follow the drag.
    expect(Number(await page.getByTestId('region-width').inputValue())).toBeCloseTo(dragged.width, 1);
    await page.screenshot({ path: path.join(SHOTS, 'profile-region.png'), fullPage: true });

    await page.getByTestId('profile-save').click();
    await expect.poll(() => page.getByTestId('profile-form').count()).toBe(0);
    const { profile } = loadProfileFile(profileFile);
    if (profile.scoring.kind !== 'screen') throw new Error(`saved scoring is ${profile.scoring.kind}`);
    expect(profile.scoring.reader).toBe('ocr');
    // Within two pixels of the thumbnail.
    const tol = PX / Math.min(img.width, img.height);
    for (const k of ['x', 'y', 'width', 'height'] as const)
      expect(Math.abs(profile.scoring.region![k] - dragged[k]), k).toBeLessThanOrEqual(tol);
    // The rest of the scoring came along unchanged.
    expect(profile.scoring).toMatchObject({ normaliser: { divisor: 20 }, combine: 'last' });
  });

  it('OCR without a region is refused with the profile schema’s reason, and nothing is saved', async () => {
    await page.getByTestId('profile-edit').click();
    await page.getByTestId('region-clear').click();
    expect(await page.getByTestId('region-box').count()).toBe(0);
    const before = readFileSync(profileFile, 'utf8');
    await page.getByTestId('profile-save').click();
    await expect
      .poll(() => page.locator('body').textContent())
      .toMatch(/not saved: scoring\.region: OCR reads a region/);
    expect(readFileSync(profileFile, 'utf8')).toBe(before);
  });
});
