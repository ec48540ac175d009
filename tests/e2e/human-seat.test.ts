/**
 * A person in a seat, through the built CLI, a real window and real keys: `gamepilot run --game
 * switches --seats human,solver` while xdotool types into the game window as the person (Blue,
 * W A S D). The person's keys are Blue's actions in the run's steps (agent `human`, no tokens) and
 * move Blue exactly once each (the game counts every move it applies); an arrow key the person
 * types (Orange's, the solver's seat) is not taken, the step says so, and Orange does not move by
 * it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.ts';
import { releaseKeysyms } from '../helpers/xinput.ts';
import { readRun } from '../../electron/store/run-store.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-human-seat-'));
afterAll(() => {
  releaseKeysyms(['w', 'a', 's', 'd', 'Up']);
  rmSync(tmp, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface SeatStep {
  seat: number;
  agent: string;
  actions: { action_type: string; parameters: { key?: string } }[];
  outcomes: { ok: boolean }[];
  errors: string[];
  tokens?: unknown;
  cost_usd?: unknown;
}

describe('a person in a seat', () => {
  it('takes the keys of their seat typed into the window as that seat’s actions, and not the other seat’s', async () => {
    const child = spawnCli([
      'run',
      ...['--game', 'switches', '--seats', 'human,solver', '--episodes', '1', '--max-steps', '40'],
      ...['--latency', 'normal', '--runs-dir', tmp, '--json'],
    ]);
    let stderr = '';
    let stdout = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.stdout!.on('data', (d) => (stdout += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await expect.poll(() => /ep 1 step 2:/.test(stderr), { timeout: 60_000 }).toBe(true);
    const dir = /run folder: (.+)/.exec(stderr)![1]!.trim();
    /** What Blue's seat has shown so far in steps.jsonl: keys taken, and keys named as not taken. */
    const seen = () => {
      const file = path.join(dir, 'steps.jsonl');
      const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
      const blue = lines.flatMap((l) => (JSON.parse(l).seats as SeatStep[]).filter((x) => x.seat === 0));
      return blue.flatMap((b) => [
        ...b.actions.map((a) => a.parameters.key),
        ...b.errors.filter((e) => /not taken/.test(e)).map(() => 'not taken'),
      ]).length;
    };
    // The person: each key once the previous one has been taken (the game takes one move a step).
    for (const [i, k] of ['d', 's', 'a', 'w', 'Up', 'd', 's'].entries()) {
      execFileSync('xdotool', ['key', k]);
      await expect.poll(seen, { timeout: 15_000 }).toBe(i + 1);
      await sleep(100);
    }
    expect(await exited, stderr).toBe(0);
    const { status, run_dir } = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(status).toBe('completed');
    const { meta, steps } = readRun(run_dir);
    expect(meta.seats?.map((s) => s.agent)).toEqual(['human', 'solver']);

    const seat = (s: (typeof steps)[number], n: number) =>
      (s.seats as SeatStep[] | undefined)?.find((x) => x.seat === n);
    const human = steps.map((s) => seat(s, 0)).filter((x): x is SeatStep => !!x);
    const taken = human.flatMap((h) => h.actions.map((a) => a.parameters.key));
    // Blue's keys, in the order typed; never the arrow.
    expect(taken).toEqual(['d', 's', 'a', 'w', 'd', 's']);
    expect(human.every((h) => h.agent === 'human' && h.tokens === undefined && h.cost_usd === undefined)).toBe(true);
    expect(human.flatMap((h) => h.errors).join(' ')).toMatch(/not taken: up \(the other seat's key/);
    expect(stderr).toMatch(/1 key\(s\) of the other seat typed: not taken/);

    // The world: each of Blue's keys moved Blue once (the person's own keystroke was kept out, the
    // seat's executor pressed it), and Orange moved only by the solver's keys.
    const last = steps.at(-1)!.game_state as { moves: [number, number] };
    const performed = (n: number) =>
      steps.map((s) => seat(s, n)?.outcomes.filter((o) => o.ok).length ?? 0).reduce((a, b) => a + b, 0);
    expect(performed(0)).toBe(6);
    expect(last.moves[0]).toBe(6);
    expect(last.moves[1]).toBe(performed(1));
    const positions = steps.map((s) => JSON.stringify((s.game_state as { positions: unknown[] }).positions[0]));
    expect(new Set(positions).size).toBeGreaterThan(1);
  });
});
