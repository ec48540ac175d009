/**
 * GameVerse's Avg Rank over the paper's pool: a runs folder shaped like the paper's Table 3 (Random,
 * Human Expert, Human Rookie No / Yes and seven models No / Yes on the fifteen titles, GUI, normal
 * latency) gives Random 16.5 and the expert 1.6, as the paper prints them; the latency study, Table
 * 5's other lesson sources and assisted runs added to the same folder change neither, and are shown
 * not ranked (or in the assisted table).
 *
 * The cells are the paper's per-title means (Tab. 3), each played as two trials of that score, with
 * one change: Random's 0.0 in Ace Attorney, Civilization VI and Scene Investigators is 0.04 (still
 * 0.0 to one place). With the printed means as they are, Random ties at 0.0 with two, ten and four
 * models there, shares their places and averages 17.07, not 16.5; the paper's 16.5 is reached
 * when Random ranks above those ties (its unrounded means are not printed). No other cell changes.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildReport } from '../../electron/report/build.ts';
import { GAMEVERSE_TITLES } from '../../electron/report/gameverse.ts';
import { reportTables } from '../../electron/report/view.ts';
import { reportCsv } from '../../electron/report/csv.ts';
import { formatLeaderboard, leaderboard } from '../../electron/store/leaderboard.ts';

/** The paper's Table 3 (GUI), in GAMEVERSE_TITLES' order. */
const TABLE_3: Record<string, number[]> = {
  'Random —': [26.3, 10.8, 1.2, 21.3, 0, 0, 0.04, 0.04, 0.04, 7.0, 0, 0, 0, 0, 0],
  'Human Expert —': [98.9, 100, 77.1, 100, 85.3, 99.4, 100, 100, 94.2, 100, 100, 98.1, 100, 100, 100],
  'Human Rookie No': [85.1, 83.4, 15.9, 99.3, 46.4, 34.2, 77.4, 54.1, 70.4, 93.2, 89.3, 73.9, 91.2, 63.3, 58.4],
  'Human Rookie Yes': [99.4, 100, 47.3, 100, 74.2, 81.3, 100, 96.4, 90.1, 100, 97.9, 85.3, 98.4, 88.2, 83.1],
  'Qwen3-VL-8B No': [53.3, 60, 4.4, 80.3, 19.6, 11.7, 7.1, 0, 6.3, 2.2, 33.4, 3.2, 7.8, 14.3, 7.2],
  'Qwen3-VL-8B Yes': [51.8, 70.4, 5.1, 89.4, 31.2, 7.4, 26.1, 0, 6.3, 0, 51.3, 3.2, 8.3, 14.3, 7.2],
  'Qwen3-VL-32B No': [70.6, 73.3, 6.4, 100, 41.6, 8.2, 17.3, 8.3, 8.3, 42.6, 41.2, 3.2, 5.4, 14.3, 7.2],
  'Qwen3-VL-32B Yes': [63.1, 80, 6.1, 100, 59.4, 11.3, 37.2, 8.3, 8.3, 33.4, 48.3, 3.2, 11.2, 14.3, 10],
  'GPT-4o-mini No': [34.4, 60, 1.3, 77.1, 16.7, 2, 0, 0, 3.2, 0, 27.6, 3.2, 4.2, 14.3, 10],
  'GPT-4o-mini Yes': [43.2, 68.3, 1.4, 91.3, 13.3, 2, 0, 0, 3.2, 0, 22.4, 3.2, 7.1, 14.3, 10],
  'GPT-4o No': [58.6, 60.9, 3.8, 80.2, 14.3, 2, 18.2, 0, 0, 0, 32.2, 2.4, 11.2, 14.3, 10],
  'GPT-4o Yes': [64.2, 60, 3.4, 85.1, 15.4, 2, 33.3, 0, 0, 0, 36.4, 3.2, 14.3, 14.3, 10],
  'Seed-1.8 No': [92.3, 80, 9.1, 87.8, 29.4, 39.6, 33.3, 22.2, 3.2, 7.2, 26.1, 5.4, 1.3, 14.3, 10],
  'Seed-1.8 Yes': [100, 80, 18.2, 100, 57.2, 28.4, 59.3, 19.5, 8.3, 10.4, 22.1, 2.4, 1.4, 14.3, 7.2],
  'Gemini-2.5-Flash No': [88.2, 80, 7.8, 100, 9.4, 2, 33.3, 0, 3.2, 20.4, 51.1, 5.4, 14.6, 14.3, 10],
  'Gemini-2.5-Flash Yes': [95.1, 80, 11.4, 100, 10.2, 2, 29.3, 0, 8.3, 10.4, 55.3, 5.4, 19.1, 14.3, 13.4],
  'Gemini-2.5-Pro No': [90, 80, 13.2, 100, 32.7, 4.4, 37.2, 0, 0, 24.2, 33.4, 3.2, 11.3, 14.3, 10],
  'Gemini-2.5-Pro Yes': [100, 80, 26.4, 100, 42.2, 7.9, 48.3, 0, 0, 68.4, 30.3, 5.4, 18.2, 14.3, 10],
};
const MODELS = [
  'Qwen3-VL-8B',
  'Qwen3-VL-32B',
  'GPT-4o-mini',
  'GPT-4o',
  'Seed-1.8',
  'Gemini-2.5-Flash',
  'Gemini-2.5-Pro',
];

