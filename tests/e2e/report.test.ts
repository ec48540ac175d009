/**
 * `gamepilot report` over a runs folder made here through the CLI: built-in games played by
 * the random agent and the solver (a couple of trials), a latency pair, a model run that
 * reflects between its two episodes (VR = No, then Yes; cost and tokens) whose model name tries
 * to break out of the page's script, human rookie (before/after the tutorial) and expert
 * sessions, an Improvement Dynamics Curve — all against the local test model server — and two
 * ING-VP suites (`gamepilot suite ingvp`, the solver and the random agent) in suite folders of
 * the runs folder, where the suite puts them. The page is opened in Chromium: every table holds
 * the numbers computed here from the run.json files (ING-VP's: the suites' own table.json),
 * charts are drawn, nothing is fetched, no console error, and the injected script never runs.
 * Run folders written here as a run loop leaves them (quality figures, an invalid episode, a
 * failed run) show that `leaderboard --json` and the report pool neither the failed run nor the
 * invalid episode, list both, and give the rates and the spread over reruns.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, ROOT, runCli } from '../helpers/cli.ts';
import { startUiShell, TEST_BROWSER_FLAGS } from '../helpers/web-ui.ts';
import { ReportDataSchema } from '../../electron/report/model.ts';
import { GAMEVERSE_TITLES } from '../../electron/report/gameverse.ts';
import type { LeaderboardRow } from '../../electron/domain.ts';
import { finishedRun, qualityFigures } from '../helpers/run-fixtures.ts';

const TABLES = [
  'gameverse',
  'gains',
  'categories',
  'tiers',
  'ingvp-main',
  'ingvp',
  'idc',
  'idc-transfer',
  'latency',
  'cost',
];
const EVIL_MODEL = 'evil-vlm</script><script>alert(1)</script>';
const KEYS = ['left', 'down', 'right', 'up'];
const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'report');
const INGVP_GAMES = ['sokoban', 'hanoi'];
const INGVP_SETTINGS = ['one-step-text', 'multi-step-text'];

interface SuiteCell {
  levels: number;
  accuracy: number;
  completion: number;
  efficiency: number;
  efficiency_pooled: number;
}

/** The cells of a suite's own table.json, labelled as the report labels its player. */
function suiteCells(dir: string, label: string) {
  const table = JSON.parse(readFileSync(path.join(runs, dir, 'table.json'), 'utf8')) as {
    rows: Record<string, Record<string, SuiteCell>>;
  };
  return Object.entries(table.rows).flatMap(([game, cells]) =>
    Object.entries(cells).map(([setting, cell]) => ({ game, setting, label, ...cell })),
  );
}

let server: FakeOpenAI;
let browser: Browser;
const runs = mkdtempSync(path.join(tmpdir(), 'gp-report-runs-'));
const out = mkdtempSync(path.join(tmpdir(), 'gp-report-out-'));
let plays = 0;
/** The page's tables as read in Chromium, for the Runs tab to match. */
const pageTables = new Map<string, Record<string, string>[]>();

beforeAll(async () => {
  server = await new FakeOpenAI(
    (body) => {
      const system = String(body.messages[0].content);
      const user = JSON.stringify(body.messages.at(-1).content);
      if (body.tools) return { status: 400 }; // no tool calling: the IDC reflects in stages
      if (system.includes('strict, independent judge')) return { text: '{"accept": true, "reason": "general"}' };
      if (user.includes('Write an improved skill')) return { text: '### Skill\nAlternate down and left.' };
      if (system.includes('You review gameplay'))
        return { text: '### Diagnosis\nThe board filled.\n### Lessons\nKeep the largest tile in a corner.' };
      return {
        text: answer('slide', [{ action_type: 'PRESS', parameters: { key: KEYS[plays++ % KEYS.length] } }]),
        usage: { prompt_tokens: 1200, completion_tokens: 80 },
      };
    },
    [EVIL_MODEL, 'idc-vlm'],
  ).start();
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: TEST_BROWSER_FLAGS });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function cli(args: string[], timeoutMs = 180_000) {
  const r = await runCli(args, { timeoutMs });
  expect(r.code, `gamepilot ${args.join(' ')}\n${r.stderr}`).toBe(0);
  return r;
}

