/**
 * How many frames one reflection call may take, from the reflector model's context in tokens
 * and what a frame costs it (agents/model-context.ts). The frames themselves are loaded and
 * sampled by scoring/trajectory.ts.
 */
import type { SampleOptions } from '../scoring/trajectory.ts';
import { imageTokens, knownModel, providerContext, type ImageCounting } from '../agents/model-context.ts';
import { callerFor, type RoleEndpoint } from '../agents/model-endpoint.ts';
import type { ContextSource, FrameBudget } from '../session/reflection-records.ts';
import type { ImageDetail, ReflectVideo } from '../domain.ts';

/**
 * How a reflector's frames are chosen: GameVerse samples 1 fps and thins only to fit the model's
 * context, so the budget is in tokens, not frames. `contextTokens` given overrides the model's
 * own; `maxFrames` caps the count further only when asked.
 */
export interface ReflectionSampling {
  fps: number;
  maxSide: number;
  /** Tokens of the reflector's context (--reflect-context); default: the model's (model-context.ts). */
  contextTokens?: number;
  maxFrames?: number;
  /** The detail frames are sent at (OpenAI's low or high; other providers ignore it). */
  detail?: ImageDetail;
}

export const DEFAULT_REFLECTION_SAMPLING: ReflectionSampling = { fps: 1, maxSide: 768 };

/** The context assumed for a reflector no table entry or provider figure describes. */
export const DEFAULT_CONTEXT_TOKENS = 32_000;

/** Room kept in a reflection call for its instructions, notes and answer. */
export const REFLECTION_TEXT_TOKENS = 4_000;

/** The text label each frame goes with ("t = 12.3 s"). */
export const FRAME_LABEL_TOKENS = 8;

/**
 * A frame of an unknown model at this size, with its label: Qwen2.5-VL's 28-pixel patches
 * (768 px: 28 × 28 = 784), more than OpenAI's 85 at low detail or Gemini's 258, so the budget
 * holds on any common API.
 */
export const frameTokens = (maxSide: number) => imageTokens(undefined, maxSide, 'low') + FRAME_LABEL_TOKENS;

/** What the reflector model is known to take, as the budget needs it. */
export interface ReflectorFacts {
  contextTokens?: number;
  contextSource: Exclude<ContextSource, 'flag'>;
  images?: ImageCounting;
}

export type ReflectionSample = SampleOptions & { detail: ImageDetail; budget: FrameBudget };

/**
 * The sampling a reflection call uses: as many frames as the context holds after its text,
 * at the tokens a frame costs this model at the chosen detail (capped by maxFrames if given).
 * The flag's context wins over the provider's figure, which wins over the table's.
 */
export function reflectionSample(
  s: ReflectionSampling,
  facts: ReflectorFacts = { contextSource: 'default' },
): ReflectionSample {
  const detail = s.detail ?? 'low';
  const [context, source]: [number, ContextSource] =
    s.contextTokens !== undefined
      ? [s.contextTokens, 'flag']
      : facts.contextTokens !== undefined
        ? [facts.contextTokens, facts.contextSource]
        : [DEFAULT_CONTEXT_TOKENS, 'default'];
  const perFrame = imageTokens(facts.images, s.maxSide, detail) + FRAME_LABEL_TOKENS;
  const fit = Math.max(1, Math.floor((context - REFLECTION_TEXT_TOKENS) / perFrame));
  const maxFrames = s.maxFrames ? Math.min(s.maxFrames, fit) : fit;
  return {
    fps: s.fps,
    maxSide: s.maxSide,
    maxFrames,
    detail,
    budget: {
      context_tokens: context,
      context_source: source,
      detail,
      tokens_per_frame: perFrame,
      max_frames: maxFrames,
      max_frames_asked: s.maxFrames ?? null,
    },
  };
}

/** The most frames a reflection video holds (an hour of play at 1 fps); its bytes are bounded in video-part.ts. */
export const VIDEO_MAX_FRAMES = 3_600;

/**
 * How a trajectory is loaded for reflection: thinned to the image budget when frames go, at
 * the sampling rate (up to VIDEO_MAX_FRAMES) when a video may go, the images thinned per call.
 */
export function loadSampling(sample: ReflectionSample, video: ReflectVideo): SampleOptions {
  return {
    fps: sample.fps,
    maxSide: sample.maxSide,
    maxFrames: video === 'off' ? sample.maxFrames : Math.max(sample.maxFrames, VIDEO_MAX_FRAMES),
  };
}

/**
 * What the budget needs to know of a reflector model: the provider's reported context (asked
 * only when no flag gives one), else the known-models table's; how it counts images; whether
 * it takes video.
 */
export async function reflectorFacts(
  e: RoleEndpoint,
  askProvider: boolean,
  signal?: AbortSignal,
): Promise<ReflectorFacts & { video: boolean }> {
  const known = knownModel(e.model);
  const reported = askProvider ? await providerContext(callerFor(e, 'reflector'), e.model, signal) : undefined;
  const context: Pick<ReflectorFacts, 'contextTokens' | 'contextSource'> =
    reported !== undefined
      ? { contextTokens: reported, contextSource: 'provider' }
      : known
        ? { contextTokens: known.contextTokens, contextSource: 'known-model' }
        : { contextSource: 'default' };
  return { ...context, ...(known ? { images: known.images } : {}), video: known?.video ?? false };
}
