/**
 * What every model-driven agent shares: one OpenAI-compatible client under the harness's own
 * limits and retries (model-call.ts, guarded-fetch.ts), a streamed completion, the ask → parse →
 * repair loop, embeddings, and the accounting of a decision's calls (tokens, cost, time, compute).
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { costOf, priceFor, type Price } from './pricing.ts';
import type { ComputeTime, DecideContext, Decision, TokenUsage } from './types.ts';
import { callWithRetries, DEFAULT_RETRY, type ModelCallRecord } from './model-call.ts';
import { ModelCallError, describeCallError } from './model-call-error.ts';
import { guardedFetch, MAX_STREAM_LINE_BYTES } from './guarded-fetch.ts';
import { render } from './prompts.ts';

export interface ModelClientSettings {
  baseURL?: string;
  apiKey?: string;
  model: string;
  temperature?: number;
  maxTokens?: number;
  /** Total time limit of one call, streaming included (ms). */
  timeoutMs: number;
  /** Longest silence while an answer streams (ms). */
  idleTimeoutMs: number;
  /** Largest answer, counted in response bytes as they arrive. */
  maxAnswerBytes: number;
  /** Retries after 429/5xx/time-outs/connection errors. */
  maxRetries: number;
  /** Longest wait a server's Retry-After may impose (ms). */
  retryAfterCapMs: number;
  price?: Partial<Price>;
}

/** Most of one answer kept in a step record; the parser always sees all of it. */
export const MAX_STORED_ANSWER_CHARS = 256 * 1024;

/** How long a measured round trip to the endpoint is trusted before it is measured again. */
const RTT_TTL_MS = 60_000;

/** Timing of one decision's model calls: what the provider reported, and each answer's stream. */
interface CallTiming {
  providerMs?: number;
  answers: { generationMs: number; ttftMs: number | null }[];
}

/** Everything the model calls of one decision did: tokens, attempts, raw answers, parse failures. */
export class CallLedger {
  readonly usage: TokenUsage = { input: 0, output: 0 };
  readonly timing: CallTiming = { answers: [] };
  readonly calls: ModelCallRecord[] = [];
  readonly raws: string[] = [];
  readonly parseErrors: string[] = [];
  attempts = 0;
  readonly started = performance.now();

  raw(): string {
    return this.raws.map(boundStored).join('\n\n---\n\n');
  }
}

/** A parse result the repair loop understands: usable, or a reason to show the model. */
export type Parsed<T> = ({ ok: true; reasoning: string } & T) | { ok: false; reasoning: string; error: string };

/** How an ask ended: a usable parse (and the answer text), or why none came. */
export type AskOutcome<T> =
  | { ok: true; parsed: { ok: true; reasoning: string } & T; answer: string }
  | { ok: false; error: string; reasoning: string };

export class ModelClient {
  readonly openai: OpenAI;
  /** The last measured network round trip to the endpoint. */
  private rtt: { ms: number; at: number } | undefined;

  constructor(readonly settings: ModelClientSettings) {
    const s = settings;
    this.openai = new OpenAI({
      baseURL: s.baseURL ?? process.env.OPENAI_BASE_URL,
      // Local servers (Ollama, vLLM, LM Studio) accept any key; the SDK insists on one.
      apiKey: s.apiKey ?? process.env.OPENAI_API_KEY ?? 'no-key',
      // Retries and time limits are ours (model-call.ts): the SDK's retry sleeps cannot be
      // interrupted and its timeout ends at the headers. Its timeout stays as a backstop.
      maxRetries: 0,
      timeout: s.timeoutMs + 1000,
      fetch: guardedFetch({
        idleMs: s.idleTimeoutMs,
        maxBytes: s.maxAnswerBytes,
        maxLineBytes: Math.min(MAX_STREAM_LINE_BYTES, s.maxAnswerBytes),
      }),
      logLevel: 'off', // a broken stream is reported once, in the step, not dumped to stderr
    });
  }

  get model() {
    return this.settings.model;
  }

