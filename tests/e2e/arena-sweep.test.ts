/**
 * Two-seat games outside `gamepilot arena`, through the built CLI and real windows: `gamepilot
 * run --seats` plays one match and its run folder says which; a sweep file's `arena:` entry runs
 * its matches as jobs on the local pool, and the tables computed over the sweep's runs are the
 * ones `gamepilot arena` computes for the same agents and settings.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { json, runCli } from '../helpers/cli.ts';
import { readRun } from '../../electron/store/run-store.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-arena-sweep-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('two seats through `gamepilot run`', () => {
  it('plays one match of a two-seat game with --seats; run.json says who sat where and which match it is', async () => {
    const out = path.join(tmp, 'run');
    const r = await runCli(
      ['run', '--game', 'tictactoe-pvp', '--seats', 'solver,random', '--episodes', '1', '--out', out, '--json'],
      { timeoutMs: 90_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const summary = json(r);
    expect(summary.status).toBe('completed');
    const { meta, steps } = readRun(summary.run_dir);
    expect(meta.seats?.map((s) => `${s.name}: ${s.agent}`)).toEqual(['X: solver', 'O: random']);
    expect(meta.arena).toEqual({ match: 'solver__random', p1: 'solver', p2: 'random' });
    expect(meta.episodes[0]?.winner).not.toBeUndefined();
    // Turn-based: each step one seat acts, and it is recorded as that seat's.
    expect(steps.length).toBeGreaterThanOrEqual(2);
    expect(steps.every((s) => (s.seats as unknown[]).length === 1)).toBe(true);
  });
});
