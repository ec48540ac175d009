/**
 * The profile form's episode section in the real UI (web shell in Debian's Chromium) on a real
 * sgt-fifteen window: a pixels end detector whose region is drawn over the live thumbnail, tried
 * on the window's current frame — the share it reports is the share counted here on a capture of
 * the window, and it fires exactly when that share reaches the detector's; reset steps (press n)
 * tried on the window start a new game (the tray's pixels change in a capture); an image detector
 * whose template is cut from the current frame at its region fires on that frame; saving writes
 * it all to the user's profile, which loads with those fields. The contract's refusals: a template
 * name that is a path, a detector that is not a usable pattern.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';
import { launchUiBrowser, shellClient, startWebShellCli, type WebShellProcess } from '../helpers/web-ui.ts';
import { placeWindow, startWindow, stop } from '../helpers/windows.ts';
import { createCapturer } from '../../electron/capture/index.ts';
import type { RawFrame } from '../../electron/capture/capturer.ts';
import { loadProfileFile } from '../../electron/profiles/load.ts';
import type { WsClient } from '../../renderer/src/api/clients.ts';
import type { WindowInfo } from '../../native/index.ts';

const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');
const LAYOUT = '4x4:1,2,3,4,5,0,6,7,9,10,11,8,13,14,15,12';
const SIZE = { width: 360, height: 460 };

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
let configDir = '';
let profileFile = '';
const capturer = createCapturer();
const grab = () => capturer.grab(fifteen!.window.bounds);

/** A pixel's red, green and blue, whatever order the capture delivered them in. */
function rgb(f: RawFrame, x: number, y: number): [number, number, number] {
  const i = (y * f.width + x) * f.channels;
  return f.order === 'bgra'
    ? [f.data[i + 2]!, f.data[i + 1]!, f.data[i]!]
    : [f.data[i]!, f.data[i + 1]!, f.data[i + 2]!];
}
const hex = (c: number[]) => `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`;

/** A region in fractions of the window as pixels of this frame (rounded to the nearest pixel). */
function inPixels(f: RawFrame, r: Rect): Rect {
  const x = Math.round(r.x * f.width);
  const y = Math.round(r.y * f.height);
  return { x, y, width: Math.round(r.width * f.width), height: Math.round(r.height * f.height) };
}

/** The share of the region's pixels within `tolerance` of `colour` in every channel, counted on the capture. */
function shareOf(f: RawFrame, r: Rect, colour: number[], tolerance: number): number {
  const p = inPixels(f, r);
  let hits = 0;
  for (let y = p.y; y < p.y + p.height; y++)
    for (let x = p.x; x < p.x + p.width; x++)
      if (rgb(f, x, y).every((v, c) => Math.abs(v - colour[c]!) <= tolerance)) hits++;
  return hits / (p.width * p.height);
}

/** Pixels that differ (grey, by more than 40) between two captures of the window. */
function changed(a: RawFrame, b: RawFrame): number {
  let n = 0;
  for (let y = 0; y < a.height; y++)
    for (let x = 0; x < a.width; x++) {
      const [p, q] = [rgb(a, x, y), rgb(b, x, y)];
      if (Math.abs(p[0] + p[1] + p[2] - q[0] - q[1] - q[2]) / 3 > 40) n++;
    }
  return n;
}

/** Drags over a region's thumbnail from one point to another (fractions of the picture). */
async function drawOn(testId: string, from: { x: number; y: number }, to: { x: number; y: number }) {
  const thumb = page.getByTestId(`${testId}-thumb`);
  await thumb.waitFor({ timeout: 15_000 });
  await expect
    .poll(() => thumb.evaluate((i: HTMLImageElement) => i.naturalWidth), { timeout: 15_000 })
    .toBeGreaterThan(0);
  await thumb.evaluate((i) => i.scrollIntoView({ block: 'center' }));
  const img = (await thumb.boundingBox())!;
  await page.mouse.move(img.x + from.x * img.width, img.y + from.y * img.height);
  await page.mouse.down();
  await page.mouse.move(img.x + to.x * img.width, img.y + to.y * img.height, { steps: 8 });
  await page.mouse.up();
}

/** The region the form holds for a detector, read from its four fields. */
async function regionOf(testId: string): Promise<Rect> {
  const side = async (k: string) => Number(await page.getByTestId(`${testId}-${k}`).inputValue());
  return { x: await side('x'), y: await side('y'), width: await side('width'), height: await side('height') };
}