const model = (name: string) => ['--agent', 'vlm', '--model', name, '--base-url', server.baseURL];
const record = (role: string, participant: string, stage: string) =>
  cli([
    'record',
    '--game',
    'tictactoe',
    '--role',
    role,
    '--participant',
    participant,
    '--consent',
    '--duration',
    '2',
    '--fps',
    '5',
    '--stage',
    stage,
    '--runs-dir',
    runs,
    '--json',
    '--quiet',
  ]);

async function makeRuns() {
  const run = (args: string[]) => cli(['run', ...args, '--runs-dir', runs, '--json', '--quiet']);
  await run(['--game', 'tictactoe', '--agent', 'random', '--episodes', '3']);
  await run(['--game', 'tictactoe', '--agent', 'solver', '--episodes', '2']);
  await run(['--game', '2048', '--agent', 'random', '--episodes', '2', '--max-steps', '6', '--latency', 'stop']);
  await run(['--game', '2048', '--agent', 'random', '--episodes', '2', '--max-steps', '6', '--latency', 'normal']);
  await run([
    '--game',
    '2048',
    ...model(EVIL_MODEL),
    '--episodes',
    '2',
    '--max-steps',
    '4',
    '--reflection',
    'self-f',
    '--reflect-after',
    'every',
    '--price-in',
    '2.5',
    '--price-out',
    '10',
  ]);
  await record('rookie', 'r1', 'play-1');
  await record('rookie', 'r1', 'play-2');
  await record('expert', 'e1', 'play');
  await cli(
    [
      'idc',
      '--game',
      '2048',
      '--rounds',
      '1',
      '--episodes',
      '1',
      '--max-steps',
      '3',
      '--held-out',
      '1',
      ...model('idc-vlm').slice(2),
      '--runs-dir',
      runs,
      '--json',
    ],
    240_000,
  );
  // ING-VP: the real suite, one suite folder per agent (a suite folder holds one agent's levels).
  for (const [agent, dir] of [
    ['solver', 'ingvp'],
    ['random', 'ingvp-random'],
  ] as const)
    await cli(
      [
        'suite',
        'ingvp',
        '--agent',
        agent,
        ...(agent === 'random' ? ['--seed', '0'] : []),
        '--games',
        INGVP_GAMES.join(','),
        '--settings',
        INGVP_SETTINGS.join(','),
        '--levels',
        '1-3',
        '--out',
        path.join(runs, dir),
        '--json',
        '--quiet',
      ],
      300_000,
    );
  // A damaged run is skipped with a warning; it hides nothing else.
  mkdirSync(path.join(runs, 'damaged-run'));
  writeFileSync(path.join(runs, 'damaged-run', 'run.json'), '{"id": "damaged-run", "status": ');
}

// ─── What the tables must say, computed here from the run.json files ───────────────────────

interface Meta {
  status: string;
  kind: string;
  game: string | null;
  agent: string;
  model: string | null;
  action_space: string;
  stage?: string;
  config: Record<string, unknown>;
  episodes: { episode: number; score: number | null }[];
  reflection?: { lessons: { episode: number; source: string }[] };
  totals: { tokens_in: number; tokens_out: number; cost_usd: number | null };
}

function metas(dir: string): Meta[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name, 'run.json');
    if (!existsSync(file)) return [];
    try {
      return [JSON.parse(readFileSync(file, 'utf8')) as Meta];
    } catch {
      return [];
    }
  });
}

const sampleStd = (v: number[]) => {
  if (v.length < 2) return 0;
  const m = v.reduce((a, b) => a + b, 0) / v.length;
  return Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / (v.length - 1));
};

interface Expected {
  game: string;
  label: string;
  vr: string;
  latency: string;
  scores: number[];
}

