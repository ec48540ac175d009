/**
 * A run's times (run.json `timing`, issue 40): input to screen, the model's time and the
 * harness's overhead kept as a count per kept value, so that the leaderboard pools several runs
 * to exactly the percentiles of all their steps together, the kept samples stay bounded however
 * long the run, and a run made before them shows "—", never 0 — in the leaderboard (text and
 * JSON), the report's run table and its CSV.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LatencyMode, RunTiming } from '../../electron/domain.ts';
import { keptMs, MAX_KEPT_VALUES, MsTally, TimingTally } from '../../electron/store/run-timing.ts';
import { noteStepTiming } from '../../electron/session/step-timing.ts';
import type { SessionStepRecord } from '../../electron/session/session-types.ts';
import { formatLeaderboard, leaderboard } from '../../electron/store/leaderboard.ts';
import { readRunMeta } from '../../electron/store/run-store.ts';
import { buildReport } from '../../electron/report/build.ts';
import { reportTables } from '../../electron/report/view.ts';
import { reportCsv } from '../../electron/report/csv.ts';
import { percentile } from '../../electron/util/time.ts';
import { seededRng } from '../../games/shared/rng.ts';
import { finishedRun } from '../helpers/run-fixtures.ts';

interface Step {
  effect: number | null;
  model: number | null;
  locate: number;
  capture: number;
  encode: number;
  act: number;
}

/** `n` steps drawn around the given centres (ms, two decimals as steps.jsonl writes them); some measure no effect, some get no model answer. */
function stepsDrawn(seed: number, n: number, centre: { effect: number; model: number }): Step[] {
  const r = seededRng(seed);
  const ms = (c: number) => Math.round(c * (0.3 + 1.4 * r()) * 100) / 100;
  return Array.from({ length: n }, () => ({
    effect: r() < 0.2 ? null : ms(centre.effect),
    model: r() < 0.1 ? null : ms(centre.model),
    locate: ms(1),
    capture: ms(2.5),
    encode: ms(1.3),
    act: ms(0.4),
  }));
}

/** A step record as a session writes it, with what the timing reads. */
function record(s: Step, mode: LatencyMode, extra: Partial<SessionStepRecord> = {}): SessionStepRecord {
  return {
    step: 0,
    episode: 0,
    t_capture: 0,
    frame: null,
    reasoning: '',
    raw: null,
    actions: [],
    errors: [],
    latency_ms: {
      locate: s.locate,
      capture: s.capture,
      encode: s.encode,
      model: s.model ?? 30_000,
      act: s.act,
      total: 0,
    },
    latency_mode: mode,
    world: 'engine',
    paused_ms: 0,
    effect: s.effect === null ? 'none' : 'changed',
    effect_ms: s.effect,
    // A step without a model answer: its call failed (its time is the failure's, not the model's).
    model_calls: [{ ok: s.model !== null }],
    ...extra,
  };
}

/** run.json `timing` of a run of these steps, gathered as the run's audit gathers it. */
function timingOf(steps: Step[], mode: LatencyMode, playedIn: LatencyMode[] = [mode]): RunTiming {
  const tally = new TimingTally();
  for (const [i, s] of steps.entries()) noteStepTiming(tally, record(s, playedIn[i % playedIn.length]!));
  return { latency_mode: mode, by_mode: tally.byMode() };
}

const overheadOf = (s: Step) => s.locate + s.capture + s.encode + s.act;
/** The nearest-rank p50 and p95 of raw values, at the kept resolution. */
const expected = (values: number[]) => ({
  n: values.length,
  p50: keptMs(percentile(values, 50)),
  p95: keptMs(percentile(values, 95)),
});
const figures = (f: { n: number; p50: number | null; p95: number | null } | undefined) =>
  f && { n: f.n, p50: f.p50, p95: f.p95 };

function run(root: string, o: { agent?: string; model?: string | null; latency: LatencyMode; timing?: RunTiming }) {
  const patch = o.timing ? { timing: o.timing } : {};
  return finishedRun(root, { ...o, scores: [50], patch }).meta.id;
}

