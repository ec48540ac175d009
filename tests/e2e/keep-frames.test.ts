/**
 * A disk budget for long runs, through the real CLI on built-in 2048: `--keep-frames` writes
 * all, every Nth, only changed, or no step frames (a step not kept says `frame: null`);
 * run.json's `bytes_written` is what the folder holds; `--max-run-mb` ends the run as stopped
 * (disk budget) before it passes the limit; a setting that leaves reflection no frames is
 * refused before anything is written; and the replay (the contract's getRun / getFrame, the
 * app's New run form's fields) still works on a run with missing frames.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { json, runCli, testModelArgs } from '../helpers/cli.ts';
import { coreIn } from '../helpers/contract-setup.ts';
import { readRun, type RunMeta, type StepRecord } from '../../electron/store/run-store.ts';
import type { GamepilotCore } from '../../electron/api/core.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-keep-frames-'));
const runsDir = path.join(tmp, 'runs');
const STEPS = 20;

/** Every regular file under `dir`, with its size. */
function files(dir: string): { file: string; size: number }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : e.isFile() ? [{ file: p, size: statSync(p).size }] : [];
  });
}

interface Played {
  code: number | null;
  stderr: string;
  dir: string;
  meta: RunMeta;
  steps: StepRecord[];
  /** The frame files on disk, relative to the run folder. */
  frames: string[];
  /** All the folder's bytes. */
  onDisk: number;
}

/** `gamepilot run --game 2048 --agent random --max-steps 20` with `extra`, and what it left on disk. */
async function play(extra: string[]): Promise<Played> {
  const r = await runCli([
    'run',
    '--game',
    '2048',
    '--agent',
    'random',
    '--max-steps',
    String(STEPS),
    '--episodes',
    '1',
    '--runs-dir',
    runsDir,
    '--json',
    '--quiet',
    ...extra,
  ]);
  expect(r.code, r.stderr).toBe(0);
  const dir = json(r).run_dir as string;
  const { meta, steps } = readRun(dir);
  const frames = readdirSync(path.join(dir, 'frames'))
    .map((f) => `frames/${f}`)
    .sort();
  return {
    code: r.code,
    stderr: r.stderr,
    dir,
    meta,
    steps,
    frames,
    onDisk: files(dir).reduce((n, f) => n + f.size, 0),
  };
}

const perStep: Record<string, { bytes: number; frames: number; steps: number }> = {};

/** The step records name exactly the frames on disk; bytes_written is the folder's size. */
function checkConsistent(p: Played, keep: string, label = keep) {
  expect(p.meta.config.keep_frames).toBe(keep);
  expect(p.steps.filter((s) => s.frame).map((s) => s.frame)).toEqual(p.frames);
  for (const s of p.steps) if (s.frame) expect(existsSync(path.join(p.dir, s.frame))).toBe(true);
  expect(p.meta.bytes_written).toBeDefined();
  expect(
    Math.abs(p.meta.bytes_written! - p.onDisk),
    `${p.meta.bytes_written} written, ${p.onDisk} on disk`,
  ).toBeLessThan(Math.max(64, p.onDisk * 0.002));
  perStep[label] = { bytes: p.onDisk, frames: p.frames.length, steps: p.steps.length };
}

let core: GamepilotCore | undefined;
afterAll(async () => {
  await core?.stop();
  // What each setting costs on disk, for the record (2048's 520×640 window, JPEG q80).
  for (const [keep, m] of Object.entries(perStep))
    console.log(
      `keep-frames ${keep}: ${m.frames}/${m.steps} frames, ${m.bytes} B, ${Math.round(m.bytes / m.steps)} B/step`,
    );
});

