/**
 * Reflect-and-retry against the local test server: lessons reach every play request after the
 * reflection and none before; tutorial frames reach the reflector at the requested rate and
 * within the budget; bad tutorials and bad reflectors give a clear error or a bounded result.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { testVideo } from '../helpers/test-video.ts';
import { json, runCli, testModelArgs } from '../helpers/cli.ts';
import { loadTutorial } from '../../electron/scoring/trajectory.ts';
import { boundWords } from '../../electron/reflection/reflector.ts';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-refl-'));
const PLAY = answer('slide', [{ action_type: 'PRESS', parameters: { key: 'left' } }]);
const isReflection = (body: any) => String(body.messages[0].content).includes('You review gameplay');
let reflectorReply =
  '### Diagnosis\nThe board filled up.\n### Lessons\nLESSON-42: keep the largest tile in a corner and never press up.';
let server: FakeOpenAI;
let video = '';

beforeAll(async () => {
  server = await new FakeOpenAI(
    (body) => ({ text: isReflection(body) ? reflectorReply : PLAY }),
    ['test-vlm', 'judge-vlm'],
  ).start();
  video = testVideo(path.join(tmp(), 'tutorial.mp4'), { seconds: 10, size: '640x360', fps: 30 });
});
afterAll(() => server.close());

function runArgs(extra: string[]) {
  return [
    'run',
    '--game',
    '2048',
    ...testModelArgs(server.baseURL),
    '--max-steps',
    '2',
    '--runs-dir',
    tmp(),
    '--json',
    '--quiet',
    ...extra,
  ];
}

describe('reflect-and-retry', () => {
  it('puts the lessons into every play prompt after the reflection and none before', async () => {
    server.requests.length = 0;
    const r = await runCli(
      runArgs(['--episodes', '3', '--reflection', 'self-f', '--reflect-after', 'every', '--max-words', '40']),
    );
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    let reflected = false;
    let before = 0;
    let after = 0;
    for (const req of server.requests) {
      if (isReflection(req.body)) {
        reflected = true;
        const images = req.body.messages[1].content.filter((p: any) => p.type === 'image_url');
        expect(images.length).toBeGreaterThan(0);
        continue;
      }
      const system = String(req.body.messages[0].content);
      if (reflected) {
        expect(system).toContain('LESSON-42: keep the largest tile in a corner');
        after++;
      } else {
        expect(system).not.toContain('LESSON-42');
        before++;
      }
    }
    expect([before, after]).toEqual([2, 4]);
    expect(res.reflection).toMatchObject({ mode: 'self-f', reflections: 2, errors: [] });
    expect(res.reflection.without).toHaveLength(1);
    expect(res.reflection.with).toHaveLength(2);
    const records = readFileSync(path.join(res.run_dir, 'reflections.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records[0].lesson).toMatchObject({
      mode: 'self-f',
      model: 'test-vlm',
      text: expect.stringContaining('LESSON-42'),
    });
    expect(records[0].lesson.provenance.failure.frames.length).toBeGreaterThan(0);
    expect(records[0].lesson.tokens.input).toBeGreaterThan(0);

    // run.json says how the run reflected and which episodes had lessons: VR = No for the first, Yes after.
    const meta = JSON.parse(readFileSync(path.join(res.run_dir, 'run.json'), 'utf8'));
    expect(meta.reflection).toEqual({
      mode: 'self-f',
      reflector_model: 'test-vlm',
      after: 'every',
      success_score: 100,
      tutorial: null,
      tutorial_sha256: null,
      // 1 fps, thinned only to fit 32 000 tokens of context (a model the table does not know, whose
      // server reports no context) at 792 tokens a 768-px frame: 35.
      frames: {
        fps: 1,
        max_side: 768,
        max_frames: 35,
        context_tokens: 32_000,
        context_source: 'default',
        detail: 'low',
        tokens_per_frame: 792,
        max_frames_asked: null,
      },
      video: 'off',
      video_source: 'default',
      lessons: [
        { episode: 1, source: 'self-f' },
        { episode: 2, source: 'self-f' },
      ],
    });
    const board = await runCli(['leaderboard', '--runs-dir', path.dirname(res.run_dir)]);
    expect(board.code, board.stderr).toBe(0);
    expect(board.stdout).toMatch(/^2048\s+vlm\s+test-vlm\s+No\s+gui\s+normal\s+1\s+1\s/m);
    expect(board.stdout).toMatch(/^2048\s+vlm\s+test-vlm\s+Yes \(self-f\)\s+gui\s+normal\s+1\s+2\s/m);
  });

  it('reflects with another model in mode "other", and refuses to start without one', async () => {
    const out = tmp();
    const args = (extra: string[]) => [
      'run',
      '--game',
      '2048',
      ...testModelArgs(server.baseURL),
      '--max-steps',
      '2',
      '--runs-dir',
      out,
      '--json',
      '--quiet',
      '--episodes',
      '2',
      ...extra,
    ];
    const none = await runCli(args(['--reflection', 'other']));
    expect(none.code).toBe(2); // options that do not fit together: a usage error
    expect(none.stderr).toMatch(
      /"other" learns from another model's reflection: give a reflector model different from the player's \("test-vlm"\) — --reflector-model/,
    );
    const same = await runCli(args(['--reflection', 'other', '--reflector-model', 'test-vlm']));
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/different from the player's/);
    const selfOther = await runCli(args(['--reflection', 'self-f', '--reflector-model', 'judge-vlm']));
    expect(selfOther.code).toBe(2);
    expect(selfOther.stderr).toMatch(
      /"self-f" reflects with the player's own model \("test-vlm"\); to have "judge-vlm" reflect, use mode "other"/,
    );
    expect(readdirSync(out)).toEqual([]); // refused before any window or run folder

    server.requests.length = 0;
    const r = await runCli(
      args(['--reflection', 'other', '--reflector-model', 'judge-vlm', '--reflect-after', 'every']),
    );
    expect(r.code, r.stderr).toBe(0);
    const reflections = server.requests.filter((q) => isReflection(q.body));
    expect(reflections.length).toBeGreaterThan(0);
    for (const q of reflections) expect(q.body.model).toBe('judge-vlm');
    for (const q of server.requests.filter((x) => !isReflection(x.body))) expect(q.body.model).toBe('test-vlm');
    const meta = JSON.parse(readFileSync(path.join(json(r).run_dir, 'run.json'), 'utf8'));
    expect(meta.reflection).toMatchObject({
      mode: 'other',
      reflector_model: 'judge-vlm',
      lessons: [{ episode: 1, source: 'other' }],
    });
  });

  it('sends tutorial frames at the requested rate and within the frame and size budget', async () => {
    const a = await loadTutorial(video, { fps: 0.5, maxFrames: 16, maxSide: 200 });
    expect(a.frames.map((f) => f.at)).toEqual([0, 2, 4, 6, 8]);
    const b = await loadTutorial(video, { fps: 1, maxFrames: 6, maxSide: 200 });
    expect(b.frames).toHaveLength(6);
    expect(b.available).toBe(10);
    expect(b.frames[0]!.at).toBe(0);
    expect(b.frames.at(-1)!.at).toBe(9);

    server.requests.length = 0;
    const r = await runCli(
      runArgs([
        '--episodes',
        '2',
        '--reflection',
        'self',
        '--tutorial',
        video,
        '--reflect-fps',
        '1',
        '--reflect-max-frames',
        '6',
        '--reflect-max-side',
        '200',
      ]),
    );
    expect(r.code, r.stderr).toBe(0);
    const reflections = server.requests.filter((q) => isReflection(q.body));
    expect(reflections).toHaveLength(2); // self: diagnose the failure, then learn from the tutorial
    const tutorialReq = reflections[1]!.body;
    expect(tutorialReq.messages[1].content[0].text).toMatch(
      /Earlier you diagnosed a failed attempt:\nThe board filled up\./,
    );
    const images = tutorialReq.messages[1].content.filter((p: any) => p.type === 'image_url');
    expect(images).toHaveLength(6);
    for (const img of images) {
      const meta = await sharp(Buffer.from(img.image_url.url.split(',')[1], 'base64')).metadata();
      expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(200);
    }
  });

  it('gives a video-capable reflector one MP4 of the frames, and falls back to frames where refused', async () => {
    const videoArgs = (mode: string) =>
      runArgs([
        '--episodes',
        '2',
        '--reflection',
        'self-t',
        '--tutorial',
        video,
        '--reflect-max-frames',
        '6',
        '--reflect-max-side',
        '200',
        '--reflect-video',
        mode,
      ]);
    const parts = (body: any) => body.messages[1].content.map((p: any) => p.type);
    const records = (dir: string) =>
      readFileSync(path.join(dir, 'reflections.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));

    // on: one video_url part, no images; the MP4 holds the tutorial at the sampling rate (1 fps: 10
    // frames, not the 6 images --reflect-max-frames allows) at the frames' size.
    server.requests.length = 0;
    const on = await runCli(videoArgs('on'));
    expect(on.code, on.stderr).toBe(0);
    const sent = server.requests.filter((q) => isReflection(q.body));
    expect(sent).toHaveLength(1);
    expect(parts(sent[0]!.body)).toEqual(['text', 'video_url']);
    const url: string = sent[0]!.body.messages[1].content[1].video_url.url;
    expect(url.startsWith('data:video/mp4;base64,')).toBe(true);
    const mp4 = path.join(tmp(), 'sent.mp4');
    writeFileSync(mp4, Buffer.from(url.slice(url.indexOf(',') + 1), 'base64'));
    const probe = JSON.parse(
      execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-show_streams', '-of', 'json', mp4], {
        encoding: 'utf8',
      }),
    ).streams[0];
    expect(probe.codec_name).toBe('h264');
    expect(Number(probe.nb_read_frames)).toBe(10);
    expect(Math.max(probe.width, probe.height)).toBeLessThanOrEqual(200);
    const [rec] = records(json(on).run_dir);
    expect(rec.lesson.provenance.tutorial).toMatchObject({ input: 'video', video_bytes: expect.any(Number) });
    expect(rec.lesson.provenance.tutorial.frames).toHaveLength(10);
    expect(rec.lesson.text).toContain('LESSON-42');
    const meta = JSON.parse(readFileSync(path.join(json(on).run_dir, 'run.json'), 'utf8'));
    expect(meta.reflection).toMatchObject({ video: 'on', video_source: 'flag' });

    // A provider that refuses video parts: auto sends the frames instead and says why; on records the error.
    const saved = reflectorReply;
    server.setResponder((body) =>
      isReflection(body) && parts(body).includes('video_url')
        ? { status: 400 }
        : { text: isReflection(body) ? saved : PLAY },
    );
    try {
      server.requests.length = 0;
      const auto = await runCli(videoArgs('auto'));
      expect(auto.code, auto.stderr).toBe(0);
      const tries = server.requests.filter((q) => isReflection(q.body)).map((q) => parts(q.body));
      expect(tries).toEqual([
        ['text', 'video_url'],
        ['text', ...Array(6).fill(['text', 'image_url']).flat()],
      ]);
      const [fallback] = records(json(auto).run_dir);
      expect(fallback.lesson.provenance.tutorial).toMatchObject({ input: 'frames' });
      expect(fallback.lesson.provenance.tutorial.video_note).toMatch(/the provider refused the video: .*400/);
      expect(fallback.lesson.text).toContain('LESSON-42');

      const strict = await runCli(videoArgs('on'));
      expect(strict.code, strict.stderr).toBe(0);
      const [refused] = records(json(strict).run_dir);
      expect(refused.lesson).toBeUndefined();
      expect(refused.error).toMatch(/reflection call failed: .*400/);
      expect(json(strict).episodes).toHaveLength(2);
    } finally {
      server.setResponder((body) => ({ text: isReflection(body) ? reflectorReply : PLAY }));
    }
  });

  it('goes on with a clear note when the tutorial is missing or corrupt', async () => {
    const missing = await runCli(
      runArgs(['--episodes', '2', '--reflection', 'self', '--tutorial', '/nonexistent/tutorial.mp4']),
    );
    expect(missing.code, missing.stderr).toBe(0);
    expect(json(missing).reflection).toMatchObject({
      mode: 'self-f',
      tutorial_error: 'tutorial not found: /nonexistent/tutorial.mp4',
    });
    const corrupt = path.join(tmp(), 'broken.mp4');
    writeFileSync(corrupt, Buffer.from('this is not a video at all'.repeat(50)));
    const bad = await runCli(runArgs(['--episodes', '2', '--reflection', 'self-t', '--tutorial', corrupt]));
    expect(bad.code, bad.stderr).toBe(0);
    expect(json(bad).reflection.tutorial_error).toMatch(/cannot decode the tutorial video/);
    expect(json(bad).episodes).toHaveLength(2);
  });

  it('keeps the old experience when the reflector returns nothing, and bounds one that returns too much', async () => {
    reflectorReply = '';
    server.requests.length = 0;
    const empty = await runCli(runArgs(['--episodes', '2', '--reflection', 'self-f', '--reflect-after', 'every']));
    expect(empty.code, empty.stderr).toBe(0);
    const rec = JSON.parse(readFileSync(path.join(json(empty).run_dir, 'reflections.jsonl'), 'utf8').trim());
    expect(rec.lesson).toMatchObject({ text: '', note: expect.stringMatching(/returned no lessons/) });
    for (const q of server.requests.filter((x) => !isReflection(x.body)))
      expect(String(q.body.messages[0].content)).not.toMatch(/Learned experience/);

    reflectorReply = `### Lessons\n${'Always merge toward the corner. '.repeat(400)}`;
    const long = await runCli(
      runArgs(['--episodes', '2', '--reflection', 'self-f', '--reflect-after', 'every', '--max-words', '30']),
    );
    const rec2 = JSON.parse(readFileSync(path.join(json(long).run_dir, 'reflections.jsonl'), 'utf8').trim());
    expect(rec2.lesson.text.split(/\s+/).length).toBeLessThanOrEqual(30);
    expect(rec2.lesson.note).toMatch(/cut to 30 words/);
    reflectorReply = '### Lessons\nLESSON-42';
  });

  it('bounds words at a sentence end where it can', () => {
    expect(boundWords('One two three. Four five six seven.', 5)).toEqual({ text: 'One two three.', cut: true });
    expect(boundWords('short', 5)).toEqual({ text: 'short', cut: false });
  });

  it('uses a solver demonstration of the built-in game as the tutorial', async () => {
    server.requests.length = 0;
    const r = await runCli(
      runArgs(['--episodes', '2', '--reflection', 'self-t', '--tutorial', 'solver', '--reflect-max-frames', '5']),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/tutorial: 5 of \d+ frames from .*gamepilot-demo-/);
    const refl = server.requests.filter((q) => isReflection(q.body));
    expect(refl).toHaveLength(1);
    expect(refl[0]!.body.messages[1].content[0].text).toMatch(/expert playing/);
    expect(refl[0]!.body.messages[1].content.filter((p: any) => p.type === 'image_url')).toHaveLength(5);
  });
});
