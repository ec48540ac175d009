/**
 * The one way to a model. An endpoint ({model, baseUrl, apiKey}) is resolved once, in one
 * order; every role that calls a model (player, memory review, embeddings, reflector, IDC
 * explorer and judge, screen reader, milestone extraction and judge, Test connection) goes
 * through a `ModelCaller`, the only maker of an OpenAI client in the tree. A caller puts every
 * request under the same guard (stall, size and total time: guarded-fetch.ts, model-call.ts),
 * the same retry policy (ROLE_LIMITS, overridable per role), the caller's stop signal, and
 * records every attempt with its role, tokens and cost.
 */
import OpenAI from 'openai';
import type {
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { callWithRetries, DEFAULT_RETRY, longestBackoffMs, type ModelCallRecord } from './model-call.ts';
import { ModelCallError, describeCallError } from './model-call-error.ts';
import { guardedFetch, MAX_STREAM_LINE_BYTES } from './guarded-fetch.ts';
import { costOf, priceFor, type Price } from './pricing.ts';
import { chatRequestSize, textsSize, type CostMeter, type RequestSize } from './cost-meter.ts';
import { OPENAI_BASE_URL } from '../util/endpoint.ts';
import { endpointUrlProblem } from '../domain.ts';

/** Where a role's calls go. The key never leaves this process except to `baseUrl`. */
export interface ModelEndpoint {
  model: string;
  baseUrl?: string;
  apiKey?: string;
}

/**
 * What the person gave (a flag, Settings, a sweep or profile file), with the environment filling
 * the rest: GAMEPILOT_MODEL, OPENAI_BASE_URL, OPENAI_API_KEY. The one place these are read for a
 * model call; the model may stay unset (agents that need none).
 */
export function resolveEndpoint(
  given: Partial<ModelEndpoint> = {},
  env: NodeJS.ProcessEnv = process.env,
): Partial<ModelEndpoint> {
  const pick = (v: string | undefined) => (v?.trim() ? v.trim() : undefined);
  const model = pick(given.model) ?? pick(env.GAMEPILOT_MODEL);
  const baseUrl = pick(given.baseUrl) ?? pick(env.OPENAI_BASE_URL);
  const problem = baseUrl ? endpointUrlProblem(baseUrl) : undefined;
  if (problem)
    throw new Error(`${pick(given.baseUrl) ? 'the base URL' : 'OPENAI_BASE_URL'} ${problem}; nothing was sent`);
  const apiKey = given.apiKey || env.OPENAI_API_KEY || undefined;
  return { ...(model ? { model } : {}), ...(baseUrl ? { baseUrl } : {}), ...(apiKey ? { apiKey } : {}) };
}

/** Every kind of model call the harness makes; each is recorded under its role. */
export const MODEL_ROLES = [
  'player',
  'memory-review',
  'embeddings',
  'reflector',
  'idc-explorer',
  'idc-judge',
  'screen-reader',
  'milestone-extract',
  'milestone-judge',
  'error-judge',
  'test-connection',
] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

/** The limits of one role's calls. */
export interface CallLimits {
  /** Total time of one attempt, streaming included (ms). */
  timeoutMs: number;
  /** Longest silence while an answer arrives (ms). */
  idleTimeoutMs: number;
  /** Largest answer, counted in response bytes as they arrive. */
  maxAnswerBytes: number;
  /** Output limit sent as `max_tokens` (a person may raise it); undefined: none sent. */
  maxTokens: number | undefined;
  /** Retries after 429/5xx/time-outs/connection errors. */
  maxRetries: number;
  /** Longest wait a server's Retry-After may impose (ms). */
  retryAfterCapMs: number;
}

const MIB = 1024 * 1024;
const PLAYER: CallLimits = {
  timeoutMs: 120_000,
  idleTimeoutMs: 30_000,
  // About 70k streamed tokens at ~230 bytes of SSE per token: room for long thinking.
  maxAnswerBytes: 16 * MIB,
  maxTokens: 2048,
  maxRetries: 3,
  retryAfterCapMs: 20_000,
};

/**
 * The one declaration of each role's limits. Output limits: a player's answer (reasoning and
 * actions) fits in 2,048 tokens, a judgement or a reading in far fewer; without one, a server
 * such as llama.cpp's generates until its context is full (≈ 2,500–3,800 tokens, 10 s or more,
 * per call). A thinking model's reasoning counts against the limit on most providers: raise it
 * for those (--max-tokens, GAMEPILOT_MODEL_LIMITS).
 */
export const ROLE_LIMITS: Readonly<Record<ModelRole, CallLimits>> = {
  player: PLAYER,
  'memory-review': PLAYER,
  embeddings: { ...PLAYER, maxTokens: undefined, maxAnswerBytes: 64 * MIB },
  reflector: { ...PLAYER, timeoutMs: 180_000, maxTokens: 2048 },
  'idc-explorer': { ...PLAYER, timeoutMs: 180_000, maxTokens: 2048 },
  'idc-judge': { ...PLAYER, timeoutMs: 180_000, maxTokens: 1024 },
  'screen-reader': { ...PLAYER, timeoutMs: 60_000, maxTokens: 256, maxRetries: 1, maxAnswerBytes: 4 * MIB },
  // No retries: every request counts against the judge's budget of calls (json-ask.ts).
  'milestone-extract': { ...PLAYER, maxTokens: 2048, maxRetries: 0, maxAnswerBytes: 4 * MIB },
  'milestone-judge': { ...PLAYER, maxTokens: 1024, maxRetries: 0, maxAnswerBytes: 4 * MIB },
  'error-judge': { ...PLAYER, maxTokens: 1024, maxRetries: 0, maxAnswerBytes: 4 * MIB },
  'test-connection': { ...PLAYER, timeoutMs: 10_000, idleTimeoutMs: 10_000, maxRetries: 0, maxAnswerBytes: 4 * MIB },
};

const LIMIT_KEYS = Object.keys(PLAYER) as (keyof CallLimits)[];

/**
 * A person's overrides of roles' limits, e.g. `reflector.timeoutMs=300000;player.maxTokens=8192`
 * (the GAMEPILOT_MODEL_LIMITS environment variable). They win over the defaults and over what a
 * command's own flags set, for every run, sweep worker and IDC this process starts.
 */
export function parseLimitOverrides(
  text: string,
  origin = 'GAMEPILOT_MODEL_LIMITS',
): Partial<Record<ModelRole, Partial<CallLimits>>> {
  const out: Partial<Record<ModelRole, Partial<CallLimits>>> = {};
  for (const entry of text.split(/[;,\s]+/).filter(Boolean)) {
    const m = /^([a-z-]+)\.([A-Za-z]+)=(\d{1,10})$/.exec(entry);
    const role = m?.[1] as ModelRole | undefined;
    const key = m?.[2] as keyof CallLimits | undefined;
    if (!m || !MODEL_ROLES.includes(role!) || !LIMIT_KEYS.includes(key!))
      throw new Error(
        `${origin}: "${entry}" is not ROLE.LIMIT=NUMBER (roles: ${MODEL_ROLES.join(', ')}; limits: ${LIMIT_KEYS.join(', ')})`,
      );
    out[role!] = { ...out[role!], [key!]: Number(m[3]) };
  }
  return out;
}

/** A role's limits: its defaults, then what its owner gives, then the person's GAMEPILOT_MODEL_LIMITS. */
export function roleLimits(role: ModelRole, given: Partial<CallLimits> = {}): CallLimits {
  const defined = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  const personal = parseLimitOverrides(process.env.GAMEPILOT_MODEL_LIMITS ?? '')[role];
  return { ...ROLE_LIMITS[role], ...defined, ...personal };
}

/**
 * The longest one call under these limits can take before it gives up: every attempt to its
 * time limit, every wait before a retry to its longest (backoff, or a capped Retry-After).
 */
export function worstCaseMs(l: CallLimits): number {
  let waits = 0;
  for (let attempt = 1; attempt <= l.maxRetries; attempt++)
    waits += Math.max(longestBackoffMs(attempt, DEFAULT_RETRY), l.retryAfterCapMs);
  return (l.maxRetries + 1) * l.timeoutMs + waits;
}

/** One attempt of one call, as written to steps.jsonl and model-calls.jsonl. */
export interface RoleCallRecord extends ModelCallRecord {
  role: ModelRole;
  model: string;
  /** Tokens the server reported, or (`estimated`) counted from the text that arrived. */
  tokens?: { input: number; output: number; estimated?: true };
  cost_usd?: number;
}

/** Tokens and cost of calls, summed. */
export interface CallTotals {
  calls: number;
  tokens: { input: number; output: number };
  cost_usd: number | null;
}

export interface ChatRequest {
  messages: ChatCompletionMessageParam[];
  temperature?: number;
  /** Tools offered (the answer is then not streamed: tool calls arrive whole). */
  tools?: ChatCompletionTool[];
  /**
   * Stream the answer (default): tokens reach `onToken`. A JSON verdict or a reading is asked
   * whole; the guard holds either way (total time per attempt, silence once the body flows).
   */
  stream?: boolean;
  /** Overrides the role's output limit for this request. */
  maxTokens?: number;
}

export interface CallContext {
  /** Stop: ends the call and any retry wait at once. */
  signal?: AbortSignal;
  /** Streamed text as it arrives ('thinking': a reasoning model's reasoning_content). */
  onToken?: (text: string, kind: 'thinking' | 'answer') => void;
  /** The text that came so far, kept when the call fails half-way. */
  partial?: { text: string };
  /** Where this call's attempts are also appended (a step's ledger). */
  calls?: RoleCallRecord[];
}

export interface ChatResult {
  text: string;
  /** The whole message (tool calls) when tools were offered. */
  message?: ChatCompletionMessage;
  usage: { input: number; output: number };
  /** Compute time the provider reported (ms), if any. */
  providerMs?: number;
  generationMs: number;
  ttftMs: number | null;
}

export interface CallerOptions {
  limits?: Partial<CallLimits>;
  price?: Partial<Price>;
  temperature?: number;
  /** Every attempt of every call, as it ends (the run's model-calls.jsonl). */
  onCall?: (rec: RoleCallRecord) => void;
  /** The run's spend and cap: every attempt is admitted by it first, and charged to it after. */
  meter?: CostMeter;
}

/**
 * The output a chat call may bill when no limit is sent: more than any model of today writes
 * in one answer. Every role sends a limit (ROLE_LIMITS) but embeddings, which bill no output.
 */
const UNLIMITED_OUTPUT_TOKENS = 128_000;

/** Per attempt: what the server reported and what text arrived. */
interface AttemptTally {
  input: number;
  output: number;
  reported: boolean;
  text: string;
}

/** An endpoint as a role's owner passes it on: a time limit of its own, and where calls are recorded. */
export interface RoleEndpoint {
  model: string;
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  timeoutMs?: number;
  onCall?: (rec: RoleCallRecord) => void;
  /** The run's spend and cap (CallerOptions.meter). */
  meter?: CostMeter;
}

/** The caller of a role for an endpoint as passed on. */
export function callerFor(e: RoleEndpoint, role: ModelRole, options: Omit<CallerOptions, 'onCall'> = {}): ModelCaller {
  return new ModelCaller(
    { model: e.model, ...(e.baseUrl ? { baseUrl: e.baseUrl } : {}), ...(e.apiKey ? { apiKey: e.apiKey } : {}) },
    role,
    {
      ...options,
      limits: { ...options.limits, ...(e.timeoutMs !== undefined ? { timeoutMs: e.timeoutMs } : {}) },
      ...(e.onCall ? { onCall: e.onCall } : {}),
      ...(e.meter ? { meter: e.meter } : {}),
    },
  );
}

/** A role's way to its endpoint: the only place an OpenAI client is made. */
export class ModelCaller {
  readonly limits: CallLimits;
  readonly openai: OpenAI;
  readonly totals: CallTotals = { calls: 0, tokens: { input: 0, output: 0 }, cost_usd: null };

  readonly endpoint: ModelEndpoint;
  /** USD a million tokens: the owner's, else the run's given price for this model, else the list price. */
  readonly price: Price | undefined;

  /** `given` is completed from the environment (resolveEndpoint); a model is required. */
  constructor(
    given: ModelEndpoint,
    readonly role: ModelRole,
    private readonly options: CallerOptions = {},
  ) {
    this.endpoint = { ...resolveEndpoint(given), model: given.model };
    const endpoint = this.endpoint;
    this.limits = roleLimits(role, options.limits);
    this.price = priceFor(given.model, options.price ?? options.meter?.givenPrice(given.model));
    const l = this.limits;
    this.openai = new OpenAI({
      baseURL: endpoint.baseUrl ?? OPENAI_BASE_URL,
      // Local servers (Ollama, vLLM, LM Studio, llama.cpp) accept any key; the SDK insists on one.
      apiKey: endpoint.apiKey || 'no-key',
      // Retries and time limits are ours (model-call.ts): the SDK's retry sleeps cannot be
      // interrupted and its timeout ends at the headers. Its timeout stays as a backstop.
      maxRetries: 0,
      timeout: l.timeoutMs + 1000,
      fetch: guardedFetch({
        idleMs: l.idleTimeoutMs,
        maxBytes: l.maxAnswerBytes,
        maxLineBytes: Math.min(MAX_STREAM_LINE_BYTES, l.maxAnswerBytes),
      }),
      logLevel: 'off', // a failed call is reported once, where it happened, not dumped to stderr
    });
  }

  get model() {
    return this.endpoint.model;
  }

  /** A chat completion: streamed (tokens reach `onToken`), or whole when asked or when tools are offered. */
  async chat(req: ChatRequest, ctx: CallContext = {}): Promise<ChatResult> {
    const whole = req.tools !== undefined || req.stream === false;
    const size = chatRequestSize(
      req.tools ? [...req.messages, { role: 'system', content: JSON.stringify(req.tools) }] : req.messages,
    );
    const maxOutput = req.maxTokens ?? this.limits.maxTokens ?? UNLIMITED_OUTPUT_TOKENS;
    return this.attempts(ctx, { size, maxOutput }, (signal, tally) =>
      whole ? this.whole(req, signal, tally) : this.stream(req, ctx, signal, tally),
    );
  }

  /**
   * Embeddings of `inputs` from the endpoint's `/embeddings` (Ollama, vLLM, OpenAI), under the
   * same limits. Throws when the endpoint has none or answers something unusable.
   */
  async embed(inputs: string[], ctx: CallContext = {}): Promise<number[][]> {
    return this.attempts(ctx, { size: textsSize(inputs), maxOutput: 0 }, async (signal, tally) => {
      const res = await this.openai.embeddings.create(
        { model: this.endpoint.model, input: inputs, encoding_format: 'float' },
        { signal },
      );
      tally.input = res.usage?.prompt_tokens ?? 0;
      tally.reported = res.usage !== undefined;
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
    });
  }

  /** The ids of the endpoint's models (at most `max`). */
  async listModels(ctx: CallContext = {}, max = 200): Promise<string[]> {
    return this.attempts(ctx, undefined, async (signal) => {
      const models: string[] = [];
      for await (const m of this.openai.models.list({ signal })) {
        models.push(m.id);
        if (models.length >= max) break;
      }
      return models;
    });
  }

  /**
   * Runs one call under the role's retry policy and time limits, recording each attempt. A
   * request's `bill` (its size and output limit) is what the run's meter admits it by; a model
   * listing is free.
   */
  private async attempts<T>(
    ctx: CallContext,
    bill: { size: RequestSize; maxOutput: number } | undefined,
    run: (signal: AbortSignal, tally: AttemptTally) => Promise<T>,
  ) {
    const records: ModelCallRecord[] = [];
    const tallies: AttemptTally[] = [];
    const l = this.limits;
    const meter = this.options.meter;
    try {
      return await callWithRetries(
        (signal) => {
          const tally: AttemptTally = { input: 0, output: 0, reported: false, text: '' };
          tallies.push(tally);
          return run(signal, tally);
        },
        {
          totalMs: l.timeoutMs,
          retry: { ...DEFAULT_RETRY, maxRetries: l.maxRetries, retryAfterCapMs: l.retryAfterCapMs },
          signal: ctx.signal ?? new AbortController().signal,
          calls: records,
          ...(bill && meter
            ? {
                beforeAttempt: () =>
                  meter.admit({
                    role: this.role,
                    model: this.endpoint.model,
                    size: bill.size,
                    maxOutputTokens: bill.maxOutput,
                    price: this.price,
                  }),
              }
            : {}),
        },
      );
    } finally {
      for (const [i, r] of records.entries()) this.record(r, tallies[i], ctx, bill?.size);
    }
  }

  private record(base: ModelCallRecord, tally: AttemptTally | undefined, ctx: CallContext, size?: RequestSize) {
    const rec: RoleCallRecord = { ...base, role: this.role, model: this.endpoint.model };
    if (tally) {
      const tokens = tokensOf(tally);
      if (tally.reported || tokens.output > 0) rec.tokens = tokens;
    }
    if (rec.tokens) {
      const cost = costOf(rec.tokens, this.price);
      if (cost !== null) {
        rec.cost_usd = cost;
        this.totals.cost_usd = (this.totals.cost_usd ?? 0) + cost;
      }
      this.totals.tokens.input += rec.tokens.input;
      this.totals.tokens.output += rec.tokens.output;
    }
    // An attempt that brought nothing back (an HTTP error, no connection) cost nothing.
    if (size && tally && rec.tokens)
      this.options.meter?.charge(
        { role: this.role, model: this.endpoint.model, size, price: this.price },
        tally.reported ? tally : { output: tokensOf(tally).output },
      );
    this.totals.calls++;
    ctx.calls?.push(rec);
    this.options.onCall?.(rec);
  }

  private body(req: ChatRequest) {
    const temperature = req.temperature ?? this.options.temperature;
    const maxTokens = req.maxTokens ?? this.limits.maxTokens;
    return {
      model: this.endpoint.model,
      messages: req.messages,
      ...(temperature !== undefined ? { temperature } : {}),
      ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    };
  }

  private async whole(req: ChatRequest, signal: AbortSignal, tally: AttemptTally): Promise<ChatResult> {
    const sent = performance.now();
    const res = await this.openai.chat.completions.create(
      { ...this.body(req), ...(req.tools ? { tools: req.tools, tool_choice: 'auto' as const } : {}) },
      { signal },
    );
    const message = res.choices?.[0]?.message;
    if (!message) throw new ModelCallError('the server answered without a message', 'empty-stream');
    tally.text = message.content ?? '';
    if (res.usage) {
      tally.input = res.usage.prompt_tokens ?? 0;
      tally.output = res.usage.completion_tokens ?? 0;
      tally.reported = true;
    }
    const ms = performance.now() - sent;
    return {
      text: tally.text,
      message,
      usage: tokensOf(tally),
      generationMs: ms,
      ttftMs: null,
    };
  }

  /** One streamed completion; the text so far stays in `tally` (and `ctx.partial`) if it fails. */
  private async stream(req: ChatRequest, ctx: CallContext, signal: AbortSignal, tally: AttemptTally) {
    const sent = performance.now();
    let firstTokenAt: number | null = null;
    let providerMs: number | undefined;
    if (ctx.partial) ctx.partial.text = '';
    const stream = await this.openai.chat.completions.create(
      { ...this.body(req), stream: true, stream_options: { include_usage: true } },
      { signal },
    );
    let chunks = 0;
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
          tally.text += delta.content;
          if (ctx.partial) ctx.partial.text = tally.text;
          ctx.onToken?.(delta.content, 'answer');
        }
        countReported(chunk, tally);
        const reported = providerSeconds(chunk);
        if (reported !== undefined) providerMs = (providerMs ?? 0) + reported * 1000;
      }
    } catch (err) {
      countReported((err as { error?: unknown }).error, tally); // an in-stream error may still say what it cost
      if (err instanceof SyntaxError) throw new ModelCallError(describeCallError(err), 'invalid-stream');
      throw err;
    }
    if (signal.aborted) throw signal.reason; // stopped, or the time limit
    if (chunks === 0)
      throw new ModelCallError(
        'the server answered without any chat-completion data (is this an OpenAI-compatible endpoint?)',
        'empty-stream',
      );
    const result: ChatResult = {
      text: tally.text,
      usage: tokensOf(tally),
      generationMs: performance.now() - sent,
      ttftMs: firstTokenAt === null ? null : firstTokenAt - sent,
    };
    if (providerMs !== undefined) result.providerMs = providerMs;
    return result;
  }
}

/** An attempt's tokens: what the server reported, else an estimate from the text that came (4 characters a token). */
function tokensOf(t: AttemptTally): { input: number; output: number; estimated?: true } {
  return t.reported
    ? { input: t.input, output: t.output }
    : { input: t.input, output: Math.ceil(t.text.length / 4), estimated: true };
}

/**
 * Tokens a chunk reports: OpenAI's `usage`, or llama.cpp's `timings` (prompt_n, predicted_n),
 * which its server sends also with a stream that ends in an error.
 */
function countReported(chunk: unknown, tally: AttemptTally) {
  const c = chunk as
    | {
        usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
        timings?: { prompt_n?: unknown; predicted_n?: unknown };
      }
    | undefined;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
  const input = num(c?.usage?.prompt_tokens) ?? num(c?.timings?.prompt_n);
  const output = num(c?.usage?.completion_tokens) ?? num(c?.timings?.predicted_n);
  if (input === undefined && output === undefined) return;
  // Reports are running totals of this answer, not increments.
  tally.input = input ?? tally.input;
  tally.output = output ?? tally.output;
  tally.reported = true;
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