/** Clicks a detector's "try it" and waits for its answer: the state and the text shown. */
async function tryDetector(i: number) {
  const result = page.getByTestId(`end-${i}-result`);
  const before = (await result.count()) ? await result.textContent() : null;
  await page.getByTestId(`end-${i}-try`).click();
  await expect
    .poll(async () => ((await result.count()) ? await result.textContent() : before), { timeout: 20_000 })
    .not.toBe(before);
  await result.waitFor();
  return { state: await result.getAttribute('data-state'), text: (await result.textContent())! };
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const tmp = mkdtempSync(path.join(tmpdir(), 'gp-end-reset-ui-'));
  configDir = path.join(tmp, 'config');
  mkdirSync(path.join(configDir, 'profiles'), { recursive: true });
  // The user's sgt-fifteen with no episode end or reset of its own (whatever the shipped one declares).
  const shipped = parse(readFileSync(path.join(ROOT, 'games', 'sgt-fifteen', 'profile.yaml'), 'utf8'));
  const { end: _e, reset: _r, startWithReset: _s, ...episode } = shipped.episode;
  profileFile = path.join(configDir, 'profiles', 'sgt-fifteen.yaml');
  writeFileSync(profileFile, stringify({ ...shipped, $schema: undefined, episode }));

  fifteen = await startWindow('/usr/games/sgt-fifteen', [LAYOUT], /^Fifteen$/);
  // Beside the browser, so nothing covers it and the thumbnail shows it whole.
  fifteen.window = await placeWindow(fifteen.window.id, 1100, 120, SIZE);
  expect(fifteen.window.bounds).toMatchObject(SIZE);
  web = await startWebShellCli(['--no-demo', '--runs-dir', path.join(tmp, 'runs'), '--config-dir', configDir]);
  api = shellClient(web);
  ({ browser, page } = await launchUiBrowser({ x: 0, width: 1000, height: 880 }));
  await page.goto(web.url);
});

afterAll(async () => {
  api?.close();
  await browser?.close();
  if (web) await stop(web.child);
  if (fifteen) await stop(fifteen.child);
});

