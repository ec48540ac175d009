/**
 * The action budget (OmniGameArena Tables 8/9) from hand-written runs: actions are those
 * steps.jsonl records as sent (refused ones do not count), per title × player × protocol, PDQ
 * (stop, 0 ms) apart from GameVerse's stop and from LCRT; assisted and failed runs are left out;
 * the page's table and the CSV say the same.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWithSteps, type EpisodeSpec } from '../helpers/analysis-runs.ts';
import { buildReport } from '../../electron/report/build.ts';
import { protocolLabel, protocolOf } from '../../electron/store/run-protocol.ts';
import type { RunMeta } from '../../electron/store/run-store.ts';
import { reportTables } from '../../electron/report/view.ts';
import { reportCsv } from '../../electron/report/csv.ts';

const sent = (eps: EpisodeSpec[]) => eps.reduce((n, e) => n + e.steps.reduce((m, s) => m + s.sent, 0), 0);
const score = (eps: EpisodeSpec[]) => eps.reduce((n, e) => n + e.score, 0);

describe('the action budget', () => {
  it('counts sent actions per episode and score per action, per protocol', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-budget-'));
    const pdq: EpisodeSpec[] = [
      { score: 60, steps: [{ sent: 2, refused: 1 }, { sent: 1 }, { sent: 3 }] },
      { score: 30, steps: [{ sent: 1 }, { sent: 0, refused: 2 }] },
    ];
    const pdq2: EpisodeSpec[] = [{ score: 90, steps: [{ sent: 4 }, { sent: 4 }] }];
    const lcrt: EpisodeSpec[] = [
      { score: 20, steps: [{ sent: 1 }] },
      { score: 10, steps: [{ sent: 1 }] },
    ];
    const stop: EpisodeSpec[] = [{ score: 50, steps: [{ sent: 5 }] }];
    await runWithSteps(root, { config: { latency: 'stop', stop_interval_ms: 0 }, episodes: pdq });
    await runWithSteps(root, { config: { latency: 'stop', stop_interval_ms: 0 }, episodes: pdq2 });
    await runWithSteps(root, { config: { latency: 'lcrt' }, episodes: lcrt });
    await runWithSteps(root, { config: { latency: 'stop', stop_interval_ms: 2000 }, episodes: stop });
    // Neither counts: a person took over, and a run that failed.
    await runWithSteps(root, { config: { latency: 'lcrt' }, episodes: stop, patch: { assisted: true } });
    await runWithSteps(root, { config: { latency: 'lcrt' }, episodes: stop, status: 'failed' });

    const data = buildReport(root);
    const rows = data.analyses.action_budget;
    expect(rows.map((r) => r.protocol)).toEqual(['PDQ', 'LCRT', 'stop 2000 ms, freeze engine']);
    const both = [...pdq, ...pdq2];
    expect(rows[0]).toMatchObject({
      game: '2048',
      model: 'test-vlm',
      runs: 2,
      episodes: 3,
      actions_per_episode: Math.round((sent(both) / 3) * 100) / 100,
      steps_per_episode: Math.round((7 / 3) * 100) / 100,
      mean_score: score(both) / 3,
      score_per_action: Math.round((score(both) / sent(both)) * 1e4) / 1e4,
    });
    expect(rows[1]).toMatchObject({ runs: 1, episodes: 2, actions_per_episode: 1, score_per_action: 15 });
    expect(rows[2]).toMatchObject({ runs: 1, episodes: 1, actions_per_episode: 5, score_per_action: 10 });

    // The page: one row per title × player, PDQ beside LCRT under each heading.
    const table = reportTables(data).find((t) => t.id === 'action-budget')!;
    expect(table.groups?.map((g) => [g.label, g.span])).toEqual([
      ['', 2],
      ['Actions / episode', 3],
      ['Score / action', 3],
    ]);
    expect(table.rows).toEqual([
      {
        game: '2048',
        player: 'test-vlm',
        'actions:PDQ': `${rows[0]!.actions_per_episode.toFixed(1)} (3)`,
        'actions:LCRT': '1.0 (2)',
        'actions:stop 2000 ms, freeze engine': '5.0 (1)',
        'score:PDQ': rows[0]!.score_per_action!.toFixed(4),
        'score:LCRT': '15.0000',
        'score:stop 2000 ms, freeze engine': '10.0000',
      },
    ]);
    const csv = reportCsv(data)['action-budget.csv']!.trim().split('\r\n');
    expect(csv).toHaveLength(4);
    expect(csv[2]).toBe('2048,vlm,test-vlm,LCRT,1,2,1,1,15,15');
  });

  it('names the protocol as the papers do where one fits: PDQ, LCRT, else the run protocol', () => {
    const meta = (config: Record<string, unknown>, kind = 'builtin') =>
      ({ target: { kind, label: 'x' }, config }) as unknown as RunMeta;
    const label = (config: Record<string, unknown>, kind?: string) => protocolLabel(protocolOf(meta(config, kind)));
    expect(label({ latency: 'stop', stop_interval_ms: 0 })).toBe('PDQ');
    expect(label({ latency: 'stop', stop_interval_ms: 0 }, 'window')).toBe('PDQ, freeze process');
    expect(label({ latency: 'stop', stop_interval_ms: 2000 })).toBe('stop 2000 ms, freeze engine');
    expect(label({ latency: 'stop' })).toBe('stop 2000 ms, freeze engine'); // the default interval
    expect(label({ latency: 'lcrt' })).toBe('LCRT');
    expect(label({})).toBe('normal');
  });
});
