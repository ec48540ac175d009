/**
 * What every model-driven agent shares: its roles' callers (model-endpoint.ts: the endpoint,
 * limits, retries and accounting of every call), the ask → parse → repair loop, embeddings, and
 * the accounting of a decision's calls (tokens, cost, time, compute).
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { costOf, priceFor, type Price } from './pricing.ts';
import type { ComputeTime, DecideContext, Decision, TokenUsage } from './agent-types.ts';
import { describeCallError } from './model-call-error.ts';
import { ModelCaller, type CallLimits, type ModelRole, type RoleCallRecord } from './model-endpoint.ts';
import { render } from './prompts.ts';
import type { CostMeter } from './cost-meter.ts';

export interface ModelClientSettings {
  baseUrl?: string;
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
  /** The run's spend and cap, shared by every role's calls (cost-meter.ts). */
  meter?: CostMeter;
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
  readonly timing: CallTiming = { answers: [] };
  readonly calls: RoleCallRecord[] = [];
  readonly raws: string[] = [];
  readonly parseErrors: string[] = [];
  attempts = 0;
  readonly started = performance.now();

  /** The chat calls' tokens, every attempt's (failed ones: what arrived of them); embeddings are priced apart. */
  get usage(): TokenUsage {
    const chat = this.calls.filter((c) => c.role !== 'embeddings');
    return {
      input: chat.reduce((n, c) => n + (c.tokens?.input ?? 0), 0),
      output: chat.reduce((n, c) => n + (c.tokens?.output ?? 0), 0),
    };
  }

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

/** The roles whose calls a run's model flags govern (--timeout-ms, --max-retries, …); the others keep their own limits. */
export const CLIENT_ROLES = ['player', 'memory-review', 'embeddings'] as const satisfies readonly ModelRole[];

/** The limits a client's settings give its roles' calls (an embedding model has no output limit). */
export function clientLimits(s: Partial<ModelClientSettings>, role: ModelRole): Partial<CallLimits> {
  return {
    timeoutMs: s.timeoutMs,
    idleTimeoutMs: s.idleTimeoutMs,
    maxAnswerBytes: s.maxAnswerBytes,
    maxRetries: s.maxRetries,
    retryAfterCapMs: s.retryAfterCapMs,
    ...(s.maxTokens !== undefined && role !== 'embeddings' ? { maxTokens: s.maxTokens } : {}),
  };
}

export class ModelClient {
  private readonly callers = new Map<ModelRole, ModelCaller>();
  /** The last measured network round trip to the endpoint. */
  private rtt: { ms: number; at: number } | undefined;

  constructor(readonly settings: ModelClientSettings) {}

  get model() {
    return this.settings.model;
  }

  /** The caller of one role (the player's limits; embeddings with their own model). */
  caller(role: ModelRole, model = this.settings.model): ModelCaller {
    let c = this.callers.get(role);
    if (!c || c.model !== model) {
      const s = this.settings;
      c = new ModelCaller(
        { model, ...(s.baseUrl ? { baseUrl: s.baseUrl } : {}), ...(s.apiKey ? { apiKey: s.apiKey } : {}) },
        role,
        {
          limits: clientLimits(s, role),
          // The player's price and temperature are the chat model's; an embedding model is priced by its own name.
          ...(s.price && role !== 'embeddings' ? { price: s.price } : {}),
          ...(s.temperature !== undefined && role !== 'embeddings' ? { temperature: s.temperature } : {}),
          ...(s.meter ? { meter: s.meter } : {}),
        },
      );
      this.callers.set(role, c);
    }
    return c;
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
    role: ModelRole = 'player',
  ): Promise<AskOutcome<T>> {
    const caller = this.caller(role);
    const convo = [...messages];
    let lastReasoning = '';
    for (let round = 0; round <= repairs; round++) {
      ledger.attempts++;
      let answer: string;
      const partial = { text: '' };
      try {
        const r = await caller.chat(
          { messages: convo },
          { signal: ctx.signal, ...(ctx.onToken ? { onToken: ctx.onToken } : {}), partial, calls: ledger.calls },
        );
        answer = r.text;
        if (r.providerMs !== undefined) ledger.timing.providerMs = (ledger.timing.providerMs ?? 0) + r.providerMs;
        ledger.timing.answers.push({ generationMs: r.generationMs, ttftMs: r.ttftMs });
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
      costUsd: decisionCost(ledger, costOf(ledger.usage, priceFor(this.settings.model, this.settings.price))),
      modelMs,
      ...(compute ? { compute } : {}),
      attempts: ledger.attempts,
    };
  }

  /** Embeddings of `inputs` from the endpoint's `/embeddings` (ModelCaller.embed); throws when it has none. */
  embed(model: string, inputs: string[], signal: AbortSignal, calls: RoleCallRecord[] = []): Promise<number[][]> {
    return this.caller('embeddings', model).embed(inputs, { signal, calls });
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
    const { openai } = this.caller('player');
    const url = `${openai.baseURL.replace(/\/+$/, '')}/models`;
    let best: number | undefined;
    for (let i = 0; i < 3 && !signal.aborted; i++) {
      const t0 = performance.now();
      try {
        const res = await fetch(url, {
          headers: { authorization: `Bearer ${openai.apiKey}` },
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
}

/** The chat calls' cost plus what the decision's embeddings cost (priced by their own model). */
function decisionCost(ledger: CallLedger, chat: number | null): number | null {
  const embeddings = ledger.calls.filter((c) => c.role === 'embeddings' && c.cost_usd !== undefined);
  if (!embeddings.length) return chat;
  return (chat ?? 0) + embeddings.reduce((n, c) => n + c.cost_usd!, 0);
}

/** An answer as stored in a step: whole up to a bound, then cut with a note of what was left out. */
export function boundStored(text: string): string {
  if (text.length <= MAX_STORED_ANSWER_CHARS) return text;
  return `${text.slice(0, MAX_STORED_ANSWER_CHARS)}\n[… ${text.length - MAX_STORED_ANSWER_CHARS} more characters not stored]`;
}