describe('kept samples', () => {
  it('keep whole milliseconds below 1 s and three significant figures above, in order', () => {
    expect([0, 0.49, 0.5, 17.26, 999.4, 999.5, 1004, 1005, 12_345, 99_950, 123_456_789].map(keptMs)).toEqual([
      0, 0, 1, 17, 999, 1000, 1000, 1010, 12_300, 100_000, 123_000_000,
    ]);
    // Rounding keeps the order, so a percentile of kept values is the kept value of the percentile.
    const values = stepsDrawn(7, 500, { effect: 40, model: 2500 }).map((s) => s.model ?? 0);
    for (const p of [50, 95])
      expect(
        percentile(
          values.map((v) => keptMs(v)),
          p,
        ),
      ).toBe(keptMs(percentile(values, p)));
  });

  it('stay bounded however long the run: a count per kept value, at most 1,000 + 900 a decade', () => {
    const sizes = [1_000, 200_000].map((n) => {
      const r = seededRng(n);
      const tally = new MsTally();
      // Anything from 0 to 100 s: every whole ms below 1 s, 10 ms steps to 10 s, 100 ms steps above.
      for (let i = 0; i < n; i++) tally.add(r() * 100_000);
      const s = tally.samples();
      expect(s.n).toBe(n);
      return s.counts.length;
    });
    expect(sizes[1]).toBeLessThanOrEqual(1000 + 900 * 2);
    expect(sizes[1]! / sizes[0]!).toBeLessThan(5); // 200 times the steps, not 200 times the size
    const wide = new MsTally();
    // Every kept value to 9.99 × 10¹² ms is reached: steps of 0.05 % (under half a millisecond below 1 s).
    for (let v = 0; v < 9.994e12; v += Math.max(0.4, v / 2000)) wide.add(v);
    expect(wide.samples().counts.length).toBeLessThanOrEqual(MAX_KEPT_VALUES);
    expect(wide.samples().counts.length).toBe(MAX_KEPT_VALUES); // the bound is the real one
  });

  it("a step's times: input to screen when measured, the model's when it answered, the harness's four stages; a person's step adds nothing", () => {
    const tally = new TimingTally();
    const s: Step = { effect: 18.4, model: 905.2, locate: 0.9, capture: 2.45, encode: 1.2, act: 0.07 };
    noteStepTiming(tally, record(s, 'stop'));
    noteStepTiming(tally, record({ ...s, effect: null, model: null }, 'stop'));
    noteStepTiming(tally, record(s, 'stop', { actor: 'human' }));
    // A two-seat step: the seats' calls, not the step's.
    noteStepTiming(tally, record(s, 'normal', { model_calls: undefined, seats: [{ model_calls: [{ ok: true }] }] }));
    const t = tally.figures();
    expect(t.stop).toEqual({
      steps: 2,
      effect_ms: { n: 1, p50: 18, p95: 18 },
      model_ms: { n: 1, p50: 905, p95: 905 },
      overhead_ms: { n: 2, p50: 5, p95: 5 },
    });
    expect(t.normal?.model_ms).toEqual({ n: 1, p50: 905, p95: 905 });
  });
});

