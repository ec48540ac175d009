/**
 * Saving profiles (electron/api/profiles.ts saveProfile) from two processes at once into one
 * config folder: each save is a read-change-write of the user's file under its lock, so both
 * writers' own profiles are there afterwards and the one they both saved is one writer's last
 * save, whole (loads, no torn YAML), with no lock or temp file left behind.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProfile } from '../../electron/profiles/load.ts';
import { spawnTs } from '../helpers/ts-child.ts';

function shipped(games: string, id: string) {
  mkdirSync(path.join(games, id), { recursive: true });
  writeFileSync(
    path.join(games, id, 'profile.yaml'),
    [
      `id: ${id}`,
      `title: ${id}`,
      `match: { title: ^${id}$ }`,
      'category: nonrealtime-linear',
      'tier: easy',
      'prompt: { rules: Reach the end., controls: Arrow keys. }',
      'episode: { maxSteps: 10, trials: 1 }',
      'scoring: { kind: none }',
      '',
    ].join('\n'),
  );
}

describe('two processes saving profiles at once', () => {
  it('keep both writers’ profiles; the shared one is one writer’s last save, whole', async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'gp-profile-save-'));
    const games = path.join(tmp, 'games');
    const configDir = path.join(tmp, 'config');
    for (const id of ['shared', 'alpha', 'beta']) shipped(games, id);
    const rounds = 25;
    const writers = ['alpha', 'beta'].map((label) =>
      spawnTs('profile-saver.ts', [configDir, label, 'shared', label, String(rounds)], { GAMEPILOT_GAMES_DIR: games }),
    );
    for (const w of writers) expect(await w.line()).toBe('ready');
    for (const w of writers) w.child.stdin!.write('go\n');
    for (const w of writers) JSON.parse(await w.line());
    expect(await Promise.all(writers.map((w) => w.exited))).toEqual([0, 0]);
    const dir = path.join(configDir, 'profiles');
    expect(readdirSync(dir).sort()).toEqual(['alpha.yaml', 'beta.yaml', 'shared.yaml']);
    const load = (id: string) => {
      const file = path.join(dir, `${id}.yaml`);
      return parseProfile(readFileSync(file, 'utf8'), file);
    };
    expect(load('alpha').prompt.rules).toBe('alpha own');
    expect(load('beta').prompt.rules).toBe('beta own');
    expect(load('shared').prompt.rules).toMatch(new RegExp(`^(alpha|beta) round ${rounds - 1}: x{4000}$`));
  }, 90_000);
});
