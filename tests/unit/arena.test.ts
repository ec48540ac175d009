/** The arena's plan and its refusals, before any window opens. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runArena, type ArenaOptions } from '../../electron/arena/arena.ts';
import { parseAgentSpec } from '../../electron/run-spec.ts';
import { arenaMatches } from '../../electron/arena/tables.ts';
import { tryLock } from '../../electron/util/file-lock.ts';

const options = (dir: string, extra: Partial<ArenaOptions> = {}): ArenaOptions => ({
  game: 'tictactoe-pvp',
  agents: ['solver', 'random'],
  latency: 'normal',
  actionSpace: 'gui',
  seed: 0,
  dir,
  capture: 'auto',
  imageSize: 1280,
  log: () => {},
  ...extra,
});

describe('arena', () => {
  it('PvP plays every ordered pair, never self-play; co-op each agent with a copy, mixed pairs once', () => {
    expect(arenaMatches('pvp', ['a', 'b', 'c'], false).map((m) => `${m.p1}-${m.p2}`)).toEqual([
      'a-b',
      'a-c',
      'b-a',
      'b-c',
      'c-a',
      'c-b',
    ]);
    expect(arenaMatches('coop', ['a', 'b'], false).map((m) => `${m.p1}-${m.p2}`)).toEqual(['a-a', 'b-b']);
    expect(arenaMatches('coop', ['a', 'b'], true).map((m) => `${m.p1}-${m.p2}`)).toEqual(['a-a', 'a-b', 'b-b']);
  });

  it('reads agents as baselines or models', () => {
    expect(parseAgentSpec('solver')).toEqual({ agent: 'solver' });
    expect(parseAgentSpec('human')).toEqual({ agent: 'human' });
    expect(parseAgentSpec('vlm:gpt-4o')).toEqual({ agent: 'vlm', model: 'gpt-4o' });
    expect(() => parseAgentSpec('memory:gpt-4o')).toThrow(/the memory agent does not play in the arena yet/);
    expect(parseAgentSpec('qwen/qwen3-vl')).toEqual({ agent: 'vlm', model: 'qwen/qwen3-vl' });
    expect(() => parseAgentSpec('a b')).toThrow(/is not an agent/);
  });

  it('refuses a one-agent PvP arena, a folder holding another arena, and a second process on one folder', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gp-arena-'));
    await expect(runArena(options(dir, { agents: ['solver', 'solver'] }))).rejects.toThrow(
      /at least two different agents/,
    );
    await expect(runArena(options(dir, { agents: ['solver', 'human'] }))).rejects.toThrow(/a person plays one match/);
    writeFileSync(
      path.join(dir, 'arena.json'),
      JSON.stringify({
        spec: {
          game: 'tictactoe-pvp',
          mode: 'pvp',
          agents: ['solver', 'vlm:m'],
          trials: 5,
          mixed: false,
          latency: 'normal',
          space: 'gui',
          max_steps: null,
          seed: 0,
        },
      }),
    );
    await expect(runArena(options(dir))).rejects.toThrow(
      /holds another arena \(tictactoe-pvp: solver, vlm:m, 5 trials, normal\)/,
    );
    const other = mkdtempSync(path.join(tmpdir(), 'gp-arena-'));
    const held = tryLock(path.join(other, 'arena.lock'));
    expect('release' in held).toBe(true);
    try {
      await expect(runArena(options(other))).rejects.toMatchObject({ code: 'busy' });
    } finally {
      if ('release' in held) held.release();
    }
  });
});