let runs = 0;
/** The one tutorial the rookies watched and the agents reflected on (store/tutorial-identity.ts), so the report has nothing to warn of. */
const TUTORIAL = { tutorial: '/tutorials/walkthrough.mp4', tutorial_sha256: 'a'.repeat(64) };
/** One completed run of a title: two trials of `score`, with lessons on both when `lessons` is given. */
function played(
  root: string,
  game: string,
  score: number,
  who: { agent: string; model?: string; stage?: string; lessons?: string; latency?: string; assisted?: boolean },
) {
  const id = `run-${String(++runs).padStart(4, '0')}`;
  const human = who.agent.startsWith('human-');
  mkdirSync(path.join(root, id), { recursive: true });
  writeFileSync(
    path.join(root, id, 'run.json'),
    JSON.stringify({
      id,
      created: '2026-12-07T00:00:00.000Z',
      status: 'completed',
      kind: human ? 'human' : 'agent',
      game,
      target: { kind: 'builtin', label: game },
      agent: who.agent,
      model: who.model ?? null,
      action_space: 'gui',
      config: {
        latency: who.latency ?? 'normal',
        ...(human ? { role: who.agent.slice(6) } : {}),
        ...(who.stage === 'play-2' ? TUTORIAL : {}),
      },
      ...(who.stage ? { stage: who.stage } : {}),
      ...(who.lessons
        ? {
            reflection: {
              // Lessons a person edited or gave are taken on in a run of any mode.
              mode: ['edited', 'given'].includes(who.lessons) ? 'self' : who.lessons,
              reflector_model: who.model,
              ...TUTORIAL,
              lessons: [0, 1].map((episode) => ({ episode, source: who.lessons })),
            },
          }
        : {}),
      ...(who.assisted ? { assisted: true, takeovers: [], human_steps: 3, human_ms: 900 } : {}),
      episodes: [0, 1].map((episode) => ({ episode, seed: episode, score, steps: 5, end: 'game_over' })),
      mean: score,
      std: 0,
      totals: { steps: 10, tokens_in: 0, tokens_out: 0, cost_usd: null },
    }),
  );
}

/** The paper's eighteen rows, a run per row and title. */
function paperFolder(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'gp-rank-pool-'));
  for (const [i, game] of GAMEVERSE_TITLES.entries()) {
    const cell = (row: string) => TABLE_3[row]![i]!;
    played(root, game, cell('Random —'), { agent: 'random' });
    played(root, game, cell('Human Expert —'), { agent: 'human-expert', stage: 'play' });
    played(root, game, cell('Human Rookie No'), { agent: 'human-rookie', stage: 'play-1' });
    played(root, game, cell('Human Rookie Yes'), { agent: 'human-rookie', stage: 'play-2' });
    for (const model of MODELS) {
      played(root, game, cell(`${model} No`), { agent: 'vlm', model });
      played(root, game, cell(`${model} Yes`), { agent: 'vlm', model, lessons: 'self' });
    }
  }
  return root;
}

/** Table 3 as the report draws it: each GUI row's label, VR, protocol, Avg Rank and reason. */
function table3(root: string) {
  const data = buildReport(root);
  const t3 = reportTables(data).find((t) => t.id === 'gameverse')!;
  return { data, rows: t3.rows };
}
const rankOf = (rows: ReturnType<typeof table3>['rows'], player: string, vr = '—') =>
  rows.find((r) => r.player === player && r.vr === vr && r.latency === 'normal')!.avg_rank;

