/**
 * A profile's `launch` written as a shell command, as a user's sweep meets it: `gamepilot sweep`
 * on its own private display, the profiles in the user's config folder. `launch` is an argv run
 * without a shell, so each such job fails at once with "not found" (not after the 20 s wait for
 * a window), is not retried into anything else, and the command the shell syntax hides never runs.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.ts';
import { writeLaunchProfile } from '../helpers/hostile.ts';
import { onJsonLines } from '../helpers/json-lines.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-hostile-e2e-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('a sweep over profiles whose launch tries shell syntax', () => {
  it('fails each job "not found" at once, and nothing the shell syntax names runs', async () => {
    const config = path.join(tmp, 'config');
    mkdirSync(path.join(config, 'profiles'), { recursive: true });
    const marker = path.join(tmp, 'pwned');
    const launches: Record<string, string[]> = {
      'shell-sh-c': [`sh -c 'touch ${marker}'`],
      'shell-semicolon': [`true; touch ${marker}`],
      'shell-subst': [`$(touch ${marker})`],
      'no-such-game': ['gamepilot-no-such-game-binary'],
    };
    for (const [id, launch] of Object.entries(launches)) writeLaunchProfile(path.join(config, 'profiles'), id, launch);
    const file = path.join(tmp, 'hostile.yaml');
    writeFileSync(file, `games: [${Object.keys(launches).join(', ')}]\nagents: [random]\nretries: 0\n`);
    const out = path.join(tmp, 'runs');
    const child = spawnCli(['sweep', file, '--runs-dir', out, '--workers', '1', '--json'], {
      GAMEPILOT_CONFIG_DIR: config,
    });
    const lines: { at: number; e: any }[] = [];
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    onJsonLines(child.stdout!, (e) => lines.push({ at: Date.now(), e }));
    const killer = setTimeout(() => child.kill('SIGKILL'), 170_000);
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    clearTimeout(killer);
    expect(lines.at(-1)?.e.type, stderr).toBe('end');
    expect(code).toBe(1);
    expect(lines.at(-1)!.e.summary).toMatchObject({ total: 4, completed: 0, failed: 4 });

    const ends = lines.filter((l) => l.e.type === 'job-end');
    expect(ends).toHaveLength(4); // retries: 0, and none was retried
    for (const end of ends) {
      const id = Object.keys(launches).find((g) => end.e.job.startsWith(`${g.replace(/[^A-Za-z0-9]+/g, '')}-`))!;
      expect(id, end.e.job).toBeDefined();
      expect(end.e).toMatchObject({
        status: 'failed',
        run_id: null,
        error: `profile "${id}": launch command ${launches[id]![0]} not found on this worker`,
      });
      const start = lines.find((l) => l.e.type === 'job-start' && l.e.job === end.e.job)!;
      expect(end.at - start.at, end.e.job).toBeLessThan(12_000); // not the 20 s wait for a window
      const record = JSON.parse(readFileSync(path.join(out, '.jobs', `${end.e.job}.failed.json`), 'utf8'));
      expect(record.error).toBe(end.e.error);
    }
    expect(existsSync(marker)).toBe(false);
  }, 200_000);
});