function expectedCells(all: Meta[]): Expected[] {
  const cells = new Map<string, Expected>();
  for (const m of all) {
    if (m.status !== 'completed' || m.config.suite !== undefined || m.config.idc !== undefined || !m.game) continue;
    const label =
      m.agent === 'random'
        ? 'Random'
        : m.agent === 'solver'
          ? 'Solver'
          : m.agent === 'human-rookie'
            ? 'Human Rookie'
            : m.agent === 'human-expert'
              ? 'Human Expert'
              : String(m.model);
    for (const e of m.episodes) {
      if (typeof e.score !== 'number') continue;
      const vr =
        m.kind === 'human'
          ? m.agent === 'human-expert'
            ? '—'
            : m.stage === 'play-2'
              ? 'Yes'
              : 'No'
          : m.reflection?.lessons.some((l) => l.episode === e.episode)
            ? 'Yes'
            : 'No';
      const latency = String(m.config.latency ?? 'normal');
      const key = [m.game, label, vr, m.action_space, latency].join('|');
      const c = cells.get(key) ?? { game: m.game, label, vr, latency, scores: [] };
      c.scores.push(e.score);
      cells.set(key, c);
    }
  }
  return [...cells.values()];
}

const stat = (s: number[]) => ({ mean: s.reduce((a, b) => a + b, 0) / s.length, std: sampleStd(s), n: s.length });

/** "12.3 ± 4.5 (3)" → numbers. */
function parseStat(text: string | null | undefined) {
  const m = /^(-?[\d.]+) ± ([\d.]+) \((\d+)\)$/.exec(String(text));
  if (!m) throw new Error(`not a "mean ± std (n)" cell: ${text}`);
  return { mean: Number(m[1]), std: Number(m[2]), n: Number(m[3]) };
}

function expectStat(text: string | null | undefined, scores: number[], what: string) {
  const got = parseStat(text);
  const want = stat(scores);
  expect(got.n, what).toBe(want.n);
  expect(Math.abs(got.mean - want.mean), `${what}: mean ${got.mean} vs ${want.mean}`).toBeLessThanOrEqual(0.051);
  expect(Math.abs(got.std - want.std), `${what}: std ${got.std} vs ${want.std}`).toBeLessThanOrEqual(0.051);
}

