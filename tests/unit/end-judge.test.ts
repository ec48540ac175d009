/**
 * The `judge` end detector through the real openai client against the local test server: it
 * sends the frame and the profile's question, fires on the model's yes, records a failed call or
 * an unreadable answer as an error (never an end), and asks only every `checkEvery` steps.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../helpers/fake-openai.ts';
import { Detectors } from '../../electron/scoring/end-detectors.ts';
import type { EncodedFrame } from '../../electron/capture/encode.ts';
import { DetectorSchema } from '../../electron/profiles/episode-end-schema.ts';

let server: FakeOpenAI;
let reply: () => { text?: string; status?: number } = () => ({ text: '{"yes": false}' });
let frame: EncodedFrame;

beforeAll(async () => {
  server = await new FakeOpenAI(() => reply()).start();
  const data = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#204060' } })
    .png()
    .toBuffer();
  frame = { data, mime: 'image/png', width: 64, height: 48, scale: 1 };
});
afterAll(() => server.close());

const judge = (checkEvery?: number) =>
  new Detectors(
    [DetectorSchema.parse({ judge: 'The game-over screen is shown.', ...(checkEvery ? { checkEvery } : {}) })],
    {
      profileDir: '.',
      gameTitle: 'Test Title',
      judge: { model: 'test-vlm', baseUrl: server.baseURL, apiKey: 'sk-test' },
    },
  );
const now = () => ({ frame, title: 'Test Title', gone: false });

describe('a judge end detector', () => {
  it('sends the frame and the question, and fires on yes with the reason it gave', async () => {
    server.requests.length = 0;
    reply = () => ({ text: '{"yes": true, "why": "GAME OVER in large letters"}' });
    const { hit } = await judge().first(now(), 0);
    expect(hit).toMatchObject({
      label: 'end[0] judge',
      fired: true,
      detail: 'the judge said yes: GAME OVER in large letters',
    });
    const content = server.requests[0]!.body.messages[0].content;
    expect(content[0].text).toContain('The game-over screen is shown.');
    expect(content[0].text).toContain('Test Title');
    expect(content[1].image_url.url).toBe(`data:image/png;base64,${frame.data.toString('base64')}`);
  });

  it('a no fires nothing; a failed call or an unreadable answer is an error, not an end', async () => {
    reply = () => ({ text: '{"yes": false, "why": "a board in play"}' });
    const d = judge();
    const no = await d.first(now(), 0);
    expect(no.hit).toBeUndefined();
    expect(no.errors).toEqual([]);
    reply = () => ({ status: 500, text: 'boom' });
    const failed = await d.first(now(), 1);
    expect(failed.hit).toBeUndefined();
    expect(failed.errors[0]!.error).toMatch(/^the judge's call failed: /);
    reply = () => ({ text: 'certainly looks over to me' });
    const unread = await d.first(now(), 2);
    expect(unread.hit).toBeUndefined();
    expect(unread.errors[0]!.error).toMatch(/^the judge's answer could not be read: /);
  });

  it('asks every checkEvery steps only, and not at all without a model', async () => {
    server.requests.length = 0;
    reply = () => ({ text: '{"yes": false}' });
    const d = judge(3);
    const due = [0, 1, 2, 3, 4, 5].filter((s) => d.due(s));
    expect(due).toEqual([2, 5]);
    for (const s of [0, 1, 2, 3, 4, 5]) await d.first(now(), s);
    expect(server.requests).toHaveLength(2);
    const none = new Detectors([DetectorSchema.parse({ judge: 'Over?' })], { profileDir: '.', gameTitle: 'T' });
    const without = await none.first(now(), 0);
    expect(without.hit).toBeUndefined();
    expect(without.errors[0]!.error).toMatch(/needs a model/);
  });
});
