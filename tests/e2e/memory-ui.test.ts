/**
 * The memory agent in the web shell's UI (Debian's Chromium, the real 2048 window): started
 * from the New run form, its live panel shows how it retrieves, the running summary, the
 * memory it saved and, at a later step where it is relevant, that memory retrieved with its
 * similarity; Settings lists the store and clears it.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { ROOT } from '../helpers/cli.ts';
import { launchUiBrowser, openControlPage, startUiShell, type UiShell } from '../helpers/web-ui.ts';

const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');
const PLACE = { x: 560, width: 1300, height: 900 };
const FACT = 'UI-FACT: the biggest tile belongs in the bottom-left corner';
const SCOPE = `ui.${randomBytes(3).toString('hex')}`;

let server: FakeOpenAI;
let browser: Browser;
let shell: UiShell;
let page: Page;

const userText = (body: any) =>
  (Array.isArray(body.messages.at(-1).content) ? body.messages.at(-1).content : [])
    .filter((p: any) => p.type === 'text')
    .map((p: any) => p.text)
    .join('\n');

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await new FakeOpenAI(
    (body) => {
      const m = /Step (\d+) of episode (\d+)/.exec(userText(body));
      const step = Number(m?.[1] ?? 1);
      const episode = Number(m?.[2] ?? 1);
      if (String(body.messages[0].content).includes('### History_summary'))
        return {
          text: `### Observation\n${episode === 2 ? 'The biggest tile is in the bottom-left corner' : 'Small tiles'}\n### History_summary\n[CRITICAL] UI-SUMMARY episode ${episode} step ${step}\n### Reasoning\nslide\n### Plan\npress left`,
        };
      const save = episode === 1 && step === 1;
      return {
        text: `${answer('slide left', [{ action_type: 'PRESS', parameters: { key: 'left' } }])}\n### New_memory\n${save ? FACT : 'None'}\n### Should_save\n${save ? 'Yes' : 'No'}`,
      };
    },
    ['test-vlm', 'test-embed'],
  ).start();
  ({ browser } = await launchUiBrowser(PLACE));
  shell = await startUiShell({ model: { baseUrl: server.baseURL, model: 'test-vlm' } });
  page = await openControlPage(browser, PLACE, shell.web.url);
});

afterAll(async () => {
  await page?.close();
  await shell?.close();
  await browser?.close();
  await server?.close();
});

describe('memory agent in the UI', () => {
  it('shows the summary, the saved memory and, later, the memory retrieved with its similarity', async () => {
    await page.getByTestId('tab-targets').click();
    await page.getByTestId('game-2048').click();
    await page.getByTestId('agent-select').selectOption('memory');
    await page.getByTestId('memory-scope').fill(SCOPE);
    await page.getByTestId('embedding-model').fill('test-embed');
    await page.getByLabel('Episodes').fill('2');
    await page.getByLabel('Max steps').fill('2');
    await page.getByLabel('Pace (ms/step)').fill('1500');
    await page.getByTestId('start').click();
    await page.getByTestId('tab-live').click();
    const panel = page.getByTestId('memory-panel');
    await expect
      .poll(() => panel.getByTestId('memory-retrieval').textContent(), { timeout: 30000 })
      .toMatch(new RegExp(`store ${SCOPE.replace('.', '\\.')} · retrieval embeddings \\(test-embed\\)`));
    await panel.getByTestId('memory-saved').waitFor({ timeout: 30000 });
    expect(await panel.getByTestId('memory-saved').textContent()).toContain(FACT);
    expect(await panel.getByTestId('memory-summary').textContent()).toContain('[CRITICAL] UI-SUMMARY episode 1 step 1');
    await page.screenshot({ path: path.join(SHOTS, 'memory-saved.png') });
    // Episode 2, step 1: the board shows the corner, and the fact comes back.
    await expect
      .poll(() => panel.getByTestId('memory-retrieved').textContent(), { timeout: 30000 })
      .toMatch(/UI-FACT: the biggest tile belongs in the bottom-left corner \(0\.\d\d\)/);
    expect(await panel.getByTestId('memory-summary').textContent()).toContain('UI-SUMMARY episode 2 step 1');
    await page.screenshot({ path: path.join(SHOTS, 'memory-retrieved.png') });
    await expect.poll(() => page.getByTestId('status').textContent(), { timeout: 30000 }).toBe('idle');

    // Settings lists the store; Clear empties it.
    await page.getByTestId('tab-settings').click();
    await expect
      .poll(() => page.getByTestId('memory-stores').textContent())
      .toMatch(new RegExp(`${SCOPE.replace('.', '\\.')}1 memories`));
    await page.getByTestId(`memory-clear-${SCOPE}`).click();
    await expect.poll(() => page.getByTestId('memory-note').textContent()).toBe(`cleared 1 memories of ${SCOPE}`);
    expect((await shell.api.request('listMemory')).scopes.map((s) => s.scope)).not.toContain(SCOPE);

    // The replay shows each step's memory as it was recorded: step 3 (episode 2, step 1) retrieved the fact.
    await page.getByTestId('tab-runs').click();
    await page.getByTestId('run-row').first().click();
    await page.getByTestId('replay-frame').waitFor();
    const replay = page.getByTestId('memory-panel');
    await expect.poll(() => replay.getByTestId('memory-saved').textContent()).toContain(FACT);
    await page.getByTestId('scrub').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.getByTestId('replay-position').textContent()).toMatch(/\(3\/4\)/);
    await expect.poll(() => replay.getByTestId('memory-retrieved').textContent()).toMatch(/UI-FACT.*\(0\.\d\d\)/);
    expect(await replay.getByTestId('memory-summary').textContent()).toContain('UI-SUMMARY episode 2 step 1');
  });
});
