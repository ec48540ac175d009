/**
 * The papers' analyses on runs made by the real CLI (issue 41): built-in 2048 played by two
 * models of the local test server, under PDQ (stop, 0 ms) and LCRT; `gamepilot errors judge`
 * with the same server as judge, scripted to answer classes (one answer unusable); a person's
 * labels with `gamepilot errors label`; then `gamepilot report`. The error-taxonomy figure's
 * counts are the judge's scripted answers per model, the action budget is what each run's
 * steps.jsonl records as sent, in the page, report.json and the CSV; a screenshot of the page
 * goes to test-artifacts/ui/.
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, ROOT, runCli } from '../helpers/cli.ts';
import { TEST_BROWSER_FLAGS } from '../helpers/web-ui.ts';
import { ReportDataSchema } from '../../electron/report/model.ts';

const MODELS = ['test-vlm', 'test-vlm-b'];
const JUDGE = 'judge-vlm';
const KEYS = ['left', 'down', 'right', 'up'];
const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');
/** What the judge answers for each model's episodes, in turn; test-vlm-b's first answer is unusable (twice). */
const SCRIPT: Record<string, string[]> = {
  'test-vlm': ['perception', 'reasoning', 'execution', 'perception'],
  'test-vlm-b': ['(unusable)', 'latency'],
};

const runs = mkdtempSync(path.join(tmpdir(), 'gp-analyses-runs-'));
const out = mkdtempSync(path.join(tmpdir(), 'gp-analyses-out-'));
let server: FakeOpenAI;
let browser: Browser;
let plays = 0;
/** The classes the judge gave, per model, and the episodes it left unclassified. */
const given = new Map<string, string[]>(MODELS.map((m) => [m, []]));
const unusable = new Map<string, number>(MODELS.map((m) => [m, 0]));
const asked = new Map<string, number>(MODELS.map((m) => [m, 0]));

function judgeReply(body: { messages: { content: unknown }[] }): string {
  const text = JSON.stringify(body.messages[0]!.content);
  const model = MODELS.find((m) => text.includes(`playing as ${m}.`))!;
  const retry = body.messages.length > 1;
  const turn = retry ? asked.get(model)! - 1 : asked.get(model)!;
  if (!retry) asked.set(model, turn + 1);
  const cls = SCRIPT[model]![turn % SCRIPT[model]!.length]!;
  if (cls === '(unusable)') {
    if (retry) unusable.set(model, unusable.get(model)! + 1);
    return 'I am not sure what happened.';
  }
  given.get(model)!.push(cls);
  return JSON.stringify({ class: cls, reason: `scripted ${cls}` });
}

beforeAll(async () => {
  server = await new FakeOpenAI(
    (body) =>
      body.model === JUDGE
        ? { text: judgeReply(body) }
        : {
            text: answer(`playing as ${body.model}.`, [
              { action_type: 'PRESS', parameters: { key: KEYS[plays++ % KEYS.length] } },
            ]),
          },
    [...MODELS, JUDGE],
  ).start();
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: TEST_BROWSER_FLAGS });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function cli(args: string[]) {
  const r = await runCli(args, { timeoutMs: 180_000 });
  expect(r.code, `gamepilot ${args.join(' ')}\n${r.stderr}`).toBe(0);
  return r;
}

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** What the action budget must say of a run, from its own files: sent actions and scores per episode. */
function budgetOf(dir: string) {
  const meta = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'));
  const steps = lines(path.join(dir, 'steps.jsonl'));
  const episodes = meta.episodes as { episode: number; score: number }[];
  return {
    episodes: episodes.length,
    actions: steps.reduce((n, s) => n + (s.outcomes as { ok: boolean }[]).filter((o) => o.ok).length, 0),
    score: episodes.reduce((n, e) => n + e.score, 0),
    failed: episodes.filter((e) => e.score < 100).map((e) => e.episode),
  };
}

