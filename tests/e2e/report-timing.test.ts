/**
 * Input-to-screen latency, published (issue 40): two runs made by the real CLI — the built-in
 * 2048 played by its solver in stop mode, and Debian's gnome-2048 (a real X window) played by the
 * local test model in normal mode — and a copy of one as a run made before run.json kept its
 * times. `gamepilot report` (page, JSON, CSV) and `gamepilot leaderboard` (text, --json) give each
 * run's input-to-screen, model and overhead p50/p95 equal to the percentiles of its own
 * steps.jsonl, its latency mode beside them, and "—" for the old run, never 0.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, runCli, testModelArgs } from '../helpers/cli.ts';
import { startWindow, stop } from '../helpers/windows.ts';
import { ReportDataSchema } from '../../electron/report/model.ts';
import type { LeaderboardRow } from '../../electron/domain.ts';

const KEYS = ['left', 'up', 'right', 'down'];
const runs = mkdtempSync(path.join(tmpdir(), 'gp-timing-runs-'));
const out = mkdtempSync(path.join(tmpdir(), 'gp-timing-out-'));
let server: FakeOpenAI;
let game: ChildProcess | undefined;

beforeAll(async () => {
  server = await new FakeOpenAI((_b, i) => ({
    text: answer('slide', [{ action_type: 'PRESS', parameters: { key: KEYS[i % KEYS.length] } }]),
  })).start();
  game = (await startWindow('/usr/games/gnome-2048', [], /^GNOME 2048$/)).child;
});
afterAll(async () => {
  if (game) await stop(game);
  await server?.close();
});

async function cli(args: string[]) {
  const r = await runCli(args, { timeoutMs: 180_000 });
  expect(r.code, `gamepilot ${args.join(' ')}\n${r.stderr}`).toBe(0);
  return r;
}

/** Nearest-rank percentile, as the tables read it, at their resolution (whole ms below 1 s, three significant figures above). */
function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  const v = s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
  return Math.round(v) < 1000 ? Math.round(v) : Number(v.toPrecision(3));
}
const figures = (values: number[]) => ({ n: values.length, p50: pct(values, 50), p95: pct(values, 95) });
const text = (f: { p50: number; p95: number } | null) => (f ? `${f.p50} / ${f.p95}` : '—');

