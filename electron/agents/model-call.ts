/**
 * One model call with the harness's own limits and retries (the SDK's are off): a total time
 * limit per attempt, retries of 429/5xx/time-outs/connection errors with exponential backoff
 * and jitter, Retry-After honoured up to a cap, and every wait cut short by the step's signal.
 * Each attempt is recorded so a step shows what the provider did.
 */
import OpenAI from 'openai';
import { sleep } from '../util/time.ts';
import { CallStopped, ModelCallError, describeCallError, formatSeconds } from './model-call-error.ts';

export interface RetrySettings {
  /** Further attempts after the first. */
  maxRetries: number;
  /** Longest wait a server's Retry-After may impose (ms); longer requests wait this long. */
  retryAfterCapMs: number;
  /** First backoff (ms), doubled per attempt up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: Omit<RetrySettings, 'maxRetries' | 'retryAfterCapMs'> = {
  baseDelayMs: 500,
  maxDelayMs: 8000,
};

/** What one attempt did, as written to steps.jsonl (`model_calls`). */
export interface ModelCallRecord {
  attempt: number;
  ms: number;
  ok: boolean;
  status?: number;
  error?: string;
  /** What the server asked for (Retry-After), before the cap. */
  retry_after_ms?: number;
  /** How long we meant to wait before the next attempt. */
  wait_ms?: number;
  /** How long we did wait, when a stop cut the wait short. */
  waited_ms?: number;
}

export interface CallOptions {
  /** Total time limit of one attempt (ms). */
  totalMs: number;
  retry: RetrySettings;
  /** The step's signal: aborting it ends the call and any wait at once. */
  signal: AbortSignal;
  /** Attempts are appended here, also when the call finally fails. */
  calls: ModelCallRecord[];
  random?: () => number;
  /** Before each attempt: a throw ends the call unsent and unrecorded (the run's cost cap). */
  beforeAttempt?: () => void;
}

export async function callWithRetries<T>(run: (signal: AbortSignal) => Promise<T>, o: CallOptions): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    if (o.signal.aborted) throw new CallStopped();
    o.beforeAttempt?.();
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const out = await attemptWithin(run, o.totalMs, o.signal);
      o.calls.push({ attempt, ms: elapsed(), ok: true });
      return out;
    } catch (err) {
      const status = err instanceof OpenAI.APIError && err.status ? err.status : undefined;
      const rec: ModelCallRecord = {
        attempt,
        ms: elapsed(),
        ok: false,
        ...(status ? { status } : {}),
        error: describeCallError(err),
      };
      o.calls.push(rec);
      if (err instanceof CallStopped || o.signal.aborted) throw new CallStopped();
      const plan =
        attempt <= o.retry.maxRetries ? retryPlan(err, attempt, o.retry, o.random ?? Math.random) : undefined;
      if (!plan) throw err;
      rec.wait_ms = plan.waitMs;
      if (plan.retryAfterMs !== undefined) rec.retry_after_ms = plan.retryAfterMs;
      const waitStarted = performance.now();
      await sleep(plan.waitMs, o.signal);
      if (o.signal.aborted) rec.waited_ms = Math.round(performance.now() - waitStarted);
    }
  }
}

/**
 * Runs one attempt under its own controller: aborted by the step's signal or by the total time
 * limit, whose reason is thrown even when the SDK quietly ends an aborted stream.
 */
async function attemptWithin<T>(
  run: (signal: AbortSignal) => Promise<T>,
  totalMs: number,
  stepSignal: AbortSignal,
): Promise<T> {
  const ctl = new AbortController();
  const onStop = () => ctl.abort(new CallStopped());
  stepSignal.addEventListener('abort', onStop, { once: true });
  const timer = setTimeout(
    () => ctl.abort(new ModelCallError(`timed out: the call took longer than ${formatSeconds(totalMs)}`, 'total')),
    totalMs,
  );
  try {
    const out = await run(ctl.signal);
    if (ctl.signal.aborted) throw ctl.signal.reason;
    return out;
  } catch (err) {
    throw ctl.signal.aborted ? ctl.signal.reason : err;
  } finally {
    clearTimeout(timer);
    stepSignal.removeEventListener('abort', onStop);
  }
}

/** The backoff before retry `attempt` (1-based) at its longest: doubled per attempt up to the cap; jitter only shortens it. */
export function longestBackoffMs(attempt: number, r: Pick<RetrySettings, 'baseDelayMs' | 'maxDelayMs'>): number {
  return Math.min(r.maxDelayMs, r.baseDelayMs * 2 ** (attempt - 1));
}

/** Whether and how long to wait before the next attempt, or undefined when retrying cannot help. */
export function retryPlan(
  err: unknown,
  attempt: number,
  r: RetrySettings,
  random: () => number,
): { waitMs: number; retryAfterMs?: number } | undefined {
  const backoff = () => Math.round(longestBackoffMs(attempt, r) * (1 - random() * 0.25));
  if (err instanceof ModelCallError) return err.retryable ? { waitMs: backoff() } : undefined;
  if (err instanceof OpenAI.APIUserAbortError) return undefined;
  if (err instanceof OpenAI.APIConnectionError) return { waitMs: backoff() };
  if (!(err instanceof OpenAI.APIError) || !err.status) return undefined;
  // 501: the server lacks the feature (llama-server's embeddings without --embeddings); asking again cannot help.
  const says = err.headers?.get('x-should-retry');
  const retryable =
    says === 'true' ||
    (says !== 'false' &&
      (err.status === 408 || err.status === 409 || err.status === 429 || (err.status >= 500 && err.status !== 501)));
  if (!retryable) return undefined;
  const asked = retryAfterMs(err.headers);
  return asked === undefined
    ? { waitMs: backoff() }
    : { waitMs: Math.min(asked, r.retryAfterCapMs), retryAfterMs: asked };
}

/** `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: Headers | undefined, nowMs = Date.now()): number | undefined {
  const msText = headers?.get('retry-after-ms')?.trim();
  const ms = msText ? Number(msText) : NaN;
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - nowMs) : undefined;
}
