/**
 * The reflector's frame budget follows the reflector model's context, through the built CLI
 * against the local test server: a 200-step run reflected on by GPT-4o (128 000 tokens, 85 a
 * low-detail frame) sends far more than the 35 frames a fixed 32 000-token budget allowed; a
 * model whose server reports a 32 768-token context gets only what fits; a model known to take
 * video gets the whole trajectory at the sampling rate as one video. The expected counts are
 * worked out here from the documented constants (docs/reflection.md), not by the code under test.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, runCli } from '../helpers/cli.ts';

/** docs/reflection.md: room kept for text, and the label each frame carries. */
const TEXT_TOKENS = 4_000;
const LABEL_TOKENS = 8;
/** OpenAI: a low-detail image costs GPT-4o 85 tokens; an unknown model is counted at Qwen2.5-VL's 28-px patches. */
const GPT4O_LOW_FRAME = 85 + LABEL_TOKENS;
const UNKNOWN_768_FRAME = Math.ceil(768 / 28) ** 2 + LABEL_TOKENS;
const STEPS = 200;
/** Steps at least this far apart, frames sampled at a rate whose gap is below it: every step's frame is kept. */
const PACE_MS = 60;
const FPS = 20;

const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-refl-budget-'));
const isReflection = (body: any) => String(body.messages[0].content).includes('You review gameplay');
const LESSON = '### Diagnosis\nThe board stalled.\n### Lessons\nLESSON-7: alternate directions.';
/** Left and right in turn: 2048 ends after five moves that change nothing, which these never are within an episode. */
const play = (i: number) => answer('slide', [{ action_type: 'PRESS', parameters: { key: i % 2 ? 'right' : 'left' } }]);
/** The played run: 20 episodes of 10 steps, 200 steps in all. */
const EPISODES = 20;
let server: FakeOpenAI;
/** The 200-step run the reflections look at. */
let played = '';

const parts = (body: any, type: string) => body.messages[1].content.filter((p: any) => p.type === type);
const records = (dir: string) =>
  readFileSync(path.join(dir, 'reflections.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const runJson = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'));

beforeAll(async () => {
  server = await new FakeOpenAI(
    (body, i) => ({ text: isReflection(body) ? LESSON : play(i) }),
    ['test-vlm', 'gpt-4o', 'qwen2.5-vl-7b-instruct', 'served-32k'],
  ).start();
  // As vLLM lists a model served with --max-model-len 32768.
  server.modelFields['served-32k'] = { max_model_len: 32_768 };
  const r = await runCli(
    [
      'run',
      '--game',
      '2048',
      '--agent',
      'vlm',
      '--model',
      'test-vlm',
      '--base-url',
      server.baseURL,
      '--episodes',
      String(EPISODES),
      '--max-steps',
      String(STEPS / EPISODES),
      '--pace-ms',
      String(PACE_MS),
      '--runs-dir',
      tmp(),
      '--json',
      '--quiet',
    ],
    { timeoutMs: 170_000 },
  );
  expect(r.code, r.stderr).toBe(0);
  played = json(r).run_dir;
}, 180_000);
afterAll(() => server.close());

/** A self-t reflection by `model` on the 200-step run, then one more episode. */
async function reflectOnRun(model: string, extra: string[] = []) {
  server.requests.length = 0;
  const r = await runCli([
    'run',
    '--game',
    '2048',
    '--agent',
    'vlm',
    '--model',
    model,
    '--base-url',
    server.baseURL,
    '--max-steps',
    '1',
    '--episodes',
    '2',
    '--reflection',
    'self-t',
    '--tutorial',
    played,
    '--reflect-fps',
    String(FPS),
    '--runs-dir',
    tmp(),
    '--json',
    '--quiet',
    ...extra,
  ]);
  expect(r.code, r.stderr).toBe(0);
  const sent = server.requests.filter((q) => isReflection(q.body));
  expect(sent).toHaveLength(1);
  return { dir: json(r).run_dir as string, body: sent[0]!.body };
}

