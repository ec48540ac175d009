/**
 * What a run has spent on model calls, and its cap (`--budget-usd`). Every ModelCaller of a run
 * (player, memory review, embeddings, reflector, IDC explorer and judge, screen reader, milestone
 * judge) holds the run's one meter; an IDC, a suite or an MCP session hands the same meter to all
 * its runs, so the cap covers the whole command. Before each attempt the caller asks `admit` with
 * the attempt's worst case (its input tokens, estimated, plus its whole output limit, priced);
 * after it, `charge` adds what the attempt cost. A refused attempt is never sent.
 */
import { pngHeaderSize } from '../util/png-header.ts';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { costOf, type Price } from './pricing.ts';

/** A call refused because its worst case could pass the cap. The run ends stopped (budget). */
export class BudgetReached extends Error {
  override readonly name = 'BudgetReached';
}

/** How big a request is, in tokens counted from its text and images without a tokenizer. */
export interface RequestSize {
  tokens: number;
}

/** One attempt about to be sent: whose, to which model, how big, its output limit and price. */
export interface CallAsk {
  role: string;
  model: string;
  size: RequestSize;
  /** The output limit sent (`max_tokens`); 0 for embeddings. */
  maxOutputTokens: number;
  price: Price | undefined;
}

/** Text a token, counted low (English runs about 4): the first call's estimate errs high. */
const CHARS_PER_TOKEN = 3;
/** Pixels a token of an image: Anthropic's w·h/750, above OpenAI's tiles and Qwen's 28-pixel patches. */
const PIXELS_PER_IMAGE_TOKEN = 750;

export class CostMeter {
  /** USD spent by every attempt charged so far (priced attempts only: an unpriced call is never admitted under a cap). */
  spentUsd = 0;
  /** Why a call was refused; once set, the run stops before its next step. */
  refusal: string | undefined;
  private readonly refusedCtl = new AbortController();
  /** Each role's last attempt admitted, to foresee its next one. */
  private readonly lastAsk = new Map<string, CallAsk>();
  /** Each role and model's last measured request: its estimated size and the input tokens the server counted. */
  private readonly measured = new Map<string, { estimated: number; counted: number }>();

  /**
   * `capUsd` undefined: the meter only counts. `prices`: what the person gave for models by name
   * (`--price-in/--price-out` price the run's model wherever a role calls it).
   */
  constructor(
    readonly capUsd?: number,
    private readonly prices: Readonly<Record<string, Price>> = {},
  ) {}

  /** The price the person gave for this model, if any. */
  givenPrice(model: string): Price | undefined {
    return Object.hasOwn(this.prices, model) ? this.prices[model] : undefined;
  }

  /** Aborted (reason: BudgetReached) when a call is first refused: a command playing many runs stops on it. */
  get refused(): AbortSignal {
    return this.refusedCtl.signal;
  }

  /**
   * An attempt's input tokens at worst: the request's size scaled by how the server counted
   * this role's last request (a provider counting images its own way is learnt after one
   * call), or the size itself before any was counted.
   */
  inputTokens(role: string, model: string, size: RequestSize): number {
    const m = this.measured.get(`${role}\n${model}`);
    if (!m || m.estimated <= 0) return size.tokens;
    return Math.ceil((m.counted * size.tokens) / m.estimated);
  }

  /** The worst an attempt can cost: its input tokens at worst and its whole output limit, priced; undefined: no price. */
  worstCaseUsd(ask: CallAsk): number | undefined {
    const input = this.inputTokens(ask.role, ask.model, ask.size);
    return costOf({ input, output: ask.maxOutputTokens }, ask.price) ?? undefined;
  }

  /** Throws BudgetReached (and remembers why) when the attempt's worst case could pass the cap. */
  admit(ask: CallAsk): void {
    if (this.capUsd === undefined) return;
    if (this.refusal) throw new BudgetReached(this.refusal);
    this.lastAsk.set(ask.role, ask);
    const worst = this.worstCaseUsd(ask);
    const why =
      worst === undefined
        ? `budget: ${ask.model} (${ask.role}) has no known price, so the $${this.capUsd} cap cannot be kept; give --price-in and --price-out`
        : this.spentUsd + worst > this.capUsd
          ? `budget: $${usd(this.spentUsd)} of $${this.capUsd} spent; the next ${ask.role} call could cost $${usd(worst)} (${this.inputTokens(ask.role, ask.model, ask.size)} tokens in, up to ${ask.maxOutputTokens} out), which could pass it`
          : undefined;
    if (!why) return;
    this.refusal = why;
    this.refusedCtl.abort(new BudgetReached(why));
    throw new BudgetReached(why);
  }

