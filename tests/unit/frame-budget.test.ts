/**
 * A run's disk budget without a display: which frames each keep-frames setting keeps, which
 * settings starve reflection or the judge, when the budget stops a run, run.json's
 * `bytes_written` against the folder's real size, and the same settings over the contract and
 * the command line (refused with exit 2 before anything opens).
 */
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import type { RawFrame } from '../../electron/capture/capturer.ts';
import {
  CHANGED_SHARE,
  checkFramesFor,
  DiskBudget,
  FrameKeeper,
  framesStarved,
  FramesStarvedError,
} from '../../electron/store/frame-budget.ts';
import { randomRun } from '../helpers/run-fixtures.ts';
import { parseParams } from '../../electron/api/contract.ts';
import { buildProgram } from '../../electron/cli/program.ts';
import type { Actions, RunFlags } from '../../electron/cli/command-flags.ts';
import { runFrom } from '../../electron/cli/run-command.ts';
import type { KeepFrames } from '../../electron/domain.ts';

const MB = 1024 * 1024;

/** A 100×100 RGB frame of one grey, with `dots` pixels (from the top-left) set to white. */
function frame(grey: number, dots = 0, width = 100): RawFrame {
  const data = Buffer.alloc(width * 100 * 3, grey);
  data.fill(255, 0, dots * 3);
  return { data, width, height: 100, channels: 3, order: 'rgb' };
}

const kept = (keep: KeepFrames, frames: { e: number; s: number; raw: RawFrame }[]) => {
  const k = new FrameKeeper(keep);
  return frames.filter((f) => k.shouldKeep(f.e, f.s, f.raw)).map((f) => `${f.e}:${f.s}`);
};

describe('keep frames', () => {
  const steps = [0, 1].flatMap((e) => Array.from({ length: 12 }, (_, s) => ({ e, s, raw: frame(50) })));

  it('all, none and every:N (steps 0, N, 2N… of each episode)', () => {
    expect(kept('all', steps)).toHaveLength(24);
    expect(kept('none', steps)).toEqual([]);
    expect(kept('every:5', steps)).toEqual(['0:0', '0:5', '0:10', '1:0', '1:5', '1:10']);
    expect(kept('every:1', steps)).toHaveLength(24);
  });

  it('changed: each episode first, then a frame only when it differs visibly from the last kept', () => {
    const tiny = Math.floor(100 * 100 * CHANGED_SHARE); // at most the share: a counter ticking
    const run = [
      { e: 0, s: 0, raw: frame(50) },
      { e: 0, s: 1, raw: frame(50) }, // the same
      { e: 0, s: 2, raw: frame(52) }, // capture noise, within the tolerance
      { e: 0, s: 3, raw: frame(50, tiny) }, // a few pixels
      { e: 0, s: 4, raw: frame(50, 500) }, // a tile: kept
      { e: 0, s: 5, raw: frame(50, 500) },
      { e: 0, s: 6, raw: frame(200) }, // everything: kept
      { e: 1, s: 0, raw: frame(200) }, // a new episode's first frame, even unchanged
      { e: 1, s: 1, raw: frame(200, 0, 120) }, // another size: kept
    ];
    expect(kept('changed', run)).toEqual(['0:0', '0:4', '0:6', '1:0', '1:1']);
  });

  it('changed adds small changes up against the last kept frame', () => {
    const step = Math.floor(100 * 100 * CHANGED_SHARE);
    const drift = Array.from({ length: 4 }, (_, s) => ({ e: 0, s, raw: frame(50, s * step) }));
    expect(kept('changed', drift)).toEqual(['0:0', '0:2']);
  });

  it('starves a reader with none, or every:N that keeps only the first frame of each episode', () => {
    expect(framesStarved('none', 20)).toBe('writes no frame');
    expect(framesStarved('every:20', 20)).toMatch(/keeps only the first frame of each episode/);
    expect(framesStarved('every:20', undefined)).toBeUndefined();
    for (const k of ['all', 'changed', 'every:5'] as const) expect(framesStarved(k, 20)).toBeUndefined();
    expect(() => checkFramesFor('the milestone judge', 'none', 50)).toThrow(FramesStarvedError);
    expect(() => checkFramesFor('the milestone judge', 'none', 50)).toThrow(
      /the milestone judge reads the run's frames, but keep frames none writes no frame/,
    );
    expect(() => checkFramesFor('reflection self-f', 'every:3', 50)).not.toThrow();
  });
});

describe('the disk budget', () => {
  it('stops before a step that could pass the max run size', () => {
    const b = new DiskBudget('/x', { maxRunMb: 1, minFreeMb: 0 });
    expect(b.check(0.5 * MB, 0.1 * MB)).toBeUndefined();
    expect(b.check(0.95 * MB, 0.1 * MB)).toMatch(/^disk budget: the run has written .*max run size of 1\.0 MB/);
  });

  it('stops before the disk goes below its floor; asks the file system every few seconds, estimating between', () => {
    let asked = 0;
    let free = 600 * MB;
    const b = new DiskBudget('/runs/r', {
      minFreeMb: 500,
      checkEveryMs: 2000,
      free: () => {
        asked++;
        return free;
      },
    });
    expect(b.check(0, MB, 0)).toBeUndefined();
    expect(b.check(50 * MB, MB, 1000)).toBeUndefined(); // 550 MB left by the estimate
    expect(asked).toBe(1);
    expect(b.check(99.5 * MB, MB, 1500)).toMatch(/^disk budget: .* free on the disk holding \/runs\/r/);
    free = 900 * MB; // something else freed space: seen at the next look
    expect(b.check(99.5 * MB, MB, 2500)).toBeUndefined();
    expect(asked).toBe(2);
    expect(new DiskBudget('/x', { minFreeMb: 0, free: () => 0 }).check(0, MB)).toBeUndefined();
  });
});