  /**
   * Asks until the answer parses, re-asking up to `repairs` times with the parse error (the
   * `repair` template), each call under the retry policy. Never throws for a failed call.
   */
  async ask<T>(
    messages: ChatCompletionMessageParam[],
    ctx: Pick<DecideContext, 'signal' | 'onToken'>,
    ledger: CallLedger,
    parse: (answer: string) => Parsed<T>,
    repairs: number,
    repairTemplate = 'repair',
  ): Promise<AskOutcome<T>> {
    const convo = [...messages];
    let lastReasoning = '';
    for (let round = 0; round <= repairs; round++) {
      ledger.attempts++;
      let answer: string;
      const partial = { text: '' };
      try {
        answer = await callWithRetries((signal) => this.complete(convo, ctx, ledger, signal, partial), {
          totalMs: this.settings.timeoutMs,
          retry: {
            ...DEFAULT_RETRY,
            maxRetries: this.settings.maxRetries,
            retryAfterCapMs: this.settings.retryAfterCapMs,
          },
          signal: ctx.signal,
          calls: ledger.calls,
        });
      } catch (err) {
        if (partial.text) ledger.raws.push(partial.text);
        return { ok: false, error: `model call failed: ${describeCallError(err)}`, reasoning: lastReasoning };
      }
      ledger.raws.push(answer);
      const parsed = parse(answer);
      lastReasoning = parsed.reasoning;
      if (parsed.ok) return { ok: true, parsed, answer };
      ledger.parseErrors.push(parsed.error);
      convo.push(
        { role: 'assistant', content: boundStored(answer) || '(empty)' },
        { role: 'user', content: render(repairTemplate, { error: parsed.error }) },
      );
    }
    return { ok: false, error: `unusable answer: ${ledger.parseErrors.at(-1)}`, reasoning: lastReasoning };
  }

  /** The decision with what its calls cost and took. */
  async finish(
    ctx: DecideContext,
    ledger: CallLedger,
    d: Pick<Decision, 'reasoning' | 'actions' | 'error'> & Partial<Decision>,
  ): Promise<Decision> {
    const modelMs = performance.now() - ledger.started;
    const compute = await this.computeTime(ctx, ledger.timing);
    return {
      ...d,
      raw: ledger.raw(),
      parseErrors: ledger.parseErrors,
      calls: ledger.calls,
      usage: ledger.usage,
      costUsd: costOf(ledger.usage, priceFor(this.settings.model, this.settings.price)),
      modelMs,
      ...(compute ? { compute } : {}),
      attempts: ledger.attempts,
    };
  }

  /**
   * Embeddings of `inputs` from the endpoint's `/embeddings` (Ollama, vLLM, OpenAI), one
   * request under the same limits and retries. Throws when the endpoint has none or fails.
   */
  async embed(
    model: string,
    inputs: string[],
    signal: AbortSignal,
    calls: ModelCallRecord[] = [],
  ): Promise<number[][]> {
    const res = await callWithRetries(
      (s) => this.openai.embeddings.create({ model, input: inputs, encoding_format: 'float' }, { signal: s }),
      {
        totalMs: this.settings.timeoutMs,
        retry: {
          ...DEFAULT_RETRY,
          maxRetries: this.settings.maxRetries,
          retryAfterCapMs: this.settings.retryAfterCapMs,
        },
        signal,
        calls,
      },
    );
    const rows = [...(res.data ?? [])].sort((a, b) => a.index - b.index).map((d) => d.embedding);
    if (rows.length !== inputs.length || rows.some((v) => !Array.isArray(v) || !v.length))
      throw new ModelCallError(
        `the embeddings answer has ${rows.length} vectors for ${inputs.length} inputs`,
        'invalid-embeddings',
      );
    const dims = rows[0]!.length;
    if (rows.some((v) => v.length !== dims || v.some((x) => !Number.isFinite(x))))
      throw new ModelCallError(
        'the embeddings answer has vectors of different sizes or non-numbers',
        'invalid-embeddings',
      );
    return rows;
  }

  /** The provider's report; else, when asked (LCRT), the answers' generation time without the network's round trip. */
  private async computeTime(ctx: DecideContext, timing: CallTiming): Promise<ComputeTime | undefined> {
    if (timing.providerMs !== undefined) return { ms: timing.providerMs, source: 'provider' };
    if (!ctx.computeTime || !timing.answers.length || ctx.signal.aborted) return undefined;
    const generationMs = timing.answers.reduce((n, a) => n + a.generationMs, 0);
    const ttft = timing.answers[0]!.ttftMs;
    const rttMs = await this.roundTrip(ctx.signal);
    if (rttMs === undefined)
      return { ms: generationMs, source: 'stream', generationMs, ...(ttft !== null ? { ttftMs: ttft } : {}) };
    const ms = timing.answers.reduce((n, a) => n + Math.max(0, a.generationMs - rttMs), 0);
    return { ms, source: 'estimated', rttMs, generationMs, ...(ttft !== null ? { ttftMs: ttft } : {}) };
  }

