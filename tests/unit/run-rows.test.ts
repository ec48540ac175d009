/**
 * Rows read back from run folders are validated, not cast: a damaged row of steps.jsonl,
 * frames.jsonl, events.jsonl or skills.jsonl is skipped and reported with its file and line,
 * and the replay, the video, the tutorial, the session and the IDC readers go on with the rest.
 * Real files and real ffmpeg.
 */
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readJsonLines } from '../../electron/store/json-rows.ts';
import { RunStore, readRun } from '../../electron/store/run-store.ts';
import { openRun } from '../../electron/store/run-library.ts';
import { exportVideo } from '../../electron/recording/video.ts';
import { readSession } from '../../electron/store/session-files.ts';
import { DEFAULT_REFLECTION_SAMPLING, reflectionSample } from '../../electron/reflection/sampling.ts';
import { runTrajectory } from '../../electron/scoring/trajectory.ts';
import { readIdc } from '../../electron/reflection/idc-files.ts';

const LATENCY = { locate: 1, capture: 1, encode: 1, model: 1, act: 1, total: 5 };
let jpeg: Buffer;
beforeAll(async () => {
  jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3a6' } })
    .jpeg()
    .toBuffer();
});

const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-rows-'));

/** A finished run of `n` good steps with real frames. */
function seedRun(root: string, n: number, kind: 'agent' | 'human' = 'agent') {
  const store = RunStore.create(root, {
    kind,
    game: '2048',
    target: { kind: 'builtin', label: '2048' },
    agent: kind === 'human' ? 'human-expert' : 'solver',
    model: null,
    action_space: 'gui',
    config: {},
  });
  const t0 = Date.now();
  for (let i = 0; i < n; i++) {
    const frame = store.writeFrame(0, i, jpeg, 'jpg');
    store.appendStep({
      step: i,
      episode: 0,
      t_capture: t0 + i * 500,
      frame,
      reasoning: `step ${i}`,
      raw: null,
      actions: [{ action_type: 'PRESS', parameters: { key: 'left' } }],
      errors: [],
      latency_ms: LATENCY,
    });
  }
  store.close('completed', undefined, {
    episodes: [{ episode: 0, seed: 0, score: 10, steps: n, end: 'game_over' }],
    mean: 10,
    std: 0,
  });
  return store;
}

describe('one JSON-lines reader with a schema', () => {
  it('keeps valid rows and names the file and line of each skipped one', () => {
    const file = path.join(tmp(), 'rows.jsonl');
    writeFileSync(file, ['{"n": 1}', '{"n": "two"}', 'not json', '', '{"n": 4}', '{"n": 5'].join('\n'));
    const { rows, problems } = readJsonLines(file, z.object({ n: z.number() }));
    expect(rows).toEqual([{ n: 1 }, { n: 4 }]);
    expect(problems).toEqual([
      `${file}:2: n: expected number, received string`,
      `${file}:3: not JSON`,
      `${file}:6: a torn last line (cut off by a crash?)`,
    ]);
  });
});

describe('steps.jsonl', () => {
  it('a replay skips rows of the wrong shape and says which; it never hands them on', () => {
    const root = tmp();
    const run = seedRun(root, 3);
    const steps = path.join(run.dir, 'steps.jsonl');
    // A row without errors or latency (the replay viewer reads both), one with a string step, a torn last line.
    appendFileSync(
      steps,
      `${JSON.stringify({ step: 3, episode: 0, t_capture: 1, frame: null, reasoning: '', raw: null, actions: [] })}\n`,
    );
    appendFileSync(
      steps,
      `${JSON.stringify({ step: 'four', episode: 0, t_capture: 1, frame: null, reasoning: '', raw: null, actions: [], errors: [], latency_ms: LATENCY })}\n`,
    );
    appendFileSync(steps, '{"step": 5, "episo');
    const { steps: read, problems } = readRun(run.dir);
    expect(read.map((s) => s.step)).toEqual([0, 1, 2]);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(
      new RegExp(`^${steps.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:4: errors: expected array`),
    );
    expect(problems[1]).toMatch(/:5: step: expected number, received string/);
    expect(problems[2]).toMatch(/:6: a torn last line/);
    const opened = openRun(root, run.meta.id);
    expect(opened.steps).toHaveLength(3);
    expect(opened.warnings).toEqual(problems);
  });

  it('a video and a tutorial are made from the valid rows, with a warning for each bad one', async () => {
    const root = tmp();
    const run = seedRun(root, 4);
    const steps = path.join(run.dir, 'steps.jsonl');
    const lines = readFileSync(steps, 'utf8').trim().split('\n');
    lines[1] = JSON.stringify({ ...JSON.parse(lines[1]!), t_capture: 'soon' });
    writeFileSync(steps, `${lines.join('\n')}\n`);

    const warnings: string[] = [];
    const out = await exportVideo(run.dir, path.join(root, 'v.mp4'), { warn: (w) => warnings.push(w) });
    expect(warnings).toEqual([`skipped ${steps}:2: t_capture: expected number, received string`]);
    const seconds = Number(
      execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', out], {
        encoding: 'utf8',
      }),
    );
    expect(seconds).toBeGreaterThan(0.9); // three frames of 0.5 s and more, not an error

    const tutorial = await runTrajectory(run.dir, reflectionSample(DEFAULT_REFLECTION_SAMPLING));
    expect(tutorial.available).toBe(3);
    expect(tutorial.warnings).toEqual([`${steps}:2: t_capture: expected number, received string`]);
  });
});

