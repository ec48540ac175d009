/**
 * Every way a run ends releases held input, and a crash loses at most the step in flight:
 * stop() mid-action, SIGTERM to the CLI, SIGKILL to the CLI.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { spawnCli } from '../helpers/cli.ts';
import { heldInput } from '../helpers/xinput.ts';
import { prepareRun } from '../../electron/cli/compose.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { createWindowManager } from '../../native/index.ts';

// Hold a key and the left button inside the window, then wait for a long time.
const HOLD = answer('hold', [
  { action_type: 'MOVE_TO', parameters: { x: 200, y: 300 } },
  { action_type: 'KEY_DOWN', parameters: { key: 'shift' } },
  { action_type: 'KEY_DOWN', parameters: { key: 'w' } },
  { action_type: 'MOUSE_DOWN', parameters: { button: 'left' } },
  { action_type: 'WAIT', parameters: { duration: 30 } },
]);

let server: FakeOpenAI;
beforeAll(async () => {
  server = await new FakeOpenAI(() => ({ text: HOLD })).start();
});
afterAll(() => server.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const out = () => mkdtempSync(path.join(tmpdir(), 'gp-stop-'));

async function untilHeld(timeoutMs = 15000) {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    const h = heldInput();
    if (h.keys.length >= 2 && h.buttons.includes(1)) return h;
    await sleep(50);
  }
  throw new Error('the agent never held its keys');
}

function lines(file: string) {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
}

describe('ending a run', () => {
  it('stop() interrupts a long action at once and releases held keys and buttons', async () => {
    const { session, target } = await prepareRun({
      game: '2048', agent: 'vlm', space: 'gui', episodes: 1, maxSteps: 3, seed: 1, outDir: out(), capture: 'nut',
      encode: { longSide: 1280, format: 'jpeg', quality: 80 }, vlm: { model: 'test-vlm', baseURL: server.baseURL },
    });
    try {
      const running = session.run();
      expect(heldInput().keys).toEqual([]);
      await untilHeld();
      const t0 = Date.now();
      session.stop();
      const result = await running;
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(result.status).toBe('stopped');
      expect(heldInput()).toEqual({ keys: [], buttons: [] });
      expect(readRun(result.runDir).meta.status).toBe('stopped');
    } finally {
      await target.close();
    }
  });

  it('SIGTERM to the CLI stops the run cleanly and releases input', async () => {
    const dir = out();
    const child = spawnCli(['run', '--game', '2048', '--agent', 'vlm', '--model', 'test-vlm', '--base-url', server.baseURL, '--max-steps', '3', '--out', dir, '--json']);
    let stdout = '';
    child.stdout!.on('data', (d) => (stdout += d));
    await untilHeld();
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(0);
    expect(heldInput()).toEqual({ keys: [], buttons: [] });
    const res = JSON.parse(stdout);
    expect(res.status).toBe('stopped');
    expect(readRun(res.run_dir).meta.status).toBe('stopped');
  });

  it('SIGKILL mid-run leaves run.json and steps.jsonl readable up to the last finished step', async () => {
    const dir = out();
    const child = spawnCli(['run', '--game', '2048', '--agent', 'random', '--max-steps', '5000', '--out', dir, '--quiet']);
    let runDir = '';
    const t0 = Date.now();
    while (Date.now() - t0 < 30000) {
      const found = (await import('node:fs')).readdirSync(dir);
      if (found[0]) {
        runDir = path.join(dir, found[0]);
        if (lines(path.join(runDir, 'steps.jsonl')) >= 8) break;
      }
      await sleep(20);
    }
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));
    const { meta, steps, skippedLines } = readRun(runDir);
    expect(meta.status).toBe('running'); // it never got to say otherwise
    expect(meta.game).toBe('2048');
    expect(steps.length).toBeGreaterThanOrEqual(8);
    expect(skippedLines).toBeLessThanOrEqual(1);
    steps.forEach((s, i) => {
      expect(s.step).toBe(i);
      expect(existsSync(path.join(runDir, s.frame!))).toBe(true);
    });
    // The orphaned game window closes itself once the harness is gone.
    const wm = createWindowManager();
    let left = true;
    for (let i = 0; i < 50 && left; i++) {
      left = (await wm.list()).some((w) => w.title.startsWith('Gamepilot · 2048'));
      if (left) await sleep(100);
    }
    expect(left).toBe(false);
  });
});