/** Every regular file's bytes under `dir`. */
function folderBytes(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((n, e) => {
    const p = path.join(dir, e.name);
    return n + (e.isDirectory() ? folderBytes(p) : statSync(p).size);
  }, 0);
}

describe('run.json bytes_written', () => {
  it('is the folder size: frames, steps, reflections and run.json itself', () => {
    const store = randomRun(mkdtempSync(path.join(tmpdir(), 'gp-bytes-')));
    expect(store.meta.bytes_written).toBeUndefined();
    store.recordBytesWritten();
    expect(store.meta.bytes_written).toBe(folderBytes(store.dir));
    for (let i = 0; i < 30; i++) {
      const frame = i % 3 === 0 ? store.writeFrame(0, i, Buffer.alloc(1000 + i * 7, 1), 'jpg') : null;
      store.appendStep({
        step: i,
        episode: 0,
        t_capture: i,
        frame,
        reasoning: 'r'.repeat(i),
        raw: null,
        actions: [],
        errors: [],
        latency_ms: { locate: 0, capture: 0, encode: 0, model: 0, act: 0, total: 0 },
      });
      expect(store.meta.bytes_written).toBe(folderBytes(store.dir));
    }
    store.appendFile('reflections.jsonl', '{"after_episode":0}\n');
    store.close('completed');
    expect(store.meta.bytes_written).toBe(folderBytes(store.dir));
    expect(store.bytesWritten).toBe(folderBytes(store.dir));
  });
});

describe('over the contract', () => {
  it('startRun takes keepFrames (default all) and maxRunMb, and refuses bad ones', () => {
    const base = { target: { game: '2048' }, agent: 'random' };
    expect(parseParams('startRun', base)).toMatchObject({ keepFrames: 'all' });
    expect(parseParams('startRun', { ...base, keepFrames: 'every:5', maxRunMb: 0.5 })).toMatchObject({
      keepFrames: 'every:5',
      maxRunMb: 0.5,
    });
    for (const keepFrames of ['changed', 'none']) expect(parseParams('startRun', { ...base, keepFrames })).toBeTruthy();
    for (const keepFrames of ['every:0', 'every', 'some', 5])
      expect(() => parseParams('startRun', { ...base, keepFrames }), String(keepFrames)).toThrow(/keepFrames/);
    expect(() => parseParams('startRun', { ...base, maxRunMb: 0 })).toThrow(/maxRunMb/);
  });
});

/** `gamepilot run …` parsed in-process: the run action checks its options as runCommand does, before anything opens. */
async function parseRun(argv: string[]) {
  const err: string[] = [];
  let flags: RunFlags | undefined;
  const actions = {
    run: async (o: RunFlags) => {
      flags = o;
      runFrom(o);
      return 0;
    },
  } as unknown as Actions;
  let code: number | undefined;
  const program = buildProgram(actions, (c) => (code = c), { writeOut: () => {}, writeErr: (s) => err.push(s) });
  try {
    await program.parseAsync(['run', '--game', '2048', ...argv], { from: 'user' });
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    code = e.exitCode === 0 ? 0 : 2;
  }
  return { code, stderr: err.join(''), flags };
}

describe('on the command line', () => {
  it('--keep-frames, --max-run-mb and --min-free-mb reach the run spec under one name each', async () => {
    const bare = await parseRun([]);
    expect(bare.code).toBe(0);
    expect(runFrom(bare.flags!).spec).toMatchObject({ keepFrames: 'all', minFreeMb: 500 });
    expect(runFrom(bare.flags!).spec.maxRunMb).toBeUndefined();
    const given = await parseRun(['--keep-frames', 'every:10', '--max-run-mb', '2.5', '--min-free-mb', '0']);
    expect(runFrom(given.flags!).spec).toMatchObject({ keepFrames: 'every:10', maxRunMb: 2.5, minFreeMb: 0 });
  });

  it('refuses a bad value, and reflection on the run’s own frames when none are kept, with exit 2', async () => {
    const bad = await parseRun(['--keep-frames', 'half']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--keep-frames <which>' argument 'half' is invalid\. Allowed: all, every:N/);
    expect((await parseRun(['--max-run-mb', '0'])).code).toBe(2);
    const model = ['--agent', 'vlm', '--model', 'm'];
    for (const [extra, message] of [
      [['--keep-frames', 'none', '--reflection', 'self-f'], /--keep-frames none writes no frame/],
      [['--keep-frames', 'every:50', '--max-steps', '50', '--reflection', 'self-f'], /keeps only the first frame/],
      [['--keep-frames', 'none', '--reflection', 'self', '--tutorial', 'solver'], /--reflection self reflects on/],
    ] as const) {
      const r = await parseRun([...model, ...extra]);
      expect(r.code, extra.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toMatch(/Usage: gamepilot run/);
    }
    // self-t reads only its tutorial; every:5 leaves reflection frames to see.
    for (const extra of [
      ['--keep-frames', 'none', '--reflection', 'self-t', '--tutorial', 'solver'],
      ['--keep-frames', 'every:5', '--reflection', 'self-f'],
    ])
      expect((await parseRun([...model, ...extra])).code, extra.join(' ')).toBe(0);
  });
});
