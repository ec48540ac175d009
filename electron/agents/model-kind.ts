/**
 * Whether a model reasons before it answers (a "reasoning" model, thinking by default) or answers
 * at once ("reactive"), as GameVerse's Fig. 5 groups them to show how each kind bears latency:
 * its reasoning models are Gemini-2.5-Pro and Seed-1.8, its reactive ones GPT-4o and
 * Qwen3-VL-8B. Other names follow their providers' documentation: OpenAI's o-series and GPT-5
 * reason; Gemini 2.5 thinks by default (Pro and Flash); Qwen3-VL's "Thinking" releases reason,
 * its "Instruct" ones do not; DeepSeek-R1 and names ending in "thinking" reason; GPT-4o/4.1,
 * Claude (extended thinking is off unless asked) and Qwen2.5-VL answer at once. A model no entry
 * matches is of neither kind, and the report says so rather than guessing.
 */
import { modelId } from './model-context.ts';

export type ModelKind = 'reasoning' | 'reactive';

const KINDS: readonly { match: RegExp; kind: ModelKind }[] = [
  { match: /thinking/, kind: 'reasoning' },
  { match: /^(o1|o3|o4)(-|$)/, kind: 'reasoning' },
  { match: /^gpt-5/, kind: 'reasoning' },
  { match: /^gemini-2\.5-(pro|flash)/, kind: 'reasoning' },
  { match: /^(doubao-)?seed-1\.[68]/, kind: 'reasoning' },
  { match: /^deepseek-r1/, kind: 'reasoning' },
  { match: /^(chatgpt-)?gpt-4(o|\.1)/, kind: 'reactive' },
  { match: /^claude-/, kind: 'reactive' },
  { match: /^qwen3-vl-.*instruct|^qwen3-vl-\d+b$/, kind: 'reactive' },
  { match: /^qwen2\.5-vl/, kind: 'reactive' },
];

/** The kind of a model by its name (the last path part, lower case: `openai/gpt-4o` → `gpt-4o`), if known. */
export function modelKind(name: string): ModelKind | undefined {
  const id = modelId(name);
  return KINDS.find((k) => k.match.test(id))?.kind;
}
