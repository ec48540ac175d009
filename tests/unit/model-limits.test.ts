/**
 * The VLM agent against a hostile OpenAI-compatible server, through the real `openai` client:
 * every misbehaviour ends the call quickly with an error that says what happened, waits obey
 * the step's signal at once, answers have a size limit and what is stored is bounded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { HostileOpenAI, type Hostility } from '../helpers/hostile-openai.ts';
import { answer } from '../helpers/fake-openai.ts';
import { frameObservation } from '../helpers/agent-fixtures.ts';
import { VlmAgent, MAX_STORED_ANSWER_CHARS } from '../../electron/agents/vlm.ts';
import { retryAfterMs, retryPlan } from '../../electron/agents/model-call.ts';
import type { Observation } from '../../electron/agents/agent-types.ts';
import { g2048 } from '../../games/g2048/index.ts';

let server: HostileOpenAI;
beforeAll(async () => {
  server = await new HostileOpenAI(() => ({ kind: 'garbage' })).start();
});
afterAll(() => server.close());

const use = (b: (i: number) => Hostility) => server.setBehaviour(b);
const PRESS_LEFT = answer('merge left', [{ action_type: 'PRESS', parameters: { key: 'left' } }]);
const MB50 = 50 * 1024 * 1024;

const obs = (): Observation => frameObservation(0);
const ctx = (signal = new AbortController().signal) => ({ actionSpace: 'gui' as const, game: g2048, signal });
const agent = (extra: Record<string, unknown> = {}) =>
  new VlmAgent({ model: 'test-vlm', baseUrl: server.baseURL, apiKey: 'k', maxRetries: 0, repairs: 0, ...extra });

async function timed<T>(p: Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await p;
  return [v, performance.now() - t0];
}

describe('model calls against a hostile server', () => {
  it('fails a stream that stalls after the headers after the idle limit, and hangs up', async () => {
    use(() => ({ kind: 'stall-after-headers', firstChunk: true }));
    const [d, ms] = await timed(agent({ idleTimeoutMs: 400 }).decide(obs(), ctx()));
    expect(d.actions).toEqual([]);
    expect(d.error).toBe('model call failed: timed out: no data for 0.4 s');
    expect(ms).toBeLessThan(5000);
    await expect.poll(() => server.requests[0]!.hungUp).toBe(true);
    expect(d.calls).toEqual([
      {
        attempt: 1,
        ms: expect.any(Number),
        ok: false,
        error: 'timed out: no data for 0.4 s',
        role: 'player',
        model: 'test-vlm',
      },
    ]);
  });

  it('also when not even a first chunk comes', async () => {
    use(() => ({ kind: 'stall-after-headers' }));
    const d = await agent({ idleTimeoutMs: 300 }).decide(obs(), ctx());
    expect(d.error).toBe('model call failed: timed out: no data for 0.3 s');
  });

  it('fails a call that keeps trickling past the total time limit', async () => {
    use(() => ({ kind: 'trickle', intervalMs: 100 }));
    const [d, ms] = await timed(agent({ timeoutMs: 800, idleTimeoutMs: 5000 }).decide(obs(), ctx()));
    expect(d.error).toBe('model call failed: timed out: the call took longer than 0.8 s');
    expect(ms).toBeLessThan(5000);
    await expect.poll(() => server.requests[0]!.hungUp).toBe(true);
  });

  it('retries time-outs with backoff and records every attempt', async () => {
    use((i) => (i < 2 ? { kind: 'stall-after-headers' } : { kind: 'answer', text: PRESS_LEFT }));
    const d = await agent({ idleTimeoutMs: 200, maxRetries: 2 }).decide(obs(), ctx());
    expect(d.error).toBeUndefined();
    expect(d.actions).toHaveLength(1);
    expect(d.calls!.map((c) => [c.attempt, c.ok, c.error ?? null])).toEqual([
      [1, false, 'timed out: no data for 0.2 s'],
      [2, false, 'timed out: no data for 0.2 s'],
      [3, true, null],
    ]);
    expect(d.calls![0]!.wait_ms).toBeGreaterThan(0);
    expect(d.calls![1]!.wait_ms).toBeGreaterThan(d.calls![0]!.wait_ms! * 1.2); // exponential
  });

  it('caps a long Retry-After and records what was asked and what was waited', async () => {
    use((i) =>
      i === 0
        ? { kind: 'status', status: 429, headers: { 'retry-after': '40' } }
        : { kind: 'answer', text: PRESS_LEFT },
    );
    const [d, ms] = await timed(agent({ maxRetries: 1, retryAfterCapMs: 300 }).decide(obs(), ctx()));
    expect(d.error).toBeUndefined();
    expect(ms).toBeLessThan(5000);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(250);
    expect(d.calls![0]).toMatchObject({ attempt: 1, ok: false, status: 429, retry_after_ms: 40_000, wait_ms: 300 });
    expect(d.calls![0]!.error).toMatch(/^HTTP 429/);
  });

  it('stopping interrupts a Retry-After wait at once', async () => {
    use(() => ({ kind: 'status', status: 429, headers: { 'retry-after': '40' } }));
    const stop = new AbortController();
    const deciding = agent({ maxRetries: 3, retryAfterCapMs: 60_000 }).decide(obs(), ctx(stop.signal));
    await server.untilRequests(1);
    await new Promise((r) => setTimeout(r, 200)); // now in the 40 s wait
    const t0 = performance.now();
    stop.abort();
    const d = await deciding;
    const ms = performance.now() - t0;
    console.log(`decide() returned ${ms.toFixed(1)} ms after stop, during a 40 s Retry-After`);
    expect(ms).toBeLessThan(1000);
    expect(d.error).toBe('model call failed: stopped');
    expect(d.calls![0]).toMatchObject({ status: 429, retry_after_ms: 40_000, wait_ms: 40_000 });
    expect(d.calls![0]!.waited_ms).toBeGreaterThanOrEqual(150);
    expect(d.calls![0]!.waited_ms).toBeLessThan(5000);
    expect(server.requests).toHaveLength(1);
  });

  it('stopping ends a stalled stream at once', async () => {
    use(() => ({ kind: 'stall-after-headers', firstChunk: true }));
    const stop = new AbortController();
    const deciding = agent({ idleTimeoutMs: 60_000 }).decide(obs(), ctx(stop.signal));
    await server.untilRequests(1);
    await new Promise((r) => setTimeout(r, 200));
    const t0 = performance.now();
    stop.abort();
    const d = await deciding;
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(d.error).toBe('model call failed: stopped');
  });

  it('stops reading a 50 MB answer at the size limit, and stores a bounded raw', async () => {
    use(() => ({ kind: 'huge', bytes: MB50 }));
    const [d, ms] = await timed(agent({ maxAnswerBytes: 4 * 1024 * 1024 }).decide(obs(), ctx()));
    expect(d.error).toBe('model call failed: the answer is larger than 4 MiB (maxAnswerBytes); stopped reading it');
    expect(ms).toBeLessThan(15_000);
    await expect.poll(() => server.requests[0]!.hungUp).toBe(true);
    expect(server.requests[0]!.bytesSent).toBeLessThan(MB50 / 2);
    expect(d.raw!.length).toBeLessThanOrEqual(MAX_STORED_ANSWER_CHARS + 100);
    expect(d.raw).toMatch(/more characters not stored\]$/);
  });

  it('stops a 50 MB answer at the default limit too, well before the end', async () => {
    use(() => ({ kind: 'huge', bytes: MB50 }));
    const [d, ms] = await timed(agent().decide(obs(), ctx()));
    console.log(`50 MB answer in many chunks refused after ${ms.toFixed(0)} ms at the default limit`);
    expect(d.error).toBe('model call failed: the answer is larger than 16 MiB (maxAnswerBytes); stopped reading it');
    expect(ms).toBeLessThan(30_000);
    expect(d.raw!.length).toBeLessThanOrEqual(MAX_STORED_ANSWER_CHARS + 100);
  });

  it('refuses one 50 MB SSE line quickly', async () => {
    use(() => ({ kind: 'huge', bytes: MB50, singleLine: true }));
    const [d, ms] = await timed(agent().decide(obs(), ctx()));
    console.log(`one 50 MB SSE line refused after ${ms.toFixed(0)} ms`);
    expect(d.error).toBe('model call failed: the server sent one stream line longer than 1 MiB; stopped reading it');
    expect(ms).toBeLessThan(10_000);
    await expect.poll(() => server.requests[0]!.hungUp).toBe(true);
  });

  it('says plainly when a data line is not JSON, and does not retry it', async () => {
    use(() => ({ kind: 'broken-json' }));
    const d = await agent({ maxRetries: 2 }).decide(obs(), ctx());
    expect(d.error).toMatch(/^model call failed: invalid stream from the server: a "data:" line is not JSON \(.+\)$/);
    expect(server.requests).toHaveLength(1);
    expect(d.raw).toBe('### Reasoning\n'); // what came before the break
  });

  it('says plainly when the body holds no chat-completion data at all', async () => {
    use(() => ({ kind: 'garbage' }));
    const d = await agent().decide(obs(), ctx());
    expect(d.error).toBe(
      'model call failed: the server answered without any chat-completion data (is this an OpenAI-compatible endpoint?)',
    );
  });

  it("reports an error event inside the stream as the server's error", async () => {
    use(() => ({ kind: 'stream-error', message: 'model overloaded' }));
    const d = await agent().decide(obs(), ctx());
    expect(d.error).toBe('model call failed: the server reported an error in the stream: model overloaded');
  });

  it('retries connection errors and names the cause', async () => {
    const closed = await new HostileOpenAI(() => ({ kind: 'garbage' })).start();
    const url = closed.baseURL;
    await closed.close();
    const d = await new VlmAgent({ model: 'm', baseUrl: url, maxRetries: 1, repairs: 0 }).decide(obs(), ctx());
    expect(d.error).toMatch(/^model call failed: connection error: .*ECONNREFUSED/);
    expect(d.calls).toHaveLength(2);
  });
});

describe('retry planning', () => {
  const r = { maxRetries: 3, retryAfterCapMs: 20_000, baseDelayMs: 500, maxDelayMs: 8000 };
  it('reads retry-after-ms, seconds and HTTP dates', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '40' }))).toBe(40_000);
    expect(
      retryAfterMs(
        new Headers({ 'retry-after': new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString() }),
        Date.UTC(2030, 0, 1),
      ),
    ).toBe(10_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });

  it('backs off exponentially with jitter, up to a ceiling', () => {
    const conn = new OpenAI.APIConnectionError({ message: 'Connection error.' });
    expect([1, 2, 3, 4, 5, 9].map((n) => retryPlan(conn, n, r, () => 0)!.waitMs)).toEqual([
      500, 1000, 2000, 4000, 8000, 8000,
    ]);
    expect(retryPlan(conn, 1, r, () => 1)!.waitMs).toBe(375);
  });

  it('retries 408/409/429/5xx, honours Retry-After up to the cap and x-should-retry, and nothing else', () => {
    const api = (status: number, headers: Record<string, string> = {}) =>
      OpenAI.APIError.generate(status, { message: 'x' }, 'x', new Headers(headers));
    expect(retryPlan(api(429, { 'retry-after': '40' }), 1, r, () => 0)).toEqual({
      waitMs: 20_000,
      retryAfterMs: 40_000,
    });
    expect(retryPlan(api(503, { 'retry-after-ms': '120' }), 1, r, () => 0)).toEqual({ waitMs: 120, retryAfterMs: 120 });
    expect(retryPlan(api(500), 2, r, () => 0)).toEqual({ waitMs: 1000 });
    expect(retryPlan(api(408), 1, r, () => 0)).toBeDefined();
    expect(retryPlan(api(500, { 'x-should-retry': 'false' }), 1, r, () => 0)).toBeUndefined();
    expect(retryPlan(api(501), 1, r, () => 0)).toBeUndefined(); // not implemented: the same answer again
    expect(retryPlan(api(400), 1, r, () => 0)).toBeUndefined();
    expect(retryPlan(api(401), 1, r, () => 0)).toBeUndefined();
    expect(retryPlan(new OpenAI.APIUserAbortError(), 1, r, () => 0)).toBeUndefined();
    expect(retryPlan(new TypeError('a bug'), 1, r, () => 0)).toBeUndefined();
  });
});
