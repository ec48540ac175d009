/**
 * Milestone scoring without a display: the checklist's rules (order, cited steps, names), the
 * judge's answer format, its budget and its one re-ask against the local test server, judging
 * a human session from its recorded frames afterwards, labels kept apart, and the agreement
 * figure (GameVerse Tab. 9's percentage difference).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../helpers/fake-openai.ts';
import { parseProfile } from '../../electron/profiles/load.ts';
import type { MilestoneScoring, Profile } from '../../electron/profiles/profile-schema.ts';
import { Checklist, checklistItems } from '../../electron/scoring/milestone-checklist.ts';
import { readJson } from '../../electron/scoring/json-ask.ts';
import { MilestoneJudging, thin } from '../../electron/scoring/milestone-judging.ts';
import { agreement, labelledEpisodes, percentDifference } from '../../electron/scoring/agreement.ts';
import { judgeRun } from '../../electron/scoring/judge-run.ts';
import { readLabels, setLabel } from '../../electron/scoring/milestone-labels.ts';
import { readRun, RunStore } from '../../electron/store/run-store.ts';
import { z } from 'zod';

const PROFILE = `
id: test-quest
title: Test Quest
match: { title: '^Test Quest$' }
category: nonrealtime-linear
tier: easy
prompt: { task: Reach the castle., rules: Walk to the castle., controls: Arrow keys. }
episode: { maxSteps: 30, trials: 1 }
scoring:
  kind: milestones
  linear: true
  levels:
    - name: Level 1
      milestones: [Leave the house, { title: Cross the bridge, description: the player stands on the bridge }, Level Complete]
    - name: Level 2
      milestones: [Enter the forest, Level Complete]
`;
const profile: Profile = parseProfile(PROFILE, 'test-quest.yaml');
const spec = profile.scoring as MilestoneScoring;

describe('the checklist', () => {
  it('names a title that two levels share by its level, and keeps descriptions', () => {
    const items = checklistItems(spec);
    expect(items.map((i) => i.name)).toEqual([
      'Leave the house',
      'Cross the bridge',
      'Level 1: Level Complete',
      'Enter the forest',
      'Level 2: Level Complete',
    ]);
    expect(items[1]!.description).toBe('the player stands on the bridge');
  });

  it('refuses an unknown milestone, a step whose frame was not shown, and a milestone out of order', () => {
    const c = new Checklist(checklistItems(spec), true);
    const shown = new Map([
      [3, 'frames/e000-s00003.jpg'],
      [5, 'frames/e000-s00005.jpg'],
    ]);
    const r = c.apply(
      [
        { milestone: 'Slay the dragon', step: 3, reason: 'x' },
        { milestone: 'Cross the bridge', step: 5, reason: 'on the bridge' },
        { milestone: 'Leave the house', step: 9, reason: 'outside' },
        { milestone: 'Enter the forest', step: 3, reason: 'trees' },
      ],
      shown,
      1,
    );
    expect(r.accepted).toEqual(['Enter the forest']); // Level 2's first milestone needs nothing before it in its level
    expect(r.refused.map((x) => [x.milestone, x.why.split(/[:(]/)[0]!.trim()])).toEqual([
      ['Slay the dragon', 'no such milestone'],
      ['Leave the house', 'step 9 is not a step whose frame was shown'],
      ['Cross the bridge', 'out of order'],
    ]);
    // In one answer, earlier milestones of a level tick first, so a later one may follow them.
    const r2 = c.apply(
      [
        { milestone: 'Cross the bridge', step: 5, reason: 'on the bridge' },
        { milestone: 'leave the house', step: 3, reason: 'outside' },
      ],
      shown,
      2,
    );
    expect(r2.accepted).toEqual(['Leave the house', 'Cross the bridge']);
    expect(c.reached.get(1)).toEqual({ step: 5, frame: 'frames/e000-s00005.jpg', reason: 'on the bridge', call: 2 });
    // reached / total × 100 with every level pooled, and each level's own count.
    expect(c.score(spec)).toEqual({
      reached: 3,
      total: 5,
      score: 60,
      levels: [
        { name: 'Level 1', reached: 2, total: 3 },
        { name: 'Level 2', reached: 1, total: 2 },
      ],
    });
  });

  it('takes milestones in any order for a non-linear title, but never a later step before an earlier one in a linear one', () => {
    const free = new Checklist(checklistItems(spec), false);
    const shown = new Map([[4, 'f4']]);
    expect(free.apply([{ milestone: 'Level 1: Level Complete', step: 4, reason: 'x' }], shown, 1).accepted).toEqual([
      'Level 1: Level Complete',
    ]);
    const linear = new Checklist(checklistItems(spec), true);
    linear.apply([{ milestone: 'Leave the house', step: 4, reason: 'x' }], shown, 1);
    const r = linear.apply([{ milestone: 'Cross the bridge', step: 2, reason: 'x' }], new Map([[2, 'f2']]), 2);
    expect(r.refused[0]!.why).toMatch(/reached later, at step 4/);
  });
});

describe('the judge answer', () => {
  const schema = z.object({ reached: z.array(z.object({ milestone: z.string(), step: z.number().int() })) });
  it('is read from prose or a fence, with the slips models make repaired', () => {
    expect(readJson('Sure!\n```json\n{"reached": [{"milestone": "A", "step": 2,}]}\n```', schema)).toEqual({
      ok: true,
      value: { reached: [{ milestone: 'A', step: 2 }] },
    });
    expect(readJson("{'reached': [{'milestone': 'A', 'step': 2}]}", schema).ok).toBe(true);
  });
  it('is refused with a reason when it is not the format', () => {
    expect(readJson('I think the bridge was crossed.', schema)).toMatchObject({ ok: false, error: /no JSON object/ });
    expect(readJson('{"reached": [{"milestone": "A", "step": "two"}]}', schema)).toMatchObject({
      ok: false,
      error: /reached\.0\.step/,
    });
  });
});

describe('agreement', () => {
  it("reproduces GameVerse Tab. 9's percentage differences from its means", () => {
    expect(percentDifference(68, 74)).toBe(8.11); // Baba Is You, 8.1 %
    expect(percentDifference(29, 33)).toBe(12.12); // Ace Attorney, 12.1 %
    expect(percentDifference(34, 38)).toBe(10.53); // Plants vs. Zombies, 10.5 %
    expect(percentDifference(0, 0)).toBe(0);
    expect(percentDifference(10, 0)).toBeNull();
  });
  it('thins a long batch evenly and keeps its last frame', () => {
    expect(thin([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 4)).toEqual([1, 4, 7, 10]);
    expect(thin([1, 2, 3], 1)).toEqual([3]);
  });
});

/** A frame file of one colour, as a run folder holds it. */
async function frame(colour: [number, number, number]): Promise<Buffer> {
  return sharp({
    create: { width: 64, height: 48, channels: 3, background: { r: colour[0], g: colour[1], b: colour[2] } },
  })
    .jpeg()
    .toBuffer();
}