describe('a recording session', () => {
  it('reads session.json, frames.jsonl and events.jsonl validated, skipping bad rows by file and line', () => {
    const run = seedRun(tmp(), 2, 'human');
    writeFileSync(
      path.join(run.dir, 'session.json'),
      JSON.stringify({
        participant: 'e1',
        role: 'expert',
        trial: 1,
        consent: true,
        game: '2048',
        target: '2048',
        start: new Date().toISOString(),
        end: null,
        fps: 30,
      }),
    );
    writeFileSync(
      path.join(run.dir, 'frames.jsonl'),
      `${[
        JSON.stringify({ i: 0, t: 1, file: 'frames/e000-s00000.jpg' }),
        JSON.stringify({ i: 1, t: 2 }),
        JSON.stringify({ i: 2, t: 3, file: 'frames/e000-s00001.jpg' }),
      ].join('\n')}\n`,
    );
    writeFileSync(
      path.join(run.dir, 'events.jsonl'),
      `${[
        JSON.stringify({ t: 5, action_type: 'PRESS', parameters: { key: 'left' } }),
        JSON.stringify({ t: 6, action_type: 'PRESS', parameters: 'left' }),
      ].join('\n')}\n`,
    );
    const s = readSession(run.dir);
    expect(s.session).toMatchObject({ participant: 'e1', role: 'expert', end: null });
    expect(s.frames.map((f) => f.i)).toEqual([0, 2]);
    expect(s.events).toEqual([{ t: 5, action_type: 'PRESS', parameters: { key: 'left' } }]);
    expect(s.problems).toEqual([
      `${path.join(run.dir, 'frames.jsonl')}:2: file: expected string, received undefined`,
      `${path.join(run.dir, 'events.jsonl')}:2: parameters: expected record, received string`,
    ]);

    writeFileSync(path.join(run.dir, 'session.json'), JSON.stringify({ participant: 'e1', role: 'judge' }));
    expect(() => readSession(run.dir)).toThrow(/session.json is not a valid recording session: role/);
  });

  it('a session video uses frames.jsonl minus its bad rows', async () => {
    const root = tmp();
    const run = seedRun(root, 3, 'human');
    writeFileSync(
      path.join(run.dir, 'frames.jsonl'),
      `${[
        JSON.stringify({ i: 0, t: 0, file: 'frames/e000-s00000.jpg' }),
        '{"i": 1, "t": 500, "file": 7}',
        JSON.stringify({ i: 2, t: 1000, file: 'frames/e000-s00002.jpg' }),
      ].join('\n')}\n`,
    );
    const warnings: string[] = [];
    await exportVideo(run.dir, path.join(root, 's.mp4'), { warn: (w) => warnings.push(w) });
    expect(warnings).toEqual([
      `skipped ${path.join(run.dir, 'frames.jsonl')}:2: file: expected string, received number`,
    ]);
  });
});

describe('an IDC folder', () => {
  it('reads idc.json validated and skills.jsonl without its bad rows', () => {
    const dir = tmp();
    const result = {
      run_dir: dir,
      curve: [10, 20],
      best_round: 1,
      best_skill: 'corner',
      transfer: { seed: 10000, scores: [15], mean: 15 },
      rounds: [
        { round: 0, run_dir: 'a', skill: '', scores: [10], mean: 10 },
        { round: 1, run_dir: 'b', skill: 'corner', scores: [20], mean: 20 },
      ],
    };
    writeFileSync(path.join(dir, 'idc.json'), JSON.stringify(result));
    writeFileSync(
      path.join(dir, 'skills.jsonl'),
      `${[JSON.stringify({ after_round: 0, skill: 'corner' }), JSON.stringify({ after_round: -1, skill: 'x' })].join(
        '\n',
      )}\n`,
    );
    const idc = readIdc(dir);
    // A folder from before the transfer test: no splits, and R0 and the gaps computed from the curve.
    expect(idc.result).toEqual({
      ...result,
      r0: 10,
      gain_vs_r0: 10,
      best_vs_final: 0,
      transfer: { episodes: 1, splits: [] },
    });
    expect(idc.skills).toEqual([{ after_round: 0, skill: 'corner' }]);
    expect(idc.problems).toEqual([
      `${path.join(dir, 'skills.jsonl')}:2: after_round: Too small: expected number to be >=0`,
    ]);
    writeFileSync(path.join(dir, 'idc.json'), JSON.stringify({ ...result, curve: 'up' }));
    expect(() => readIdc(dir)).toThrow(/idc.json is not a valid IDC result: curve: expected array, received string/);
  });
});
