/**
 * Hostile files get a clear error with file and line, and nothing else happens: YAML alias
 * bombs in sweep files and profiles, files too large to be hand-written, a few lines asking for
 * millions of jobs (refused before any job is made), and run folders whose scores leave 0–100.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSweepFile, matrixSize, parseSweep, SweepFileSchema } from '../../electron/sweep/spec.ts';
import { loadProfileFile, parseProfile } from '../../electron/profiles/load.ts';
import { listRuns } from '../../electron/store/run-library.ts';
import { leaderboard } from '../../electron/store/leaderboard.ts';
import { YAML_ALIAS_BOMB } from '../helpers/hostile.ts';
import { randomRun } from '../helpers/run-fixtures.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-hostile-'));

describe('hostile sweep files', () => {
  it('refuse an alias bomb at its first alias, naming file and line', () => {
    expect(() => parseSweep(`${YAML_ALIAS_BOMB}\ngames: [*e]\n`, 'bomb.yaml')).toThrow(
      /^sweep bomb\.yaml:2: aliases that expand too far \(.*\) \(nothing was run\)$/,
    );
  });

  it('count a matrix of millions without making it, and refuse it above the limit', () => {
    const huge = `games: [2048, tictactoe, snake, maze]\nagents: [random, solver]\nseed: [${Array.from({ length: 250 }, (_, i) => i).join(', ')}]\ntrials: 10000\n`;
    const spec = SweepFileSchema.parse({
      games: ['2048', 'tictactoe', 'snake', 'maze'],
      agents: ['random', 'solver'],
      seed: Array.from({ length: 250 }, (_, i) => i),
      trials: 10_000,
    });
    expect(matrixSize(spec)).toBe(4 * 2 * 250 * 10_000);
    const before = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    expect(() => parseSweep(huge, 'huge.yaml')).toThrow(
      /^sweep huge\.yaml:4: the matrix expands to 20,000,000 jobs, above the limit of 100,000 \(raise it with --job-limit\)/,
    );
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(50 * 1024 * 1024);
    // The user raises the limit for a big sweep they mean.
    const big = 'games: [2048]\nagents: [random]\ntrials: 1500\n';
    expect(() => parseSweep(big, 'big.yaml', undefined, 1000)).toThrow(/1,500 jobs, above the limit of 1,000/);
    expect(parseSweep(big, 'big.yaml', undefined, 2000).jobs).toHaveLength(1500);
  });

  it('refuse a file too large to be hand-written, unread', () => {
    const file = path.join(tmp, 'large.yaml');
    writeFileSync(file, `games: [2048]\n# ${'x'.repeat(2 * 1024 * 1024)}\n`);
    expect(() => loadSweepFile(file)).toThrow(
      /^sweep .*large\.yaml: \d+ bytes, above the 1024 KiB a sweep file may have/,
    );
  });
});

describe('hostile profiles', () => {
  it('refuse an alias bomb and a huge file the same way', () => {
    expect(() => parseProfile(`${YAML_ALIAS_BOMB}\nid: x\n`, 'bomb-profile.yaml')).toThrow(
      /^profile bomb-profile\.yaml:2: aliases that expand too far/,
    );
    const file = path.join(tmp, 'large-profile.yaml');
    writeFileSync(file, `id: big\n# ${'y'.repeat(2 * 1024 * 1024)}\n`);
    expect(() => loadProfileFile(file)).toThrow(/above the 1024 KiB a profile file may have/);
  });
});

describe('run folders whose scores leave 0–100', () => {
  it('are skipped with a warning naming the file, and never reach the leaderboard', () => {
    const root = path.join(tmp, 'runs');
    mkdirSync(root);
    const make = (mean: number) => {
      const s = randomRun(root);
      s.close('completed', undefined, {
        episodes: [{ episode: 0, seed: 0, score: mean, steps: 1, end: 'game_over' }],
        mean,
        std: 0,
      });
      return s.meta.id;
    };
    const good = make(40);
    const huge = make(1e308);
    const negative = make(-5);
    const { runs, warnings } = listRuns(root);
    expect(runs.map((r) => r.id)).toEqual([good]);
    for (const id of [huge, negative]) expect(warnings.join('\n')).toContain(path.join(root, id, 'run.json'));
    expect(warnings.join('\n')).toMatch(/a score is 0–100/);
    const rows = leaderboard(root).rows;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.mean).toBe(40);
  });
});
