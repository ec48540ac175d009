import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore, type RunMeta } from '../../electron/store/run-store.ts';
import { formatLeaderboard, isScoredRun, leaderboard } from '../../electron/store/leaderboard.ts';

function run(
  root: string,
  agent: string,
  model: string | null,
  scores: number[],
  status: 'completed' | 'failed' = 'completed',
  latency = 'normal',
  extra: Partial<RunMeta> = {},
) {
  const human = agent.startsWith('human');
  const s = RunStore.create(root, {
    kind: human ? 'human' : 'agent',
    game: '2048',
    target: { kind: 'builtin', label: '2048' },
    agent,
    model,
    action_space: 'gui',
    config: { latency, ...(human ? { role: agent.slice(6) } : {}), ...(extra.config ?? {}) },
    ...(extra.stage ? { stage: extra.stage } : {}),
    ...(extra.reflection ? { reflection: extra.reflection } : {}),
  });
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
    expect(rows.map((r) => [r.player, r.vr, r.latency, r.runs, r.episodes, r.mean, r.std])).toEqual([
      ['human-expert', '—', 'normal', 1, 2, 70, 14.14],
      ['vlm', 'No', 'normal', 2, 3, 20, 10],
      ['vlm', 'No', 'stop', 1, 1, 5, 0],
    ]);
    expect(formatLeaderboard(rows)).toMatch(/human-expert .* 70 ± 14\.14/);
    expect(leaderboard(root, { game: 'snake' }).rows).toEqual([]);
  });

  it('prints VR = No and VR = Yes rows separately: episodes after a reflection, and rookies after the tutorial', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-lb-vr-'));
    run(root, 'vlm', 'gpt-4o', [10, 20]);
    // Reflect-and-retry: episode 0 without lessons, 1 and 2 with lessons from a "self" reflection.
    run(root, 'vlm', 'gpt-4o', [30, 40, 60], 'completed', 'normal', {
      reflection: {
        mode: 'self',
        reflector_model: 'gpt-4o',
        lessons: [
          { episode: 1, source: 'self' },
          { episode: 2, source: 'self' },
        ],
      },
    });
    run(root, 'vlm', 'gpt-4o', [70], 'completed', 'normal', {
      reflection: { mode: 'other', reflector_model: 'gemini', lessons: [{ episode: 0, source: 'other' }] },
    });
    run(root, 'human-rookie', null, [50], 'completed', 'normal', { stage: 'play-1' });
    run(root, 'human-rookie', null, [90], 'completed', 'normal', { stage: 'play-2' });
    run(root, 'human-rookie', null, [99], 'completed', 'normal', { stage: 'tutorial' });
    run(root, 'human-expert', null, [100], 'completed', 'normal', { stage: 'play' });
    run(root, 'vlm', 'gpt-4o', [99], 'completed', 'normal', { config: { idc: 'round 1' } }); // an IDC round: not a leaderboard cell
    const { rows } = leaderboard(root);
    expect(rows.map((r) => [r.player, r.vr, r.lessons, r.runs, r.episodes, r.mean])).toEqual([
      ['human-expert', '—', null, 1, 1, 100],
      ['human-rookie', 'No', null, 1, 1, 50],
      ['human-rookie', 'Yes', 'tutorial', 1, 1, 90],
      ['vlm', 'No', null, 2, 3, 20],
      ['vlm', 'Yes', 'other', 1, 1, 70],
      ['vlm', 'Yes', 'self', 1, 2, 50],
    ]);
    const lines = formatLeaderboard(rows).split('\n');
    expect(lines[0]).toMatch(/^title\s+player\s+model\s+VR\s+space/);
    expect(lines.filter((l) => /gpt-4o\s+No\s/.test(l))).toHaveLength(1);
    expect(lines.filter((l) => /gpt-4o\s+Yes \(self\)\s/.test(l))).toHaveLength(1);
    expect(lines.filter((l) => /human-rookie\s+–\s+Yes \(tutorial\)\s/.test(l))).toHaveLength(1);
  });

  it('leaves ING-VP level runs out: the suite scores them by its own metrics, not as GameVerse scores', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-lb-ingvp-'));
    run(root, 'solver', null, [40]);
    // A level run as `gamepilot suite ingvp` writes it: episode 0 scored with the completion degree.
    const s = RunStore.create(root, {
      kind: 'agent',
      game: 'sokoban',
      target: { kind: 'builtin', label: 'Sokoban' },
      agent: 'solver',
      model: null,
      action_space: 'ingvp:multi-step-text',
      config: { suite: 'ingvp', setting: 'multi-step-text', level: 1, step_limit: 50 },
    });
    s.close('completed', undefined, {
      episodes: [{ episode: 0, seed: 0, score: 100, steps: 4, end: 'solved' }],
      mean: 100,
      std: 0,
    });
    expect(isScoredRun(s.meta)).toBe(false);
    const { rows } = leaderboard(root);
    expect(rows.map((r) => [r.game, r.player, r.episodes, r.mean])).toEqual([['2048', 'solver', 1, 40]]);
  });
});
