/**
 * The memory agent against the local OpenAI-compatible server: two calls a step (review, then
 * action), retrieval into the action prompt, saving with dedupe, the running summary, the
 * window of recent pairs, and the lexical fallback when the endpoint serves no embeddings.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { frameObservation, isMemoryReview, lastUserText } from '../helpers/agent-fixtures.ts';
import { MemoryAgent } from '../../electron/agents/memory-agent.ts';
import type { Observation } from '../../electron/agents/agent-types.ts';
import type { MemoryStepRecord } from '../../electron/domain.ts';
import { g2048 } from '../../games/g2048/index.ts';

let server: FakeOpenAI;
beforeAll(async () => {
  server = await new FakeOpenAI(() => ({ text: '' })).start();
});
afterAll(() => server.close());

const obs = (step: number): Observation => ({
  ...frameObservation(step),
  ...(step > 0
    ? {
        previous: {
          actions: [{ action_type: 'PRESS', parameters: { key: 'left' } }],
          outcomes: [{ action: 'PRESS left', ok: true }],
        },
      }
    : {}),
});
const ctx = (onMemory?: (m: MemoryStepRecord) => void) => ({
  actionSpace: 'gui' as const,
  game: g2048,
  signal: new AbortController().signal,
  ...(onMemory ? { onMemory } : {}),
});

const KEY_FACT = 'Merging toward the bottom-left corner keeps the biggest tile safe';

/** Step 0 saves the fact; step 1 tries to save it again; step 2 looks at the corner. */
function script(body: any) {
  const step = Number(/Step (\d+) of episode/.exec(lastUserText(body))?.[1] ?? 0) - 1;
  if (isMemoryReview(body))
    return {
      text: `### Observation\n${step === 2 ? 'The biggest tile sits in the bottom-left corner, safe' : 'A 2048 board with a few small tiles'}\n### History_summary\n[HIGH] step ${step + 1}: moving tiles\n[LOW] nothing else\n### Reasoning\nkeep going\n### Plan\npress left`,
    };
  const memory =
    step < 2 ? `### New_memory\n${KEY_FACT}\n### Should_save\nYes` : '### New_memory\nNone\n### Should_save\nNo';
  return { text: `${answer('left is safe', [{ action_type: 'PRESS', parameters: { key: 'left' } }])}\n\n${memory}` };
}

describe('MemoryAgent', () => {
  it('saves a memory once, retrieves it into a later prompt, and keeps a bounded window of pairs', async () => {
    server.requests.length = 0;
    server.embeddingRequests.length = 0;
    server.embeddingsStatus = undefined;
    server.setResponder((b) => script(b));
    const cfg = mkdtempSync(path.join(tmpdir(), 'gp-mem-agent-'));
    const agent = new MemoryAgent(
      { model: 'test-vlm', baseUrl: server.baseURL, apiKey: 'k', maxRetries: 0 },
      { scope: 'unit', configDir: cfg, embeddingModel: 'test-embed', shortTerm: 2 },
    );
    const warnings: string[] = [];
    agent.events.on('warning', (w) => warnings.push(w));
    const records: MemoryStepRecord[] = [];
    for (let s = 0; s < 4; s++) {
      const d = await agent.decide(obs(s), ctx());
      expect(d.error).toBeUndefined();
      expect(d.actions).toEqual([{ kind: 'gui', type: 'PRESS', params: { key: 'left' } }]);
      records.push(d.memory!);
    }
    expect(warnings).toEqual([]);
    // Two calls a step: review, then action.
    expect(server.requests.map((r) => (isMemoryReview(r.body) ? 'review' : 'action'))).toEqual(
      Array.from({ length: 4 }, () => ['review', 'action']).flat(),
    );
    expect(records[0]!.saved?.text).toBe(KEY_FACT);
    expect(records[1]!.saved).toBeNull();
    expect(records[1]!.skipped).toMatchObject({ text: KEY_FACT, similarity: 1, duplicate_of: records[0]!.saved!.id });
    expect(records[1]!.retrieved).toEqual([]); // stored, but nothing on this board is about it
    expect(records[2]!.retrieved[0]).toMatchObject({ text: KEY_FACT });
    expect(records[2]!.retrieved[0]!.similarity).toBeGreaterThanOrEqual(0.4);
    const actionAt = (step: number) => server.requests[step * 2 + 1]!.body;
    expect(lastUserText(actionAt(2))).toContain(`1. ${KEY_FACT} (similarity`);
    expect(lastUserText(actionAt(0))).toContain('None relevant found.');
    expect(actionAt(0).messages[0].content).toMatch(/### New_memory/);
    for (const r of records) expect(r.retrieval).toBe('embedding');
    expect(records[3]!.summary).toContain('[HIGH] step 4');
    // The review at step 4 sees the last 2 pairs (shortTerm) and the current frame: 3 images.
    expect(FakeOpenAI.images(server.requests[6]!.body)).toHaveLength(3);
    expect(FakeOpenAI.images(server.requests[0]!.body)).toHaveLength(1);
    expect(lastUserText(server.requests[6]!.body)).toContain('[HIGH] step 3'); // the summary so far
    expect(server.embeddingRequests.every((r) => r.body.model === 'test-embed')).toBe(true);
    expect(agent.memory().store.memories).toHaveLength(1);
  });

  it('falls back to lexical retrieval when the endpoint has no embeddings, says so once, and still retrieves', async () => {
    server.requests.length = 0;
    server.embeddingsStatus = 404;
    server.setResponder((b) => script(b));
    const cfg = mkdtempSync(path.join(tmpdir(), 'gp-mem-agent-'));
    const agent = new MemoryAgent(
      { model: 'test-vlm', baseUrl: server.baseURL, apiKey: 'k', maxRetries: 0 },
      { scope: 'unit', configDir: cfg, embeddingModel: 'test-embed' },
    );
    const warnings: string[] = [];
    const modes: string[] = [];
    agent.events.on('warning', (w) => warnings.push(w));
    agent.events.on('retrieval', (r) => modes.push(r.retrieval));
    const records: MemoryStepRecord[] = [];
    for (let s = 0; s < 3; s++) records.push((await agent.decide(obs(s), ctx())).memory!);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/embeddings endpoint failed \(.*404.*\).*lexical/);
    expect(modes).toEqual(['lexical']);
    expect(records.map((r) => r.retrieval)).toEqual(['lexical', 'lexical', 'lexical']);
    expect(records[0]!.saved?.text).toBe(KEY_FACT);
    expect(records[1]!.skipped?.similarity).toBe(1);
    expect(records[1]!.retrieved).toEqual([]);
    expect(records[2]!.retrieved.map((m) => m.text)).toEqual([KEY_FACT]);
  });
});

