/** Finished run folders with steps, written by hand, for the error taxonomy and the action budget. */
import sharp from 'sharp';
import type { EpisodeSummary, RunMeta, StepRecord } from '../../electron/store/run-store.ts';
import { RunStore } from '../../electron/store/run-store.ts';

export interface EpisodeSpec {
  score: number;
  /** Per step: how many of its actions were sent (ok) and how many refused. */
  steps: { sent: number; refused?: number; effect?: 'changed' | 'none'; reasoning?: string }[];
}

let frame: Buffer | undefined;
async function framePng(): Promise<Buffer> {
  frame ??= await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3a6' } })
    .png()
    .toBuffer();
  return frame;
}

/** A completed model run on built-in 2048 with these episodes, each step with a frame. */
export async function runWithSteps(
  root: string,
  o: {
    model?: string;
    config?: Record<string, unknown>;
    episodes: EpisodeSpec[];
    patch?: Partial<RunMeta>;
    status?: 'completed' | 'failed';
  },
): Promise<string> {
  const s = RunStore.create(root, {
    kind: 'agent',
    game: '2048',
    target: { kind: 'builtin', label: '2048' },
    agent: 'vlm',
    model: o.model ?? 'test-vlm',
    action_space: 'gui',
    config: { latency: 'normal', ...o.config },
  });
  const png = await framePng();
  for (const [episode, e] of o.episodes.entries())
    for (const [step, st] of e.steps.entries()) {
      const outcomes = [
        ...Array.from({ length: st.sent }, () => ({ action: 'PRESS left', ok: true })),
        ...Array.from({ length: st.refused ?? 0 }, () => ({ action: 'PRESS F12', ok: false, error: 'key refused' })),
      ];
      const rec: StepRecord = {
        step,
        episode,
        t_capture: Date.now(),
        frame: s.writeFrame(episode, step, png, 'png'),
        reasoning: st.reasoning ?? `episode ${episode} step ${step}: sliding left`,
        raw: null,
        actions: outcomes.map(() => ({ action_type: 'PRESS', parameters: { key: 'left' } })),
        outcomes,
        errors: [],
        latency_ms: { locate: 0, capture: 1, encode: 1, model: 250, act: 1, total: 253 },
        effect: st.effect ?? 'changed',
      };
      s.appendStep(rec);
    }
  const episodes: EpisodeSummary[] = o.episodes.map((e, episode) => ({
    episode,
    seed: episode,
    score: e.score,
    steps: e.steps.length,
    end: 'game_over',
  }));
  const scores = episodes.map((e) => e.score as number);
  s.close(o.status ?? 'completed', undefined, {
    episodes,
    mean: scores.reduce((a, b) => a + b, 0) / scores.length,
    std: 0,
    ...o.patch,
  });
  return s.dir;
}