  /**
   * Whether the role's next call, as big as its last, would be refused (and then remembers
   * why): a run asks before a step, so it stops before capturing a frame no answer would follow.
   */
  foresees(role: string): boolean {
    const last = this.lastAsk.get(role);
    if (this.capUsd === undefined || !last || this.refusal) return !!this.refusal;
    try {
      this.admit(last);
      return false;
    } catch {
      return true;
    }
  }

  /**
   * What an attempt cost. `counted`: the tokens the server reported; without its input count
   * (a server that reports none, an attempt cut short) the input is charged at its worst case.
   */
  charge(call: Omit<CallAsk, 'maxOutputTokens'>, counted: { input?: number; output: number }): number | null {
    const key = `${call.role}\n${call.model}`;
    const input = counted.input ?? this.inputTokens(call.role, call.model, call.size);
    if (counted.input !== undefined && counted.input > 0)
      this.measured.set(key, { estimated: call.size.tokens, counted: counted.input });
    const cost = costOf({ input, output: counted.output }, call.price);
    if (cost !== null) this.spentUsd += cost;
    return cost;
  }
}

/** USD to six decimals, as run.json records spend. */
export function usd(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/** A chat request's size: its text at CHARS_PER_TOKEN, each image by its pixels (or its bytes where they cannot be read). */
export function chatRequestSize(messages: readonly ChatCompletionMessageParam[]): RequestSize {
  let tokens = 0;
  for (const m of messages) {
    const content = (m as { content?: unknown }).content;
    if (typeof content === 'string') tokens += Math.ceil(content.length / CHARS_PER_TOKEN);
    else if (Array.isArray(content))
      for (const part of content as { type?: string; text?: string; image_url?: { url?: string } }[]) {
        if (part.type === 'image_url' && part.image_url?.url) tokens += imageTokens(part.image_url.url);
        else tokens += Math.ceil(JSON.stringify(part).length / CHARS_PER_TOKEN);
      }
    else if (content !== undefined && content !== null)
      tokens += Math.ceil(JSON.stringify(content).length / CHARS_PER_TOKEN);
    // A message's role and framing: a few tokens each.
    tokens += 4;
  }
  return { tokens };
}

/** Texts to embed: their characters at CHARS_PER_TOKEN. */
export function textsSize(inputs: readonly string[]): RequestSize {
  return { tokens: inputs.reduce((n, s) => n + Math.ceil(s.length / CHARS_PER_TOKEN), 0) };
}

/** An image's tokens at worst: from its pixels when its header can be read, else from its bytes. */
export function imageTokens(url: string): number {
  const dims = dataUrlDimensions(url);
  return dims
    ? Math.ceil((dims.width * dims.height) / PIXELS_PER_IMAGE_TOKEN)
    : Math.ceil(url.length / CHARS_PER_TOKEN);
}

/** Width and height of a PNG or JPEG data URL, read from its header; undefined for anything else. */
export function dataUrlDimensions(url: string): { width: number; height: number } | undefined {
  const m = /^data:image\/(png|jpe?g);base64,/.exec(url);
  if (!m) return undefined;
  // A JPEG's frame header comes after its tables: 64 KiB of the file is far more than they take.
  const head = Buffer.from(url.slice(m[0].length, m[0].length + 87_384), 'base64');
  if (m[1] === 'png') return pngHeaderSize(head);
  if (head[0] !== 0xff || head[1] !== 0xd8) return undefined;
  for (let i = 2; i + 9 < head.length; ) {
    if (head[i] !== 0xff) return undefined;
    const marker = head[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { height: head.readUInt16BE(i + 5), width: head.readUInt16BE(i + 7) };
    i += 2 + head.readUInt16BE(i + 2);
  }
  return undefined;
}