describe('the profile form’s episode end and reset', () => {
  const PIXELS = { colour: [0, 0, 0], region: { x: 0, y: 0, width: 0, height: 0 } as Rect };

  it('a pixels detector drawn over the tray: "try it" reports the share counted on a capture, and fires at it', async () => {
    await page.getByTestId('tab-targets').click();
    await page.getByTestId('window-card').filter({ hasText: 'Fifteen' }).click();
    await expect.poll(() => page.getByTestId('profile-current').textContent(), { timeout: 15_000 }).toMatch(/· user:/);
    await page.getByTestId('profile-edit').click();
    await page.getByTestId('end-add-kind').selectOption('pixels');
    await page.getByTestId('end-add').click();
    expect(await page.getByTestId('detector').getAttribute('data-kind')).toBe('pixels');

    await drawOn('end-0-region', { x: 0.2, y: 0.25 }, { x: 0.75, y: 0.6 });
    const region = await regionOf('end-0-region');
    expect(region.x).toBeCloseTo(0.2, 1);
    expect(region.width).toBeCloseTo(0.55, 1);
    // The colour: the window's own, at the middle of the drawn region.
    const frame = await grab();
    const mid = inPixels(frame, region);
    const colour = rgb(frame, mid.x + Math.round(mid.width / 2), mid.y + Math.round(mid.height / 2));
    Object.assign(PIXELS, { colour, region });
    await page.getByTestId('end-0-colour').fill(hex(colour));
    await page.getByTestId('end-0-share').fill('0.99');

    const counted = shareOf(frame, region, colour, 24);
    expect(counted, 'a region over tiles, digits and borders is not one colour').toBeLessThan(0.95);
    expect(counted).toBeGreaterThan(0.05);
    const quiet = await tryDetector(0);
    expect(quiet.state).toBe('quiet');
    const reported = Number(/([\d.]+) % of the region within 24 of (#[0-9a-f]{6})/.exec(quiet.text)?.[1]);
    expect(quiet.text).toContain(hex(colour));
    expect(Math.abs(reported / 100 - counted)).toBeLessThanOrEqual(0.01);

    // A share just below what is there: it fires.
    const fires = Math.floor((counted - 0.03) * 100) / 100;
    await page.getByTestId('end-0-share').fill(String(fires));
    const fired = await tryDetector(0);
    expect(fired.state).toBe('fired');
    expect(fired.text).toMatch(/^fires: /);
    // Back above it, so the new game after a reset does not look ended.
    await page.getByTestId('end-0-share').fill('0.99');
  });

  it('"try reset" presses n on the real window: a new game, and the tray’s pixels change', async () => {
    await page.getByTestId('reset-add').click();
    expect(await page.getByTestId('reset-0-verb').inputValue()).toBe('press');
    await page.getByTestId('reset-0-value').fill('n');
    await page.getByTestId('reset-timeout').fill('10');
    const before = await grab();
    await page.getByTestId('reset-try').click();
    const outcome = page.getByTestId('reset-outcome');
    await outcome.waitFor({ timeout: 30_000 });
    const text = (await outcome.textContent())!;
    expect(await outcome.getAttribute('data-state'), text).toBe('ready');
    expect(text).toMatch(
      /^ready in \d+ ms: no end detector fires and [\d.]+ % of the window differs from the end frame$/,
    );
    // Checked here on captures: the window shows another board.
    await expect.poll(async () => changed(before, await grab()), { timeout: 5000 }).toBeGreaterThan(500);
    expect(await page.getByTestId('reset-after').count()).toBe(1);
    // In a viewport tall enough that the run options, which stick to its bottom, lie below the form.
    const viewport = page.viewportSize()!;
    await page.setViewportSize({ width: viewport.width, height: 3000 });
    await page.getByTestId('profile-form').screenshot({ path: path.join(SHOTS, 'profile-end-reset.png') });
    await page.setViewportSize(viewport);
  });

  it('an image detector’s template is cut from the current frame at its region and fires on it', async () => {
    await page.getByTestId('end-add-kind').selectOption('image');
    await page.getByTestId('end-add').click();
    expect(await page.getByTestId('end-1-try').isDisabled()).toBe(true); // no template yet
    await drawOn('end-1-region', { x: 0.1, y: 0.1 }, { x: 0.5, y: 0.4 });
    const region = await regionOf('end-1-region');
    await page.getByTestId('end-1-cut').click();
    await expect
      .poll(() => page.getByTestId('end-1-template-name').textContent())
      .toMatch(/^sgt-fifteen\.templates\/end-\w+\.png/);
    const name = /^(\S+\.png)/.exec((await page.getByTestId('end-1-template-name').textContent())!)![1]!;
    const file = path.join(configDir, 'profiles', name);
    expect(existsSync(file)).toBe(true);
    // The template is the region of the window as a capture shows it now.
    const frame = await grab();
    const px = inPixels(frame, region);
    const meta = await sharp(file).metadata();
    expect(Math.abs(meta.width! - px.width)).toBeLessThanOrEqual(1);
    expect(Math.abs(meta.height! - px.height)).toBeLessThanOrEqual(1);
    const t = await sharp(file).removeAlpha().raw().toBuffer();
    let diff = 0;
    for (let y = 0; y < meta.height!; y++)
      for (let x = 0; x < meta.width!; x++) {
        const c = rgb(frame, px.x + x, px.y + y);
        const o = (y * meta.width! + x) * 3;
        diff += Math.abs(c[0] - t[o]!) + Math.abs(c[1] - t[o + 1]!) + Math.abs(c[2] - t[o + 2]!);
      }
    expect(diff / (meta.width! * meta.height! * 3)).toBeLessThan(2);
    const r = await tryDetector(1);
    expect(r.state).toBe('fired');
    expect(Number(/similarity ([\d.]+)/.exec(r.text)?.[1])).toBeGreaterThan(0.99);
  });

  it('saving writes the detectors and the reset to the user’s profile, which loads with them', async () => {
    await page.getByTestId('profile-save').click();
    await expect.poll(() => page.getByTestId('profile-form').count(), { timeout: 15_000 }).toBe(0);
    const { profile } = loadProfileFile(profileFile);
    const [pixels, image] = profile.episode.end!;
    expect(pixels!.pixels).toMatchObject({ colour: hex(PIXELS.colour), tolerance: 24, share: 0.99 });
    for (const k of ['x', 'y', 'width', 'height'] as const)
      expect(pixels!.pixels!.region[k]).toBeCloseTo(PIXELS.region[k], 4);
    expect(image!.image!.template).toMatch(/^sgt-fifteen\.templates\/end-\w+\.png$/);
    expect(profile.episode.reset).toMatchObject({ do: [{ press: 'n' }], timeout: 10 });
    expect(profile.episode.startWithReset).toBe(false);
  });

  it('refuses a colour that is not #rrggbb on save naming the field, and leaves the file', async () => {
    await page.getByTestId('profile-edit').click();
    await page.getByTestId('end-0-colour').fill('red');
    const before = readFileSync(profileFile, 'utf8');
    await page.getByTestId('profile-save').click();
    await expect
      .poll(() => page.locator('body').textContent())
      .toMatch(/not saved: episode\.end\.0\.pixels\.colour: must be a colour written #rrggbb/);
    expect(readFileSync(profileFile, 'utf8')).toBe(before);
  });

  it('the contract refuses a template name that is a path and a detector pattern RE2 cannot use', async () => {
    const windowId = fifteen!.window.id;
    const region = { x: 0.1, y: 0.1, width: 0.2, height: 0.2 };
    await expect(
      api.request('cutEndTemplate', { id: 'sgt-fifteen', windowId, region, name: '../../escape' }),
    ).rejects.toMatchObject({ code: 'bad-input', message: /name must be a plain name/ });
    await expect(
      api.request('checkEndDetectors', { id: 'sgt-fifteen', windowId, detectors: [{ ocr: { region, text: '(a' } }] }),
    ).rejects.toMatchObject({
      code: 'bad-input',
      message: /^detectors\.0\.ocr\.text: is not a usable regular expression/,
    });
  });
});
