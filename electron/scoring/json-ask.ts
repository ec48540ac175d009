/**
 * Asks an OpenAI-compatible model for one JSON object about some frames (the milestone judge
 * and extractor): one request, read tolerantly and checked with a schema; an answer that cannot
 * be used is recorded and asked again once, then given up. Every request is counted, so a
 * caller can hold a budget of calls; the SDK's own retries are off for the same reason.
 */
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { z } from 'zod';
import { findJsonSpan, parseJsonLenient } from '../actions/json-extract.ts';
import { describeCallError } from '../agents/model-call-error.ts';
import { callerFor, type ModelCaller, type ModelRole, type RoleEndpoint } from '../agents/model-endpoint.ts';
import { render } from '../agents/prompts.ts';

/** The judge's (or extractor's) endpoint. */
export type JudgeModel = RoleEndpoint;

/** One request as run.json keeps it. */
export interface AskRecord {
  call: number;
  ms: number;
  ok: boolean;
  tokens?: { input: number; output: number };
  error?: string;
  /** The start of an answer that could not be used. */
  answer?: string;
}

export type { CallTotals as AskTotals } from '../agents/model-endpoint.ts';

export type AskResult<T> = { ok: true; value: T } | { ok: false; error: string; retried: boolean };

const MAX_KEPT_ANSWER = 2000;

export class JsonAsker {
  private readonly caller: ModelCaller;
  private requests = 0;
  readonly log: AskRecord[] = [];

  /** The roles' retries are off (model-endpoint.ts): every request counts against a budget of calls. */
  constructor(
    readonly settings: JudgeModel,
    role: Extract<ModelRole, 'milestone-judge' | 'milestone-extract' | 'error-judge'>,
  ) {
    this.caller = callerFor(settings, role);
  }

  /** Calls, tokens and cost so far. */
  get totals() {
    return this.caller.totals;
  }

  /**
   * Asks, and asks again once when the answer cannot be used — if `mayCall` still allows a
   * request. A failed request (network, HTTP error) is not asked again: it is recorded and skipped.
   */
  async ask<T>(
    content: ChatCompletionContentPart[],
    schema: z.ZodType<T>,
    mayCall: () => boolean,
    signal?: AbortSignal,
  ): Promise<AskResult<T>> {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content }];
    let retried = false;
    for (;;) {
      if (!mayCall()) return { ok: false, error: 'no judge calls left in the budget', retried };
      const rec = await this.once(messages, signal);
      if (!rec.ok) return { ok: false, error: rec.error, retried };
      const parsed = readJson(rec.text, schema);
      if (parsed.ok) return parsed;
      this.log.at(-1)!.error = parsed.error;
      this.log.at(-1)!.answer = rec.text.slice(0, MAX_KEPT_ANSWER);
      if (retried || signal?.aborted) return { ok: false, error: parsed.error, retried };
      retried = true;
      messages.push(
        { role: 'assistant', content: rec.text.slice(0, MAX_KEPT_ANSWER) },
        { role: 'user', content: render('json-again', { error: parsed.error }) },
      );
    }
  }

  private async once(
    messages: ChatCompletionMessageParam[],
    signal?: AbortSignal,
  ): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
    const call = ++this.requests;
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    try {
      const res = await this.caller.chat({ messages, temperature: 0, stream: false }, signal ? { signal } : {});
      this.log.push({ call, ms: ms(), ok: true, tokens: res.usage });
      return { ok: true, text: res.text };
    } catch (err) {
      const error = `the call failed: ${describeCallError(err)}`;
      this.log.push({ call, ms: ms(), ok: false, error });
      return { ok: false, error };
    }
  }
}

/** The first JSON object in the text, repaired where models slip, checked with the schema. */
export function readJson<T>(text: string, schema: z.ZodType<T>): { ok: true; value: T } | { ok: false; error: string } {
  const span = findJsonSpan(text);
  if (!span) return { ok: false, error: `no JSON object in the answer: ${JSON.stringify(text.slice(0, 120))}` };
  const json = parseJsonLenient(span);
  if (!json.ok) return { ok: false, error: json.error };
  const r = schema.safeParse(json.value);
  if (!r.success) {
    const i = r.error.issues[0];
    return { ok: false, error: `unexpected answer: ${i?.path.join('.') || 'the object'} ${i?.message ?? ''}`.trim() };
  }
  return { ok: true, value: r.data };
}
