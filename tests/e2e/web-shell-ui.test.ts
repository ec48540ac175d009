/**
 * The web shell end to end, screen by screen: Debian's Chromium (playwright-core) under Xvfb
 * drives the real UI served by `gamepilot web`; VLM runs against the local test server play the
 * built-in 2048 window. Each screen is a describe of its own with its own `gamepilot web`
 * (its own runs and config folders) and its own page, its preconditions set up in its own
 * beforeAll through the contract or on disk, so one failing screen does not fail the others.
 * Screenshots of each screen go to test-artifacts/ui/.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { ROOT } from '../helpers/cli.ts';
import { launchUiBrowser, openControlPage, startUiShell, type UiShell } from '../helpers/web-ui.ts';
import { heldInput } from '../helpers/xinput.ts';
import { activate, startWindow, stop } from '../helpers/windows.ts';
import { RunStore } from '../../electron/store/run-store.ts';

const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');
const DIRS = ['left', 'up', 'right', 'down'];
const REASONING =
  'I see the 2048 board. Tiles on the left can merge, so sliding keeps the largest tile in its corner. ';
const PLACE = { x: 560, width: 1300, height: 820 };
const LATENCY = { locate: 2, capture: 3, encode: 12, model: 900, act: 4, total: 921 };

let server: FakeOpenAI;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  let skills = 0;
  server = await new FakeOpenAI((body, i) => {
    const system = String(body.messages[0].content);
    const user = JSON.stringify(body.messages.at(-1).content);
    // The reflector explores with tools and commits its diagnosis; the proposer is offered validate_skill, and writes.
    if (body.tools?.some((t: any) => t.function?.name === 'commit_diagnosis'))
      return {
        toolCalls: [{ name: 'commit_diagnosis', arguments: { diagnosis: 'Moves that change nothing waste steps.' } }],
      };
    if (system.includes('strict, independent judge')) return { text: '{"accept": true, "reason": "general"}' };
    if (user.includes('Write an improved skill'))
      return {
        text: `### Skill\nSKILL-${++skills}: alternate down and left${skills > 1 ? ', and never press up' : ''}.`,
      };
    if (system.includes('You review gameplay'))
      return {
        text: '### Diagnosis\nThe tiles scattered.\n### Lessons\nUI-LESSON: keep the biggest tile in a corner.',
      };
    return {
      text: answer(`${REASONING}Step ${i + 1}: ${DIRS[i % 4]}.`, [
        { action_type: 'PRESS', parameters: { key: DIRS[i % 4] } },
      ]),
      chunkDelayMs: 25,
    };
  }).start();
  ({ browser } = await launchUiBrowser(PLACE));
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const model = () => ({ baseUrl: server.baseURL, model: 'test-vlm' });

/** For hooks (expect.poll works only in tests): waits until `check` holds, or fails saying what was awaited. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30000) {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Nearest-rank percentile at the tables' resolution (whole ms below 1 s, three significant figures above); "—" with none. */
function percentiles(values: number[]): string {
  if (!values.length) return '—';
  const s = [...values].sort((a, b) => a - b);
  const at = (p: number) => {
    const v = s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
    return Math.round(v) < 1000 ? Math.round(v) : Number(v.toPrecision(3));
  };
  return `${at(50)} / ${at(95)}`;
}

