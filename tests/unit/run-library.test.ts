/**
 * The runs folder as the UI and the leaderboard read it: damaged run.json files are skipped
 * with a warning, crashed runs read as crashed, totals are current mid-episode, only completed
 * runs are scored, and no run file may point outside its folder.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore, type StepRecord } from '../../electron/store/run-store.ts';
import { listRuns, openRun, readFrame } from '../../electron/store/run-library.ts';
import { leaderboard } from '../../electron/store/leaderboard.ts';
import { resolveRunFile } from '../../electron/store/run-files.ts';
import { currentOwner, processStartMs, type Owner } from '../../electron/util/owner.ts';
import { randomRun } from '../helpers/run-fixtures.ts';

const LATENCY = { locate: 1, capture: 1, encode: 1, model: 1, act: 1, total: 5 };

function step(i: number, extra: Partial<StepRecord> = {}): StepRecord {
  return {
    step: i,
    episode: 0,
    t_capture: Date.now(),
    frame: null,
    reasoning: '',
    raw: null,
    actions: [],
    errors: [],
    latency_ms: LATENCY,
    ...extra,
  };
}

function finishedRun(
  root: string,
  opts: { agent?: string; scores?: number[]; status?: 'completed' | 'stopped' | 'failed'; demo?: boolean } = {},
) {
  const s = RunStore.create(root, {
    kind: 'agent',
    game: '2048',
    target: { kind: 'builtin', label: '2048' },
    agent: opts.agent ?? 'solver',
    model: null,
    action_space: 'gui',
    config: { latency: 'normal' },
    ...(opts.demo ? { demo: true } : {}),
  });
  const scores = opts.scores ?? [50];
  s.close(opts.status ?? 'completed', undefined, {
    episodes: scores.map((score, episode) => ({ episode, seed: 0, score, steps: 3, end: 'game_over' })),
    mean: scores[0]!,
    std: 0,
  });
  return s;
}

/** The owner record of a process that has exited: what a crashed run leaves behind. */
async function deadOwner(): Promise<Owner> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 200)']);
  await new Promise((r) => child.once('spawn', r));
  const owner = { pid: child.pid!, started: Math.round(processStartMs(child.pid!)!), host: currentOwner().host };
  await new Promise((r) => child.once('exit', r));
  return owner;
}

function rewriteMeta(dir: string, patch: Record<string, unknown>) {
  const file = path.join(dir, 'run.json');
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), ...patch }));
}

