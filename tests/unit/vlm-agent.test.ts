/**
 * The VLM agent against a local OpenAI-compatible server through the real `openai` client:
 * streaming, repair, retries on 429/5xx, time-outs, history and accounting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer, type Responder } from '../helpers/fake-openai.ts';
import { frameObservation } from '../helpers/agent-fixtures.ts';
import { VlmAgent } from '../../electron/agents/vlm.ts';
import type { Observation } from '../../electron/agents/agent-types.ts';
import { g2048 } from '../../games/g2048/index.ts';

let server: FakeOpenAI;
beforeAll(async () => {
  server = await new FakeOpenAI(() => ({ text: '' })).start();
});
afterAll(() => server.close());

function use(r: Responder) {
  server.requests.length = 0;
  server.setResponder(r);
}

const obs = (step = 0): Observation => ({
  ...frameObservation(step),
  gameText: '2 . . .',
  validMoves: ['up', 'down', 'left', 'right'],
});
const ctx = (actionSpace: 'gui' | 'semantic' = 'gui', onToken?: (t: string, c: 'answer' | 'thinking') => void) => ({
  actionSpace,
  game: g2048,
  signal: new AbortController().signal,
  ...(onToken ? { onToken } : {}),
});
const agent = (extra: Record<string, unknown> = {}) =>
  new VlmAgent({ model: 'gpt-4o', baseUrl: server.baseURL, apiKey: 'k', maxRetries: 2, timeoutMs: 5000, ...extra });
const PRESS_LEFT = answer('merge left', [{ action_type: 'PRESS', parameters: { key: 'left' } }]);

describe('VlmAgent', () => {
  it('streams reasoning and thinking tokens and returns parsed actions with usage and cost', async () => {
    use(() => ({
      text: PRESS_LEFT,
      thinking: 'considering the corners',
      usage: { prompt_tokens: 2000, completion_tokens: 100 },
    }));
    const seen: Record<string, string> = { answer: '', thinking: '' };
    const d = await agent().decide(
      obs(),
      ctx('gui', (t, c) => (seen[c] += t)),
    );
    expect(d.error).toBeUndefined();
    expect(d.actions).toEqual([{ kind: 'gui', type: 'PRESS', params: { key: 'left' } }]);
    expect(seen.answer).toBe(PRESS_LEFT);
    expect(seen.thinking).toBe('considering the corners');
    expect(d.usage).toEqual({ input: 2000, output: 100 });
    expect(d.costUsd).toBeCloseTo((2000 * 2.5 + 100 * 10) / 1e6);
    const req = server.requests[0]!.body;
    expect(req.model).toBe('gpt-4o');
    expect(req.stream).toBe(true);
    expect(req.messages[0].content).toMatch(/### Actions/);
    expect(req.messages[0].content).toMatch(/PRESS \{key/);
    expect(req.messages[0].content).toMatch(/520×640/);
    expect(FakeOpenAI.images(req)).toEqual([
      `data:image/jpeg;base64,${Buffer.from([0xff, 0xd8, 0]).toString('base64')}`,
    ]);
  });

  it('asks once for a repair and records the parse error', async () => {
    use((_b, i) => ({ text: i === 0 ? 'I think left is best.' : PRESS_LEFT }));
    const d = await agent().decide(obs(), ctx());
    expect(d.actions).toHaveLength(1);
    expect(d.parseErrors).toEqual(['no "### Actions" section found']);
    expect(d.attempts).toBe(2);
    const repair = server.requests[1]!.body.messages;
    expect(repair.at(-2)).toMatchObject({ role: 'assistant', content: 'I think left is best.' });
    expect(repair.at(-1).content).toMatch(/could not be used: no "### Actions" section/);
  });

  it('gives up after the configured repairs with a clear error', async () => {
    use(() => ({ text: '### Actions\n[{"action_type": "FLY"}]' }));
    const d = await agent({ repairs: 1 }).decide(obs(), ctx());
    expect(d.actions).toEqual([]);
    expect(d.error).toMatch(/unusable answer: action 1: unknown action type "FLY"/);
    expect(server.requests).toHaveLength(2);
  });

  it('retries 429 and 500 with backoff, then succeeds', async () => {
    use((_b, i) =>
      i === 0
        ? { status: 429, headers: { 'retry-after-ms': '20' } }
        : i === 1
          ? { status: 500, headers: { 'retry-after-ms': '20' } }
          : { text: PRESS_LEFT },
    );
    const d = await agent().decide(obs(), ctx());
    expect(d.error).toBeUndefined();
    expect(server.requests).toHaveLength(3);
  });

  it('reports a persistent 500 or 429 as an error without actions', async () => {
    use(() => ({ status: 500, headers: { 'retry-after-ms': '10' } }));
    const d = await agent({ maxRetries: 1 }).decide(obs(), ctx());
    expect(d.actions).toEqual([]);
    expect(d.error).toMatch(/model call failed: HTTP 500/);
    expect(server.requests).toHaveLength(2);
    use(() => ({ status: 429, headers: { 'retry-after-ms': '10' } }));
    expect((await agent({ maxRetries: 0 }).decide(obs(), ctx())).error).toMatch(/HTTP 429/);
  });

  it('times out a model that does not answer', async () => {
    use(() => ({ text: PRESS_LEFT, delayMs: 3000 }));
    const t0 = Date.now();
    const d = await agent({ timeoutMs: 300, maxRetries: 0 }).decide(obs(), ctx());
    expect(d.error).toMatch(/model call failed: .*(timed out|timeout)/i);
    expect(Date.now() - t0).toBeLessThan(2500);
  });

  it('keeps a history of the last K frame–action pairs', async () => {
    use(() => ({ text: PRESS_LEFT }));
    const a = agent({ history: 3 });
    for (let s = 0; s < 4; s++) await a.decide(obs(s), ctx());
    const last = server.requests.at(-1)!.body.messages;
    // system + 2 past (user, assistant) pairs + current user
    expect(last.map((m: { role: string }) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect(last[1].content[0].text).toMatch(/Step 2/);
    expect(last[2].content).toMatch(/### Actions\n\[\{"action_type":"PRESS"/);
  });

  it("by default shows the current frame and the previous step (screenshot and answer), as the papers' zero-shot agent", async () => {
    use(() => ({ text: PRESS_LEFT }));
    const a = agent(); // no history given
    await a.decide(obs(0), ctx());
    await a.decide(obs(1), ctx());
    await a.decide(obs(2), ctx());
    const msgs = server.requests.at(-1)!.body.messages;
    expect(msgs.map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    const images = msgs
      .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
      .filter((p: any) => p.type === 'image_url')
      .map((p: any) => p.image_url.url);
    const frame = (step: number) => `data:image/jpeg;base64,${Buffer.from([0xff, 0xd8, step]).toString('base64')}`;
    expect(images).toEqual([frame(1), frame(2)]); // the previous step's frame, then the current one
    expect(msgs[2].content).toMatch(
      /^### Reasoning\nmerge left\n\n### Actions\n\[\{"action_type":"PRESS","parameters":\{"key":"left"\}\}\]$/,
    );
  });

  it('--history 1 is strictly single-frame: no earlier frame, answer or previous state', async () => {
    use(() => ({ text: PRESS_LEFT }));
    const a = agent({ history: 1 });
    await a.decide(obs(0), ctx());
    await a.decide(
      {
        ...obs(1),
        previous: {
          actions: [{ action_type: 'PRESS', parameters: { key: 'left' } }],
          outcomes: [{ action: 'PRESS', ok: true }],
        },
      },
      ctx(),
    );
    const msgs = server.requests.at(-1)!.body.messages;
    expect(msgs.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
    expect(FakeOpenAI.images(server.requests.at(-1)!.body)).toHaveLength(1);
    expect(msgs[1].content[0].text).not.toMatch(/Previous state|PRESS/);
  });

  it('structures each step as target task, previous state (outcomes, refusals, dropped actions), current state', async () => {
    use(() => ({ text: PRESS_LEFT }));
    const a = agent();
    await a.decide(obs(0), ctx());
    let text = server.requests.at(-1)!.body.messages.at(-1).content[0].text as string;
    const order = (t: string) =>
      ['### Target task', '### Previous state', '### Current state', '### Your response'].map((h) => t.indexOf(h));
    expect(order(text).every((i, k, all) => i >= 0 && (k === 0 || i > all[k - 1]!))).toBe(true);
    expect(text).toContain(g2048.task!);
    expect(text).toMatch(/### Previous state\nNothing has happened yet: this is the first step of the episode\./);

    const previous = {
      actions: [
        { action_type: 'PRESS', parameters: { key: 'left' } },
        { action_type: 'HOTKEY', parameters: { keys: ['alt', 'f4'] } },
        { action_type: 'PRESS', parameters: { key: 'up' } },
      ],
      outcomes: [
        { action: 'PRESS', ok: true },
        { action: 'HOTKEY', ok: false, error: 'alt+f4 is a system key combination' },
      ],
    };
    await a.decide({ ...obs(1), previous }, ctx());
    text = server.requests.at(-1)!.body.messages.at(-1).content[0].text;
    expect(text).toContain('1. {"action_type":"PRESS","parameters":{"key":"left"}} → done');
    expect(text).toContain(
      '2. {"action_type":"HOTKEY","parameters":{"keys":["alt","f4"]}} → refused: alt+f4 is a system key combination',
    );
    expect(text).toContain(
      '3. {"action_type":"PRESS","parameters":{"key":"up"}} → dropped: not tried after action 2 was refused',
    );

    await a.decide(
      { ...obs(2), previous: { actions: [], outcomes: [], error: 'unusable answer: the Actions list is empty' } },
      ctx(),
    );
    text = server.requests.at(-1)!.body.messages.at(-1).content[0].text;
    expect(text).toMatch(
      /Your last answer could not be used \(unusable answer: the Actions list is empty\), so nothing was done\./,
    );
  });

  it('leaves the learned-experience slot out entirely when there are no lessons', async () => {
    use(() => ({ text: PRESS_LEFT }));
    await agent().decide(obs(), ctx());
    const plain = String(server.requests.at(-1)!.body.messages[0].content);
    const withLessons = agent({ experience: 'LESSON-A: keep the corner.\nLESSON-B: never press up.' });
    await withLessons.decide(obs(), ctx());
    const taught = String(server.requests.at(-1)!.body.messages[0].content);
    expect(taught).toMatch(/## Learned experience\nLESSON-A: keep the corner\.\nLESSON-B: never press up\.\n/);
    // Without lessons the prompt is the same prompt minus that section: no heading, no placeholder.
    const section = taught.slice(taught.indexOf('## Learned experience'), taught.indexOf('## Answer format'));
    expect(plain).toBe(taught.replace(section, ''));
    expect(plain).not.toMatch(/experience|attempt/i);
  });

  it('estimates compute time without the network when the provider reports none (LCRT), and leaves retry waits out', async () => {
    server.networkMs = 400; // every request, the model list included, takes 400 ms more
    try {
      use((_b, i) =>
        i === 0 ? { status: 429, headers: { 'retry-after-ms': '300' } } : { text: PRESS_LEFT, delayMs: 600 },
      );
      const d = await agent().decide(obs(), { ...ctx(), computeTime: true });
      expect(d.error).toBeUndefined();
      const c = d.compute!;
      expect(c.source).toBe('estimated');
      expect(c.rttMs!).toBeGreaterThanOrEqual(400);
      expect(c.generationMs!).toBeGreaterThanOrEqual(1000); // 400 network + 600 compute
      // Neither the round trip nor the 429 and its wait (≥ 700 ms) is charged; the compute itself is.
      expect(c.ms).toBeLessThanOrEqual(d.modelMs! - 400 - 650);
      expect(c.ms).toBeGreaterThan(200);
      expect(server.modelListings.length).toBeGreaterThanOrEqual(1);
      // Without the harness asking (not LCRT), nothing is estimated and nothing is probed.
      const listings = server.modelListings.length;
      use(() => ({ text: PRESS_LEFT }));
      expect((await agent().decide(obs(), ctx())).compute).toBeUndefined();
      expect(server.modelListings.length).toBe(listings);
    } finally {
      server.networkMs = 0;
    }
  });

  it('puts learned experience in the system prompt and uses semantic moves', async () => {
    use(() => ({ text: '### Reasoning\nx\n### Actions\n[{"action": "Up"}]' }));
    const a = agent({ experience: 'Keep the big tile in the bottom-left corner.' });
    const d = await a.decide(obs(), ctx('semantic'));
    expect(d.actions).toEqual([{ kind: 'semantic', move: 'up' }]);
    const sys = server.requests[0]!.body.messages[0].content;
    expect(sys).toMatch(/Keep the big tile in the bottom-left corner\./);
    expect(sys).toMatch(/"up", "down", "left" or "right"/);
    expect(sys).not.toMatch(/MOVE_TO/);
  });
});