describe("the reflector's frames follow its model's context", () => {
  it('the played run has a frame for each of its 200 steps', () => {
    expect(runJson(played).episodes.map((e: any) => e.steps)).toEqual(Array(EPISODES).fill(STEPS / EPISODES));
    const frames = readFileSync(path.join(played, 'steps.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((s) => s.frame);
    expect(frames).toHaveLength(STEPS);
  });

  it('gpt-4o (128 000 tokens, 85 a low-detail frame) sees every frame of the 200-step run', async () => {
    const fit = Math.floor((128_000 - TEXT_TOKENS) / GPT4O_LOW_FRAME); // 1 333
    const { dir, body } = await reflectOnRun('gpt-4o');
    const images = parts(body, 'image_url');
    expect(images.length).toBe(Math.min(STEPS, fit));
    expect(images.length).toBeGreaterThan(35);
    expect(images.every((p: any) => p.image_url.detail === 'low')).toBe(true);
    const frames = runJson(dir).reflection.frames;
    expect(frames).toMatchObject({
      context_tokens: 128_000,
      context_source: 'known-model',
      tokens_per_frame: GPT4O_LOW_FRAME,
      max_frames: fit,
      detail: 'low',
    });
    expect(runJson(dir).reflection).toMatchObject({ video: 'off', video_source: 'default' });
    const [rec] = records(dir);
    expect(rec.lesson.provenance.tutorial.frames).toHaveLength(images.length);
    expect(rec.lesson.provenance.tutorial.budget).toMatchObject({ context_source: 'known-model', max_frames: fit });
  });

  it('a model whose server reports 32 768 tokens gets only what fits, and the flag overrides it', async () => {
    const fit = Math.floor((32_768 - TEXT_TOKENS) / UNKNOWN_768_FRAME); // 36
    const served = await reflectOnRun('served-32k');
    expect(parts(served.body, 'image_url')).toHaveLength(fit);
    expect(runJson(served.dir).reflection.frames).toMatchObject({
      context_tokens: 32_768,
      context_source: 'provider',
      tokens_per_frame: UNKNOWN_768_FRAME,
      max_frames: fit,
    });

    const flagged = await reflectOnRun('served-32k', ['--reflect-context', '12000']);
    const flagFit = Math.floor((12_000 - TEXT_TOKENS) / UNKNOWN_768_FRAME); // 10
    expect(parts(flagged.body, 'image_url')).toHaveLength(flagFit);
    expect(runJson(flagged.dir).reflection.frames).toMatchObject({ context_tokens: 12_000, context_source: 'flag' });
  });

  it('a model known to take video gets the trajectory at the sampling rate as one video, by default', async () => {
    const { dir, body } = await reflectOnRun('qwen2.5-vl-7b-instruct');
    expect(parts(body, 'image_url')).toHaveLength(0);
    const [video] = parts(body, 'video_url');
    const mp4 = path.join(tmp(), 'sent.mp4');
    writeFileSync(mp4, Buffer.from(video.video_url.url.slice(video.video_url.url.indexOf(',') + 1), 'base64'));
    const probe = JSON.parse(
      execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-show_streams', '-of', 'json', mp4], {
        encoding: 'utf8',
      }),
    ).streams[0];
    // All 200 frames (Qwen2.5-VL's 32 768 tokens would allow 36 images).
    expect(Number(probe.nb_read_frames)).toBe(STEPS);
    expect(runJson(dir).reflection).toMatchObject({ video: 'auto', video_source: 'known-model' });
    const [rec] = records(dir);
    expect(rec.lesson.provenance.tutorial).toMatchObject({ input: 'video', video_bytes: expect.any(Number) });
    expect(rec.lesson.provenance.tutorial.frames).toHaveLength(STEPS);
    expect(rec.lesson.provenance.tutorial.video_thinned_from).toBeUndefined();
  });
});
