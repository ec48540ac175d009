/**
 * Milestones in the real UI (the web shell in Debian's Chromium) on a real Debian game window
 * (sgt-puzzles' Fifteen) with real input; the local test server is the only stand-in, and it
 * looks at the frames it is sent to answer as a watching judge would. (a) The Live view's
 * checklist ticks while the run is still going, with the evidence frame on hover; (b) the
 * replay shows the checklist as it stood at each step, an overrule is stored as a person's
 * label beside run.json, and the Runs tab's agreement table follows it; (c) the profile form's
 * milestone editor: rename, reorder, delete, add, save, reload — and a bad entry saves nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { ROOT } from '../helpers/cli.ts';
import { launchUiBrowser, openControlPage, startUiShell, type UiShell } from '../helpers/web-ui.ts';
import { placeWindow, startWindow, stop } from '../helpers/windows.ts';
import { loadProfileFile } from '../../electron/profiles/load.ts';
import type { CoreEvent } from '../../electron/api/contract.ts';

const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');
const PLACE = { x: 0, width: 1140, height: 900 };
const MAX_STEPS = 18;

let server: FakeOpenAI;
let browser: Browser;
let shell: UiShell;
let page: Page;
let fifteen: { child: ChildProcess } | undefined;
let profileFile = '';
let runId = '';
const events: CoreEvent[] = [];

/** Each image of a judge request with the step label just before it, as 64×64 grey pixels. */
async function labelledFrames(body: any): Promise<{ step: number; raw: Buffer }[]> {
  const parts = body.messages[0].content as any[];
  const out: { step: number; raw: Buffer }[] = [];
  for (const [i, p] of parts.entries()) {
    if (p.type !== 'image_url') continue;
    const img = sharp(Buffer.from(p.image_url.url.split(',')[1], 'base64'));
    const raw = await img.resize(64, 64, { fit: 'fill' }).greyscale().raw().toBuffer();
    out.push({ step: Number(/step (\d+)/.exec(parts[i - 1]?.text ?? '')?.[1]), raw });
  }
  return out;
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  // Play: up, left, down, right in turn (each slides a tile). Judge: compare the frames with the first.
  let first: Buffer | undefined;
  let moves = 0;
  server = await new FakeOpenAI(async (body) => {
    if (body.stream) {
      const key = ['up', 'left', 'down', 'right'][moves++ % 4]!;
      return { text: answer(`slide ${key}`, [{ action_type: 'PRESS', parameters: { key } }]) };
    }
    const open = body.messages[0].content[0].text as string;
    const reached: { milestone: string; step: number; reason: string }[] = [];
    for (const f of await labelledFrames(body)) {
      first ??= f.raw;
      const changed = f.raw.reduce((n, v, i) => n + Math.abs(v - first![i]!), 0) / f.raw.length;
      if (open.includes('- Tray shown') && !reached.some((r) => r.milestone === 'Tray shown'))
        reached.push({ milestone: 'Tray shown', step: f.step, reason: 'the numbered tiles fill the window' });
      if (open.includes('- A tile moved') && changed > 0.5 && !reached.some((r) => r.milestone === 'A tile moved'))
        reached.push({ milestone: 'A tile moved', step: f.step, reason: `the tiles differ (${changed.toFixed(1)})` });
    }
    return { text: JSON.stringify({ reached }) };
  }).start();

  shell = await startUiShell({ model: { baseUrl: server.baseURL, model: 'test-vlm' } });
  shell.api.onEvent((e) => events.push(e));
  // The user's own Fifteen profile, scored by three milestones, two with evidence frames.
  const profiles = path.join(shell.configDir, 'profiles');
  mkdirSync(path.join(profiles, 'sgt-fifteen.evidence'), { recursive: true });
  for (const [name, background] of [
    ['tray', { r: 200, g: 40, b: 40 }],
    ['moved', { r: 40, g: 160, b: 60 }],
  ] as const)
    await sharp({ create: { width: 160, height: 120, channels: 3, background } })
      .jpeg()
      .toFile(path.join(profiles, 'sgt-fifteen.evidence', `${name}.jpg`));
  profileFile = path.join(profiles, 'sgt-fifteen.yaml');
  const shipped = readFileSync(path.join(ROOT, 'games', 'sgt-fifteen', 'profile.yaml'), 'utf8');
  writeFileSync(
    profileFile,
    shipped.replace(
      /scoring:\n( {2}.*\n)+/,
      [
        'scoring:',
        '  kind: milestones',
        '  linear: true',
        '  milestones:',
        '    - { title: Tray shown, description: the tray of numbered tiles is on the screen, t: 1, evidence: sgt-fifteen.evidence/tray.jpg }',
        '    - { title: A tile moved, description: a tile is in another place than at the start, t: 5, evidence: sgt-fifteen.evidence/moved.jpg }',
        '    - { title: Puzzle solved, description: the status line says COMPLETED! }',
        '',
      ].join('\n'),
    ),
  );
  const w = await startWindow('/usr/games/sgt-fifteen', [], /^Fifteen$/);
  fifteen = w;
  await placeWindow(w.window.id, 1200, 120);
  await new Promise((r) => setTimeout(r, 800)); // let GTK draw
  ({ browser } = await launchUiBrowser(PLACE));
  page = await openControlPage(browser, PLACE, shell.web.url);
});