/** The run's times per latency mode, computed from its steps.jsonl as the Live view should show them. */
function timingFromSteps(runDir: string): Record<string, string[]> {
  const steps = readFileSync(path.join(runDir, 'steps.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((st) => st.actor !== 'human');
  const modes = [...new Set(steps.map((st) => st.latency_mode as string))].sort();
  return Object.fromEntries(
    modes.map((mode) => {
      const mine = steps.filter((st) => st.latency_mode === mode);
      const effect = mine.filter((st) => typeof st.effect_ms === 'number').map((st) => st.effect_ms);
      const l = (st: { latency_ms: Record<string, number> }) => st.latency_ms;
      const answered = mine.filter((st) => (st.model_calls ?? []).some((c: { ok: boolean }) => c.ok));
      return [
        mode,
        [
          String(mine.length),
          percentiles(effect),
          `${effect.length} measured`,
          percentiles(answered.map((st) => l(st).model!)),
          percentiles(mine.map((st) => l(st).locate! + l(st).capture! + l(st).encode! + l(st).act!)),
        ],
      ];
    }),
  );
}

/** The run's times per latency mode as the Live view shows them. */
function timingShown(page: Page): Promise<Record<string, string[]>> {
  return page.$$eval('[data-testid^="run-timing-"]', (lines) =>
    Object.fromEntries(
      lines
        .map((line) => {
          const text = line.textContent ?? '';
          const cell = (key: string) => line.querySelector(`[data-key="${key}"]`)?.textContent ?? '';
          return [
            line.getAttribute('data-testid')!.replace('run-timing-', ''),
            [
              /(\d+) steps?/.exec(text)?.[1] ?? '',
              cell('to-screen'),
              /(\d+) measured/.exec(text)?.[0] ?? '',
              cell('model'),
              cell('overhead'),
            ],
          ] as [string, string[]];
        })
        .sort((a, b) => a[0].localeCompare(b[0])),
    ),
  );
}

/** A screen's own shell and page, opened in its beforeAll and closed in its afterAll. */
type ShellOptions = NonNullable<Parameters<typeof startUiShell>[0]>;
function screen(opts: ShellOptions | (() => ShellOptions) = {}) {
  const s = {} as { shell: UiShell; page: Page };
  beforeAll(async () => {
    s.shell = await startUiShell(typeof opts === 'function' ? opts() : opts);
    s.page = await openControlPage(browser, PLACE, s.shell.web.url);
  });
  afterAll(async () => {
    await s.page?.close();
    await s.shell?.close();
  });
  return {
    get page() {
      return s.page;
    },
    get shell() {
      return s.shell;
    },
    shot: (name: string) => s.page.screenshot({ path: path.join(SHOTS, `${name}.png`) }),
    status: () => s.page.getByTestId('status').textContent(),
  };
}

describe('first launch', () => {
  const ui = screen({ demo: true });

  it('prints its URL with a token first, and the page needs no more than that', () => {
    expect(ui.shell.web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
  });

  it('shows 2048’s own score beside the paper scale with the formula on hover, and the Runs tab’s live row follows it', async () => {
    const { page } = ui;
    await expect.poll(ui.status, { timeout: 30000 }).toBe('running');
    const line = page.getByTestId('score');
    /** The line's two numbers, read at once: the game's own and the paper scale's. */
    const numbers = async (text: string | null) => {
      const m = /^Score ([\d,]+) · ([\d.]+) \(paper scale\)$/.exec(text ?? '');
      return m ? { game: Number(m[1]!.replaceAll(',', '')), paper: Number(m[2]) } : null;
    };
    // The solver merges tiles within a few moves; 2048 counts every merge's sum.
    await expect
      .poll(async () => (await numbers(await line.textContent()))?.game ?? 0, { timeout: 60000 })
      .toBeGreaterThan(0);
    const shown = (await numbers(await line.textContent()))!;
    // GameVerse's 2048 normalisation (App. D.3), to the 2 decimals a step records.
    expect(Math.abs(shown.paper - shown.game / 200)).toBeLessThanOrEqual(0.005);
    expect(await line.getAttribute('title')).toMatch(/^score = merge score \/ 20000 × 100, clipped to 0–100 /);
    await ui.shot('01b-live-score');

    await page.getByTestId('tab-runs').click();
    const live = page.getByTestId('live-run-score');
    await expect
      .poll(async () => (await numbers(await live.textContent()))?.game ?? 0, { timeout: 30000 })
      .toBeGreaterThan(0);
    expect((await numbers(await live.textContent()))!.paper).toBeGreaterThan(0);
    expect(await page.getByTestId('run-row').filter({ has: live }).textContent()).toMatch(/\(demo\)/);
    await page.getByTestId('tab-live').click();
  });

  it('a baseline already plays a built-in game, and the page says how to add a model', async () => {
    const { page } = ui;
    try {
      await expect.poll(ui.status, { timeout: 30000 }).toBe('running');
      await expect.poll(() => page.getByTestId('first-launch').textContent()).toMatch(/No model is configured yet/);
      await page.getByTestId('live-frame').waitFor({ timeout: 20000 });
      await expect.poll(() => page.getByTestId('step-counter').textContent()).not.toBe('1');
      await ui.shot('01-first-launch');
    } finally {
      await page.getByRole('button', { name: /Stop/ }).click();
      await expect.poll(ui.status, { timeout: 15000 }).toBe('idle');
    }
  });
});

describe('settings', () => {
  const ui = screen();

  it('points at an OpenAI-compatible server, tests the connection, saves', async () => {
    const { page } = ui;
    await page.getByTestId('tab-settings').click();
    await page.getByTestId('base-url').fill(server.baseURL);
    await page.getByTestId('model').fill('test-vlm');
    await page.getByTestId('test-connection').click();
    await expect.poll(() => page.getByTestId('settings-note').textContent()).toMatch(/Connected in \d+ ms · 1 models/);
    await ui.shot('02-settings');
    await page.getByTestId('save-settings').click();
    await expect.poll(() => page.getByTestId('settings-note').textContent()).toBe('Saved.');
    await expect(page.getByTestId('first-launch').count()).resolves.toBe(0);
    expect((await ui.shell.api.request('getSettings')).settings).toMatchObject({
      baseUrl: server.baseURL,
      model: 'test-vlm',
    });
  });
});

describe('new run', () => {
  const ui = screen(() => ({ model: model() }));

  it('shows a real window with its live thumbnail, size and scale', async () => {
    const { page } = ui;
    const other = await startWindow('/usr/games/gnome-2048', [], /^GNOME 2048$/);
    try {
      await page.getByTestId('tab-targets').click();
      // This browser window covers it (clicking raises the browser): raise the game, since a
      // covered window gets no picture (X11 without a compositor would show the browser's pixels).
      activate(other.window.id);
      const card = page.getByTestId('window-card').filter({ hasText: 'GNOME 2048' });
      await card.locator('img').waitFor({ timeout: 15000 });
      expect(await card.textContent()).toMatch(/\d+×\d+ at \d+,\d+ · scale 1/);
      await ui.shot('03-targets');
    } finally {
      await stop(other.child);
    }
  });

  it('picks the built-in 2048 and a VLM agent, and starts the run', async () => {
    const { page } = ui;
    await page.getByTestId('tab-targets').click();
    await page.getByTestId('game-2048').click();
    await page.getByTestId('agent-select').selectOption('vlm');
    await page.getByLabel('Max steps').fill('200');
    await page.getByLabel('Pace (ms/step)').fill('300');
    await ui.shot('04-new-run');
    await page.getByTestId('start').click();
    await expect.poll(ui.status, { timeout: 30000 }).toBe('running');
    await expect.poll(() => page.getByTestId('tab-live').getAttribute('aria-selected')).toBe('true');
    const state = await ui.shell.api.request('state');
    expect(state.run).toMatchObject({ game: '2048', agent: 'vlm', model: 'test-vlm', maxSteps: 200 });
    await ui.shell.api.request('control', { action: 'stop' });
    await expect.poll(ui.status, { timeout: 15000 }).toBe('idle');
  });
});

describe('live view', () => {
  const ui = screen(() => ({ model: model() }));
  let runId = '';
  beforeAll(async () => {
    // The run is started over the contract: this screen does not depend on the New run screen.
    runId = (
      await ui.shell.api.request('startRun', { target: { game: '2048' }, agent: 'vlm', maxSteps: 200, paceMs: 300 })
    ).id;
    await until('the run to show as running', async () => (await ui.status()) === 'running');
  });

  it('frames and streamed reasoning update live', async () => {
    const { page } = ui;
    // A step's actions are listed from the step's end until the next frame arrives: 4–7 ms of
    // a ~1 s step on a quiet machine (the step event to the next frame event, measured over the
    // contract). Polling for them misses that window more often than not, so the page itself
    // records every text the list takes.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { actionsSeen: string[] }).actionsSeen = seen;
      new MutationObserver(() => {
        const text = document.querySelector('[data-testid="actions"]')?.textContent;
        if (text && seen.at(-1) !== text) seen.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
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
    await expect
      .poll(() => page.getByTestId('live-frame').getAttribute('data-step').then(Number), { timeout: 20000 })
      .toBeGreaterThanOrEqual(3);
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { actionsSeen: string[] }).actionsSeen.join('\n')))
      .toMatch(/PRESS\(key="(left|up|right|down)"\)/);
    await ui.shot('05-live');
  });

  it('pauses and resumes', async () => {
    const { page } = ui;
    await page.getByRole('button', { name: /Pause/ }).click();
    await expect.poll(ui.status).toBe('paused');
    await page.waitForTimeout(800);
    const before = server.requests.length;
    await page.waitForTimeout(1500);
    expect(server.requests.length).toBe(before);
    // The run's input-to-screen, model and overhead p50 / p95 so far: those of its steps.jsonl.
    const runDir = (await ui.shell.api.request('state')).run!.dir;
    await expect
      .poll(async () => {
        const [shown, want] = [await timingShown(page), timingFromSteps(runDir)];
        return JSON.stringify(shown) === JSON.stringify(want) ? 'equal' : JSON.stringify({ shown, want });
      })
      .toBe('equal');
    expect(Object.keys(await timingShown(page))).toEqual(['normal']);
    expect((await timingShown(page)).normal![1]).toMatch(/^\d+ \/ \d+$/); // the built-in's moves showed on screen
    await ui.shot('06-paused');
    await page.keyboard.press('p'); // the keyboard shortcut resumes
    await expect.poll(ui.status).toBe('running');
    await expect.poll(() => server.requests.length, { timeout: 15000 }).toBeGreaterThan(before);
  });

  it('switches the world clock live: the next step runs in the new mode', async () => {
    const { page } = ui;
    await expect.poll(() => page.getByTestId('world-state').textContent()).toMatch(/world (running|frozen)/);
    await page.getByTestId('latency-stop').click();
    await expect.poll(() => page.getByTestId('latency-stop').getAttribute('aria-pressed')).toBe('true');
    await expect
      .poll(() => page.getByTestId('step-clock').textContent(), { timeout: 20000 })
      .toMatch(/step \d+: stop · world paused \d+ ms · drift 0 ticks/);
    await expect.poll(() => page.getByTestId('world-state').textContent(), { timeout: 10000 }).toBe('world frozen');
    await ui.shot('06b-latency-stop');
    // The steps played in stop have figures of their own beside normal's.
    await expect.poll(() => timingShown(page).then((t) => Object.keys(t))).toEqual(['normal', 'stop']);
    await page.getByTestId('latency-normal').click();
    await expect
      .poll(() => page.getByTestId('step-clock').textContent(), { timeout: 20000 })
      .toMatch(/step \d+: normal · world paused 0 ms/);
  });

  it('stops with no key left held; the run is kept as stopped', async () => {
    await ui.page.getByRole('button', { name: /Stop/ }).click();
    await expect.poll(ui.status, { timeout: 15000 }).toBe('idle');
    expect(heldInput()).toEqual({ keys: [], buttons: [] });
    const { runs } = await ui.shell.api.request('listRuns');
    expect(runs.find((r) => r.id === runId)).toMatchObject({ status: 'stopped', agent: 'vlm', model: 'test-vlm' });
  });
});

describe('global stop hotkey', () => {
  const ui = screen();

  it('stops a run from anywhere, releasing everything', async () => {
    await ui.shell.api.request('startRun', {
      target: { game: 'tictactoe' },
      agent: 'random',
      episodes: 50,
      paceMs: 200,
    });
    await expect.poll(ui.status, { timeout: 30000 }).toBe('running');
    execFileSync('xdotool', ['key', 'ctrl+shift+F12']);
    await expect.poll(ui.status, { timeout: 10000 }).toBe('idle');
    expect(heldInput()).toEqual({ keys: [], buttons: [] });
  });
});

/** A stopped VLM run on disk (and, older, the demo), as the Runs screen finds them. */
async function seedRuns(runsDir: string): Promise<string> {
  const demo = RunStore.create(runsDir, {
    kind: 'agent',
    game: '2048',
    target: { kind: 'builtin', label: '2048' },
    agent: 'solver',
    model: null,
    action_space: 'gui',
    config: {},
    demo: true,
  });
  demo.close('stopped', undefined, {
    episodes: [{ episode: 0, seed: 0, score: 12, steps: 40, end: 'stopped' }],
    mean: 12,
    std: 0,
  });
  await sleep(20); // a later creation time: listed first
  const run = RunStore.create(runsDir, {
    kind: 'agent',
    game: '2048',
    target: { kind: 'builtin', label: '2048' },
    agent: 'vlm',
    model: 'test-vlm',
    action_space: 'gui',
    config: { latency: 'normal' },
  });
  const t0 = Date.now();
  for (let i = 0; i < 6; i++) {
    const frame = await sharp({
      create: { width: 520, height: 640, channels: 3, background: { r: 187 - i * 10, g: 173, b: 160 } },
    })
      .jpeg()
      .toBuffer();
    run.appendStep({
      step: i,
      episode: 0,
      t_capture: t0 + i * 900,
      frame: run.writeFrame(0, i, frame, 'jpg'),
      frame_size: { width: 520, height: 640, scale: 1 },
      reasoning: `${REASONING}Step ${i + 1}: ${DIRS[i % 4]}.`,
      raw: null,
      actions: [{ action_type: 'PRESS', parameters: { key: DIRS[i % 4] } }],
      errors: [],
      latency_ms: LATENCY,
      score: i,
    });
  }
  run.close('stopped', undefined, {
    episodes: [{ episode: 0, seed: 0, score: 5, steps: 6, end: 'stopped' }],
    mean: 5,
    std: 0,
  });
  return run.meta.id;
}

describe('runs and replay', () => {
  const ui = screen();
  beforeAll(async () => {
    await seedRuns(ui.shell.runsDir);
  });

  it('lists every run; stopped runs and the demo are not scored', async () => {
    const { page } = ui;
    await page.getByTestId('tab-runs').click();
    const rows = page.getByTestId('run-row');
    await expect.poll(() => rows.count()).toBe(2);
    await expect.poll(() => rows.first().textContent()).toMatch(/2048.*vlm.*test-vlm.*gui/);
    expect(await rows.first().textContent()).toMatch(/stopped/);
    expect(await rows.nth(1).textContent()).toMatch(/\(demo\)/);
    expect(await page.getByTestId('leaderboard').count()).toBe(0);
    await ui.shot('07-runs');
  });

  it('opens a run in the replay viewer and scrubs step by step', async () => {
    const { page } = ui;
    await page.getByTestId('tab-runs').click();
    await page.getByTestId('run-row').first().click();
    await page.getByTestId('replay-frame').waitFor();
    await expect.poll(() => page.getByTestId('replay-position').textContent()).toMatch(/step 1 \(1\/6\)/);
    const first = await page.getByTestId('replay-reasoning').textContent();
    await page.getByTestId('scrub').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.getByTestId('replay-position').textContent()).toMatch(/step 3 \(3\/6\)/);
    await expect.poll(() => page.getByTestId('replay-reasoning').textContent()).not.toBe(first);
    expect(await page.getByTestId('replay-reasoning').textContent()).toMatch(/Step 3: right/);
    await ui.shot('08-replay');
  });
});

describe('recording human baselines', () => {
  const ui = screen();

  async function playAndStop(page: Page, keys: string[]) {
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
    const { page } = ui;
    // Expert: read the prompt, play once. This session becomes the rookie's tutorial.
    await page.getByTestId('tab-record').click();
    await page.getByTestId('participant').fill('e01');
    await page.getByTestId('role').selectOption('expert');
    await page.getByTestId('record-target').getByTestId('game-2048').click();
    // The game's own trial count arrives with its prompt (2048: 5); only then is it changed, or it would overwrite the 1.
    await expect.poll(() => page.getByTestId('trials').inputValue()).toBe('5');
    await page.getByTestId('trials').fill('1');
    await page.getByTestId('consent').check();
    await page.getByTestId('begin').click();
    await expect.poll(() => page.getByTestId('prompt').textContent()).toMatch(/2048/);
    await page.getByTestId('read-done').click();
    await playAndStop(page, ['Left', 'Up', 'Right', 'Down']);
    await page.getByTestId('play-done').click();
    await page.getByTestId('protocol-done').waitFor();

    // Rookie: read → play → watch the tutorial → play again.
    await page.reload();
    await page.getByTestId('tab-record').click();
    await expect(page.getByTestId('begin').isDisabled()).resolves.toBe(true); // no consent, no recording
    await page.getByTestId('participant').fill('r01');
    await page.getByTestId('role').selectOption('rookie');
    await expect.poll(() => page.getByTestId('trials').inputValue()).toBe('5');
    await page.getByTestId('trials').fill('1');
    await page.getByTestId('consent').check();
    await page.getByTestId('begin').click();
    await expect.poll(() => page.getByTestId('prompt').textContent()).toMatch(/arrow|PRESS/);
    await ui.shot('09-record-read');
    await page.getByTestId('read-done').click();
    await playAndStop(page, ['Up', 'Left', 'Up']);
    await expect.poll(() => page.getByTestId('recorded-sessions').textContent()).toMatch(/score/);
    await ui.shot('10-record-played');
    await page.getByTestId('play-done').click();
    await page.getByTestId('replay-frame').waitFor({ timeout: 15000 }); // the expert's session, replayed
    await ui.shot('11-record-tutorial');
    await page.getByTestId('tutorial-done').click();
    await playAndStop(page, ['Down', 'Right']);
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
    await ui.shot('12-record-replay');
  });
});