describe('a row pooling several runs', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'gp-timing-'));
  // Three model runs in normal of different lengths and speeds, one of them switched to stop for every other step.
  const normal = [
    stepsDrawn(1, 40, { effect: 20, model: 800 }),
    stepsDrawn(2, 300, { effect: 60, model: 1500 }),
    stepsDrawn(3, 7, { effect: 35, model: 400 }),
  ];
  const switched = stepsDrawn(4, 20, { effect: 25, model: 600 });
  for (const steps of normal) run(root, { latency: 'normal', timing: timingOf(steps, 'normal') });
  run(root, { latency: 'normal', timing: timingOf(switched, 'normal', ['normal', 'stop']) });
  // The same player in stop: a row of its own.
  const stop = stepsDrawn(5, 30, { effect: 30, model: 700 });
  run(root, { latency: 'stop', timing: timingOf(stop, 'stop') });
  // A baseline made before runs kept their times, and one that kept them.
  const old = run(root, { agent: 'random', model: null, latency: 'normal' });
  const random = stepsDrawn(6, 25, { effect: 15, model: 0 }).map((s) => ({ ...s, model: null }));
  const kept = run(root, { agent: 'random', model: null, latency: 'normal', timing: timingOf(random, 'normal') });

  it('gives exactly the percentiles of all their steps together, per latency mode the steps were played in', () => {
    const { rows } = leaderboard(root);
    const row = rows.find((r) => r.player === 'vlm' && r.latency === 'normal')!;
    const inNormal = [...normal.flat(), ...switched.filter((_, i) => i % 2 === 0)];
    const inStop = switched.filter((_, i) => i % 2 === 1);
    const effect = (steps: Step[]) => steps.flatMap((s) => (s.effect === null ? [] : [s.effect]));
    const model = (steps: Step[]) => steps.flatMap((s) => (s.model === null ? [] : [s.model]));
    expect(row.timing_runs).toBe(4);
    for (const [mode, steps] of [
      ['normal', inNormal],
      ['stop', inStop],
    ] as const) {
      const t = row.timing[mode]!;
      expect(t.steps, mode).toBe(steps.length);
      expect(figures(t.effect_ms), mode).toEqual(expected(effect(steps)));
      expect(figures(t.model_ms), mode).toEqual(expected(model(steps)));
      expect(figures(t.overhead_ms), mode).toEqual(expected(steps.map(overheadOf)));
    }
    // Pooled figures are not a mean of the runs' own: the longest run weighs most.
    const runP50s = normal.map((s) => expected(effect(s)).p50);
    expect(row.timing.normal!.effect_ms.p50).not.toBe(Math.round(runP50s.reduce((a, b) => a + b, 0) / runP50s.length));
    const stopRow = rows.find((r) => r.player === 'vlm' && r.latency === 'stop')!;
    expect(Object.keys(stopRow.timing)).toEqual(['stop']);
    expect(figures(stopRow.timing.stop!.effect_ms)).toEqual(expected(effect(stop)));
  });

  it('says "—" for runs made before, never 0, and names steps played in another mode under the text table', () => {
    const { rows } = leaderboard(root);
    const base = rows.find((r) => r.player === 'random')!;
    // The old run adds nothing; the row's figures are the other run's alone.
    expect(base.runs).toBe(2);
    expect(base.timing_runs).toBe(1);
    expect(figures(base.timing.normal!.effect_ms)).toEqual(
      expected(random.flatMap((s) => (s.effect === null ? [] : [s.effect]))),
    );
    expect(base.timing.normal!.model_ms).toEqual({ n: 0, p50: null, p95: null });
    const text = formatLeaderboard(rows);
    const line = (player: string, latency: string) =>
      text.split('\n').find((l) => l.includes(` ${player} `) && l.includes(` ${latency} `))!;
    const row = rows.find((r) => r.player === 'vlm' && r.latency === 'normal')!;
    const n = row.timing.normal!;
    const cells = (l: string) => l.trim().split(/ {2,}/).slice(-3);
    expect(cells(line('vlm', 'normal'))).toEqual([
      `${n.effect_ms.p50} / ${n.effect_ms.p95} (${n.effect_ms.n})`,
      `${n.model_ms.p50} / ${n.model_ms.p95}`,
      `${n.overhead_ms.p50} / ${n.overhead_ms.p95}`,
    ]);
    expect(cells(line('random', 'normal'))).toEqual([
      expect.stringMatching(/^\d+ \/ \d+ \(\d+\)$/),
      '—',
      expect.stringMatching(/^\d+ \/ \d+$/),
    ]);
    expect(text).toMatch(/switched mid-run/);
    expect(text).toContain(`vlm (test-vlm), normal row: ${row.timing.stop!.steps} steps played in stop after a switch`);

    // Only a run made before: every figure is "—".
    const alone = mkdtempSync(path.join(tmpdir(), 'gp-timing-old-'));
    run(alone, { agent: 'random', model: null, latency: 'normal' });
    const [oldRow] = leaderboard(alone).rows;
    expect([oldRow!.timing, oldRow!.timing_runs]).toEqual([{}, 0]);
    expect(cells(formatLeaderboard([oldRow!]).split('\n')[2]!)).toEqual(['—', '—', '—']);
  });

  it("lists every run in the report's run table, a row per mode played, with the old run as —", () => {
    const data = buildReport(root);
    const table = reportTables(data).find((t) => t.id === 'run-timing')!;
    expect(table.rows).toHaveLength(8); // seven runs, the switched one in two modes
    const oldRow = table.rows.find((r) => r.run === old)!;
    expect(oldRow).toMatchObject({ latency: 'normal', steps: '—', to_screen: '—', model: '—', overhead: '—' });
    const keptRow = table.rows.find((r) => r.run === kept)!;
    const t = readRunMeta(path.join(root, kept)).timing!.by_mode.normal!;
    expect(keptRow).toMatchObject({
      steps: random.length,
      to_screen: `${t.effect_ms.p50} / ${t.effect_ms.p95}`,
      measured: t.effect_ms.n,
      model: '—',
      overhead: `${t.overhead_ms.p50} / ${t.overhead_ms.p95}`,
    });
    expect(table.rows.map((r) => r.latency)).toContain('stop (switched from normal)');
    // The CSV: empty cells, never 0, for what was not kept.
    const csv = reportCsv(data)['run-timing.csv']!.trim().split('\r\n');
    expect(csv[0]).toBe(
      'run,created,game,player,model,status,latency,mode,steps,effect_n,effect_p50_ms,effect_p95_ms,model_n,model_p50_ms,model_p95_ms,overhead_n,overhead_p50_ms,overhead_p95_ms',
    );
    expect(csv.find((l) => l.startsWith(`${old},`))).toMatch(/,completed,normal,,,,,,,,,,,$/);
    expect(csv.find((l) => l.startsWith(`${kept},`))).toContain(
      `,normal,normal,${random.length},${t.effect_ms.n},${t.effect_ms.p50},${t.effect_ms.p95},0,,,`,
    );
  });
});
