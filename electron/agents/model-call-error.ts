/**
 * Why a model call failed, in words a person can act on. Shared by the stream guard, the retry
 * loop and everything that reports a failed call (agent, reflector, connection test).
 */
import OpenAI from 'openai';

export type ModelCallFailure =
  | 'idle'
  | 'total'
  | 'too-large'
  | 'invalid-stream'
  | 'empty-stream'
  | 'invalid-embeddings';

/** A failure the harness itself detected (limits, broken streams). Not named AbortError on purpose: the SDK swallows those mid-stream. */
export class ModelCallError extends Error {
  override readonly name = 'ModelCallError';
  constructor(
    message: string,
    readonly kind: ModelCallFailure,
  ) {
    super(message);
  }

  /** Time-outs may go better on a second try; a too-large or broken answer would only cost again. */
  get retryable(): boolean {
    return this.kind === 'idle' || this.kind === 'total';
  }
}

/** The step was stopped (Session.stop, Ctrl+C, the stop hotkey) during a call or a retry wait. */
export class CallStopped extends Error {
  override readonly name = 'CallStopped';
  constructor() {
    super('stopped');
  }
}

export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${s >= 10 ? Math.round(s) : Number(s.toFixed(2))} s`;
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

export function describeCallError(err: unknown): string {
  const text = (() => {
    if (err instanceof ModelCallError || err instanceof CallStopped) return err.message;
    if (err instanceof OpenAI.APIUserAbortError) return 'stopped';
    if (err instanceof OpenAI.APIConnectionTimeoutError) return 'timed out before the server answered';
    if (err instanceof OpenAI.APIConnectionError) {
      const cause = (err as { cause?: { code?: string; message?: string; cause?: { code?: string } } }).cause;
      const detail = cause?.cause?.code ?? cause?.code ?? cause?.message;
      return `connection error: ${err.message}${detail ? ` (${detail})` : ''}`;
    }
    if (err instanceof OpenAI.APIError) {
      return err.status
        ? `HTTP ${err.status}: ${err.message}`
        : `the server reported an error in the stream: ${err.message}`;
    }
    if (err instanceof SyntaxError)
      return `invalid stream from the server: a "data:" line is not JSON (${err.message})`;
    if ((err as Error)?.name === 'AbortError') return 'stopped';
    return String((err as Error)?.message ?? err);
  })();
  return text.slice(0, 500);
}
