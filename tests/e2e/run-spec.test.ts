/**
 * One RunSpec, real runs: built-in 2048 played by the random agent with the same settings from
 * `gamepilot run` (argv), from the app's start-run request (the core) and from a sweep cell (its
 * job's argv, as a sweep worker starts it) writes the same run.json `config`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { json, runCli } from '../helpers/cli.ts';
import { coreIn } from '../helpers/contract-setup.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { parseSweep, runArgs } from '../../electron/sweep/spec.ts';
import type { GamepilotCore } from '../../electron/api/core.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-run-spec-'));
const runsDir = path.join(tmp, 'runs');
let core: GamepilotCore | undefined;
afterAll(async () => {
  await core?.stop();
});

async function cliConfig(args: string[]): Promise<Record<string, unknown>> {
  const r = await runCli(['run', '--game', '2048', ...args, '--runs-dir', runsDir, '--json', '--quiet']);
  expect(r.code, r.stderr).toBe(0);
  return readRun(json<{ run_dir: string }>(r).run_dir).meta.config;
}

describe('the same settings from the CLI, the app and a sweep cell', () => {
  it('write the same run.json config', async () => {
    const fromCli = await cliConfig([
      '--agent',
      'random',
      '--episodes',
      '1',
      '--max-steps',
      '3',
      '--seed',
      '4',
      '--latency',
      'stop',
    ]);

    const sweep = parseSweep(
      'games: [2048]\nagents: [random]\nepisodes: 1\nmax_steps: 3\nseed: 4\nlatency: stop\n',
      'same.yaml',
    );
    const fromSweep = await cliConfig(runArgs(sweep.jobs[0]!.cell, sweep.spec));

    core = coreIn(tmp);
    const before = new Set(((await core.handle('listRuns', {})) as { runs: { id: string }[] }).runs.map((r) => r.id));
    await core.handle('startRun', {
      target: { game: '2048' },
      agent: 'random',
      episodes: 1,
      maxSteps: 3,
      seed: 4,
      latency: 'stop',
    });
    await expect
      .poll(async () => ((await core!.handle('state', {})) as { status: string }).status, { timeout: 60_000 })
      .toBe('idle');
    const runs = ((await core.handle('listRuns', {})) as { runs: { id: string }[] }).runs;
    const fresh = runs.filter((r) => !before.has(r.id));
    expect(fresh).toHaveLength(1);
    const fromApp = readRun(path.join(runsDir, fresh[0]!.id)).meta.config;

    expect(fromApp).toEqual(fromCli);
    expect(fromSweep).toEqual(fromCli);
    expect(fromCli).toMatchObject({
      episodes: 1,
      max_steps: 3,
      seed: 4,
      latency: 'stop',
      pace_ms: 0,
      image_size: 1280,
    });
  });
});
