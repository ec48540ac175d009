/**
 * Every reader honours a run's record (issue 37): a failed run is listed apart with its error
 * and pooled nowhere, an invalid episode is counted in its row and listed with its reason but
 * pooled nowhere, the no-effect and invalid-action rates pool as sums of steps, and a cell of
 * several runs shows their spread — in the leaderboard, the report (tables and CSV), the runs
 * list, the export and an arena's tables.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { formatLeaderboard, leaderboard } from '../../electron/store/leaderboard.ts';
import { leftOutLines } from '../../electron/store/run-quality.ts';
import { buildReport } from '../../electron/report/build.ts';
import { reportTables } from '../../electron/report/view.ts';
import { reportCsv } from '../../electron/report/csv.ts';
import { listRuns } from '../../electron/store/run-library.ts';
import { exportDataset } from '../../electron/dataset/export.ts';
import { runsTables, type ArenaSpec } from '../../electron/arena/tables.ts';
import type { StepRecord } from '../../electron/store/run-store.ts';
import { finishedRun, qualityFigures } from '../helpers/run-fixtures.ts';

const quality = qualityFigures;
const NO_ANSWER = 'no model answer in 9 of 10 steps';
const NEVER = 'the model never answered: connect ECONNREFUSED 127.0.0.1:9';

/**
 * One folder for the pooling rules: two completed model runs (one with an invalid episode), a
 * failed one, and a random baseline made before quality figures.
 */
function folder() {
  const root = mkdtempSync(path.join(tmpdir(), 'gp-quality-'));
  const totals = { steps: 20, tokens_in: 1000, tokens_out: 100, cost_usd: null };
  const a = finishedRun(root, { scores: [40, 60], patch: { quality: quality(100, 10, 4), totals } });
  const b = finishedRun(root, {
    scores: [80, { score: 20, invalid: NO_ANSWER }],
    patch: { quality: quality(300, 90, 0), totals },
  });
  const failed = finishedRun(root, { scores: [0], status: 'failed', error: NEVER });
  finishedRun(root, { agent: 'random', model: null, scores: [10, 14] });
  return { root, a: a.meta.id, b: b.meta.id, failed: failed.meta.id };
}

describe('the record’s quality in the tables', () => {
  const f = folder();

  it('the leaderboard pools neither failed runs nor invalid episodes, counts and lists both, and pools rates as sums', () => {
    const { rows, failed, invalid } = leaderboard(f.root);
    const vlm = rows.find((r) => r.player === 'vlm')!;
    // 40, 60 and 80: not the failed run's 0, not the invalid episode's 20.
    expect([vlm.runs, vlm.episodes, vlm.mean, vlm.std, vlm.best]).toEqual([2, 3, 60, 20, 80]);
    expect(vlm.invalid_episodes).toBe(1);
    // The runs' means are 50 and 80: their spread.
    expect(vlm.runs_std).toBe(21.21);
    // (10 + 90) / (100 + 300) = 0.25, where a mean of the runs' rates would say 0.2.
    expect([vlm.no_effect_rate, vlm.invalid_rate, vlm.quality_runs]).toEqual([0.25, 0.01, 2]);
    const random = rows.find((r) => r.player === 'random')!;
    expect([random.no_effect_rate, random.invalid_rate, random.quality_runs, random.runs_std]).toEqual([
      null,
      null,
      0,
      null,
    ]);
    expect(failed).toEqual([expect.objectContaining({ run: f.failed, game: '2048', player: 'vlm', error: NEVER })]);
    expect(invalid).toEqual([expect.objectContaining({ run: f.b, episode: 1, score: 20, reason: NO_ANSWER })]);

    const table = formatLeaderboard(rows);
    expect(table).toMatch(/vlm .* 2 \(± 21\.21\) +3 \(1 invalid\) +60 ± 20 +80 +25\.0 % +1\.0 %/);
    expect(table).toMatch(/random .* 12 ± 2\.83 +14 +n\/a +n\/a/);
    expect(leftOutLines(failed, invalid)).toEqual([
      `failed run ${f.failed} (2048, vlm (test-vlm)): ${NEVER}`,
      `invalid episode 2 of ${f.b} (2048, vlm (test-vlm); the game said 20): ${NO_ANSWER}`,
    ]);
  });

  it('the report’s cells show the spread over reruns and the invalid count; its quality, failed and invalid tables say the rest', () => {
    const d = buildReport(f.root);
    const cell = d.gameverse.rows.find((r) => r.player === 'vlm')!.cells['2048']!;
    expect(cell).toEqual({
      mean: 60,
      std: 20,
      n: 3,
      runs: 2,
      runs_std: 21.21,
      invalid: 1,
      no_effect_rate: 0.25,
      invalid_rate: 0.01,
      quality_runs: 2,
      unreadable: 0,
    });
    expect(d.runs).toMatchObject({ counted: 3, left_out: 1 });
    // Cost per point over the counted episodes' points only.
    expect(d.cost.find((c) => c.player === 'vlm')!.points).toBe(180);
    expect(d.failed.map((x) => [x.run, x.error])).toEqual([[f.failed, NEVER]]);
    expect(d.invalid.map((x) => [x.run, x.episode, x.reason])).toEqual([[f.b, 1, NO_ANSWER]]);

    const tables = new Map(reportTables(d).map((t) => [t.id, t]));
    const t3 = tables.get('gameverse')!.rows.find((r) => r.player === 'test-vlm')!;
    expect(t3['2048']).toBe('60.0 ± 20.0 (3); 2 runs ± 21.2; 1 invalid');
    expect(tables.get('gameverse')!.rows.find((r) => r.player === 'Random')!['2048']).toBe('12.0 ± 2.8 (2)');
    expect(tables.get('quality')!.rows).toEqual([
      expect.objectContaining({ player: 'Random', no_effect: 'n/a', invalid_actions: 'n/a', quality_runs: 0 }),
      expect.objectContaining({
        player: 'test-vlm',
        score: '60.0 ± 20.0 (3); 2 runs ± 21.2; 1 invalid',
        invalid_episodes: 1,
        no_effect: '25.0 %',
        invalid_actions: '1.0 %',
        quality_runs: 2,
      }),
    ]);
    expect(tables.get('failed')!.rows).toEqual([expect.objectContaining({ run: f.failed, error: NEVER })]);
    expect(tables.get('invalid')!.rows).toEqual([
      expect.objectContaining({ run: f.b, episode: 2, score: '20.0', reason: NO_ANSWER }),
    ]);

    const csv = reportCsv(d);
    const gv = csv['gameverse.csv']!.trim().split('\r\n');
    expect(gv[0]).toMatch(
      /,runs,avg_rank,runs_std,invalid_episodes,no_effect_rate,invalid_rate,quality_runs,protocol,unreadable,not_ranked$/,
    );
    expect(gv.find((l) => l.includes(',vlm,'))).toMatch(/,60,20,3,2,[\d.]+,21\.21,1,0\.25,0\.01,2,normal,0,$/);
    expect(gv.find((l) => l.includes(',random,'))).toMatch(/,12,2\.83,2,1,[\d.]+,,0,,,0,normal,0,$/);
    expect(csv['failed.csv']).toContain(`${f.failed},`);
    expect(csv['failed.csv']).toContain(NEVER);
    expect(csv['invalid.csv']).toContain(`${f.b},2048,vlm,test-vlm,1,20,${NO_ANSWER}`);
  });

  it('the runs list gives a failed run’s error, and a run’s score without its invalid episodes', () => {
    const { runs } = listRuns(f.root);
    expect(runs.find((r) => r.id === f.failed)).toMatchObject({ status: 'failed', error: NEVER });
    expect(runs.find((r) => r.id === f.b)).toMatchObject({
      mean: 80,
      episodes: 2,
      invalid: [{ episode: 1, reason: NO_ANSWER }],
    });
    expect(runs.find((r) => r.id === f.a)).not.toHaveProperty('invalid');
  });

  it('refuses a run.json whose quality counts are not counts, naming the file and the field', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-quality-bad-'));
    const dir = finishedRun(root, { scores: [50], patch: { quality: quality(10, 1, 0) } }).dir;
    const meta = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'));
    writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ ...meta, quality: { ...meta.quality, steps: '10' } }));
    const { rows, warnings } = leaderboard(root);
    expect(rows).toEqual([]);
    expect(warnings).toEqual([expect.stringMatching(/run\.json.*quality\.steps/)]);
  });
});