describe('gamepilot run --keep-frames', () => {
  it('all (the default) keeps every step frame, and bytes_written is the folder size', async () => {
    const p = await play([]);
    expect(p.meta.status).toBe('completed');
    expect(p.steps).toHaveLength(STEPS);
    expect(p.frames).toHaveLength(STEPS);
    expect(p.meta.config).toMatchObject({ keep_frames: 'all', max_run_mb: null, min_free_mb: 500 });
    checkConsistent(p, 'all');
    // Each step waited until its inputs reached the view and the window drew the new state, so a
    // step whose move changed the board sees it changed: its frame is not the previous one.
    for (const s of p.steps)
      expect(s.settle, `step ${s.step}`).toEqual({ by: 'view', inputs_arrived: true, rendered: true, drew: true });
    const grid = (i: number) => JSON.stringify((p.steps[i]!.game_state as { grid: unknown }).grid);
    const bytes = (i: number) => readFileSync(path.join(p.dir, p.steps[i]!.frame!));
    for (let i = 2; i < STEPS; i++)
      if (grid(i - 1) !== grid(i - 2)) expect(bytes(i).equals(bytes(i - 1)), `step ${i}`).toBe(false);
  });

  it('every:5 keeps steps 0, 5, 10 and 15 of each episode; the others say frame null', async () => {
    const p = await play(['--keep-frames', 'every:5', '--episodes', '2']);
    expect(p.steps).toHaveLength(2 * STEPS);
    expect(p.frames).toEqual(
      [0, 1].flatMap((e) => [0, 5, 10, 15].map((s) => `frames/e00${e}-s${String(s).padStart(5, '0')}.jpg`)),
    );
    for (const s of p.steps) expect(s.frame === null, `step ${s.step}`).toBe(s.step % 5 !== 0);
    checkConsistent(p, 'every:5');
  });

  it('changed keeps the first frame and each visibly unlike the last kept: fewer than all where moves change nothing', async () => {
    const p = await play(['--keep-frames', 'changed']);
    expect(p.steps).toHaveLength(STEPS);
    expect(p.steps[0]!.frame).not.toBeNull();
    expect(p.frames.length).toBeGreaterThan(1);
    expect(p.frames.length).toBeLessThan(STEPS);
    // No two kept frames in a row are the same image.
    const hashes = p.frames.map((f) =>
      createHash('sha1')
        .update(readFileSync(path.join(p.dir, f)))
        .digest('hex'),
    );
    for (let i = 1; i < hashes.length; i++) expect(hashes[i], p.frames[i]).not.toBe(hashes[i - 1]);
    // A step left out showed the board of the last kept step (2048: moves that changed nothing;
    // only the move counter ticked). A step's frame shows the board its previous step left.
    const boardBefore = (i: number) => JSON.stringify((p.steps[i - 1]!.game_state as { grid: unknown }).grid);
    let kept = 0;
    for (const [i, s] of p.steps.entries()) {
      if (s.frame) kept = i;
      else if (kept > 0) expect(boardBefore(i), `step ${s.step}`).toBe(boardBefore(kept));
    }
    checkConsistent(p, 'changed');
  });

  it('none keeps no frame; the steps are all there', async () => {
    const p = await play(['--keep-frames', 'none']);
    expect(p.meta.status).toBe('completed');
    expect(p.steps).toHaveLength(STEPS);
    expect(p.frames).toEqual([]);
    expect(p.steps.every((s) => s.frame === null)).toBe(true);
    checkConsistent(p, 'none');
  });

  it('--max-run-mb ends the run as stopped (disk budget) before it passes the limit', async () => {
    const p = await play(['--max-run-mb', '0.05']);
    expect(p.meta.status).toBe('stopped');
    expect(p.meta.error).toMatch(/^disk budget: /);
    expect(p.meta.config.max_run_mb).toBe(0.05);
    expect(p.steps.length).toBeGreaterThan(0);
    expect(p.steps.length).toBeLessThan(STEPS);
    expect(p.meta.episodes).toMatchObject([{ end: 'disk_budget', steps: p.steps.length }]);
    expect(p.onDisk).toBeLessThanOrEqual(0.05 * 1024 * 1024 * 1.05); // run.json's last rewrite may add a little
    checkConsistent(p, 'all', 'all, --max-run-mb 0.05');
  });

  it('refuses a setting that leaves reflection no frames, with exit 2 and nothing written', async () => {
    const out = path.join(tmp, 'refused');
    for (const extra of [
      ['--keep-frames', 'none', '--reflection', 'self-f'],
      ['--keep-frames', 'every:20', '--reflection', 'other', '--reflector-model', 'judge-vlm'],
    ]) {
      const r = await runCli([
        'run',
        '--game',
        '2048',
        ...testModelArgs('http://127.0.0.1:9/v1'),
        '--max-steps',
        String(STEPS),
        '--runs-dir',
        out,
        ...extra,
      ]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        /reflects on the run's own frames, but --keep-frames (none writes no frame|every:20 keeps only the first frame)/,
      );
      expect(r.stderr).toMatch(/Usage: gamepilot run/);
      expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
    }
    const bad = await runCli(['run', '--game', '2048', '--keep-frames', 'every:0', '--runs-dir', out]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Allowed: all, every:N \(N ≥ 1\), changed or none/);
  });

  it('the replay opens a run with missing frames: steps with frame null, the kept frames readable', async () => {
    core = coreIn(tmp);
    const runs = (await core.handle('listRuns', {})) as { runs: { id: string; steps: number }[] };
    const sparse = runs.runs.find((r) => readRun(path.join(runsDir, r.id)).meta.config.keep_frames === 'every:5')!;
    const none = runs.runs.find((r) => readRun(path.join(runsDir, r.id)).meta.config.keep_frames === 'none')!;
    const got = (await core.handle('getRun', { id: sparse.id })) as { steps: StepRecord[]; warnings: string[] };
    expect(got.warnings).toEqual([]);
    expect(got.steps).toHaveLength(2 * STEPS);
    expect(got.steps[1]!.frame).toBeNull();
    const f = (await core.handle('getFrame', { id: sparse.id, frame: got.steps[5]!.frame })) as { dataUrl: string };
    expect(f.dataUrl).toMatch(/^data:image\/jpeg;base64,\/9j\//);
    const empty = (await core.handle('getRun', { id: none.id })) as { steps: StepRecord[] };
    expect(empty.steps.map((s) => s.frame)).toEqual(Array(STEPS).fill(null));
    // A video of a run without frames says so; one with some is made from those.
    mkdirSync(path.join(tmp, 'exports'), { recursive: true }); // exportVideo does not make the folder (exportRun does)
    await expect(core.handle('exportVideo', { id: none.id })).rejects.toThrow(/no frames/);
    const video = (await core.handle('exportVideo', { id: sparse.id })) as { path: string };
    expect(statSync(video.path).size).toBeGreaterThan(0);
  });

  it('over the contract: startRun takes keepFrames and maxRunMb into run.json, and refuses a starving one', async () => {
    core ??= coreIn(tmp);
    await core.handle('startRun', {
      target: { game: '2048' },
      agent: 'random',
      maxSteps: 8,
      keepFrames: 'every:4',
      maxRunMb: 5,
    });
    await expect
      .poll(async () => ((await core!.handle('state', {})) as { status: string }).status, { timeout: 60_000 })
      .toBe('idle');
    const runs = (await core.handle('listRuns', {})) as { runs: { id: string }[] };
    const run = runs.runs
      .map((r) => readRun(path.join(runsDir, r.id)))
      .find((r) => r.meta.config.keep_frames === 'every:4')!;
    expect(run.meta).toMatchObject({ status: 'completed', config: { keep_frames: 'every:4', max_run_mb: 5 } });
    expect(run.steps.filter((s) => s.frame).map((s) => s.step)).toEqual([0, 4]);
    await expect(
      core.handle('startRun', { target: { game: '2048' }, agent: 'random', keepFrames: 'some' }),
    ).rejects.toThrow(/keepFrames/);
    await core.handle('saveSettings', { settings: { model: 'player-vlm' } });
    try {
      const before = runs.runs.length;
      await expect(
        core.handle('startRun', {
          target: { game: '2048' },
          agent: 'vlm',
          keepFrames: 'none',
          reflection: 'self-f',
        }),
      ).rejects.toMatchObject({
        code: 'bad-input',
        message: expect.stringMatching(/keep frames none writes no frame/),
      });
      expect(((await core.handle('listRuns', {})) as { runs: unknown[] }).runs).toHaveLength(before);
    } finally {
      await core.handle('saveSettings', { settings: { model: '' } });
    }
  });
});