/** What the tables must say of a run, computed here from its own steps.jsonl. */
function expectedOf(dir: string) {
  const steps = readFileSync(path.join(dir, 'steps.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const effect = steps.filter((s) => typeof s.effect_ms === 'number').map((s) => s.effect_ms as number);
  const answered = steps.filter((s) => (s.model_calls ?? []).some((c: { ok: boolean }) => c.ok));
  const model = answered.map((s) => s.latency_ms.model as number);
  const overhead = steps.map(
    (s) => s.latency_ms.locate + s.latency_ms.capture + s.latency_ms.encode + s.latency_ms.act,
  );
  return {
    steps: steps.length,
    modes: [...new Set(steps.map((s) => s.latency_mode as string))],
    effect: figures(effect),
    model: model.length ? figures(model) : null,
    overhead: figures(overhead),
  };
}

/** The rows of one table of the report's page, each cell by its column key, as the HTML holds them. */
function pageTable(html: string, id: string): Record<string, string>[] {
  const table = new RegExp(`<table id="table-${id}">([\\s\\S]*?)</table>`).exec(html);
  if (!table) throw new Error(`no table ${id} in the page`);
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(table[1]!)![1]!;
  const unescapeHtml = (s: string) =>
    s
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((tr) =>
    Object.fromEntries(
      [...tr[1]!.matchAll(/<td data-key="([^"]+)"[^>]*>([\s\S]*?)<\/td>/g)].map((m) => [m[1]!, unescapeHtml(m[2]!)]),
    ),
  );
}

describe('input-to-screen latency in the report and the leaderboard', () => {
  it('gives each run the p50/p95 of its own steps, by latency mode, and an older run "—"', async () => {
    const builtin = json(
      await cli([
        'run',
        '--game',
        '2048',
        '--agent',
        'solver',
        '--episodes',
        '1',
        '--max-steps',
        '20',
        '--latency',
        'stop',
        '--stop-interval-ms',
        '100',
        '--runs-dir',
        runs,
        '--json',
        '--quiet',
      ]),
    ).run_dir as string;
    const window = json(
      await cli([
        'run',
        '--window',
        '^GNOME 2048$',
        '--no-profile',
        ...testModelArgs(server.baseURL),
        '--max-steps',
        '8',
        '--runs-dir',
        runs,
        '--json',
        '--quiet',
      ]),
    ).run_dir as string;
    // A run made before run.json kept its times: the built-in run's folder without them.
    const oldId = `${path.basename(builtin)}-old`;
    cpSync(builtin, path.join(runs, oldId), { recursive: true });
    const oldMeta = JSON.parse(readFileSync(path.join(runs, oldId, 'run.json'), 'utf8'));
    delete oldMeta.timing;
    writeFileSync(path.join(runs, oldId, 'run.json'), JSON.stringify({ ...oldMeta, id: oldId }, null, 2));

    const want = new Map([
      [path.basename(builtin), { ...expectedOf(builtin), mode: 'stop' }],
      [path.basename(window), { ...expectedOf(window), mode: 'normal' }],
    ] as const);
    for (const [id, w] of want) {
      expect(w.modes, id).toEqual([w.mode]);
      // Enough steps measured their effect for the figures to mean something.
      expect(w.effect.n, id).toBeGreaterThanOrEqual(3);
    }
    expect(want.get(path.basename(builtin))!.model).toBeNull(); // the solver calls no model
    expect(want.get(path.basename(window))!.model?.n).toBe(8);

    const html = path.join(out, 'report.html');
    const jsonFile = path.join(out, 'report.json');
    const csvDir = path.join(out, 'csv');
    await cli(['report', '--runs-dir', runs, '--out', html, '--json', jsonFile, '--csv', csvDir]);

    // The page's run table.
    const rows = pageTable(readFileSync(html, 'utf8'), 'run-timing');
    for (const r of rows)
      console.log(
        `${r.game} ${r.latency}: to screen ${r.to_screen} (${r.measured}), model ${r.model}, overhead ${r.overhead} ms`,
      );
    expect(rows.map((r) => r.run).sort()).toEqual([...want.keys(), oldId].sort());
    for (const [id, w] of want) {
      const row = rows.find((r) => r.run === id)!;
      expect(row, id).toMatchObject({
        latency: w.mode,
        steps: String(w.steps),
        to_screen: text(w.effect),
        measured: String(w.effect.n),
        model: text(w.model),
        overhead: text(w.overhead),
      });
    }
    expect(rows.find((r) => r.run === oldId)).toMatchObject({
      latency: 'stop',
      steps: '—',
      to_screen: '—',
      measured: '—',
      model: '—',
      overhead: '—',
    });

    // The same in the JSON and the CSV (null and empty for the old run, never 0).
    const data = ReportDataSchema.parse(JSON.parse(readFileSync(jsonFile, 'utf8')));
    for (const [id, w] of want) {
      const row = data.run_timing.find((r) => r.run === id)!;
      expect([row.mode, row.effect_ms, row.model_ms, row.overhead_ms], id).toEqual([
        w.mode,
        w.effect,
        w.model ?? { n: 0, p50: null, p95: null },
        w.overhead,
      ]);
    }
    expect(data.run_timing.find((r) => r.run === oldId)).toMatchObject({ mode: null, effect_ms: null });
    const csv = readFileSync(path.join(csvDir, 'run-timing.csv'), 'utf8').trim().split('\r\n');
    const head = csv[0]!.split(',');
    const csvRow = (id: string) => {
      const cells = csv.find((l) => l.startsWith(`${id},`))!.split(',');
      return Object.fromEntries(head.map((h, i) => [h, cells[i]]));
    };
    const window_ = want.get(path.basename(window))!;
    expect(csvRow(path.basename(window))).toMatchObject({
      mode: 'normal',
      effect_p50_ms: String(window_.effect.p50),
      effect_p95_ms: String(window_.effect.p95),
      model_p50_ms: String(window_.model!.p50),
    });
    expect(csvRow(oldId)).toMatchObject({ mode: '', effect_n: '', effect_p50_ms: '', overhead_p95_ms: '' });

    // The leaderboard: the built-in's row pools its run and the old copy, whose times it does not have.
    const board = json<LeaderboardRow[]>(await cli(['leaderboard', '--runs-dir', runs, '--json']));
    const row = board.find((r) => r.game === '2048' && r.player === 'solver')!;
    const b = want.get(path.basename(builtin))!;
    expect([row.latency, row.runs, row.timing_runs]).toEqual(['stop', 2, 1]);
    expect(row.timing).toEqual({
      stop: { steps: b.steps, effect_ms: b.effect, model_ms: { n: 0, p50: null, p95: null }, overhead_ms: b.overhead },
    });
    const textBoard = (await cli(['leaderboard', '--runs-dir', runs])).stdout.split('\n');
    expect(textBoard[0]).toMatch(/to screen ms p50 \/ p95 \(n\) +model ms p50 \/ p95 +overhead ms p50 \/ p95/);
    const line = textBoard.find((l) => /^2048 +solver /.test(l))!;
    expect(line.trim().split(/ {2,}/).slice(-3)).toEqual([`${text(b.effect)} (${b.effect.n})`, '—', text(b.overhead)]);
  });
});
