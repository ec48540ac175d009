/**
 * The web shell end to end, as a first-time user meets it: Debian's Chromium (playwright-core)
 * under Xvfb drives the real UI served by `gamepilot web`; a VLM run against the local test
 * server plays the built-in 2048 window; pause, resume, stop; replay. Screenshots of each
 * screen go to test-artifacts/ui/.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFileSync, type ChildProcess } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { ROOT } from '../helpers/cli.ts';
import { launchUiBrowser, startWebShellCli } from '../helpers/web-ui.ts';
import { heldInput } from '../helpers/xinput.ts';
import { activate, startWindow, stop } from '../helpers/windows.ts';

const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');
const DIRS = ['left', 'up', 'right', 'down'];
const REASONING = 'I see the 2048 board. Tiles on the left can merge, so sliding keeps the largest tile in its corner. ';

let server: FakeOpenAI;
let web: ChildProcess;
let url = '';
let browser: Browser;
let page: Page;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  let skills = 0;
  server = await new FakeOpenAI((body, i) => {
    const system = String(body.messages[0].content);
    const user = JSON.stringify(body.messages.at(-1).content);
    if (body.tools) return { toolCalls: [{ name: 'commit_diagnosis', arguments: { diagnosis: 'Moves that change nothing waste steps.' } }] };
    if (system.includes('strict, independent judge')) return { text: '{"accept": true, "reason": "general"}' };
    if (user.includes('Write an improved skill')) return { text: `### Skill\nSKILL-${++skills}: alternate down and left${skills > 1 ? ', and never press up' : ''}.` };
    if (system.includes('You review gameplay')) return { text: '### Diagnosis\nThe tiles scattered.\n### Lessons\nUI-LESSON: keep the biggest tile in a corner.' };
    return { text: answer(`${REASONING}Step ${i + 1}: ${DIRS[i % 4]}.`, [{ action_type: 'PRESS', parameters: { key: DIRS[i % 4] } }]), chunkDelayMs: 25 };
  }).start();
  const tmp = mkdtempSync(path.join(tmpdir(), 'gp-web-'));
  const shell = await startWebShellCli(['--runs-dir', path.join(tmp, 'runs'), '--config-dir', path.join(tmp, 'config')]);
  web = shell.child;
  url = shell.url;
  ({ browser, page } = await launchUiBrowser({ x: 560, width: 1300, height: 820 }));
});

afterAll(async () => {
  await browser?.close();
  if (web) await stop(web);
  await server?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
const status = () => page.getByTestId('status').textContent();

describe('web shell UI', () => {
  it('prints its URL with a token first, and the page needs no more than that', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
  });

  it('first launch: a baseline already plays a built-in game, and the page says how to add a model', async () => {
    await page.goto(url);
    try {
      await expect.poll(status, { timeout: 30000 }).toBe('running');
      await expect.poll(() => page.getByTestId('first-launch').textContent()).toMatch(/No model is configured yet/);
      await page.getByTestId('live-frame').waitFor({ timeout: 20000 });
      await expect.poll(() => page.getByTestId('step-counter').textContent()).not.toBe('1');
      await shot('01-first-launch');
    } finally {
      await page.getByRole('button', { name: /Stop/ }).click();
      await expect.poll(status, { timeout: 15000 }).toBe('idle');
    }
  });

  it('settings: point at an OpenAI-compatible server, test the connection, save', async () => {
    await page.getByTestId('tab-settings').click();
    await page.getByTestId('base-url').fill(server.baseURL);
    await page.getByTestId('model').fill('test-vlm');
    await page.getByTestId('test-connection').click();
    await expect.poll(() => page.getByTestId('settings-note').textContent()).toMatch(/Connected in \d+ ms · 1 models/);
    await shot('02-settings');
    await page.getByTestId('save-settings').click();
    await expect.poll(() => page.getByTestId('settings-note').textContent()).toBe('Saved.');
    await expect(page.getByTestId('first-launch').count()).resolves.toBe(0);
  });

  it('picks the built-in 2048 and starts a VLM run: frames and streamed reasoning update live', async () => {
    // A real third-party window shows up with its live thumbnail, size and scale.
    const other = await startWindow('/usr/games/gnome-2048', [], /^GNOME 2048$/);
    try {
      await page.getByTestId('tab-targets').click();
      // This browser window covers it (clicking raises the browser): raise the game, since a
      // covered window gets no picture (X11 without a compositor would show the browser's pixels).
      activate(other.window.id);
      const card = page.getByTestId('window-card').filter({ hasText: 'GNOME 2048' });
      await card.locator('img').waitFor({ timeout: 15000 });
      expect(await card.textContent()).toMatch(/\d+×\d+ at \d+,\d+ · scale 1/);
      await shot('03-targets');
    } finally {
      await stop(other.child);
    }
    await page.getByTestId('game-2048').click();
    await page.getByTestId('agent-select').selectOption('vlm');
    await page.getByLabel('Max steps').fill('200');
    await page.getByLabel('Pace (ms/step)').fill('300');
    await shot('04-new-run');
    await page.getByTestId('start').click();
    await expect.poll(status, { timeout: 30000 }).toBe('running');

    // Reasoning streams: the text grows through partial lengths before the answer is complete.
    const lengths = new Set<number>();
    const t0 = Date.now();
    while (Date.now() - t0 < 8000 && lengths.size < 4) {
      const text = (await page.getByTestId('reasoning').textContent()) ?? '';
      if (text.startsWith('### Reasoning') && !text.includes('### Actions')) lengths.add(text.length);
      await page.waitForTimeout(15);
    }
    expect(lengths.size).toBeGreaterThanOrEqual(3);

    // Frames advance and the overlay names the pressed key.
    await expect.poll(() => page.getByTestId('live-frame').getAttribute('data-step'), { timeout: 20000 }).toBe('3');
    await expect.poll(() => page.getByTestId('actions').textContent()).toMatch(/PRESS\(key="(left|up|right|down)"\)/);
    await shot('05-live');
    expect(server.requests.length).toBeGreaterThanOrEqual(3);
  });

  it('pauses and resumes', async () => {
    await page.getByRole('button', { name: /Pause/ }).click();
    await expect.poll(status).toBe('paused');
    await page.waitForTimeout(800);
    const before = server.requests.length;
    await page.waitForTimeout(1500);
    expect(server.requests.length).toBe(before);
    await shot('06-paused');
    await page.keyboard.press('p'); // the keyboard shortcut resumes
    await expect.poll(status).toBe('running');
    await expect.poll(() => server.requests.length, { timeout: 15000 }).toBeGreaterThan(before);
  });

  it('switches the world clock live: the next step runs in the new mode', async () => {
    await expect.poll(() => page.getByTestId('world-state').textContent()).toMatch(/world (running|frozen)/);
    await page.getByTestId('latency-stop').click();
    await expect.poll(() => page.getByTestId('latency-stop').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.getByTestId('step-clock').textContent(), { timeout: 20000 }).toMatch(/step \d+: stop · world paused \d+ ms · drift 0 ticks/);
    await expect.poll(() => page.getByTestId('world-state').textContent(), { timeout: 10000 }).toBe('world frozen');
    await shot('06b-latency-stop');
    await page.getByTestId('latency-normal').click();
    await expect.poll(() => page.getByTestId('step-clock').textContent(), { timeout: 20000 }).toMatch(/step \d+: normal · world paused 0 ms/);
  });

  it('stops with no key left held', async () => {
    await page.getByRole('button', { name: /Stop/ }).click();
    await expect.poll(status, { timeout: 15000 }).toBe('idle');
    expect(heldInput()).toEqual({ keys: [], buttons: [] });
  });

  it('opens the run in the replay viewer and scrubs step by step', async () => {
    await page.getByTestId('tab-runs').click();
    const rows = page.getByTestId('run-row');
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(2);
    await expect.poll(() => rows.first().textContent()).toMatch(/2048.*vlm.*test-vlm.*gui/);
    expect(await rows.first().textContent()).toMatch(/stopped/);
    expect(await page.getByTestId('leaderboard').count()).toBe(0); // stopped runs (and the demo) are not scored
    await shot('07-runs');
    await rows.first().click();
    await page.getByTestId('replay-frame').waitFor();
    await expect.poll(() => page.getByTestId('replay-position').textContent()).toMatch(/step 1 \(1\//);
    const first = await page.getByTestId('replay-reasoning').textContent();
    await page.getByTestId('scrub').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.getByTestId('replay-position').textContent()).toMatch(/step 3 \(3\//);
    await expect.poll(() => page.getByTestId('replay-reasoning').textContent()).not.toBe(first);
    expect(await page.getByTestId('replay-reasoning').textContent()).toMatch(/Step 3/);
    await shot('08-replay');
  });

  it('the global stop hotkey stops a run from anywhere', async () => {
    await page.getByRole('button', { name: /Runs/ }).first().click();
    await page.getByTestId('tab-targets').click();
    await page.getByTestId('game-tictactoe').click();
    await page.getByTestId('agent-select').selectOption('random');
    await page.getByLabel('Episodes').fill('50');
    await page.getByLabel('Pace (ms/step)').fill('200');
    await page.getByTestId('start').click();
    await expect.poll(status, { timeout: 30000 }).toBe('running');
    execFileSync('xdotool', ['key', 'ctrl+shift+F12']);
    await expect.poll(status, { timeout: 10000 }).toBe('idle');
    expect(heldInput()).toEqual({ keys: [], buttons: [] });
  });

  async function playAndStop(keys: string[]) {
    await page.getByTestId('start-recording').click();
    await page.getByTestId('rec-indicator').waitFor({ timeout: 20000 });
    await expect.poll(() => page.getByTestId('rec-indicator').textContent()).toMatch(/[1-9]\d* frames/);
    await sleep(400);
    for (const k of keys) {
      execFileSync('xdotool', ['key', k]);
      await sleep(250);
    }
    await sleep(600);
    await page.getByTestId('stop-recording').click();
    await expect.poll(() => page.getByTestId('rec-indicator').count(), { timeout: 15000 }).toBe(0);
  }

  it('walks an expert and then a rookie through the recording protocol; sessions list and replay', async () => {
    // Expert: read the prompt, play once. This session becomes the rookie's tutorial.
    await page.getByTestId('tab-record').click();
    await page.getByTestId('participant').fill('e01');
    await page.getByTestId('role').selectOption('expert');
    await page.getByTestId('record-target').getByTestId('game-2048').click();
    await page.getByTestId('trials').fill('1');
    await page.getByTestId('consent').check();
    await page.getByTestId('begin').click();
    await expect.poll(() => page.getByTestId('prompt').textContent()).toMatch(/2048/);
    await page.getByTestId('read-done').click();
    await playAndStop(['Left', 'Up', 'Right', 'Down']);
    await page.getByTestId('play-done').click();
    await page.getByTestId('protocol-done').waitFor();

    // Rookie: read → play → watch the tutorial → play again.
    await page.reload();
    await page.getByTestId('tab-record').click();
    await expect(page.getByTestId('begin').isDisabled()).resolves.toBe(true); // no consent, no recording
    await page.getByTestId('participant').fill('r01');
    await page.getByTestId('role').selectOption('rookie');
    await page.getByTestId('trials').fill('1');
    await page.getByTestId('consent').check();
    await page.getByTestId('begin').click();
    await expect.poll(() => page.getByTestId('prompt').textContent()).toMatch(/arrow|PRESS/);
    await shot('09-record-read');
    await page.getByTestId('read-done').click();
    await playAndStop(['Up', 'Left', 'Up']);
    await expect.poll(() => page.getByTestId('recorded-sessions').textContent()).toMatch(/score/);
    await shot('10-record-played');
    await page.getByTestId('play-done').click();
    await page.getByTestId('replay-frame').waitFor({ timeout: 15000 }); // the expert's session, replayed
    await shot('11-record-tutorial');
    await page.getByTestId('tutorial-done').click();
    await playAndStop(['Down', 'Right']);
    await page.getByTestId('play-done').click();
    await page.getByTestId('protocol-done').waitFor();
    expect(await page.getByTestId('recorded-sessions').locator('tr').count()).toBe(2);

    // The sessions sit beside the agent runs, and replay with their input.
    await page.getByTestId('tab-runs').click();
    const human = page.getByTestId('run-row').filter({ hasText: 'human' });
    await expect.poll(() => human.count()).toBe(3);
    await human.first().click();
    await page.getByTestId('replay-frame').waitFor();
    await page.getByTestId('scrub').focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.getByTestId('replay-position').textContent()).toMatch(/step 4 /);
    await shot('12-record-replay');
  });

  it('reflects after a failed episode; the lessons can be edited before the retry and reach the model', async () => {
    await page.getByTestId('tab-targets').click();
    await page.getByTestId('game-2048').click();
    await page.getByTestId('agent-select').selectOption('vlm');
    await page.getByLabel('Episodes').fill('2');
    await page.getByLabel('Max steps').fill('3');
    await page.getByLabel('Pace (ms/step)').fill('0');
    await page.getByTestId('reflection-select').selectOption('self-f');
    await page.getByTestId('review-select').check();
    await page.getByTestId('start').click();
    await expect.poll(() => page.getByTestId('lessons').inputValue(), { timeout: 30000 }).toMatch(/UI-LESSON/);
    await expect.poll(status).toBe('paused'); // waiting for a person to review
    await page.getByTestId('lessons').fill('EDITED-LESSON: merge toward the bottom-left corner.');
    await page.getByTestId('use-lessons').click();
    await shot('13-reflection-review');
    const before = server.requests.length;
    await page.getByTestId('retry').click();
    await expect.poll(status, { timeout: 30000 }).toBe('idle');
    const plays = server.requests.slice(before).filter((q) => String(q.body.messages[0].content).includes('You are playing'));
    expect(plays.length).toBe(3);
    for (const q of plays) expect(String(q.body.messages[0].content)).toContain('EDITED-LESSON: merge toward the bottom-left corner.');
    // This run completed, so it is the first one scored.
    await page.getByTestId('tab-runs').click();
    await expect.poll(() => page.getByTestId('leaderboard').textContent()).toMatch(/2048.*vlm.*test-vlm.*gui.*normal/);
  });

  it('charts an Improvement Dynamics Curve live, with each round’s skill and what changed', async () => {
    await page.getByTestId('tab-idc').click();
    await page.getByTestId('idc-rounds').fill('2');
    await page.getByTestId('idc-episodes').fill('1');
    await page.getByTestId('idc-max-steps').fill('3');
    await page.getByTestId('idc-start').click();
    await expect.poll(() => page.getByTestId('idc-point').count(), { timeout: 60000 }).toBeGreaterThanOrEqual(1);
    await expect.poll(() => page.getByTestId('idc-done').textContent(), { timeout: 90000 }).toMatch(/Best round \d; held-out mean/);
    expect(await page.getByTestId('idc-point').count()).toBe(3);
    expect(await page.getByTestId('idc-round').count()).toBe(3);
    await expect.poll(() => page.getByTestId('skill-diff').nth(2).locator('.add').allTextContents()).toEqual(expect.arrayContaining(['up. ']));
    await shot('14-idc');
  });
});
