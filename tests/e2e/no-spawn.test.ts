/**
 * No process per step on Linux: a 30-step `gamepilot run` on a real third-party window
 * (gnome-2048), traced with `strace -f -e trace=execve`, starts no program while it plays.
 * (With the window tools it replaced, such a run started 102: xwininfo, xdotool, wmctrl, xprop.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { BIN, ROOT } from '../helpers/cli.ts';
import { startWindow, stop } from '../helpers/windows.ts';
import { readRun } from '../../electron/store/run-store.ts';
import type { WindowInfo } from '../../native/index.ts';

const STEPS = 30;
const KEYS = ['left', 'up', 'right', 'down'];
let server: FakeOpenAI;
let game: { child: ChildProcess; window: WindowInfo };

beforeAll(async () => {
  server = await new FakeOpenAI((_b, i) => ({
    text: answer('slide', [{ action_type: 'PRESS', parameters: { key: KEYS[i % KEYS.length] } }]),
  })).start();
  game = await startWindow('/usr/games/gnome-2048', [], /^GNOME 2048$/);
  await new Promise((r) => setTimeout(r, 1000));
});

afterAll(async () => {
  await stop(game.child);
  await server.close();
});

/** `strace -f -ttt` lines of execve calls: when (epoch ms) and which program. */
function execves(file: string): { at: number; program: string }[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => /^\d+\s+(\d+\.\d+)\s+execve\("([^"]*)"/.exec(line))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => ({ at: Number(m[1]) * 1000, program: m[2]! }));
}

describe('a traced 30-step run on a real window', () => {
  it('starts no process while it plays', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'gp-nospawn-'));
    const trace = path.join(out, 'execve.txt');
    const args = [
      ...['-f', '-qq', '-ttt', '-e', 'trace=execve', '-o', trace],
      process.execPath,
      BIN,
      ...['run', '--window', '^GNOME 2048$', '--agent', 'vlm', '--model', 'test-vlm'],
      ...['--base-url', server.baseURL, '--max-steps', String(STEPS), '--runs-dir', out, '--json', '--quiet'],
    ];
    const child = spawn('strace', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code, stderr).toBe(0);
    const { steps } = readRun(JSON.parse(stdout).run_dir);
    expect(steps).toHaveLength(STEPS);
    for (const s of steps) expect(s.outcomes).toEqual([{ action: 'PRESS', ok: true }]);

    const calls = execves(trace);
    const first = steps[0]!;
    const last = steps.at(-1)!;
    const playing = (c: { at: number }) => c.at >= first.t_capture && c.at <= last.t_capture + last.latency_ms.total;
    const during = calls.filter(playing);
    console.log(
      `execve in the whole run: ${calls.length} (${calls.map((c) => path.basename(c.program)).join(', ')}); while playing ${STEPS} steps: ${during.length}`,
    );
    expect(calls.length).toBeGreaterThan(0); // the trace works: node itself was started under it
    expect(during.map((c) => c.program)).toEqual([]);
  });
});
