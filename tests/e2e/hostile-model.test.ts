/**
 * Stop means stop, against a hostile provider: a live run under `--latency stop` ends quickly
 * with clear errors (stall after headers, 50 MB answers, broken streams), Ctrl+C exits at once
 * during a 40 s Retry-After, and Session.stop() thaws a frozen world right away — a built-in
 * engine and a Debian game's suspended process — while the model call is still in flight.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostileOpenAI } from '../helpers/hostile-openai.ts';
import { json, runCli, spawnCli, testModelArgs, testModelSpec } from '../helpers/cli.ts';
import { heldInput } from '../helpers/xinput.ts';
import { prepareRun } from '../../electron/session/compose.ts';
import { parseRunSpec } from '../../electron/run-spec.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { processState } from '../../native/process.ts';
import { createWindowManager, findWindow } from '../../native/index.ts';

const MB50 = 50 * 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-hostile-'));

let server: HostileOpenAI;
beforeAll(async () => {
  server = await new HostileOpenAI(() => ({ kind: 'garbage' }), ['test-vlm']).start();
});
afterAll(() => server.close());

describe('a hostile provider in a live run', () => {
  it('ends a --latency stop run quickly, each step with a clear error and a bounded record', async () => {
    const kinds = ['stall-after-headers', 'huge', 'huge-line', 'broken-json', 'garbage'] as const;
    server.setBehaviour((i) => {
      const k = kinds[i]!;
      return k === 'huge'
        ? { kind: 'huge', bytes: MB50 }
        : k === 'huge-line'
          ? { kind: 'huge', bytes: MB50, singleLine: true }
          : { kind: k };
    });
    const t0 = Date.now();
    const r = await runCli(
      [
        'run',
        '--game',
        '2048',
        ...testModelArgs(server.baseURL),
        '--latency',
        'stop',
        '--stop-interval-ms',
        '100',
        '--idle-timeout-ms',
        '1000',
        '--max-retries',
        '0',
        '--repairs',
        '0',
        '--max-errors',
        '5',
        '--max-steps',
        '20',
        '--runs-dir',
        tmp(),
        '--json',
      ],
      { env: { GAMEPILOT_CONFIG_DIR: tmp() } },
    );
    const seconds = (Date.now() - t0) / 1000;
    console.log(`hostile run (stall, 50 MB, one 50 MB line, broken JSON, garbage) ended in ${seconds.toFixed(1)} s`);
    expect(r.code, r.stderr).toBe(1);
    const res = json(r);
    expect(res.status).toBe('failed');
    expect(res.error).toBe(
      '5 steps in a row without usable actions; last error: model call failed: the server answered without any chat-completion data (is this an OpenAI-compatible endpoint?)',
    );
    expect(seconds).toBeLessThan(60);

    const { steps } = readRun(res.run_dir);
    expect(steps.map((s) => s.errors.at(-1))).toEqual([
      'model call failed: timed out: no data for 1 s',
      'model call failed: the answer is larger than 16 MiB (maxAnswerBytes); stopped reading it',
      'model call failed: the server sent one stream line longer than 1 MiB; stopped reading it',
      expect.stringMatching(/^model call failed: invalid stream from the server: a "data:" line is not JSON/),
      'model call failed: the server answered without any chat-completion data (is this an OpenAI-compatible endpoint?)',
    ]);
    for (const s of steps)
      expect(s.model_calls).toEqual([
        {
          attempt: 1,
          ms: expect.any(Number),
          ok: false,
          error: s.errors.at(-1)!.replace('model call failed: ', ''),
          role: 'player',
          model: 'test-vlm',
          // What arrived of a cut-off answer still counts (estimated: the server reported nothing).
          ...(/larger than|not JSON/.test(s.errors.at(-1)!)
            ? { tokens: { input: 0, output: expect.any(Number), estimated: true } }
            : {}),
        },
      ]);
    // The whole record stays small although the server sent two 50 MB answers.
    const lines = readFileSync(path.join(res.run_dir, 'steps.jsonl'), 'utf8').split('\n').filter(Boolean);
    for (const l of lines) expect(l.length).toBeLessThan(400 * 1024);
    expect(server.requests.slice(1, 3).every((q) => q.hungUp && q.bytesSent < MB50 / 2)).toBe(true);
    expect(heldInput()).toEqual({ keys: [], buttons: [] });
  });

  it('Ctrl+C exits at once during a 40 s Retry-After', async () => {
    server.setBehaviour(() => ({ kind: 'status', status: 429, headers: { 'retry-after': '40' } }));
    const out = tmp();
    const child = spawnCli(
      [
        'run',
        '--game',
        '2048',
        ...testModelArgs(server.baseURL),
        '--latency',
        'stop',
        '--retry-after-cap-ms',
        '60000',
        '--runs-dir',
        out,
        '--json',
      ],
      { GAMEPILOT_CONFIG_DIR: tmp() },
    );
    let stdout = '';
    child.stdout!.on('data', (d) => (stdout += d));
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    await server.untilRequests(1);
    await sleep(500); // the CLI is now waiting out the Retry-After, the game frozen
    const t0 = performance.now();
    child.kill('SIGINT');
    const code = await exited;
    const ms = performance.now() - t0;
    console.log(`Ctrl+C → exit: ${ms.toFixed(0)} ms (under a 40 s Retry-After)`);
    expect(ms).toBeLessThan(5000);
    expect(code).toBe(0);
    const res = JSON.parse(stdout);
    expect(res.status).toBe('stopped');
    expect(server.requests).toHaveLength(1);
    const step = readRun(res.run_dir).steps[0]!;
    expect(step.errors).toEqual(['model call failed: stopped']);
    expect(step.model_calls).toEqual([
      {
        attempt: 1,
        ms: expect.any(Number),
        ok: false,
        status: 429,
        error: expect.stringMatching(/^HTTP 429/),
        retry_after_ms: 40_000,
        wait_ms: 40_000,
        waited_ms: expect.any(Number),
        role: 'player',
        model: 'test-vlm',
      },
    ]);
    expect((step.model_calls as { waited_ms: number }[])[0]!.waited_ms).toBeLessThan(10_000);
  });
});

describe('Session.stop() while the model call is in flight', () => {
  it('thaws a frozen built-in game inside stop(), before the call has returned', async () => {
    server.setBehaviour(() => ({ kind: 'stall-after-headers', firstChunk: true }));
    const { session, target } = await prepareRun(
      parseRunSpec({
        game: 'snake',
        ...testModelSpec(server.baseURL),
        episodes: 1,
        maxSteps: 3,
        seed: 1,
        capture: 'nut',
        latency: 'stop',
        idleTimeoutMs: 60_000,
        maxRetries: 0,
      }),
      { outDir: tmp() },
    );
    try {
      const running = session.run();
      await server.untilRequests(1);
      expect(session.latency.frozen).toBe(true);
      const t0 = performance.now();
      session.stop();
      expect(session.latency.frozen).toBe(false); // synchronously: not after the call unwinds
      const result = await running;
      expect(performance.now() - t0).toBeLessThan(2000);
      expect(result.status).toBe('stopped');
      await expect.poll(() => server.requests[0]!.hungUp).toBe(true);
    } finally {
      await target.close();
    }
  });

  describe('a Debian game frozen by suspending its process', () => {
    let pid = 0;
    beforeAll(async () => {
      if (!existsSync('/usr/games/sgt-fifteen')) throw new Error('sgt-puzzles is not installed');
      process.env.GAMEPILOT_CONFIG_DIR = tmp(); // the suspended-process registry of this test
      // Started outside this process's tree (setsid --fork): Gamepilot never suspends its own children.
      spawn('setsid', ['--fork', '/usr/games/sgt-fifteen'], {
        stdio: 'ignore',
        env: { ...process.env, NO_AT_BRIDGE: '1', GTK_A11Y: 'none' },
      });
      const wm = createWindowManager();
      const t0 = Date.now();
      let win = await findWindow(wm, /^Fifteen$/);
      while (!win) {
        if (Date.now() - t0 > 20_000) throw new Error('sgt-fifteen opened no window');
        await sleep(100);
        win = await findWindow(wm, /^Fifteen$/);
      }
      pid = win.pid!;
    });
    afterAll(() => {
      if (pid) process.kill(pid, 'SIGCONT');
      if (pid) process.kill(pid, 'SIGTERM');
    });

    it('is resumed inside stop(), before the call has returned', async () => {
      server.setBehaviour(() => ({ kind: 'stall-after-headers', firstChunk: true }));
      const { session, target } = await prepareRun(
        parseRunSpec({
          window: '^Fifteen$',
          ...testModelSpec(server.baseURL),
          episodes: 1,
          maxSteps: 3,
          seed: 1,
          capture: 'nut',
          latency: 'stop',
          idleTimeoutMs: 60_000,
          maxRetries: 0,
        }),
        { outDir: tmp() },
      );
      try {
        const running = session.run();
        await server.untilRequests(1);
        expect(processState(pid)).toBe('T');
        session.stop();
        expect(processState(pid)).not.toBe('T'); // SIGCONT went out inside stop()
        const result = await running;
        expect(result.status).toBe('stopped');
        expect(processState(pid)).not.toBe('T');
      } finally {
        await target.close();
      }
    });
  });
});
