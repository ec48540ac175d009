/**
 * What the harness knows of a model's input limits: its context window, how many tokens an
 * image costs it, and whether it takes video. From a table of known models (each figure with
 * its source) or from what the provider's model list reports; the reflector's frame budget
 * (reflection/sampling.ts) is computed from them.
 */
import type { ModelCaller } from './model-endpoint.ts';
import type { ImageDetail } from '../domain.ts';

/** How a provider counts an image's tokens. */
export type ImageCounting = 'openai-tiles' | 'openai-mini-tiles' | 'qwen2.5-vl' | 'qwen3-vl' | 'gemini' | 'claude';

export interface KnownModel {
  /** Matched against the model name's last path part, lower case (`openai/gpt-4o` → `gpt-4o`). */
  match: RegExp;
  contextTokens: number;
  images: ImageCounting;
  /** The provider's API takes a video part (GameVerse App. A.3 sends these models the video). */
  video: boolean;
}

/**
 * Known models. Context windows from the providers' model pages: OpenAI (GPT-4o and 4o-mini
 * 128,000; GPT-4.1 1,047,576), Google (Gemini 2.5 Pro/Flash 1,048,576 input tokens), Anthropic
 * (Claude 3.x/4.x 200,000), Qwen's model cards (Qwen2.5-VL: config set for 32,768, longer only
 * with YaRN; Qwen3-VL: 262,144 native). Video: GameVerse App. A.3 (Qwen3-VL and Gemini 2.5 take
 * video directly, GPT-4o images only); Qwen2.5-VL takes video as vLLM serves it.
 */
export const KNOWN_MODELS: readonly KnownModel[] = [
  { match: /^gpt-4o-mini/, contextTokens: 128_000, images: 'openai-mini-tiles', video: false },
  { match: /^(chatgpt-)?gpt-4o/, contextTokens: 128_000, images: 'openai-tiles', video: false },
  { match: /^gpt-4\.1(?!-mini|-nano)/, contextTokens: 1_047_576, images: 'openai-tiles', video: false },
  { match: /^gemini-2\.5-(pro|flash)/, contextTokens: 1_048_576, images: 'gemini', video: true },
  { match: /^claude-(3|opus-4|sonnet-4|haiku-4)/, contextTokens: 200_000, images: 'claude', video: false },
  { match: /^qwen2\.5-vl/, contextTokens: 32_768, images: 'qwen2.5-vl', video: true },
  { match: /^qwen3-vl/, contextTokens: 262_144, images: 'qwen3-vl', video: true },
];

/** A model's name as the tables match it: its last path part, lower case (`openai/GPT-4o` → `gpt-4o`). */
export const modelId = (name: string) => name.trim().toLowerCase().split('/').at(-1) ?? '';

export function knownModel(name: string): KnownModel | undefined {
  const id = modelId(name);
  return KNOWN_MODELS.find((m) => m.match.test(id));
}

/**
 * Tokens one image costs whose longest side is `side` px, counted as a square (the most any
 * aspect with that side costs). OpenAI: low detail a flat base; high detail the image is fitted
 * in 2048 px, its short side brought to 768, and each 512-px tile costs `tile` more (GPT-4o 85 +
 * 170 a tile; 4o-mini 2,833 + 5,667). Qwen2.5-VL one token a 28-px patch, Qwen3-VL a 32-px one.
 * Gemini 258 a 768-px tile. Claude width × height / 750, the side capped at 1,568. Unknown
 * (undefined): the largest of these at common sizes, Qwen2.5-VL's patches.
 */
export function imageTokens(counting: ImageCounting | undefined, side: number, detail: ImageDetail): number {
  const openai = (base: number, tile: number) => {
    if (detail === 'low') return base; // auto may choose high: counted as high
    const fitted = Math.min(side, 2048, 768);
    return base + tile * Math.ceil(fitted / 512) ** 2;
  };
  switch (counting) {
    case 'openai-tiles':
      return openai(85, 170);
    case 'openai-mini-tiles':
      return openai(2_833, 5_667);
    case 'qwen3-vl':
      return Math.ceil(side / 32) ** 2;
    case 'gemini':
      return 258 * Math.ceil(side / 768) ** 2;
    case 'claude': {
      const s = Math.min(side, 1_568);
      return Math.ceil((s * s) / 750);
    }
    default:
      return Math.ceil(side / 28) ** 2;
  }
}

/**
 * The context a provider's model-list entry reports: vLLM's `max_model_len`, OpenRouter's
 * `context_length`, llama-server's `meta.n_ctx` (the served context, not `n_ctx_train`).
 */
export function reportedContext(entry: unknown): number | undefined {
  if (!entry || typeof entry !== 'object') return undefined;
  const e = entry as { max_model_len?: unknown; context_length?: unknown; meta?: { n_ctx?: unknown } };
  for (const v of [e.max_model_len, e.context_length, e.meta?.n_ctx])
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  return undefined;
}

/** How long the provider's model list may take before the budget goes on without its figure. */
const LISTING_MS = 5_000;

/**
 * The context the endpoint reports for `model` in its model list, if it reports one; a stop
 * (`signal`) or a list slower than LISTING_MS ends the wait with none.
 */
export async function providerContext(
  caller: ModelCaller,
  model: string,
  signal?: AbortSignal,
): Promise<number | undefined> {
  const limit = AbortSignal.timeout(LISTING_MS);
  try {
    for await (const m of caller.openai.models.list({ signal: signal ? AbortSignal.any([signal, limit]) : limit }))
      if (m.id === model) return reportedContext(m);
  } catch {
    // An endpoint without a model list, or one that is slow: the table or the default decides.
  }
  return undefined;
}
