/**
 * What the model sees in a live run (GameVerse's zero-shot context): each request carries the
 * previous step's frame and answer plus the current frame, and the next step's message says
 * what became of every action — done, refused by the harness, dropped by the game's one-move-a-step
 * cap, or not tried after a refusal.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { prepareRun } from '../../electron/session/compose.ts';
import { parseRunSpec } from '../../electron/run-spec.ts';
import { testModelSpec } from '../helpers/cli.ts';
import { readRun } from '../../electron/store/run-store.ts';

const FIRST = answer('left, then close it, then up, then wait', [
  { action_type: 'PRESS', parameters: { key: 'left' } },
  { action_type: 'HOTKEY', parameters: { keys: ['alt', 'f4'] } },
  { action_type: 'PRESS', parameters: { key: 'up' } },
  { action_type: 'WAIT', parameters: { duration: 0.1 } },
]);
let server: FakeOpenAI;
beforeAll(async () => {
  server = await new FakeOpenAI((_b, i) => ({
    text: i === 0 ? FIRST : answer('down', [{ action_type: 'PRESS', parameters: { key: 'down' } }]),
  })).start();
});
afterAll(() => server.close());

const imagesIn = (body: any) =>
  body.messages
    .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
    .filter((p: any) => p.type === 'image_url')
    .map((p: any) => p.image_url.url as string);

describe('the model context in a live run', () => {
  it('shows the previous frame and answer, and the fate of each previous action', async () => {
    const { session, target } = await prepareRun(
      parseRunSpec({
        game: '2048',
        ...testModelSpec(server.baseURL),
        episodes: 1,
        maxSteps: 3,
        seed: 5,
        capture: 'nut',
        maxRetries: 0,
      }),
      { outDir: mkdtempSync(path.join(tmpdir(), 'gp-ctx-')) },
    );
    try {
      expect((await session.run()).status).toBe('completed');
    } finally {
      await target.close();
    }
    const { steps } = readRun(session.store.dir);
    expect(steps[0]!.view_inputs).toEqual([{ type: 'key', key: 'ArrowLeft' }]); // left went through; alt+f4 refused; up over the cap; wait not tried
    expect(steps[0]!.errors.join(' ')).toMatch(/refused HOTKEY/);

    const [first, second, third] = server.requests.map((r) => r.body);
    expect(imagesIn(first)).toHaveLength(1);
    expect(first.messages.at(-1).content[0].text).toMatch(/first step of the episode/);
    // Step 2: the previous step's frame and answer, then the current frame with the previous state.
    expect(second.messages.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(imagesIn(second)).toEqual([imagesIn(first)[0], expect.stringMatching(/^data:image\/jpeg;base64,/)]);
    expect(imagesIn(second)[1]).not.toBe(imagesIn(first)[0]); // the board moved left in between
    expect(second.messages[2].content).toMatch(
      /### Actions\n\[\{"action_type":"PRESS","parameters":\{"key":"left"\}\},\{"action_type":"HOTKEY"/,
    );
    const text = second.messages.at(-1).content[0].text as string;
    expect(text).toContain('1. {"action_type":"PRESS","parameters":{"key":"left"}} → done');
    expect(text).toMatch(/2\. \{"action_type":"HOTKEY","parameters":\{"keys":\["alt","f4"\]\}\} → refused: .*alt\+f4/);
    expect(text).toContain(
      '3. {"action_type":"PRESS","parameters":{"key":"up"}} → dropped: one move per step, so it was not made',
    );
    expect(text).toContain(
      '4. {"action_type":"WAIT","parameters":{"duration":0.1}} → dropped: not tried after action 2 was refused',
    );
    // Step 3 sees only one earlier pair (step 2's), not the whole episode.
    expect(third.messages.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(third.messages[1].content[1].image_url.url).toBe(imagesIn(second)[1]);
    expect(third.messages.at(-1).content[0].text).toContain(
      '1. {"action_type":"PRESS","parameters":{"key":"down"}} → done',
    );
  });
});
