/**
 * How many frames one reflection call may take, from the reflector's context in tokens. The
 * frames themselves are loaded and sampled by scoring/trajectory.ts.
 */
import type { SampleOptions } from '../scoring/trajectory.ts';

/**
 * How a reflector's frames are chosen: GameVerse samples 1 fps and thins only to fit the model's
 * context, so the budget is in tokens, not frames. `maxFrames` caps it further only when asked.
 */
export interface ReflectionSampling {
  fps: number;
  maxSide: number;
  /** Tokens of the reflector's context the frames of one call may use. */
  contextTokens: number;
  maxFrames?: number;
}

export const DEFAULT_REFLECTION_SAMPLING: ReflectionSampling = { fps: 1, maxSide: 768, contextTokens: 32_000 };

/** Room kept in a reflection call for its instructions, notes and answer. */
export const REFLECTION_TEXT_TOKENS = 4_000;

/**
 * The most a frame of this size costs among common VLM APIs, with its time label: 28-pixel
 * patches as Qwen-VL counts them (768 px: 28 × 28 = 784), more than OpenAI's 85 at low detail
 * or Gemini's 258, so the budget holds on any of them.
 */
export const frameTokens = (maxSide: number) => Math.ceil(maxSide / 28) ** 2 + 8;

/** The sampling a reflection call uses: as many frames as its token budget holds (capped by maxFrames if given). */
export function reflectionSample(s: ReflectionSampling): SampleOptions & { budget: Record<string, number | null> } {
  const perFrame = frameTokens(s.maxSide);
  const fit = Math.max(1, Math.floor((s.contextTokens - REFLECTION_TEXT_TOKENS) / perFrame));
  return {
    fps: s.fps,
    maxSide: s.maxSide,
    maxFrames: s.maxFrames ? Math.min(s.maxFrames, fit) : fit,
    budget: { context_tokens: s.contextTokens, tokens_per_frame: perFrame, max_frames_asked: s.maxFrames ?? null },
  };
}
