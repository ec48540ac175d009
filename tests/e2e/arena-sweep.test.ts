/**
 * Two-seat games outside `gamepilot arena`, through the built CLI and real windows: `gamepilot
 * run --seats` plays one match and its run folder says which; a sweep file's `arena:` entry runs
 * its matches as jobs on the local pool, and the tables computed over the sweep's runs are the
 * ones `gamepilot arena` computes for the same agents and settings.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { json, runCli } from '../helpers/cli.ts';
import { freePort, RedisServer } from '../helpers/redis.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { readArenaSpec, runsTables } from '../../electron/arena/tables.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-arena-sweep-'));
let redis: RedisServer | undefined;
afterAll(async () => {
  await redis?.stop();
  rmSync(tmp, { recursive: true, force: true });
});
/** `gamepilot arena`'s result for the swept arena, for the queue's to be compared with. */
let arenaResult: any;

describe('two seats through `gamepilot run`', () => {
  it('plays one match of a two-seat game with --seats; run.json says who sat where and which match it is', async () => {
    const out = path.join(tmp, 'run');
    const r = await runCli(
      ['run', '--game', 'tictactoe-pvp', '--seats', 'solver,random', '--episodes', '1', '--runs-dir', out, '--json'],
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

/** Tables without the run folders their cells name (those differ between the two folders). */
const withoutRuns = <T extends object>(t: T) => JSON.parse(JSON.stringify(t, (k, v) => (k === 'run' ? undefined : v)));

describe('an arena as a sweep', () => {
  it("runs an arena entry's matches on the local pool; the tables over its runs are `gamepilot arena`'s", async () => {
    const file = path.join(tmp, 'duel.yaml');
    writeFileSync(file, 'arena:\n  game: tictactoe-pvp\n  agents: [solver, random]\n  trials: 1\n');
    const out = path.join(tmp, 'sweep');
    const swept = await runCli(['sweep', file, '--runs-dir', out, '--workers', '1', '--json'], { timeoutMs: 180_000 });
    expect(swept.code, swept.stderr).toBe(0);
    const end = swept.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .at(-1);
    expect(end.summary).toMatchObject({ total: 2, completed: 2, failed: 0 });
    const runs = readdirSync(out).filter((n) => existsSync(path.join(out, n, 'run.json')));
    const metas = runs.map((n) => readRun(path.join(out, n)).meta);
    expect(metas.map((m) => m.arena?.match).sort()).toEqual(['random__solver', 'solver__random']);
    expect(metas.every((m) => m.job?.sweep === 'duel' && m.seats?.length === 2)).toBe(true);

    const played = await runCli(
      ['arena', '--game', 'tictactoe-pvp', '--agents', 'solver,random', '--episodes', '1', '--runs-dir', tmp, '--json'],
      { timeoutMs: 180_000 },
    );
    expect(played.code, played.stderr).toBe(0);
    const arena = json(played);
    arenaResult = arena;
    const fromSweep = runsTables(out, readArenaSpec(arena.dir));
    expect(fromSweep.missing).toEqual([]);
    expect(withoutRuns({ matrix: fromSweep.matrix, standings: fromSweep.standings })).toEqual(
      withoutRuns({ matrix: arena.matrix, standings: arena.standings }),
    );
    expect(fromSweep.matrix![0]![1]!.games).toBe(1);
  });

  it("runs the same arena's matches from the Redis queue; the tables over the stored runs are the same", async () => {
    expect(arenaResult, 'the local-pool test ran first').toBeDefined();
    const file = path.join(tmp, 'duel.yaml');
    redis = new RedisServer(await freePort(), path.join(tmp, 'redis'));
    await redis.start();
    const enq = await runCli(['sweep', file, '--queue', redis.url, '--json']);
    expect(enq.code, enq.stderr).toBe(0);
    expect(JSON.parse(enq.stdout)).toMatchObject({ total: 2, added: 2 });
    const shared = path.join(tmp, 'shared');
    const [worker, wait] = await Promise.all([
      runCli(
        ['worker', '--queue', redis.url, '--runs-dir', path.join(tmp, 'w'), '--storage', shared, '--max-jobs', '2'],
        {
          timeoutMs: 180_000,
        },
      ),
      runCli(['sweep', file, '--queue', redis.url, '--wait', '--runs-dir', shared, '--json'], { timeoutMs: 180_000 }),
    ]);
    expect(worker.code, worker.stderr).toBe(0);
    expect(wait.code, wait.stderr).toBe(0);
    const fromQueue = runsTables(shared, readArenaSpec(arenaResult.dir));
    expect(fromQueue.missing).toEqual([]);
    expect(withoutRuns({ matrix: fromQueue.matrix, standings: fromQueue.standings })).toEqual(
      withoutRuns({ matrix: arenaResult.matrix, standings: arenaResult.standings }),
    );
  });
});