describe('runs listing', () => {
  it('skips each malformed run.json with a warning naming the file, and lists the rest', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-lib-'));
    const good = finishedRun(root, { scores: [40] });
    const bad: Record<string, string> = {
      'null-run': 'null',
      'no-created': JSON.stringify({
        ...JSON.parse(readFileSync(path.join(good.dir, 'run.json'), 'utf8')),
        created: undefined,
      }),
      'no-episodes': JSON.stringify({
        ...JSON.parse(readFileSync(path.join(good.dir, 'run.json'), 'utf8')),
        episodes: undefined,
      }),
      'wrong-types': JSON.stringify({
        ...JSON.parse(readFileSync(path.join(good.dir, 'run.json'), 'utf8')),
        episodes: 'many',
        totals: { steps: 'x' },
      }),
      'torn-json': '{"id": "torn", "created": ',
    };
    for (const [name, text] of Object.entries(bad)) {
      mkdirSync(path.join(root, name));
      writeFileSync(path.join(root, name, 'run.json'), text);
    }
    const { runs, warnings } = listRuns(root);
    expect(runs.map((r) => r.id)).toEqual([good.meta.id]);
    expect(warnings).toHaveLength(Object.keys(bad).length);
    for (const name of Object.keys(bad))
      expect(warnings.some((w) => w.includes(path.join(root, name, 'run.json')))).toBe(true);
    expect(warnings.find((w) => w.includes('no-episodes'))).toMatch(/episodes/);

    // The leaderboard reads the same folder and survives the same files.
    const board = leaderboard(root);
    expect(board.rows).toMatchObject([{ game: '2048', player: 'solver', runs: 1, mean: 40 }]);
    expect(board.warnings).toHaveLength(Object.keys(bad).length);
  });

  it('gives every run its own folder, however many start in the same second', () => {
    // Same game, agent and second: only the suffix tells them apart. With a 2-byte suffix and
    // no exclusive create, 1,500 runs in 2.6 s merged seven pairs into one folder each (measured).
    const root = mkdtempSync(path.join(tmpdir(), 'gp-ids-'));
    const ids = Array.from({ length: 1500 }, () => finishedRun(root).meta.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(readdirSync(root)).toHaveLength(ids.length);
    expect(listRuns(root).runs).toHaveLength(ids.length);
  });

  it('shows a run whose process died as crashed, and a live one as running', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-lib-'));
    const live = randomRun(root);
    expect(JSON.parse(readFileSync(path.join(live.dir, 'run.json'), 'utf8')).owner).toEqual(currentOwner());
    const crashed = RunStore.create(root, {
      kind: 'agent',
      game: '2048',
      target: { kind: 'builtin', label: '2048' },
      agent: 'solver',
      model: null,
      action_space: 'gui',
      config: {},
    });
    rewriteMeta(crashed.dir, { owner: await deadOwner() });

    const status = Object.fromEntries(listRuns(root).runs.map((r) => [r.id, r.status]));
    expect(status[live.meta.id]).toBe('running');
    expect(status[crashed.meta.id]).toBe('crashed');
    expect(openRun(root, crashed.meta.id).meta.status).toBe('crashed');
    live.close('stopped');
  });

  it('keeps run.json totals current after every step, before the episode ends', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-lib-'));
    const s = RunStore.create(root, {
      kind: 'agent',
      game: '2048',
      target: { kind: 'builtin', label: '2048' },
      agent: 'vlm',
      model: 'm',
      action_space: 'gui',
      config: {},
    });
    s.appendStep(step(0, { tokens: { input: 100, output: 20 }, cost_usd: 0.01 }));
    s.appendStep(step(1, { tokens: { input: 110, output: 30 }, cost_usd: 0.02 }));
    const onDisk = JSON.parse(readFileSync(path.join(s.dir, 'run.json'), 'utf8'));
    expect(onDisk.status).toBe('running');
    expect(onDisk.totals).toMatchObject({ steps: 2, tokens_in: 210, tokens_out: 50 });
    expect(onDisk.totals.cost_usd).toBeCloseTo(0.03, 6);
    expect(listRuns(root).runs[0]!.steps).toBe(2);
    s.close('completed');
    expect(readdirSync(s.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('leaderboard', () => {
  it('counts completed runs only: not stopped, failed, crashed or the demo', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-lib-'));
    finishedRun(root, { scores: [10] });
    finishedRun(root, { scores: [90], status: 'stopped' });
    finishedRun(root, { scores: [90], status: 'failed' });
    finishedRun(root, { scores: [90], demo: true });
    const crashed = finishedRun(root, { scores: [90] });
    rewriteMeta(crashed.dir, { status: 'running', owner: await deadOwner() });
    const { rows } = leaderboard(root);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ player: 'solver', runs: 1, episodes: 1, mean: 10 });
  });
});

describe('run files stay inside their run folder', () => {
  it('refuses ../, absolute paths, control characters and symlinks; accepts plain files', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-lib-'));
    const outside = path.join(root, 'secret.txt');
    writeFileSync(outside, 'not yours');
    const s = RunStore.create(path.join(root, 'runs'), {
      kind: 'agent',
      game: '2048',
      target: { kind: 'builtin', label: '2048' },
      agent: 'solver',
      model: null,
      action_space: 'gui',
      config: {},
    });
    const frame = s.writeFrame(0, 0, Buffer.from([0xff, 0xd8, 0xff, 0xd9]), 'jpg');
    symlinkSync(outside, path.join(s.framesDir, 'e000-s00001.jpg'));
    symlinkSync(root, path.join(s.dir, 'linked'));
    s.close('completed');

    expect(resolveRunFile(s.dir, frame)).toBe(path.join(s.dir, frame));
    for (const [rel, why] of [
      ['../secret.txt', /outside/],
      ['frames/../../secret.txt', /outside/],
      [outside, /outside/],
      ['frames/e000-s00001.jpg', /symbolic link/],
      ['linked/secret.txt', /symbolic link/],
      ["frames/a\nfile '/etc/passwd'", /bad file name/],
      ['frames', /not a file/],
      ['frames/none.jpg', /missing/],
    ] as const) {
      expect(() => resolveRunFile(s.dir, rel), rel).toThrow(why);
    }
    const runs = path.join(root, 'runs');
    expect(readFrame(runs, s.meta.id, frame).data).toEqual(Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
    expect(() => readFrame(runs, s.meta.id, 'frames/e000-s00001.jpg')).toThrow(/symbolic link/);
  });

  it('will not open a run whose run.json is a symlink to another file', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-lib-'));
    const s = finishedRun(path.join(root, 'runs'));
    const elsewhere = path.join(root, 'elsewhere.json');
    writeFileSync(elsewhere, readFileSync(path.join(s.dir, 'run.json')));
    const id = 'linked-run';
    mkdirSync(path.join(root, 'runs', id));
    symlinkSync(elsewhere, path.join(root, 'runs', id, 'run.json'));
    expect(() => openRun(path.join(root, 'runs'), id)).toThrow(/symbolic link/);
    const { runs, warnings } = listRuns(path.join(root, 'runs'));
    expect(runs.map((r) => r.id)).toEqual([s.meta.id]);
    expect(warnings.join('\n')).toMatch(/linked-run.*symbolic link/);
  });
});
