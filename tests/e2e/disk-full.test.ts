/**
 * A run whose disk fills up: a real session (solver on the built-in 2048 window) writes into a
 * real 2 MB tmpfs until it is full. The run must end as failed with a message naming its
 * folder, run.json must say so, and no temp file or torn line may be left behind.
 * Mounting needs root (or CAP_SYS_ADMIN), as CI has.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareRun } from '../../electron/session/compose.ts';
import { parseRunSpec } from '../../electron/run-spec.ts';
import type { SessionResult } from '../../electron/session/session-types.ts';
import { listRuns } from '../../electron/store/run-library.ts';
import { RunStore } from '../../electron/store/run-store.ts';

let mnt = '';
beforeAll(() => {
  mnt = mkdtempSync(path.join(tmpdir(), 'gp-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mnt], { stdio: 'pipe' });
  } catch (err) {
    throw new Error(
      `this test mounts a 2 MB tmpfs to fill a real disk and needs root or CAP_SYS_ADMIN: ${(err as { stderr?: Buffer }).stderr ?? (err as Error).message}`,
    );
  }
});
afterAll(() => {
  if (mnt) execFileSync('umount', ['-l', mnt]);
});

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)],
  );
}

describe('a full disk', () => {
  it('ends the run as failed, names the folder, and leaves no temp file or torn line', async () => {
    const { session, target } = await prepareRun(
      parseRunSpec({
        game: '2048',
        agent: 'solver',
        episodes: 1,
        maxSteps: 5000,
        seed: 3,
        capture: 'nut',
        format: 'png',
        minFreeMb: 0, // no free-space floor: the disk really fills (the floor would stop the run first)
      }),
      { outDir: mnt },
    );
    let result: SessionResult;
    try {
      result = await session.run();
    } finally {
      await target.close();
    }
    const dir = session.store.dir;
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(new RegExp(`the disk holding ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is full`));
    expect(statSync(mnt).isDirectory()).toBe(true);

    const meta = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'));
    expect(meta.status).toBe('failed');
    expect(meta.error).toMatch(/is full/);
    expect(listRuns(mnt).runs).toMatchObject([{ status: 'failed' }]);

    const files = walk(dir);
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const lines = readFileSync(path.join(dir, 'steps.jsonl'), 'utf8').split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(3);
    const steps = lines.map((l) => JSON.parse(l) as { frame: string });
    expect(meta.totals.steps).toBe(steps.length);
    // Every frame on disk is a whole image; every step's frame is there.
    for (const f of files.filter((x) => x.includes(`${path.sep}frames${path.sep}`)))
      await expect(sharp(f).stats(), f).resolves.toBeTruthy();
    for (const s of steps) expect(files).toContain(path.join(dir, s.frame));
  });

  it('still marks the run failed when not even run.json can be replaced', () => {
    for (const d of readdirSync(mnt)) rmSync(path.join(mnt, d), { recursive: true, force: true });
    const store = RunStore.create(mnt, {
      kind: 'agent',
      game: '2048',
      target: { kind: 'builtin', label: '2048' },
      agent: 'solver',
      model: null,
      action_space: 'gui',
      config: {},
    });
    store.appendStep({
      step: 0,
      episode: 0,
      t_capture: 0,
      frame: null,
      reasoning: 'r',
      raw: null,
      actions: [],
      errors: [],
      latency_ms: { locate: 0, capture: 0, encode: 0, model: 0, act: 0, total: 0 },
    });
    // Fill every last page of the tmpfs.
    const filler = openSync(path.join(mnt, 'filler'), 'w');
    const chunk = Buffer.alloc(4096, 1);
    try {
      for (;;) writeSync(filler, chunk);
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      closeSync(filler);
    }
    expect(() =>
      store.appendStep({
        step: 1,
        episode: 0,
        t_capture: 0,
        frame: null,
        reasoning: 'x'.repeat(8000),
        raw: null,
        actions: [],
        errors: [],
        latency_ms: { locate: 0, capture: 0, encode: 0, model: 0, act: 0, total: 0 },
      }),
    ).toThrow(/the disk holding .* is full/);
    store.close('completed');
    const meta = JSON.parse(readFileSync(path.join(store.dir, 'run.json'), 'utf8'));
    expect(meta.status).toBe('failed');
    expect(meta.error).toMatch(/disk is full/);
    expect(meta.totals.steps).toBe(1);
    expect(readFileSync(path.join(store.dir, 'steps.jsonl'), 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
    expect(walk(store.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    rmSync(path.join(mnt, 'filler'));
  });
});