/** The steps a judge request shows, in order: the "step N" labels. */
function shownSteps(body: any): number[] {
  const parts = body.messages[0].content as { type: string; text?: string }[];
  return parts.filter((p) => p.type === 'text' && /^step \d+$/.test(p.text ?? '')).map((p) => Number(p.text!.slice(5)));
}

describe('judging against the local test server', () => {
  let server: FakeOpenAI;
  beforeAll(async () => {
    server = await new FakeOpenAI(() => ({ text: '{"reached": []}' })).start();
  });
  afterAll(() => server.close());

  /** A real run folder (kind human: a recorded session) whose steps' frames are red, then green from `greenFrom`. */
  async function humanSession(steps: number, greenFrom: number): Promise<string> {
    const store = RunStore.create(mkdtempSync(path.join(tmpdir(), 'gp-ms-')), {
      kind: 'human',
      game: null,
      target: { kind: 'window', label: 'Test Quest' },
      agent: 'human:p01',
      model: null,
      action_space: 'gui',
      config: {},
      profile: { id: 'test-quest', title: 'Test Quest' },
    });
    for (let s = 0; s < steps; s++) {
      const rel = store.writeFrame(0, s, await frame(s >= greenFrom ? [0, 200, 0] : [200, 0, 0]), 'jpg');
      store.appendStep({
        step: s,
        episode: 0,
        t_capture: Date.now() + s * 500,
        frame: rel,
        reasoning: '',
        raw: null,
        actions: [],
        errors: [],
        latency_ms: { locate: 0, capture: 0, encode: 0, model: 0, act: 0, total: 0 },
      });
    }
    store.close('completed', undefined, {
      episodes: [{ episode: 0, seed: 0, score: null, steps, end: 'duration' }],
    });
    return store.dir;
  }

  it("judges a human session from its recorded frames: each claim checked against the frames' colours, the score and evidence in run.json", async () => {
    const dir = await humanSession(9, 5);
    // The server looks at the images: the first green frame it is shown is the player out of the house.
    server.setResponder(async (body) => {
      const steps = shownSteps(body);
      const images = (body.messages[0].content as any[]).filter((p) => p.type === 'image_url');
      for (const [i, s] of steps.entries()) {
        const { data } = await sharp(Buffer.from(images[i].image_url.url.split(',')[1], 'base64'))
          .raw()
          .toBuffer({ resolveWithObject: true });
        if (data[1]! > 150 && data[0]! < 80)
          return {
            text: JSON.stringify({ reached: [{ milestone: 'Leave the house', step: s, reason: 'green grass' }] }),
          };
      }
      return { text: '{"reached": []}' };
    });
    server.requests.length = 0;
    const { record, meta } = await judgeRun(
      dir,
      profile,
      { model: 'judge-x', baseUrl: server.baseURL },
      { everySteps: 3 },
    );
    expect(server.requests.length).toBe(3); // steps 0–2, 3–5, 6–8; the episode's end found nothing left
    expect(record.episodes[0]!.items[0]).toMatchObject({ name: 'Leave the house', reached: true, step: 5 });
    expect(record.episodes[0]!.items[0]!.frame).toBe('frames/e000-s00005.jpg');
    expect(meta.episodes[0]!.score).toBe(20); // 1 of 5
    const onDisk = readRun(dir).meta;
    expect(onDisk.kind).toBe('human');
    expect(onDisk.mean).toBe(20);
    expect((onDisk.milestones as any).judge_model).toBe('judge-x');
    expect((onDisk.milestones as any).calls).toBe(3);

    // A person's label is kept apart from run.json, and moves the agreement figure.
    expect(labelledEpisodes(dir, onDisk)).toEqual([]);
    setLabel(dir, onDisk, { episode: 0, milestone: 'Cross the bridge', reached: true });
    expect(readRun(dir).meta.milestones).toEqual(onDisk.milestones);
    expect(readLabels(dir)).toMatchObject([{ episode: 0, milestone: 'Cross the bridge', reached: true }]);
    const rows = agreement(labelledEpisodes(dir, onDisk));
    expect(rows).toMatchObject([{ game: 'test-quest', judged: 20, human: 40, pct_diff: 50 }]);
    expect(() => setLabel(dir, onDisk, { episode: 0, milestone: 'Nope', reached: true })).toThrow(
      /no milestone "Nope"/,
    );
    setLabel(dir, onDisk, { episode: 0, milestone: 'Cross the bridge', reached: null });
    expect(readLabels(dir)).toEqual([]);
  });

  it('records a malformed answer, asks again once, then skips; refuses a claim on a step it was not shown; never exceeds its budget', async () => {
    const dir = await humanSession(12, 0);
    const { steps } = readRun(dir);
    const frames = steps.map((s) => ({ episode: 0, step: s.step, frame: s.frame!, file: path.join(dir, s.frame!) }));
    const answers = ['The house is behind me.', 'still no JSON'];
    server.setResponder(() => ({
      text: answers.shift() ?? '{"reached": [{"milestone": "Leave the house", "step": 40, "reason": "x"}]}',
    }));
    server.requests.length = 0;
    const progress: number[] = [];
    const judging = new MilestoneJudging(
      profile,
      { model: 'judge-x', baseUrl: server.baseURL },
      { everySteps: 3, budget: 3, maxFrames: 8, maxSide: 256, episodes: 1 },
      (p) => progress.push(p.calls),
      false,
    );
    for (const f of frames) judging.observe(f);
    judging.endEpisode(0);
    const record = await judging.finish();
    expect(server.requests.length).toBe(3); // K = 3: never more
    expect(record.calls).toBe(3);
    // The malformed answer and its one re-ask (which repeats the conversation) — then skipped.
    expect(server.requests[1]!.body.messages.at(-1).content).toMatch(/could not be read/);
    expect(record.requests[0]).toMatchObject({ ok: true, answer: 'The house is behind me.' });
    expect(record.skipped[0]!.why).toMatch(/no JSON object.*asked again once/);
    // The third call (the episode's end, kept back by the budget) cites a step it was not shown.
    expect(record.refused).toMatchObject([
      { milestone: 'Leave the house', step: 40, why: /not a step whose frame was shown/ },
    ]);
    expect(record.episodes[0]!.reached).toBe(0);
    expect(existsSync(path.join(dir, 'milestone-labels.json'))).toBe(false);
    expect(JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')).milestones).toBeUndefined(); // only judgeRun writes
  });
});
