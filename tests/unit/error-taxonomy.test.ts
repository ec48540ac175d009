/**
 * The error judge on hand-written runs against the local test server: each failed episode gets
 * the class the scripted judge names, an unusable answer or a failed call is counted as
 * unclassified (never guessed), a verdict on the same input is kept without a call, ING-VP level
 * runs get ING-VP's classes, and people's labels give percent agreement and Cohen's kappa.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, type ScriptedReply } from '../helpers/fake-openai.ts';
import { runWithSteps } from '../helpers/analysis-runs.ts';
import { classAgreement, setErrorLabel } from '../../electron/scoring/error-labels.ts';
import { classesOf, ERRORS_FILE, judgeErrors, readErrors } from '../../electron/scoring/error-taxonomy.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { buildReport } from '../../electron/report/build.ts';

let server: FakeOpenAI;
const replies: ScriptedReply[] = [];
beforeAll(async () => {
  server = await new FakeOpenAI((_b, i) => replies[i] ?? { status: 500, text: 'no reply scripted' }).start();
});
afterAll(async () => server?.close());

const judge = () => ({ model: 'test-vlm', baseUrl: server.baseURL, apiKey: 'k' });
const promptOf = (i: number): string =>
  (server.requests[i]!.body.messages[0].content as { type: string; text?: string }[])
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
const imagesOf = (i: number) => FakeOpenAI.images(server.requests[i]!.body).length;
const step = (sent: number, reasoning?: string) => ({ sent, ...(reasoning ? { reasoning } : {}) });

describe('the error judge', () => {
  it('classes each failed episode as answered, and counts what it could not classify', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-errors-'));
    const dir = await runWithSteps(root, {
      episodes: [
        { score: 100, steps: [step(1), step(1)] }, // reached the goal: not judged
        { score: 40, steps: Array.from({ length: 9 }, (_, i) => step(1, `thought ${i} of episode one`)) },
        { score: 10, steps: [step(2), step(0)] },
        { score: 0, steps: [step(1)] },
      ],
    });
    const start = server.requests.length;
    replies[start] = { text: '{"class": "Perception error", "reason": "it saw a tile that is not there"}' };
    replies[start + 1] = { text: 'I think it was bad luck.' }; // no JSON: asked again once
    replies[start + 2] = { text: '{"class": "luck", "reason": "-"}' }; // not a class: unclassified
    replies[start + 3] = { status: 500, text: 'judge down' }; // the call fails: unclassified
    const { record } = await judgeErrors(dir, judge(), { maxSteps: 4, maxFrames: 3 });
    expect(server.requests.length - start).toBe(4);
    expect(record.taxonomy).toBe('gameverse');
    expect(record.episodes.map((v) => [v.episode, v.class])).toEqual([
      [1, 'perception'],
      [2, null],
      [3, null],
    ]);
    expect(record.episodes[1]!.reason).toMatch(/asked again once/);
    expect(record.episodes[2]!.reason).toMatch(/call failed/);
    // Episode 1 had nine steps: four described, three frames shown, its last step among them.
    expect(record.episodes[0]).toMatchObject({ steps_shown: 4, frames_shown: [0, 4, 8] });
    expect(imagesOf(start)).toBe(3);
    const prompt = promptOf(start);
    expect(prompt).toContain('thought 8 of episode one');
    expect(prompt).not.toContain('thought 1 of episode one');
    for (const c of classesOf('gameverse')) expect(prompt).toContain(`- ${c}: `);
    expect(readErrors(dir)).toEqual(JSON.parse(readFileSync(path.join(dir, ERRORS_FILE), 'utf8')));
    expect(record.judge_model).toBe('test-vlm');
    expect(record.episodes.every((v) => /^[0-9a-f]{64}$/.test(v.input_hash))).toBe(true);

    // Judged again: the classified episode is kept without a call, the other two are asked again.
    const again = server.requests.length;
    replies[again] = { text: '{"class": "execution", "reason": "pressed the wrong key"}' };
    replies[again + 1] = { text: '{"class": "LATENCY", "reason": "too late"}' };
    const second = await judgeErrors(dir, judge(), { maxSteps: 4, maxFrames: 3 });
    expect(server.requests.length - again).toBe(2);
    expect(second.kept).toBe(1);
    expect(second.record.episodes.map((v) => v.class)).toEqual(['perception', 'execution', 'latency']);
    expect(second.record.episodes[0]!.input_hash).toBe(record.episodes[0]!.input_hash);

    // The report counts them per class, for the model and its category.
    const a = buildReport(root).analyses;
    const all = a.errors.find((r) => r.category === null)!;
    expect(all).toMatchObject({ taxonomy: 'gameverse', model: 'test-vlm', failed: 3, classified: 3, not_judged: 0 });
    expect(all.counts).toEqual({ perception: 1, reasoning: 0, execution: 1, latency: 1 });
  });

  it("gives an ING-VP level run ING-VP's classes", async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-errors-ingvp-'));
    const dir = await runWithSteps(root, {
      config: { suite: 'ingvp' },
      episodes: [{ score: 30, steps: [step(3)] }],
      patch: { ingvp: { solved: false } } as never,
    });
    const start = server.requests.length;
    replies[start] = { text: '{"class": "Planning", "reason": "lost track after two moves"}' };
    const { record } = await judgeErrors(dir, judge());
    expect(record.taxonomy).toBe('ingvp');
    expect(record.episodes.map((v) => v.class)).toEqual(['planning']);
    for (const c of classesOf('ingvp')) expect(promptOf(start)).toContain(`- ${c}: `);
    expect(promptOf(start)).not.toContain('- latency: ');
  });

  it("keeps people's labels apart and measures agreement", async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-errors-labels-'));
    const dir = await runWithSteps(root, {
      episodes: [
        { score: 100, steps: [step(1)] },
        { score: 20, steps: [step(1)] },
      ],
    });
    const { meta } = readRun(dir);
    expect(() => setErrorLabel(dir, meta, { episode: 0, class: 'perception' })).toThrow(/not a failed episode/);
    expect(() => setErrorLabel(dir, meta, { episode: 1, class: 'planning' })).toThrow(/not a class/);
    expect(setErrorLabel(dir, meta, { episode: 1, class: 'Reasoning error' }).map((l) => l.class)).toEqual([
      'reasoning',
    ]);
    expect(setErrorLabel(dir, meta, { episode: 1, class: null })).toEqual([]);

    // Four episodes: the judge says a a b b, a person a b b b. Observed 3/4; chance .5·.25 + .5·.75 = .5.
    const pairs = [
      { judge: 'a', human: 'a' },
      { judge: 'a', human: 'b' },
      { judge: 'b', human: 'b' },
      { judge: 'b', human: 'b' },
    ];
    expect(classAgreement(pairs)).toEqual({ episodes: 4, agreed: 3, percent: 75, kappa: 0.5 });
    // One class throughout on both sides: chance is 1, kappa has no value.
    expect(classAgreement([{ judge: 'a', human: 'a' }]).kappa).toBeNull();
    expect(classAgreement([])).toEqual({ episodes: 0, agreed: 0, percent: null, kappa: null });
  });
});
