/**
 * The leaderboard keeps protocols apart (a PDQ run, stop with no interval, is not GameVerse's
 * Stop, 2 s after acting) and counts every trial (an unreadable score is a 0, said, never dropped).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runsTables, type ArenaSpec } from '../../electron/arena/tables.ts';
import { buildReport } from '../../electron/report/build.ts';
import { reportTables } from '../../electron/report/view.ts';
import { formatLeaderboard, leaderboard } from '../../electron/store/leaderboard.ts';

type Episode = { score: number | null; raw_score?: number | null; invalid?: string };

let runs = 0;
/** A completed run of GPT-4o on built-in 2048 (or a window), its config and episodes as given. */
function played(root: string, config: Record<string, unknown>, episodes: Episode[], extra: object = {}) {
  const id = `run-${String(++runs).padStart(3, '0')}`;
  mkdirSync(path.join(root, id), { recursive: true });
  writeFileSync(
    path.join(root, id, 'run.json'),
    JSON.stringify({
      id,
      created: '2026-12-07T00:00:00.000Z',
      status: 'completed',
      kind: 'agent',
      game: '2048',
      target: { kind: 'builtin', label: '2048' },
      agent: 'vlm',
      model: 'gpt-4o',
      action_space: 'gui',
      config,
      episodes: episodes.map((e, episode) => ({ episode, seed: episode, steps: 5, end: 'game_over', ...e })),
      mean: null,
      std: null,
      totals: { steps: 10, tokens_in: 0, tokens_out: 0, cost_usd: null },
      ...extra,
    }),
  );
}
const scores = (...s: number[]) => s.map((score) => ({ score }));

describe('protocols kept apart', () => {
  it('puts a PDQ run (stop, 0 ms) and a GameVerse Stop run (stop, 2000 ms) in different cells, and compares each with normal on its own', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-protocols-'));
    played(root, { latency: 'stop', stop_interval_ms: 0 }, scores(80, 80));
    played(root, { latency: 'stop', stop_interval_ms: 2000 }, scores(40, 40));
    played(root, { latency: 'normal' }, scores(50, 50));

    const { rows } = leaderboard(root);
    expect(rows.map((r) => [r.latency, r.protocol, r.episodes, r.mean])).toEqual([
      ['stop', 'stop 0 ms, freeze engine', 2, 80],
      ['normal', 'normal', 2, 50],
      ['stop', 'stop 2000 ms, freeze engine', 2, 40],
    ]);
    expect(formatLeaderboard(rows)).toMatch(/stop 0 ms, freeze engine .* 80 ± 0/);
    expect(formatLeaderboard(rows)).toMatch(/stop 2000 ms, freeze engine .* 40 ± 0/);

    // Two comparisons, one per stop protocol: normal's change against each, never against their pool (60).
    const data = buildReport(root);
    expect(data.latency.map((l) => [l.reference, l.modes.map((m) => [m.protocol, m.mean, m.change_vs_stop])])).toEqual([
      [
        'stop 0 ms, freeze engine',
        [
          ['stop 0 ms, freeze engine', 80, null],
          ['normal', 50, -30],
        ],
      ],
      [
        'stop 2000 ms, freeze engine',
        [
          ['stop 2000 ms, freeze engine', 40, null],
          ['normal', 50, 10],
        ],
      ],
    ]);
    // The report names each cell's protocol.
    const table = reportTables(data).find((t) => t.id === 'latency')!;
    expect(table.rows).toEqual([
      expect.objectContaining({
        reference: 'stop 0 ms, freeze engine',
        'stop 0 ms, freeze engine': '80.0 ± 0.0 (2)',
        normal: '50.0 ± 0.0 (2)',
        'normal:change': '-30.0',
      }),
      expect.objectContaining({
        reference: 'stop 2000 ms, freeze engine',
        'stop 2000 ms, freeze engine': '40.0 ± 0.0 (2)',
        normal: '50.0 ± 0.0 (2)',
        'normal:change': '+10.0',
      }),
    ]);
    const t3 = reportTables(data).find((t) => t.id === 'gameverse')!;
    expect(t3.rows.map((r) => [r.protocol, r['2048']])).toEqual([
      ['normal', '50.0 ± 0.0 (2)'],
      ['stop 0 ms, freeze engine', '80.0 ± 0.0 (2)'],
      ['stop 2000 ms, freeze engine', '40.0 ± 0.0 (2)'],
    ]);
  });

  it('keeps a window frozen by its pause key and one frozen by suspending its process in two families', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-protocols-freeze-'));
    const window = { game: null, target: { kind: 'window', label: 'Mini Metro' } };
    played(root, { latency: 'stop', stop_interval_ms: 2000, pause_key: 'space' }, scores(30), window);
    played(root, { latency: 'slow', slow_buffer_ms: 5000 }, scores(20), window);
    played(root, { latency: 'normal' }, scores(10), window);
    const data = buildReport(root);
    expect(
      data.latency.map((l) => [l.freeze, l.reference, l.modes.map((m) => [m.protocol, m.change_vs_stop])]),
    ).toEqual([
      [
        'pause key space',
        'stop 2000 ms, freeze pause key space',
        [
          ['stop 2000 ms, freeze pause key space', null],
          ['normal', -20],
        ],
      ],
      [
        'process',
        null,
        [
          ['slow 5000 ms, freeze process', null],
          ['normal', null],
        ],
      ],
    ]);
  });
});