  /**
   * One network round trip to the model's endpoint: the quickest of three requests for its
   * model list, timed to the response headers (the first may pay for a new connection).
   * Measured again after RTT_TTL_MS. Undefined when the endpoint cannot be reached.
   */
  private async roundTrip(signal: AbortSignal): Promise<number | undefined> {
    if (this.rtt && performance.now() - this.rtt.at < RTT_TTL_MS) return this.rtt.ms;
    const url = `${this.openai.baseURL.replace(/\/+$/, '')}/models`;
    let best: number | undefined;
    for (let i = 0; i < 3 && !signal.aborted; i++) {
      const t0 = performance.now();
      try {
        const res = await fetch(url, {
          headers: { authorization: `Bearer ${this.openai.apiKey}` },
          signal: AbortSignal.any([signal, AbortSignal.timeout(5000)]),
        });
        const ms = performance.now() - t0;
        await res.body?.cancel().catch(() => {});
        best = Math.min(best ?? ms, ms);
      } catch {
        break;
      }
    }
    if (best !== undefined) this.rtt = { ms: best, at: performance.now() };
    return best;
  }

  /**
   * One streamed completion; returns the answer text and adds token usage. The text so far is
   * kept in `partial`, so a call that fails half-way still shows what came.
   */
  private async complete(
    messages: ChatCompletionMessageParam[],
    ctx: Pick<DecideContext, 'onToken'>,
    ledger: CallLedger,
    signal: AbortSignal,
    partial: { text: string },
  ): Promise<string> {
    const { usage, timing } = ledger;
    const sent = performance.now();
    let firstTokenAt: number | null = null;
    const stream = await this.openai.chat.completions.create(
      {
        model: this.settings.model,
        messages,
        stream: true,
        stream_options: { include_usage: true },
        ...(this.settings.temperature !== undefined ? { temperature: this.settings.temperature } : {}),
        ...(this.settings.maxTokens !== undefined ? { max_tokens: this.settings.maxTokens } : {}),
      },
      { signal },
    );
    let text = '';
    let sawUsage = false;
    let chunks = 0;
    partial.text = '';
    try {
      for await (const chunk of stream) {
        chunks++;
        const delta = chunk.choices?.[0]?.delta as
          | { content?: string | null; reasoning_content?: string; reasoning?: string }
          | undefined;
        const thinking = delta?.reasoning_content ?? delta?.reasoning;
        if ((thinking || delta?.content) && firstTokenAt === null) firstTokenAt = performance.now();
        if (thinking) ctx.onToken?.(thinking, 'thinking');
        if (delta?.content) {
          text += delta.content;
          partial.text = text;
          ctx.onToken?.(delta.content, 'answer');
        }
        if (chunk.usage) {
          usage.input += chunk.usage.prompt_tokens ?? 0;
          usage.output += chunk.usage.completion_tokens ?? 0;
          sawUsage = true;
        }
        const reported = providerSeconds(chunk);
        if (reported !== undefined) timing.providerMs = (timing.providerMs ?? 0) + reported * 1000;
      }
    } catch (err) {
      if (err instanceof SyntaxError) throw new ModelCallError(describeCallError(err), 'invalid-stream');
      throw err;
    }
    if (signal.aborted) return text; // the caller throws the reason (stopped, or the time limit)
    if (chunks === 0)
      throw new ModelCallError(
        'the server answered without any chat-completion data (is this an OpenAI-compatible endpoint?)',
        'empty-stream',
      );
    if (!sawUsage) usage.output += Math.ceil(text.length / 4); // estimate when the server reports none
    timing.answers.push({
      generationMs: performance.now() - sent,
      ttftMs: firstTokenAt === null ? null : firstTokenAt - sent,
    });
    return text;
  }
}

/**
 * Compute time some providers report with the final chunk, in seconds: Groq's
 * `x_groq.usage.total_time`, or `usage.total_time` on servers that copy it.
 */
function providerSeconds(chunk: unknown): number | undefined {
  const c = chunk as { usage?: { total_time?: unknown }; x_groq?: { usage?: { total_time?: unknown } } };
  const t = c.x_groq?.usage?.total_time ?? c.usage?.total_time;
  return typeof t === 'number' && Number.isFinite(t) && t >= 0 ? t : undefined;
}

/** An answer as stored in a step: whole up to a bound, then cut with a note of what was left out. */
export function boundStored(text: string): string {
  if (text.length <= MAX_STORED_ANSWER_CHARS) return text;
  return `${text.slice(0, MAX_STORED_ANSWER_CHARS)}\n[… ${text.length - MAX_STORED_ANSWER_CHARS} more characters not stored]`;
}
