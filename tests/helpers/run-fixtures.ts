/** Runs the tests write by hand, without playing. */
import type { RunStatus } from '../../electron/domain.ts';
import { RunStore, type EpisodeSummary, type RunMeta, type RunQuality } from '../../electron/store/run-store.ts';

/** A new run folder under `root`: the random agent on built-in 2048, nothing written yet but run.json. */
export function randomRun(root: string): RunStore {
  return RunStore.create(root, {
    kind: 'agent',
    game: '2048',
    target: { kind: 'builtin', label: '2048' },
    agent: 'random',
    model: null,
    action_space: 'gui',
    config: {},
  });
}

/** An episode's score, or a score with the reason the episode does not count. */
export type EpisodeFixture = number | { score: number; invalid: string };

/** run.json `quality` of a run with these counts (every step one model call, none failed). */
export function qualityFigures(steps: number, noEffect: number, invalid: number): RunQuality {
  return {
    steps,
    no_effect_steps: noEffect,
    no_effect_rate: noEffect / steps,
    invalid_actions: invalid,
    invalid_rate: invalid / steps,
    model_calls: steps,
    model_call_failures: 0,
  };
}

/**
 * A finished run folder of an agent on built-in 2048 (GUI, latency normal unless given): its
 * episodes' scores (one seed each), its status and error, and any other run.json fields (e.g.
 * `quality`).
 */
export function finishedRun(
  root: string,
  o: {
    agent?: string;
    model?: string | null;
    scores: EpisodeFixture[];
    status?: RunStatus;
    error?: string;
    latency?: string;
    patch?: Partial<RunMeta>;
  },
): RunStore {
  const s = RunStore.create(root, {
    kind: 'agent',
    game: '2048',
    target: { kind: 'builtin', label: '2048' },
    agent: o.agent ?? 'vlm',
    model: o.model === undefined ? 'test-vlm' : o.model,
    action_space: 'gui',
    config: { latency: o.latency ?? 'normal' },
  });
  const episodes: EpisodeSummary[] = o.scores.map((e, episode) => ({
    episode,
    seed: episode,
    score: typeof e === 'number' ? e : e.score,
    steps: 10,
    end: 'game_over',
    ...(typeof e === 'number' ? {} : { invalid: e.invalid }),
  }));
  const scores = episodes.map((e) => e.score as number);
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  const std = Math.sqrt(scores.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, scores.length - 1));
  const round2 = (n: number) => Math.round(n * 100) / 100;
  s.close(o.status ?? 'completed', o.error, { episodes, mean: round2(mean), std: round2(std), ...o.patch });
  return s;
}