describe('every trial counts', () => {
  it('scores an unreadable trial 0, flagged, in the mean; leaves out invalid episodes and runs nothing scored', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-unreadable-'));
    // A screen-scored window: two readings failed (the score could not be read).
    const window = { game: null, target: { kind: 'window', label: 'Angry Birds' } };
    played(
      root,
      { latency: 'normal' },
      [
        { score: 60, raw_score: 6 },
        { score: null, raw_score: null },
        { score: 80, raw_score: 8 },
        { score: null, raw_score: null },
      ],
      window,
    );
    // A milestone-judged run whose one episode the judge gave no score, and an invalid episode (listed apart).
    played(
      root,
      { latency: 'normal' },
      [{ score: 40 }, { score: null }, { score: null, invalid: 'the model never answered' }],
      { ...window, milestones: { kind: 'milestones' } },
    );
    // A window nothing scored (no scorer, not judged): no trial to count.
    played(root, { latency: 'normal' }, [{ score: null }, { score: null }], {
      ...window,
      target: { kind: 'window', label: 'Notepad' },
    });

    const { rows, invalid } = leaderboard(root);
    expect(rows.map((r) => [r.title, r.runs, r.episodes, r.unreadable, r.invalid_episodes, r.mean])).toEqual([
      // (60 + 0 + 80 + 0 + 40 + 0) / 6
      ['Angry Birds', 2, 6, 3, 1, 30],
    ]);
    expect(invalid.map((e) => e.reason)).toEqual(['the model never answered']);
    const text = formatLeaderboard(rows);
    expect(text).toMatch(/ 6 \(3 unreadable, 1 invalid\) +30 ± /);
    expect(text).toMatch(
      /unreadable scores \(counted as 0 in the mean\):\n.*Angry Birds.*: 3 of 6 trials unreadable, scored 0/,
    );

    const data = buildReport(root);
    const cells = Object.values(data.gameverse.rows[0]!.cells);
    expect(cells).toHaveLength(1);
    expect(cells[0]).toMatchObject({ mean: 30, n: 6, unreadable: 3, invalid: 1 });
    const t3 = reportTables(data).find((t) => t.id === 'gameverse')!;
    // sample std of 60, 0, 80, 0, 40, 0; the two runs' means 35 and 20.
    expect(t3.rows[0]!['window:Angry Birds']).toBe(
      '30.0 ± 35.2 (6); 2 runs ± 10.6; 1 invalid; 3 of 6 trials unreadable, scored 0',
    );
  });

  it('scores a co-op team’s unreadable episode 0 in the arena’s team table, and says so', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-unreadable-coop-'));
    const spec: ArenaSpec = {
      game: '2048',
      mode: 'coop',
      agents: ['solver'],
      trials: 3,
      mixed: false,
      latency: 'normal',
      action_space: 'gui',
      max_steps: null,
      seed: 0,
    };
    played(
      root,
      { latency: 'normal' },
      [
        { score: 60, raw_score: 6 },
        { score: null, raw_score: null },
        { score: null, invalid: 'no answer' },
      ],
      { agent: 'solver vs solver', model: null, arena: { match: 'solver__solver', p1: 'solver', p2: 'solver' } },
    );
    expect(runsTables(root, spec).teams).toEqual([expect.objectContaining({ episodes: 2, unreadable: 1, mean: 30 })]);
  });

  it('scores a two-seat co-op run’s unreadable episode 0 in the report’s two-seat table, and says so', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-unreadable-two-seat-'));
    const seats = [
      { seat: 0, name: 'A', agent: 'solver', model: null },
      { seat: 1, name: 'B', agent: 'solver', model: null },
    ];
    played(
      root,
      { latency: 'normal' },
      [
        { score: 60, raw_score: 6 },
        { score: null, raw_score: null },
      ],
      {
        agent: 'solver vs solver',
        model: null,
        seats,
        mean: 60,
      },
    );
    const data = buildReport(root);
    expect(data.two_seat).toEqual([expect.objectContaining({ episodes: 2, unreadable: 1, mean: 30 })]);
    const table = reportTables(data).find((t) => t.id === 'two-seat')!;
    expect(table.rows[0]!.episodes).toBe('1 of 2 trials unreadable, scored 0');
  });
});