afterAll(async () => {
  await page?.close();
  await shell?.close();
  await browser?.close();
  if (fifteen) await stop(fifteen.child);
  await server?.close();
});

const checklistItem = (name: string) => page.getByTestId('milestones').locator('li').filter({ hasText: name });

describe('milestones in the UI', () => {
  it('(a) ticks the Live view’s checklist during the run, with the evidence frame on hover', async () => {
    await page.getByTestId('tab-targets').click();
    await page.getByTestId('window-card').filter({ hasText: 'Fifteen' }).click();
    await expect
      .poll(() => page.getByTestId('profile-current').textContent(), { timeout: 15_000 })
      .toMatch(/scoring milestones · zero-shot agent · user/);
    await page.getByTestId('agent-select').selectOption('vlm');
    await page.getByLabel('Max steps', { exact: true }).fill(String(MAX_STEPS));
    await page.getByLabel('Pace (ms/step)').fill('700');
    await page.getByTestId('start').click();
    await page.getByTestId('tab-live').click();

    // Ticked while the run still goes: the core is running and has steps left to play.
    const ticked = page.getByTestId('milestones').locator('li[data-reached="true"]');
    await expect.poll(() => ticked.count(), { timeout: 30_000 }).toBeGreaterThan(0);
    const state = await shell.api.request('state');
    expect(state.status).toBe('running');
    expect(state.run!.step + 1).toBeLessThan(MAX_STEPS);
    runId = state.run!.id;
    expect(await page.getByTestId('milestones').locator('h3').textContent()).toMatch(/Milestones — episode 1: [12]\/3/);

    // Paused, so the page holds still under the pointer while the evidence is looked at.
    await page.getByRole('button', { name: /Pause/ }).click();
    await expect.poll(() => page.getByTestId('status').textContent()).toMatch(/paused/i);
    await ticked.first().hover();
    await page.getByTestId('milestone-evidence').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('milestone-evidence').getAttribute('src')).toMatch(/^data:image\/jpeg;base64,/);
    await page.screenshot({ path: path.join(SHOTS, 'milestones-live.png') });
    await page.getByRole('button', { name: /Resume/ }).click();

    // The run plays out; its events ticked before its last step (not only at the end).
    await expect.poll(async () => (await shell.api.request('state')).status, { timeout: 60_000 }).toBe('idle');
    const firstTick = events.findIndex((e) => e.type === 'milestones' && e.reached > 0);
    const lastStep = events.map((e) => e.type).lastIndexOf('step');
    expect(firstTick).toBeGreaterThan(-1);
    expect(firstTick).toBeLessThan(lastStep);
  });

  it('(b) replays the checklist as it stood at each step; an overrule is a label apart, and the agreement moves', async () => {
    const runDir = path.join(shell.runsDir, runId);
    const runJson = readFileSync(path.join(runDir, 'run.json'), 'utf8');
    const meta = JSON.parse(runJson);
    const items = meta.milestones.episodes[0].items as { name: string; reached: boolean; step?: number }[];
    expect(items.map((i) => [i.name, i.reached])).toEqual([
      ['Tray shown', true],
      ['A tile moved', true],
      ['Puzzle solved', false],
    ]);
    const moved = items[1]!.step!;
    expect(moved).toBeGreaterThan(items[0]!.step!); // the tray shows first, the tile moves later

    await page.getByTestId('tab-runs').click();
    expect(await page.getByTestId('milestone-agreement').count()).toBe(0); // nothing labelled yet
    await page.getByTestId('run-row').first().click();
    await page.getByTestId('replay-frame').waitFor();
    const head = () => page.getByTestId('milestones').locator('h3').textContent();
    const reachedNames = () => page.getByTestId('milestones').locator('li[data-reached="true"]').allTextContents();
    // Step by step: before the tile moved the checklist shows one milestone, from that step on two.
    await page.getByTestId('scrub').focus();
    for (let k = 0; k < moved - 1; k++) await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.getByTestId('replay-position').textContent()).toMatch(new RegExp(`step ${moved} \\(`));
    expect(await head()).toMatch(/episode 1: 1\/3 \(33\.3\)/);
    expect((await reachedNames()).join('|')).toMatch(/^☑ Tray shown/);
    await page.keyboard.press('ArrowRight');
    await expect.poll(head).toMatch(/episode 1: 2\/3 \(66\.7\)/);
    // Its step is counted as the replay counts steps (from 1).
    expect(await checklistItem('A tile moved').textContent()).toContain(`— step ${moved + 1}`);
    expect(await page.getByTestId('replay-position').textContent()).toContain(`step ${moved + 1} (`);
    await checklistItem('A tile moved').hover();
    await page.getByTestId('milestone-evidence').waitFor();

    // A person says the tile did not move: kept in milestone-labels.json, run.json untouched.
    await checklistItem('A tile moved').getByRole('button', { name: 'overrule' }).click();
    await expect
      .poll(() => checklistItem('A tile moved').getByTestId('human-label').textContent())
      .toMatch(/person: not reached/);
    const labels = JSON.parse(readFileSync(path.join(runDir, 'milestone-labels.json'), 'utf8'));
    expect(labels.labels).toMatchObject([{ episode: 0, milestone: 'A tile moved', reached: false }]);
    expect(readFileSync(path.join(runDir, 'run.json'), 'utf8')).toBe(runJson);
    await page.screenshot({ path: path.join(SHOTS, 'milestones-replay.png') });

    await page.getByRole('button', { name: '← Runs' }).click();
    const table = page.getByTestId('milestone-agreement');
    await table.waitFor();
    expect((await table.locator('tbody tr').first().locator('td').allTextContents()).join(' | ')).toBe(
      'sgt-fifteen | 1 | 66.7 | 33.3 | 100.0 %',
    );
  });

  it('(c) edits the list — rename, reorder, delete, add — saves it, shows it after a reload, and refuses a bad entry', async () => {
    const openEditor = async () => {
      await page.getByTestId('tab-targets').click();
      await page.getByTestId('window-card').filter({ hasText: 'Fifteen' }).click();
      await page.getByTestId('profile-edit').click();
      await page.getByTestId('ms-editor').waitFor();
    };
    const names = () => page.getByTestId('ms-name').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    await openEditor();
    expect(await names()).toEqual(['Tray shown', 'A tile moved', 'Puzzle solved']);
    await expect.poll(() => page.getByTestId('ms-evidence').count()).toBe(2);
    const item = (k: number) => page.getByTestId('ms-item').nth(k);

    await item(0).getByTestId('ms-name').fill('Tray on screen'); // rename
    await item(2).getByTestId('ms-up').click(); // reorder: Puzzle solved before A tile moved
    await item(2).getByTestId('ms-delete').click(); // delete A tile moved
    await page.getByTestId('ms-add-name').fill('Top row in order');
    await page.getByTestId('ms-add-description').fill('the tiles 1 2 3 4 fill the top row');
    await page.getByTestId('ms-add').click();
    expect(await names()).toEqual(['Tray on screen', 'Puzzle solved', 'Top row in order']);
    await page.screenshot({ path: path.join(SHOTS, 'milestones-editor.png') });
    await page.getByTestId('profile-save').click();
    await expect.poll(() => page.getByTestId('profile-form').count()).toBe(0);

    const saved = () => {
      const { profile } = loadProfileFile(profileFile);
      return profile.scoring.kind === 'milestones' ? profile.scoring.milestones : undefined;
    };
    expect(saved()).toEqual([
      {
        title: 'Tray on screen',
        description: 'the tray of numbered tiles is on the screen',
        t: 1,
        evidence: 'sgt-fifteen.evidence/tray.jpg',
      },
      { title: 'Puzzle solved', description: 'the status line says COMPLETED!' },
      { title: 'Top row in order', description: 'the tiles 1 2 3 4 fill the top row' },
    ]);

    await page.reload();
    await page.getByTestId('status').waitFor({ timeout: 30000 });
    await openEditor();
    expect(await names()).toEqual(['Tray on screen', 'Puzzle solved', 'Top row in order']);
    await expect.poll(() => page.getByTestId('ms-evidence').count()).toBe(1);
    expect(await item(0).getByTestId('ms-evidence').getAttribute('src')).toMatch(/^data:image\/jpeg;base64,/);

    // A bad entry — a name given twice, then an empty name — is refused whole; the file stays as it was.
    const before = readFileSync(profileFile, 'utf8');
    await page.getByTestId('ms-add-name').fill('tray ON screen');
    await page.getByTestId('ms-add').click();
    await page.getByTestId('profile-save').click();
    await expect.poll(() => page.getByTestId('error').textContent()).toMatch(/named twice; names must be unique/);
    expect(readFileSync(profileFile, 'utf8')).toBe(before);
    await page.getByTestId('dismiss-error').click();
    await item(3).getByTestId('ms-delete').click();
    await item(1).getByTestId('ms-name').fill('');
    await page.getByTestId('profile-save').click();
    await expect.poll(() => page.getByTestId('error').textContent()).toMatch(/items\.1\.name needs a name/);
    expect(readFileSync(profileFile, 'utf8')).toBe(before);
    expect(await page.getByTestId('profile-form').count()).toBe(1); // the form stays open with the person's edits
  });
});
