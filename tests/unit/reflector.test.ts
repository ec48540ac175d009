/**
 * The reflector against the local test server: lessons come back one per line, most important
 * first, and a budget keeps whole lessons from the top instead of gluing lines together.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../helpers/fake-openai.ts';
import { boundWords, lessonLines, Reflector } from '../../electron/reflection/reflector.ts';
import { frameTokens, reflectionSample } from '../../electron/reflection/sampling.ts';
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
    expect(s.budget).toEqual({ context_tokens: 32_000, tokens_per_frame: perFrame, max_frames_asked: null });
  });
});