describe('reflection', () => {
  const ui = screen(() => ({ model: model() }));

  it('reflects after a failed episode; the lessons can be edited before the retry and reach the model', async () => {
    const { page } = ui;
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
    await expect.poll(ui.status).toBe('paused'); // waiting for a person to review
    await page.getByTestId('lessons').fill('EDITED-LESSON: merge toward the bottom-left corner.');
    await page.getByTestId('use-lessons').click();
    await ui.shot('13-reflection-review');
    const before = server.requests.length;
    await page.getByTestId('retry').click();
    await expect.poll(ui.status, { timeout: 30000 }).toBe('idle');
    const plays = server.requests
      .slice(before)
      .filter((q) => String(q.body.messages[0].content).includes('You are playing'));
    expect(plays.length).toBe(3);
    for (const q of plays)
      expect(String(q.body.messages[0].content)).toContain('EDITED-LESSON: merge toward the bottom-left corner.');
    // The run completed, so it is scored.
    await page.getByTestId('tab-runs').click();
    await expect.poll(() => page.getByTestId('leaderboard').textContent()).toMatch(/2048.*vlm.*test-vlm.*gui.*normal/);
  });
});

describe('improvement dynamics curve', () => {
  const ui = screen(() => ({ model: model() }));

  it('charts the curve live, with each round’s skill and what changed', { timeout: 360_000 }, async () => {
    const { page } = ui;
    await page.getByTestId('tab-idc').click();
    await page.getByTestId('idc-rounds').fill('2');
    await page.getByTestId('idc-episodes').fill('1');
    await page.getByTestId('idc-max-steps').fill('3');
    await page.getByTestId('idc-start').click();
    await expect.poll(() => page.getByTestId('idc-point').count(), { timeout: 60000 }).toBeGreaterThanOrEqual(1);
    await expect
      .poll(() => page.getByTestId('idc-done').textContent(), { timeout: 240_000 }) // three rounds, then no skill and the best on the game itself and three variants
      .toMatch(
        /Best round \d\. Held-out, no skill → best skill: origin [\d.]+ → [\d.]+ \([+-][\d.]+\); heavy-fours [\d.]+ → [\d.]+ \([+-][\d.]+\); double-spawn/,
      );
    expect(await page.getByTestId('idc-point').count()).toBe(3);
    expect(await page.getByTestId('idc-round').count()).toBe(3);
    // Round 1 plays the skill revised from round 0's diagnosis: its words show as added. (Round 2
    // may play a rolled-back skill unchanged, depending on round 1's score, so it is not checked.)
    await expect
      .poll(() => page.getByTestId('skill-diff').nth(1).locator('.add').allTextContents())
      .toEqual(expect.arrayContaining(['alternate ']));
    await ui.shot('14-idc');
  });
});