describe('the export and the arena', () => {
  it('exports no row of an invalid episode nor of a failed run, and names both with why', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-quality-export-'));
    const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
      .jpeg()
      .toBuffer();
    const withFrames = (o: Parameters<typeof finishedRun>[1]) => {
      const s = finishedRun(root, o);
      const dir = s.dir;
      mkdirSync(path.join(dir, 'frames'), { recursive: true });
      const steps = o.scores.map((_, episode) => {
        const frame = `frames/e${episode}.jpg`;
        writeFileSync(path.join(dir, frame), jpeg);
        const rec: Partial<StepRecord> = {
          step: 0,
          episode,
          t_capture: 1,
          frame,
          reasoning: '',
          raw: null,
          actions: [{ action_type: 'PRESS', parameters: { key: 'up' } }],
          errors: [],
          latency_ms: { locate: 1, capture: 1, encode: 1, model: 1, act: 1, total: 5 },
        };
        return JSON.stringify(rec);
      });
      writeFileSync(path.join(dir, 'steps.jsonl'), `${steps.join('\n')}\n`);
      return s.meta.id;
    };
    const kept = withFrames({ scores: [70, { score: 0, invalid: NO_ANSWER }] });
    const failed = withFrames({ scores: [0], status: 'failed', error: NEVER });
    const out = path.join(root, 'dataset');
    const summary = await exportDataset({
      sources: [root],
      out,
      format: 'hf-imagefolder',
      filter: {},
      validation: 0,
      seed: 0,
    });
    const rows = readFileSync(path.join(out, 'train', 'metadata.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { run_id: string; episode: number });
    expect(summary.warnings).toEqual([]);
    expect(rows.map((r) => [r.run_id, r.episode])).toEqual([[kept, 0]]);
    expect(summary.skipped).toEqual(
      expect.arrayContaining([
        `${failed}: failed, not completed: ${NEVER}`,
        `${kept}: episode 1 left out, invalid: ${NO_ANSWER}`,
      ]),
    );
  });

  it('an arena’s team scores count no invalid episode', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-quality-arena-'));
    const spec: ArenaSpec = {
      game: '2048',
      mode: 'coop',
      agents: ['solver'],
      trials: 2,
      mixed: false,
      latency: 'normal',
      action_space: 'gui',
      max_steps: null,
      seed: 0,
    };
    finishedRun(root, {
      agent: 'solver vs solver',
      model: null,
      scores: [60, { score: 0, invalid: NO_ANSWER }],
      patch: { arena: { match: 'solver__solver', p1: 'solver', p2: 'solver' } },
    });
    expect(runsTables(root, spec).teams).toEqual([expect.objectContaining({ episodes: 1, mean: 60 })]);
  });
});
