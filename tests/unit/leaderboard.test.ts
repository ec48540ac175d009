import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore } from '../../electron/store/run-store.ts';
import { formatLeaderboard, leaderboard } from '../../electron/store/leaderboard.ts';

function run(root: string, agent: string, model: string | null, scores: number[], status: 'completed' | 'failed' = 'completed', latency = 'normal') {
  const s = RunStore.create(root, { kind: agent.startsWith('human') ? 'human' : 'agent', game: '2048', target: { kind: 'builtin', label: '2048' }, agent, model, action_space: 'gui', config: { latency } });
  s.update({ episodes: scores.map((score, episode) => ({ episode, seed: 0, score, steps: 10, end: 'game_over' })) });
  s.close(status);
}

describe('leaderboard', () => {
  it('pools episodes per player and setting, ignores failed runs, and ranks by mean', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-lb-'));
    run(root, 'vlm', 'gpt-4o', [10, 20]);
    run(root, 'vlm', 'gpt-4o', [30]);
    run(root, 'vlm', 'gpt-4o', [90], 'failed');
    run(root, 'vlm', 'gpt-4o', [5], 'completed', 'stop');
    run(root, 'human-expert', null, [60, 80]);
    const { rows, warnings } = leaderboard(root);
    expect(warnings).toEqual([]);
    expect(rows.map((r) => [r.player, r.latency, r.runs, r.episodes, r.mean, r.std])).toEqual([
      ['human-expert', 'normal', 1, 2, 70, 14.14],
      ['vlm', 'normal', 2, 3, 20, 10],
      ['vlm', 'stop', 1, 1, 5, 0],
    ]);
    expect(formatLeaderboard(rows)).toMatch(/human-expert .* 70 ± 14\.14/);
    expect(leaderboard(root, { game: 'snake' }).rows).toEqual([]);
  });
});
