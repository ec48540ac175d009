/**
 * IDC defaults as OmniGameArena runs it — 10 reflection rounds × 5 episodes under PDQ (stop) —
 * on the command line and over the contract, with smaller values allowed.
 */
import { describe, expect, it } from 'vitest';
import { parseIdcArgs } from '../../electron/cli/main.ts';
import { parseParams } from '../../electron/api/contract.ts';

describe('IDC options', () => {
  it('default to 10 rounds × 5 episodes under PDQ on the command line', () => {
    const { options } = parseIdcArgs(['--game', '2048', '--model', 'm']);
    expect(options).toMatchObject({
      rounds: 10,
      episodes: 5,
      heldOutEpisodes: 5,
      latency: 'stop',
      latencySettings: { stopIntervalMs: 0 },
    });
    const small = parseIdcArgs([
      '--game',
      '2048',
      '--model',
      'm',
      '--rounds',
      '2',
      '--episodes',
      '1',
      '--latency',
      'lcrt',
    ]).options;
    expect(small).toMatchObject({ rounds: 2, episodes: 1, latency: 'lcrt' });
    expect(() => parseIdcArgs(['--game', '2048', '--model', 'm', '--latency', 'pdq'])).toThrow(
      /option '--latency <mode>' argument 'pdq' is invalid\. Allowed choices are stop, slow, normal, lcrt/,
    );
  });

  it('default to 10 rounds × 5 episodes under PDQ over the contract', () => {
    expect(parseParams('startIdc', { game: '2048' })).toMatchObject({
      game: '2048',
      rounds: 10,
      episodes: 5,
      latency: 'stop',
    });
    expect(parseParams('startIdc', { game: '2048', rounds: 2, episodes: 1 })).toMatchObject({ rounds: 2, episodes: 1 });
  });
});
