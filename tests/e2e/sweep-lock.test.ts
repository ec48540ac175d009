/**
 * The out-folder lock of `gamepilot sweep` (<out>/.sweep/lock.json, electron/sweep/pool.ts): a
 * second sweep on the folder is refused while the first lives, naming its pid; once the first
 * is SIGKILLed (nothing of it gets to remove the lock) the next sweep takes the lock over and
 * runs to the end.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.ts';
import { onJsonLines } from '../helpers/json-lines.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-sweep-lock-'));
const out = path.join(tmp, 'runs');
// Long enough to still be running while the second sweep starts; the one after the kill is tiny.
const long = path.join(tmp, 'long.yaml');
writeFileSync(long, 'games: [tictactoe]\nagents: [random]\ntrials: 50\nmax_steps: 6\n');
const tiny = path.join(tmp, 'tiny.yaml');
writeFileSync(tiny, 'games: [2048]\nagents: [random]\ntrials: 1\nmax_steps: 4\n');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('gamepilot sweep: the out-folder lock', () => {
  it('refuses a second sweep while the first lives; a SIGKILLed sweep’s lock is taken over', async () => {
    const first = spawnCli(['sweep', long, '--runs-dir', out, '--workers', '1', '--json']);
    first.stderr!.resume();
    const exited = new Promise<NodeJS.Signals | null>((r) => first.on('exit', (_c, s) => r(s)));
    await new Promise<void>((resolve) =>
      onJsonLines(first.stdout!, (e) => {
        if (e.type === 'start') resolve();
      }),
    );
    const lock = path.join(out, '.sweep', 'lock.json');
    expect(JSON.parse(readFileSync(lock, 'utf8')).pid).toBe(first.pid);

    const second = await runCli(['sweep', tiny, '--runs-dir', out, '--workers', '1', '--json'], { timeoutMs: 60_000 });
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(`another sweep (pid ${first.pid} on `);

    first.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(existsSync(lock)).toBe(true); // left behind by the killed sweep

    const third = await runCli(['sweep', tiny, '--runs-dir', out, '--workers', '1', '--json'], { timeoutMs: 180_000 });
    expect(third.code, third.stderr).toBe(0);
    const end = third.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .at(-1);
    expect(end.type).toBe('end');
    expect(end.summary.completed).toBe(1);
    expect(existsSync(lock)).toBe(false); // released at its end
  }, 240_000);
});