describe('error taxonomy and action budget in the report', () => {
  it('counts the judge’s classes per model and the sent actions per protocol', async () => {
    const play = async (model: string, latency: string[]) =>
      json(
        await cli([
          'run',
          '--game',
          '2048',
          '--agent',
          'vlm',
          '--model',
          model,
          '--base-url',
          server.baseURL,
          ...latency,
          '--episodes',
          '2',
          '--max-steps',
          '3',
          '--runs-dir',
          runs,
          '--json',
          '--quiet',
        ]),
      ).run_dir as string;
    const played = [
      {
        model: 'test-vlm',
        protocol: 'PDQ',
        dir: await play('test-vlm', ['--latency', 'stop', '--stop-interval-ms', '0']),
      },
      { model: 'test-vlm', protocol: 'LCRT', dir: await play('test-vlm', ['--latency', 'lcrt']) },
      {
        model: 'test-vlm-b',
        protocol: 'PDQ',
        dir: await play('test-vlm-b', ['--latency', 'stop', '--stop-interval-ms', '0']),
      },
    ].map((p) => ({ ...p, ...budgetOf(p.dir) }));
    const failed = (model: string) => played.filter((p) => p.model === model).reduce((n, p) => n + p.failed.length, 0);
    // Three steps of 2048 reach no 2048 tile: every episode failed, and each sent its presses.
    for (const p of played) expect([p.failed.length, p.actions > 0]).toEqual([2, true]);

    const judged = json(
      await cli(['errors', 'judge', '--runs-dir', runs, '--model', JUDGE, '--base-url', server.baseURL, '--json']),
    );
    expect(judged.runs).toHaveLength(3);
    for (const m of MODELS) expect(given.get(m)!.length + unusable.get(m)!, m).toBe(failed(m));
    expect(unusable.get('test-vlm-b')).toBe(1);

    // A person labels two of test-vlm's PDQ episodes: one as the judge did, one otherwise.
    const pdq = played[0]!;
    const verdicts = JSON.parse(readFileSync(path.join(pdq.dir, 'errors.json'), 'utf8')).episodes as {
      episode: number;
      class: string;
    }[];
    await cli(['errors', 'label', pdq.dir, '--episode', '0', '--class', verdicts[0]!.class]);
    const other = verdicts[1]!.class === 'latency' ? 'perception' : 'latency';
    await cli(['errors', 'label', pdq.dir, '--episode', '1', '--class', other]);

    const html = path.join(out, 'report.html');
    const jsonFile = path.join(out, 'report.json');
    const csvDir = path.join(out, 'csv');
    await cli(['report', '--runs-dir', runs, '--out', html, '--json', jsonFile, '--csv', csvDir]);
    const data = ReportDataSchema.parse(JSON.parse(readFileSync(jsonFile, 'utf8')));

    // The figure's counts: per model, the classes the judge was scripted to give.
    const classes = ['perception', 'reasoning', 'execution', 'latency'];
    for (const m of MODELS) {
      const row = data.analyses.errors.find((r) => r.model === m && r.category === null)!;
      const want = Object.fromEntries(classes.map((c) => [c, given.get(m)!.filter((x) => x === c).length]));
      console.log(`${m}: ${JSON.stringify(row.counts)}; unclassified ${row.unclassified} of ${row.failed} failed`);
      expect(row.counts, m).toEqual(want);
      expect([row.failed, row.classified, row.unclassified, row.not_judged], m).toEqual([
        failed(m),
        given.get(m)!.length,
        unusable.get(m)!,
        0,
      ]);
    }
    expect(data.analyses.error_agreement).toEqual([
      { taxonomy: 'gameverse', judge_model: JUDGE, episodes: 2, agreed: 1, percent: 50, kappa: expect.any(Number) },
    ]);

    // The action budget: per model × protocol, the presses steps.jsonl records as sent.
    for (const p of played) {
      const row = data.analyses.action_budget.find((r) => r.model === p.model && r.protocol === p.protocol)!;
      expect(row, `${p.model} ${p.protocol}`).toMatchObject({
        game: '2048',
        runs: 1,
        episodes: p.episodes,
        actions_per_episode: Math.round((p.actions / p.episodes) * 100) / 100,
        score_per_action: Math.round((p.score / p.actions) * 1e4) / 1e4,
      });
    }
    expect(data.analyses.action_budget).toHaveLength(3);

    // The page, as Chromium draws it: the figure, the tables, and a screenshot.
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`file://${html}`);
    await page.waitForSelector('body[data-charts-drawn]', { timeout: 30_000 });
    expect(await page.locator('#chart-errors-gameverse-bars').count()).toBe(1);
    const table = (id: string) =>
      page.$$eval(`#table-${id} tbody tr`, (trs) =>
        trs.map((tr) =>
          Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.key!, td.textContent!])),
        ),
      );
    const errorsTable = await table('errors-gameverse');
    for (const m of MODELS) {
      const row = errorsTable.find((r) => r.player === m && r.category === 'all')!;
      const n = given.get(m)!;
      for (const c of classes) {
        const k = n.filter((x) => x === c).length;
        expect(row[c], `${m} ${c}`).toBe(`${k} (${(n.length ? (k / n.length) * 100 : 0).toFixed(1)}%)`);
      }
    }
    const budget = await table('action-budget');
    expect(budget.map((r) => r.player).sort()).toEqual(MODELS);
    const a = budget.find((r) => r.player === 'test-vlm')!;
    expect([a['actions:PDQ'], a['actions:LCRT']]).toEqual(
      played.slice(0, 2).map((p) => `${(Math.round((p.actions / p.episodes) * 100) / 100).toFixed(1)} (${p.episodes})`),
    );
    await page.locator('#errors-gameverse').scrollIntoViewIfNeeded();
    mkdirSync(SHOTS, { recursive: true });
    await page.locator('#errors-gameverse').screenshot({ path: path.join(SHOTS, 'report-error-taxonomy.png') });
    await page.locator('#action-budget').screenshot({ path: path.join(SHOTS, 'report-action-budget.png') });
    await page.close();
    expect(problems).toEqual([]);

    // The CSV: a row per model × class, and the budget's rows.
    const errorsCsv = readFileSync(path.join(csvDir, 'errors.csv'), 'utf8').trim().split('\r\n');
    expect(errorsCsv[0]).toBe(
      'taxonomy,player,model,category,failed,classified,unclassified,not_judged,class,episodes,share',
    );
    const perceptionA = errorsCsv.find(
      (l) => l.startsWith('gameverse,vlm,test-vlm,all,') && l.includes(',perception,'),
    )!;
    expect(Number(perceptionA.split(',')[9])).toBe(given.get('test-vlm')!.filter((x) => x === 'perception').length);
    expect(readFileSync(path.join(csvDir, 'action-budget.csv'), 'utf8').trim().split('\r\n')).toHaveLength(4);
  });
});
