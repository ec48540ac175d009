/**
 * A `fetch` for the openai client that watches the response body as it arrives: it counts the
 * bytes (an answer has a size limit), bounds the length of one stream line (the SDK's SSE
 * decoder rescans a line for every chunk, so one 50 MB line would take minutes) and fails a
 * stream that goes quiet. The SDK's own timeout stops at the headers; this covers the rest.
 */
import { ModelCallError, formatBytes, formatSeconds } from './model-call-error.ts';

export interface StreamLimits {
  /** Longest silence while the body streams (ms). */
  idleMs: number;
  /** Largest response body (bytes). */
  maxBytes: number;
  /** Longest single line in the body (bytes). */
  maxLineBytes: number;
}

/** Lines of a legitimate chat-completions stream are one small JSON chunk each. */
export const MAX_STREAM_LINE_BYTES = 1024 * 1024;

export function guardedFetch(limits: StreamLimits, base: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const res = await base(input, init);
    if (!res.body) return res;
    return new Response(guardBody(res.body, limits), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}

function guardBody(body: ReadableStream<Uint8Array>, limits: StreamLimits): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let total = 0;
  let line = 0;
  const fail = (err: ModelCallError) => {
    reader.cancel(err).catch(() => {}); // hangs up on the server
    throw err;
  };
  return new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      let timer: NodeJS.Timeout | undefined;
      const quiet = new Promise<'quiet'>((resolve) => (timer = setTimeout(() => resolve('quiet'), limits.idleMs)));
      let next: ReadableStreamReadResult<Uint8Array> | 'quiet';
      try {
        next = await Promise.race([reader.read(), quiet]);
      } finally {
        clearTimeout(timer);
      }
      if (next === 'quiet')
        return fail(new ModelCallError(`timed out: no data for ${formatSeconds(limits.idleMs)}`, 'idle'));
      if (next.done) return ctrl.close();
      const chunk = next.value;
      total += chunk.byteLength;
      if (total > limits.maxBytes) {
        return fail(
          new ModelCallError(
            `the answer is larger than ${formatBytes(limits.maxBytes)} (maxAnswerBytes); stopped reading it`,
            'too-large',
          ),
        );
      }
      const firstNewline = chunk.indexOf(10);
      const lastNewline = chunk.lastIndexOf(10);
      const finished = firstNewline < 0 ? 0 : line + firstNewline; // the line this chunk completes
      line = lastNewline < 0 ? line + chunk.byteLength : chunk.byteLength - lastNewline - 1;
      if (Math.max(line, finished) > limits.maxLineBytes) {
        return fail(
          new ModelCallError(
            `the server sent one stream line longer than ${formatBytes(limits.maxLineBytes)}; stopped reading it`,
            'too-large',
          ),
        );
      }
      ctrl.enqueue(chunk);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