describe('MemoryAgent across runs', () => {
  it('embeds memories saved during lexical retrieval once embeddings work, and again after a change of model', async () => {
    server.requests.length = 0;
    server.embeddingsStatus = undefined;
    server.setResponder((b) => script(b));
    const cfg = mkdtempSync(path.join(tmpdir(), 'gp-mem-agent-'));
    const make = (embeddingModel: string | null) =>
      new MemoryAgent(
        { model: 'test-vlm', baseUrl: server.baseURL, apiKey: 'k', maxRetries: 0 },
        { scope: 'runs', configDir: cfg, embeddingModel },
      );
    const lexical = make(null);
    const notes: string[] = [];
    lexical.events.on('warning', (w) => notes.push(w));
    for (let s = 0; s < 2; s++) await lexical.decide(obs(s), ctx());
    expect(notes).toEqual([expect.stringMatching(/no embedding model was given.*lexical/)]);
    expect(lexical.memory().store.memories.map((m) => m.vector)).toEqual([undefined]);

    for (const model of ['embed-a', 'embed-b']) {
      const agent = make(model);
      const d = await agent.decide(obs(2), ctx());
      expect(d.memory!.retrieval).toBe('embedding');
      expect(d.memory!.retrieved.map((m) => m.text)).toEqual([KEY_FACT]);
      const store = agent.memory().store;
      expect(store.embeddingModel).toBe(model);
      expect(store.memories).toHaveLength(1);
      expect(store.memories[0]!.vector).toHaveLength(256);
    }
  });
});

describe('MemoryAgent on an endpoint without embeddings', () => {
  it('learns it at the first step even when a failed review leaves nothing to search for', async () => {
    server.requests.length = 0;
    server.embeddingRequests.length = 0;
    server.embeddingsStatus = 501; // llama-server without --embeddings
    // The review answers without its sections: no observation, plan or summary to search with.
    server.setResponder((b) => (isMemoryReview(b) ? { text: 'noise' } : script(b)));
    const agent = new MemoryAgent(
      { model: 'test-vlm', baseUrl: server.baseURL, apiKey: 'k', maxRetries: 0, repairs: 0 },
      { scope: 'probe', configDir: mkdtempSync(path.join(tmpdir(), 'gp-mem-agent-')), embeddingModel: 'test-embed' },
    );
    const warnings: string[] = [];
    agent.events.on('warning', (w) => warnings.push(w));
    const d = await agent.decide(obs(0), ctx());
    expect(server.embeddingRequests).toHaveLength(1);
    expect(d.memory!.retrieval).toBe('lexical');
    expect(warnings).toEqual([expect.stringMatching(/embeddings endpoint failed \(HTTP 501/)]);
    expect(d.calls!.map((c) => c.role)).toEqual(['memory-review', 'embeddings', 'player']);
  });
});
