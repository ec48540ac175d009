/**
 * The reflector against the local test server: lessons come back one per line, most important
 * first, and a budget keeps whole lessons from the top instead of gluing lines together.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../helpers/fake-openai.ts';
import { boundWords, lessonLines, Reflector } from '../../electron/reflection/reflector.ts';
import { frameTokens, reflectionSample, reflectorFacts } from '../../electron/reflection/sampling.ts';
import { imageTokens, knownModel, reportedContext } from '../../electron/agents/model-context.ts';
import { FAILED_RUN } from '../helpers/agent-fixtures.ts';
import { g2048 } from '../../games/g2048/index.ts';

let reply = '';
let server: FakeOpenAI;
beforeAll(async () => {
  server = await new FakeOpenAI(() => ({ text: reply })).start();
});
afterAll(() => server.close());

const failure = FAILED_RUN;

describe('reflector lessons', () => {
  it('asks for one lesson per line, most important first, and keeps whole lines within the budget', async () => {
    reply = [
      '### Diagnosis',
      'The board filled up.',
      '### Lessons',
      '1. Keep the largest tile in the bottom-left corner at all times.',
      '',
      '- Never press up unless no other move changes the board.',
      '* Merge small tiles early before they scatter across the board and block merges.',
    ].join('\n');
    const r = new Reflector({
      model: 'test-vlm',
      baseUrl: server.baseURL,
      apiKey: 'k',
      maxWords: 25,
      timeoutMs: 5000,
      maxRetries: 0,
    });
    const lesson = await r.reflect('self-f', g2048, { failure });
    expect(lesson.text).toBe(
      'Keep the largest tile in the bottom-left corner at all times.\nNever press up unless no other move changes the board.',
    );
    expect(lesson.note).toMatch(/cut to 25 words/);
    const asked = server.requests.at(-1)!.body.messages[1].content[0].text as string;
    expect(asked).toMatch(/one lesson per line/i);
    expect(asked).toMatch(/most important first/i);
  });

  it('cuts a single over-long lesson at a sentence end, and strips list markers', () => {
    expect(boundWords('One two three. Four five six seven.', 5)).toEqual({ text: 'One two three.', cut: true });
    expect(boundWords('a b\nc d e\nf', 5)).toEqual({ text: 'a b\nc d e', cut: true });
    expect(boundWords('a b\nc', 5)).toEqual({ text: 'a b\nc', cut: false });
    expect(lessonLines('  - first\n\n2) second\n• third\n10. tenth')).toBe('first\nsecond\nthird\ntenth');
  });
});

describe("the reflector's frame budget", () => {
  it('follows the token budget (1 fps, thinned only to fit), capped by --reflect-max-frames only when asked', () => {
    const perFrame = frameTokens(768);
    expect(perFrame).toBe(28 * 28 + 8); // Qwen-VL's 28-px patches: the dearest of the common APIs
    const s = reflectionSample({ fps: 1, maxSide: 768, contextTokens: 32_000 });
    expect(s.maxFrames).toBe(Math.floor((32_000 - 4_000) / perFrame)); // 35, not 16
    expect(reflectionSample({ fps: 1, maxSide: 384, contextTokens: 128_000 }).maxFrames).toBe(
      Math.floor(124_000 / frameTokens(384)),
    );
    expect(reflectionSample({ fps: 1, maxSide: 768, contextTokens: 32_000, maxFrames: 16 }).maxFrames).toBe(16);
    expect(s.budget).toEqual({
      context_tokens: 32_000,
      context_source: 'flag',
      detail: 'low',
      tokens_per_frame: perFrame,
      max_frames: 35,
      max_frames_asked: null,
    });
  });

  it("takes the model's context: the flag over the provider's figure over the table, else 32 000", () => {
    const side = { fps: 1, maxSide: 768 };
    // GPT-4o: 128 000 tokens (OpenAI's model page), 85 a low-detail frame + an 8-token label.
    const gpt = knownModel('openai/gpt-4o-2024-08-06')!;
    const fromTable = reflectionSample(side, {
      contextTokens: gpt.contextTokens,
      contextSource: 'known-model',
      images: gpt.images,
    });
    expect(fromTable.budget).toMatchObject({
      context_tokens: 128_000,
      context_source: 'known-model',
      tokens_per_frame: 93,
    });
    expect(fromTable.maxFrames).toBe(Math.floor((128_000 - 4_000) / 93));
    // High detail: a 768-px square is 2 × 2 tiles of 512 px, 170 tokens each, on an 85 base.
    expect(
      reflectionSample(
        { ...side, detail: 'high' },
        { contextSource: 'known-model', contextTokens: 128_000, images: 'openai-tiles' },
      ).budget.tokens_per_frame,
    ).toBe(85 + 4 * 170 + 8);
    // A provider's figure beats the table; the flag beats both.
    expect(
      reflectionSample(side, { contextTokens: 8_192, contextSource: 'provider', images: gpt.images }).budget,
    ).toMatchObject({ context_tokens: 8_192, context_source: 'provider' });
    expect(
      reflectionSample({ ...side, contextTokens: 20_000 }, { contextTokens: 8_192, contextSource: 'provider' }).budget,
    ).toMatchObject({ context_tokens: 20_000, context_source: 'flag' });
    expect(reflectionSample(side).budget).toMatchObject({
      context_tokens: 32_000,
      context_source: 'default',
      tokens_per_frame: 792,
    });
  });

  it('knows the context and video of the models it lists, and reads what providers report', () => {
    expect(knownModel('gpt-4o-mini')).toMatchObject({
      contextTokens: 128_000,
      images: 'openai-mini-tiles',
      video: false,
    });
    expect(knownModel('Qwen/Qwen2.5-VL-7B-Instruct')).toMatchObject({ contextTokens: 32_768, video: true });
    expect(knownModel('qwen3-vl-8b-instruct')).toMatchObject({ contextTokens: 262_144, video: true });
    expect(knownModel('google/gemini-2.5-flash')).toMatchObject({ video: true });
    expect(knownModel('gpt-4.1-mini')).toBeUndefined();
    expect(knownModel('test-vlm')).toBeUndefined();
    expect(imageTokens('openai-mini-tiles', 768, 'low')).toBe(2_833);
    expect(imageTokens('gemini', 768, 'low')).toBe(258);
    expect(imageTokens('qwen3-vl', 768, 'low')).toBe(24 * 24);
    expect(reportedContext({ id: 'q', max_model_len: 32_768 })).toBe(32_768); // vLLM
    expect(reportedContext({ id: 'q', context_length: 131_072 })).toBe(131_072); // OpenRouter
    expect(reportedContext({ id: 'q', meta: { n_ctx: 4_096, n_ctx_train: 40_960 } })).toBe(4_096); // llama-server
    expect(reportedContext({ id: 'q' })).toBeUndefined();
  });
});

describe("the provider's model list, asked for the reflector's context", () => {
  it('is waited for no longer than a stop: a list that never answers ends with none', async () => {
    // An endpoint that takes the request and never answers it.
    const held: ServerResponse[] = [];
    const server = createServer((_req, res) => void held.push(res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      const stop = new AbortController();
      const asked = reflectorFacts(
        { model: 'served-model', baseUrl: `http://127.0.0.1:${port}/v1` },
        true,
        stop.signal,
      );
      await expect.poll(() => held.length).toBe(1);
      const t0 = Date.now();
      stop.abort();
      expect(await asked).toEqual({ contextSource: 'default', video: false });
      expect(Date.now() - t0).toBeLessThan(2_000); // the list's own limit is 5 s
    } finally {
      for (const res of held) res.destroy();
      server.close();
    }
  });
});