describe('gamepilot report', () => {
  it('draws every table and chart from real runs, in Chromium, with nothing fetched and nothing injected', async () => {
    await makeRuns();
    const html = path.join(out, 'report.html');
    const jsonFile = path.join(out, 'report.json');
    const csvDir = path.join(out, 'csv');
    const r = await cli(['report', '--runs-dir', runs, '--out', html, '--json', jsonFile, '--csv', csvDir]);
    expect(r.stderr).toMatch(/warning: skipped .*damaged-run/);
    expect(r.stdout.split('\n')).toEqual(expect.arrayContaining([html, jsonFile, path.join(csvDir, 'gameverse.csv')]));

    const all = metas(runs);
    const cells = expectedCells(all);
    // The folder holds what the tables need: baselines, a VR pair, a latency pair, humans.
    expect(cells.map((c) => `${c.label}|${c.vr}`)).toEqual(
      expect.arrayContaining([
        'Random|No',
        'Solver|No',
        `${EVIL_MODEL}|No`,
        `${EVIL_MODEL}|Yes`,
        'Human Rookie|No',
        'Human Rookie|Yes',
        'Human Expert|—',
      ]),
    );

    // The JSON is the data model, valid against its schema.
    const data = ReportDataSchema.parse(JSON.parse(readFileSync(jsonFile, 'utf8')));
    expect(data.runs.damaged).toBe(1);
    // Table 3's columns: GameVerse's fifteen titles in the paper's order, played or not.
    expect(data.gameverse.games.map((g) => g.id)).toEqual([...GAMEVERSE_TITLES]);
    expect(
      data.gameverse.games
        .filter((g) => data.gameverse.rows.some((r) => r.cells[g.id]))
        .map((g) => [g.id, g.category, g.tier]),
    ).toEqual([
      ['tictactoe', 'markov-grid', 'easy'],
      ['2048', 'markov-grid', 'hard'],
    ]);

    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const problems: string[] = [];
    const dialogs: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('request', (q) => {
      if (!q.url().startsWith('file:')) problems.push(`fetched ${q.url()}`);
    });
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`file://${html}`);
    await page.waitForSelector('body[data-charts-drawn]', { timeout: 30_000 });
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'report.png'), fullPage: true });

    const table = (id: string) =>
      page.$$eval(`#table-${id} tbody tr`, (trs) =>
        trs.map((tr) =>
          Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.key!, td.textContent!])),
        ),
      );

    // Every table is there.
    for (const id of TABLES) {
      expect(await page.locator(`#table-${id}`).count(), id).toBe(1);
      pageTables.set(id, await table(id));
    }

    // GameVerse: each cell's mean ± std (n) as computed here; the model's name shows as text.
    const gameverse = await table('gameverse');
    for (const c of cells) {
      const row = gameverse.find(
        (x) => x.player === c.label && x.vr?.startsWith(c.vr) && x.latency === c.latency && x[c.game] !== '–',
      );
      expect(row, `${c.label} VR ${c.vr} ${c.latency} in ${c.game}`).toBeDefined();
      expectStat(row![c.game], c.scores, `${c.label} VR ${c.vr} ${c.game}`);
    }
    expect(gameverse.map((x) => x.player).slice(0, 4)).toEqual(['Random', 'Random', 'Human Expert', 'Human Rookie']);
    // Avg Rank: the JSON's rank of each row in the pool, to one place; a row outside it (the
    // random agent's stop run) is shown not ranked, with the reason.
    for (const [i, row] of gameverse.entries()) {
      const json = data.gameverse.rows.filter((r) => r.actionSpace === 'gui')[i]!;
      if (json.not_ranked !== null) {
        expect([json.avg_rank, row.avg_rank, row.not_ranked]).toEqual([null, 'not ranked', json.not_ranked]);
        continue;
      }
      const rank = json.avg_rank!;
      expect(rank).toBeGreaterThanOrEqual(1);
      expect(rank).toBeLessThanOrEqual(gameverse.length);
      expect(row.avg_rank).toBe(rank.toFixed(1));
    }
    expect(gameverse.filter((x) => x.avg_rank === 'not ranked').map((x) => [x.player, x.protocol])).toEqual([
      ['Random', 'stop 2000 ms, freeze engine'],
    ]);
    expect(gameverse.filter((x) => x.player === EVIL_MODEL)).toHaveLength(2);

    // VR gain: the model's Yes mean minus its No mean in 2048.
    const modelCells = cells.filter((c) => c.label === EVIL_MODEL);
    const no = stat(modelCells.find((c) => c.vr === 'No')!.scores).mean;
    const yes = stat(modelCells.find((c) => c.vr === 'Yes')!.scores).mean;
    const gains = await table('gains');
    const gain = gains.find((g) => g.player === EVIL_MODEL && g.game === '2048');
    expect(gain).toBeDefined();
    expect(Math.abs(Number(gain!.gain) - (yes - no))).toBeLessThanOrEqual(0.051);
    expect(gains.find((g) => g.player === 'Human Rookie')).toBeDefined();

    // By category and tier: the mean of a player's game means.
    const solverMean = stat(cells.find((c) => c.label === 'Solver')!.scores).mean;
    const categories = await table('categories');
    expect(categories.find((x) => x.player === 'Solver')!['markov-grid']).toBe(`${solverMean.toFixed(1)} (1)`);
    const randomNormal = cells.filter((c) => c.label === 'Random' && c.latency === 'normal');
    const tiers = await table('tiers');
    const randomTier = tiers.find((x) => x.player === 'Random' && x.latency === 'normal')!;
    expect(Number(randomTier.easy!.split(' ')[0])).toBeCloseTo(
      stat(randomNormal.find((c) => c.game === 'tictactoe')!.scores).mean,
      1,
    );
    expect(Number(randomTier.hard!.split(' ')[0])).toBeCloseTo(
      stat(randomNormal.find((c) => c.game === '2048')!.scores).mean,
      1,
    );

    // Latency: the random agent in 2048 under stop and normal.
    const latency = await table('latency');
    const pair = latency.find((x) => x.game === '2048' && x.player === 'Random')!;
    for (const mode of ['stop', 'normal'])
      expectStat(
        pair[mode === 'stop' ? 'stop 2000 ms, freeze engine' : mode],
        cells.find((c) => c.game === '2048' && c.label === 'Random' && c.latency === mode)!.scores,
        `latency ${mode}`,
      );

    // ING-VP: every cell of both suites' own table.json (their runs are in <runs>/ingvp*/runs), same numbers.
    const suites = [...suiteCells('ingvp', 'Solver'), ...suiteCells('ingvp-random', 'Random')];
    expect(suites).toHaveLength(2 * (INGVP_GAMES.length + 1) * INGVP_SETTINGS.length);
    expect(suites.filter((c) => c.game !== 'all').every((c) => c.levels === 3)).toBe(true);
    expect(suites.find((c) => c.label === 'Solver' && c.game === 'all')).toMatchObject({ accuracy: 100 });
    const sorted = <T>(rows: T[], key: (r: T) => string) => [...rows].sort((a, b) => key(a).localeCompare(key(b)));
    const cellKey = (c: { game: string; setting: string; label: string }) => `${c.game}|${c.setting}|${c.label}`;
    expect(
      sorted(data.ingvp, cellKey).map(({ player: _p, model: _m, ...c }) => c),
      'the report JSON against table.json',
    ).toEqual(sorted(suites, cellKey));
    expect(data.runs.counted).toBe(
      suites.filter((c) => c.game === 'all').reduce((n, c) => n + c.levels, 0) +
        all.filter((m) => m.status === 'completed' && m.config.idc === undefined && m.game).length,
    );
    const ingvp = await table('ingvp');
    const columns = [
      'game',
      'setting',
      'player',
      'levels',
      'accuracy',
      'completion',
      'efficiency',
      'efficiency_pooled',
    ];
    expect(
      sorted(ingvp, (x) => `${x.game}|${x.setting}|${x.player}`).map((x) => columns.map((k) => x[k])),
      'the page against table.json',
    ).toEqual(
      sorted(suites, cellKey).map((c) => [
        c.game,
        c.setting,
        c.label,
        String(c.levels),
        c.accuracy.toFixed(2),
        c.completion.toFixed(2),
        c.efficiency.toFixed(2),
        c.efficiency_pooled.toFixed(2),
      ]),
    );
    // Order: the paper's game order with "all" last, then the setting, the random baseline before the solver.
    expect(ingvp.slice(0, 2).map((x) => [x.game, x.setting, x.player])).toEqual([
      ['sokoban', 'one-step-text', 'Random'],
      ['sokoban', 'one-step-text', 'Solver'],
    ]);
    expect(ingvp.at(-1)).toMatchObject({ game: 'all', setting: 'multi-step-text', player: 'Solver' });

    // ING-VP's Table 1: per player and metric, the suite's pooled ("all") cells, and Overall = their mean.
    const main = await table('ingvp-main');
    for (const [label, metric, key] of [
      ['Solver', 'Acc.', 'accuracy'],
      ['Random', 'Eff.', 'efficiency'],
    ] as const) {
      const row = main.find((x) => x.player === label && x.metric === metric)!;
      const pooled = INGVP_SETTINGS.map(
        (st) => suites.find((c) => c.label === label && c.game === 'all' && c.setting === st)![key],
      );
      for (const [i, st] of INGVP_SETTINGS.entries())
        expect(row[st], `${label} ${metric} ${st}`).toBe(pooled[i]!.toFixed(2));
      const overall = Math.round((pooled.reduce((a, b) => a + b, 0) / pooled.length) * 100) / 100;
      expect(row.overall).toBe(`${overall.toFixed(2)} (2)`);
    }

    // IDC: the curve of idc.json.
    const idcDir = readdirSync(runs).find((n) => n.includes('-idc-'))!;
    const curve = JSON.parse(readFileSync(path.join(runs, idcDir, 'idc.json'), 'utf8')).curve as number[];
    expect(curve).toHaveLength(2);
    const idc = await table('idc');
    expect(idc).toEqual([
      expect.objectContaining({
        curve: idcDir,
        game: '2048',
        model: 'idc-vlm',
        rounds: curve.map((c) => c.toFixed(1)).join(' → '),
        r0: curve[0]!.toFixed(1),
      }),
    ]);
    // Its transfer test: the origin split, then 2048's three variants with no skill and the best skill.
    const idcJson = JSON.parse(readFileSync(path.join(runs, idcDir, 'idc.json'), 'utf8'));
    const transfer = await table('idc-transfer');
    expect(transfer.map((t) => t.split)).toEqual(['origin', 'heavy-fours', 'double-spawn', 'crowded-start']);
    for (const s of idcJson.transfer.splits) {
      const row = transfer.find((t) => t.split === s.variant)!;
      expect(row.baseline).toBe(s.baseline.mean.toFixed(1));
      expect(row.best).toBe(s.best.mean.toFixed(1));
    }

    // Cost and tokens per point: the model run's totals over its score points.
    const modelRun = all.find((m) => m.model === EVIL_MODEL)!;
    const points = modelRun.episodes.reduce((a, e) => a + (e.score ?? 0), 0);
    const cost = await table('cost');
    const costRow = cost.find((x) => x.model === EVIL_MODEL)!;
    expect(costRow.tokens).toBe(`${modelRun.totals.tokens_in} / ${modelRun.totals.tokens_out}`);
    expect(Number(costRow.cost)).toBeCloseTo(modelRun.totals.cost_usd!, 4);
    if (points > 0)
      expect(Number(costRow.tokens_per_point)).toBeCloseTo(
        (modelRun.totals.tokens_in + modelRun.totals.tokens_out) / points,
        0,
      );
    else expect(costRow.tokens_per_point).toBe('–');

    // Charts: each canvas has pixels drawn.
    const drawn = await page.$$eval('canvas', (canvases) =>
      canvases.map((c) => {
        const ctx = (c as HTMLCanvasElement).getContext('2d')!;
        const { data } = ctx.getImageData(0, 0, (c as HTMLCanvasElement).width, (c as HTMLCanvasElement).height);
        let painted = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted++;
        return { id: c.id, painted };
      }),
    );
    expect(drawn.map((d) => d.id).sort()).toEqual(
      ['chart-gameverse-bars', 'chart-idc-lines', 'chart-ingvp-bars', 'chart-latency-bars'].sort(),
    );
    for (const d of drawn) expect(d.painted, d.id).toBeGreaterThan(2000);

    // The hostile model name is text, never a script: no dialog, no extra script element.
    expect(dialogs).toEqual([]);
    expect(await page.locator('script').count()).toBe(3);
    expect(problems).toEqual([]);
    await page.close();

    // The CSV files hold the same numbers, one row a cell.
    const csv = readFileSync(path.join(csvDir, 'gameverse.csv'), 'utf8').trim().split('\r\n');
    expect(csv[0]).toBe(
      'game,title,kind,category,tier,player,label,model,vr,lessons,space,latency,mean,std,n,runs,avg_rank,runs_std,invalid_episodes,no_effect_rate,invalid_rate,quality_runs,protocol,unreadable,not_ranked',
    );
    expect(csv).toHaveLength(1 + cells.length);
    const solverLine = csv.find((l) => l.startsWith('tictactoe,Tic-Tac-Toe,builtin,markov-grid,easy,solver,'))!;
    expect(Number(solverLine.split(',')[12])).toBeCloseTo(solverMean, 2);
    const randomHanoi = suites.find(
      (c) => c.label === 'Random' && c.game === 'hanoi' && c.setting === 'multi-step-text',
    )!;
    expect(readFileSync(path.join(csvDir, 'ingvp.csv'), 'utf8').split('\r\n')).toContain(
      [
        'hanoi,multi-step-text,random,Random,',
        randomHanoi.levels,
        randomHanoi.accuracy,
        randomHanoi.completion,
        randomHanoi.efficiency,
        randomHanoi.efficiency_pooled,
      ].join(','),
    );
  }, 900_000);

  it('says "no runs of this kind" for sections it has nothing for, and refuses a missing folder', async () => {
    const few = mkdtempSync(path.join(tmpdir(), 'gp-report-few-'));
    const one = readdirSync(runs).find((n) => n.includes('tictactoe-solver'))!;
    cpSync(path.join(runs, one), path.join(few, one), { recursive: true });
    const html = path.join(out, 'few.html');
    await cli(['report', '--runs-dir', few, '--out', html]);
    const text = readFileSync(html, 'utf8');
    for (const id of ['gains', 'ingvp', 'idc', 'latency', 'cost'])
      expect(text, id).toContain(`<p class="empty" data-empty="${id}">no runs of this kind</p>`);
    expect(text).toContain('id="table-gameverse"');

    const missing = await runCli(['report', '--runs-dir', path.join(few, 'nope'), '--out', path.join(out, 'x.html')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no runs folder .*nope/);
    expect(existsSync(path.join(out, 'x.html'))).toBe(false);
  });

  it('keeps a failed run and an invalid episode out of `leaderboard --json` and the report, with rates and the spread over reruns', async () => {
    // Run folders as a run loop leaves them (issue 37): quality figures, an invalid episode, a failed run.
    const folder = mkdtempSync(path.join(tmpdir(), 'gp-report-quality-'));
    const counts = qualityFigures;
    const reason = 'no model answer in 8 of 10 steps';
    const error = 'the model never answered: 401 Incorrect API key provided';
    finishedRun(folder, { scores: [30, 50], patch: { quality: counts(40, 4, 2) } });
    const rerun = finishedRun(folder, {
      scores: [70, { score: 5, invalid: reason }],
      patch: { quality: counts(60, 36, 0) },
    }).meta.id;
    const failed = finishedRun(folder, { scores: [0, 0], status: 'failed', error }).meta.id;

    const board = await cli(['leaderboard', '--runs-dir', folder, '--json']);
    const rows = json<LeaderboardRow[]>(board);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      player: 'vlm',
      model: 'test-vlm',
      runs: 2,
      episodes: 3,
      mean: 50,
      invalid_episodes: 1,
      runs_std: 21.21, // the runs’ means: 40 and 70
      no_effect_rate: 0.4, // (4 + 36) / (40 + 60), not the mean of 0.1 and 0.6
      invalid_rate: 0.02,
      quality_runs: 2,
    });
    expect(board.stderr).toContain(`not pooled: failed run ${failed} (2048, vlm (test-vlm)): ${error}`);
    expect(board.stderr).toContain(`not pooled: invalid episode 2 of ${rerun}`);
    const text = (await cli(['leaderboard', '--runs-dir', folder])).stdout;
    expect(text).toMatch(/2 \(± 21\.21\) +3 \(1 invalid\) +50 ± 20 +70 +40\.0 % +2\.0 %/);
    expect(text).toContain(`failed run ${failed}`);

    const html = path.join(out, 'quality.html');
    const jsonFile = path.join(out, 'quality.json');
    const csvDir = path.join(out, 'quality-csv');
    const r = await cli(['report', '--runs-dir', folder, '--out', html, '--json', jsonFile, '--csv', csvDir]);
    expect(r.stderr).toMatch(
      /report: 2 run\(s\) counted, 1 left out \(1 failed\), 0 damaged; 1 invalid episode\(s\) not pooled/,
    );
    const data = ReportDataSchema.parse(JSON.parse(readFileSync(jsonFile, 'utf8')));
    expect(data.gameverse.rows.map((x) => [x.label, x.cells['2048']])).toEqual([
      [
        'test-vlm',
        {
          mean: 50,
          std: 20,
          n: 3,
          runs: 2,
          runs_std: 21.21,
          invalid: 1,
          no_effect_rate: 0.4,
          invalid_rate: 0.02,
          quality_runs: 2,
          unreadable: 0,
        },
      ],
    ]);
    expect(data.failed.map((f) => [f.run, f.error])).toEqual([[failed, error]]);
    expect(data.invalid.map((e) => [e.run, e.episode, e.score, e.reason])).toEqual([[rerun, 1, 5, reason]]);
    const page = readFileSync(html, 'utf8');
    for (const id of ['quality', 'failed', 'invalid']) expect(page, id).toContain(`id="table-${id}"`);
    expect(page).toContain('50.0 ± 20.0 (3); 2 runs ± 21.2; 1 invalid');
    expect(page).toContain('40.0 %');
    expect(page).toContain(error);
    expect(page).toContain(reason);
    expect(readFileSync(path.join(csvDir, 'gameverse.csv'), 'utf8')).toMatch(
      /,50,20,3,2,[\d.]+,21\.21,1,0\.4,0\.02,2,normal,0,\r\n/,
    );
    expect(readFileSync(path.join(csvDir, 'failed.csv'), 'utf8')).toContain(error);
    expect(readFileSync(path.join(csvDir, 'invalid.csv'), 'utf8')).toContain(
      `${rerun},2048,vlm,test-vlm,1,5,${reason}`,
    );
    // The app's Runs tab over the same folder: rates beside the score, the failed run apart with its error.
    const shell = await startUiShell({ runsDir: folder });
    const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    try {
      await tab.goto(shell.web.url);
      await tab.getByTestId('tab-runs').click();
      const scores = tab.getByTestId('leaderboard');
      await expect.poll(() => scores.textContent(), { timeout: 60_000 }).toMatch(/3 \(1 invalid\)/);
      expect(await scores.locator('td[data-key="no_effect"]').textContent()).toBe('40.0 %');
      expect(await scores.locator('td[data-key="invalid_rate"]').textContent()).toBe('2.0 %');
      expect(await tab.getByTestId('leaderboard-not-pooled').textContent()).toContain(reason);
      expect(await tab.getByTestId('failed-run-row').textContent()).toContain(error);
      expect(await tab.getByTestId('run-row').count()).toBe(2);
      expect(await tab.getByTestId('run-invalid').textContent()).toContain(`#2 ${reason}`);
      mkdirSync(ARTIFACTS, { recursive: true });
      await tab.locator('section.runs').screenshot({ path: path.join(ARTIFACTS, 'runs-tab-quality.png') });
    } finally {
      await tab.close();
      await shell.close();
    }
  }, 240_000);

  it('the Runs tab shows the same report: its tables and charts, over the contract', async () => {
    expect(pageTables.size).toBe(TABLES.length); // the page test ran first
    const shell = await startUiShell({ runsDir: runs });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    try {
      await page.goto(shell.web.url);
      await page.getByTestId('tab-runs').click();
      await page.getByText('Report', { exact: true }).click();
      await page.getByTestId('report-table-gameverse').waitFor({ timeout: 60_000 });
      for (const id of TABLES) {
        const rows = await page.$$eval(`[data-testid="report-table-${id}"] tbody tr`, (trs) =>
          trs.map((tr) =>
            Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.key!, td.textContent!])),
          ),
        );
        expect(rows, id).toEqual(pageTables.get(id));
      }
      const charts = page.locator('[data-testid^="report-chart-"]');
      await expect.poll(() => charts.count()).toBe(4);
      const painted = await charts.evaluateAll((canvases) =>
        canvases.map((c) => {
          const canvas = c as HTMLCanvasElement;
          const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
          let n = 0;
          for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
          return n;
        }),
      );
      for (const n of painted) expect(n).toBeGreaterThan(2000);
      await page.getByTestId('report').screenshot({ path: path.join(ARTIFACTS, 'runs-tab-report.png') });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await shell.close();
    }
  }, 240_000);
});