describe("GameVerse's rank pool", () => {
  it('gives Random 16.5 and the expert 1.6 on rows shaped like the paper’s Table 3, and keeps them when the latency study, Table 5 and assisted runs join the folder', () => {
    const root = paperFolder();
    const before = table3(root);
    expect(before.data.warnings).toEqual([]);
    expect(before.data.gameverse.rows).toHaveLength(18);
    expect(before.data.gameverse.rows.every((r) => r.not_ranked === null)).toBe(true);
    expect(rankOf(before.rows, 'Random', 'No')).toBe('16.5');
    expect(rankOf(before.rows, 'Human Expert')).toBe('1.6');

    // The latency study: every model again in stop and slow, far better than in normal, so that
    // ranking them in the pool would push Random and the expert down.
    for (const game of GAMEVERSE_TITLES)
      for (const model of MODELS)
        for (const latency of ['stop', 'slow']) played(root, game, 100, { agent: 'vlm', model, latency });
    // Table 5's lesson sources (here in the GUI space, where they would enter Table 3): another
    // model's lessons, lessons a person edited or gave, and a second own source (Self-F beside Self).
    for (const game of GAMEVERSE_TITLES)
      for (const lessons of ['other', 'edited', 'given', 'self-f'])
        played(root, game, 100, { agent: 'vlm', model: 'GPT-4o', lessons });
    // Runs in which a person took the controls.
    for (const game of GAMEVERSE_TITLES) played(root, game, 100, { agent: 'vlm', model: 'GPT-4o', assisted: true });

    const after = table3(root);
    expect(after.data.warnings).toEqual([]);
    expect(rankOf(after.rows, 'Random', 'No')).toBe('16.5');
    expect(rankOf(after.rows, 'Human Expert')).toBe('1.6');
    // Every pool row keeps its rank; each added row is shown, not ranked, with its reason.
    const ranks = (d: typeof before.data) =>
      d.gameverse.rows.filter((r) => r.not_ranked === null).map((r) => [r.label, r.vr, r.avg_rank]);
    expect(ranks(after.data)).toEqual(ranks(before.data));
    const unranked = after.data.gameverse.rows.filter((r) => r.not_ranked !== null);
    expect(unranked).toHaveLength(MODELS.length * 2 + 4);
    expect(unranked.every((r) => r.avg_rank === null)).toBe(true);
    const why = (vr: string, lessons: string | null, protocol: string) =>
      unranked.find((r) => r.label === 'GPT-4o' && r.vr === vr && r.lessons === lessons && r.protocol === protocol)!
        .not_ranked;
    expect(why('No', null, 'stop 2000 ms, freeze engine')).toBe(
      'stop 2000 ms, freeze engine: the paper’s table is played in normal',
    );
    expect(why('No', null, 'slow 5000 ms, freeze engine')).toMatch(/^slow 5000 ms, freeze engine: /);
    expect(why('Yes', 'other', 'normal')).toBe('lessons other: not the model’s own reflection');
    expect(why('Yes', 'edited', 'normal')).toBe('lessons edited: not the model’s own reflection');
    expect(why('Yes', 'given', 'normal')).toBe('lessons given: not the model’s own reflection');
    expect(why('Yes', 'self-f', 'normal')).toBe('lessons self-f: the model’s self row is ranked');
    const shown = after.rows.filter((r) => r.avg_rank === 'not ranked');
    expect(shown).toHaveLength(unranked.length);

    // The assisted runs: in their own table, and in none of Table 3, its pool, the groupings or the latency study.
    expect(after.data.gameverse.rows.some((r) => r.assisted)).toBe(false);
    expect(after.data.gameverse.assisted.map((r) => [r.label, Object.keys(r.cells).length, r.avg_rank])).toEqual([
      ['GPT-4o (assisted)', 15, null],
    ]);
    expect(after.data.gameverse.by_category.some((r) => r.assisted)).toBe(false);
    expect(after.data.latency.some((l) => l.assisted)).toBe(false);
    const assistedTable = reportTables(after.data).find((t) => t.id === 'assisted')!;
    expect(assistedTable.title).toBe('Assisted (a person took the controls)');
    expect(assistedTable.rows.map((r) => [r.player, r.tictactoe])).toEqual([['GPT-4o (assisted)', '100.0 ± 0.0 (2)']]);
    expect(reportCsv(after.data)['assisted.csv']).toMatch(/GPT-4o \(assisted\)/);

    // The leaderboard prints them apart too.
    const text = formatLeaderboard(leaderboard(root, { game: 'tictactoe' }).rows);
    const [own, assisted] = text.split('Assisted (a person took the controls):');
    expect(own).not.toMatch(/assisted/);
    expect(assisted).toMatch(/vlm \(assisted\) +GPT-4o/);
  });
});
