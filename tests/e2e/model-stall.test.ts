/**
 * The built CLI against a server whose non-player calls stall after their headers (the player's
 * streamed answers come): a run that reflects, an IDC round and a screen-scored profile run on a
 * real Debian window each end within the time limit of the stalled role, say why, and record the
 * call under its role; Ctrl+C during the reflector's call ends the run at once.
 * GAMEPILOT_MODEL_LIMITS sets the stalled roles' limits (model-endpoint.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer } from '../helpers/fake-openai.ts';
import { HostileOpenAI } from '../helpers/hostile-openai.ts';
import { json, runCli, spawnCli } from '../helpers/cli.ts';
import { startWindow, stop } from '../helpers/windows.ts';

const PRESS = answer('slide', [{ action_type: 'PRESS', parameters: { key: 'left' } }]);
let server: HostileOpenAI;
beforeAll(async () => {
  // The player streams; the reflector, the IDC's explorer and judge and the screen reader do not.
  server = await new HostileOpenAI(
    (_i, body) => (body?.stream ? { kind: 'answer', text: PRESS } : { kind: 'stall-after-headers' }),
    ['test-vlm'],
  ).start();
});
afterAll(() => server.close());

const LIMIT_MS = 1500;
/** The roles' limit (the whole call's, or the idle one between bytes) at LIMIT_MS, with no retries. */
const limitsOf = (limit: 'timeoutMs' | 'idleTimeoutMs', ...roles: string[]) => ({
  GAMEPILOT_MODEL_LIMITS: roles.map((r) => `${r}.${limit}=${LIMIT_MS};${r}.maxRetries=0`).join(';'),
});
const limits = (...roles: string[]) => limitsOf('timeoutMs', ...roles);
const model = () => ['--model', 'test-vlm', '--base-url', server.baseURL];
const tmp = (p: string) => mkdtempSync(path.join(tmpdir(), p));
const readJsonLines = (file: string): any[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const calls = (dir: string) => readJsonLines(path.join(dir, 'model-calls.jsonl'));

/** Two 2-step episodes of 2048 with a reflection after each. */
const reflectingRun = (out: string) => [
  'run',
  '--game',
  '2048',
  '--agent',
  'vlm',
  ...model(),
  '--episodes',
  '2',
  '--max-steps',
  '2',
  '--reflection',
  'self-f',
  '--reflect-after',
  'every',
  '--runs-dir',
  out,
];

async function timed<T>(p: Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await p;
  return [v, performance.now() - t0];
}

describe('a stalled role ends within its limit', () => {
  // The whole-call limit, and the idle limit alone (the whole call's stays at its 180 s default):
  // a non-streamed call that sent its headers and then nothing ends at whichever is set low.
  it.each([
    ['timeoutMs', /timed out/],
    ['idleTimeoutMs', /timed out: no data for/],
  ] as const)(
    'reflection: the reflector’s stalled call ends at its %s, is recorded, and the run goes on to its next episode',
    async (limit, says) => {
      const out = tmp('gp-stall-reflect-');
      const [r, ms] = await timed(runCli([...reflectingRun(out), '--json'], { env: limitsOf(limit, 'reflector') }));
      expect(r.code, r.stderr).toBe(0);
      const res = json(r);
      expect(res.episodes).toHaveLength(2);
      const dir = res.run_dir as string;
      const reflections = readJsonLines(path.join(dir, 'reflections.jsonl'));
      expect(reflections).toEqual([{ after_episode: 0, error: expect.stringMatching(says) }]);
      const reflector = calls(dir).filter((c) => c.role === 'reflector');
      expect(reflector).toEqual([expect.objectContaining({ ok: false, error: expect.stringMatching(says) })]);
      expect(reflector[0].ms).toBeLessThan(LIMIT_MS + 2000);
      const meta = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'));
      expect(meta.model_usage).toMatchObject({ player: { calls: 4, failed: 0 }, reflector: { calls: 1, failed: 1 } });
      console.log(
        `reflection run, reflector stalled (${limit}): ${Math.round(ms)} ms, reflector call ${reflector[0].ms} ms`,
      );
    },
  );

  it('reflection: Ctrl+C during the reflector’s call exits at once', async () => {
    const out = tmp('gp-stall-sigint-');
    const before = server.requests.length;
    // The reflector's default limit (180 s): only the stop can end this call soon.
    const child: ChildProcess = spawnCli(reflectingRun(out));
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await expect
      .poll(() => server.requests.slice(before).some((q) => !q.body?.stream), { timeout: 90_000, interval: 50 })
      .toBe(true);
    const t0 = performance.now();
    child.kill('SIGINT');
    const code = await exited;
    const ms = performance.now() - t0;
    console.log(`Ctrl+C during the reflector's call: exited in ${Math.round(ms)} ms (code ${code})`);
    expect(ms, stderr).toBeLessThan(5000); // measured well under 1 s; generous for a busy machine
    const reflectorRequest = server.requests.slice(before).find((q) => !q.body?.stream)!;
    await expect.poll(() => reflectorRequest.hungUp).toBe(true);
    const dir = path.join(out, readdirSync(out)[0]!);
    const meta = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'));
    expect(meta.status).toBe('stopped');
  });

  it('IDC: a stalled explorer ends the round’s reflection with the reason, and the IDC finishes', async () => {
    const out = tmp('gp-stall-idc-');
    const [r, ms] = await timed(
      runCli(
        [
          'idc',
          '--game',
          '2048',
          ...model(),
          '--rounds',
          '1',
          '--episodes',
          '1',
          '--held-out',
          '1',
          '--max-steps',
          '2',
          '--runs-dir',
          out,
          '--json',
        ],
        { env: limits('idc-explorer', 'reflector', 'idc-judge') },
      ),
    );
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res.rounds[0].error).toMatch(/reflection failed: .*timed out/);
    const explorer = calls(res.run_dir).filter((c) => c.role === 'idc-explorer');
    expect(explorer).toEqual([expect.objectContaining({ ok: false, error: expect.stringMatching(/timed out/) })]);
    console.log(`IDC with a stalled explorer: ${Math.round(ms)} ms, explorer call ${explorer[0].ms} ms`);
  });
});

describe('a screen-scored profile on a real window (sgt-fifteen)', () => {
  let fifteen: Awaited<ReturnType<typeof startWindow>>;
  beforeAll(async () => {
    fifteen = await startWindow('/usr/games/sgt-fifteen', [], /^Fifteen$/);
  });
  afterAll(() => stop(fifteen.child));

  it('a stalled screen reading scores the episode null with the reason, within the reader’s limit', async () => {
    const out = tmp('gp-stall-screen-');
    const [r, ms] = await timed(
      runCli(
        [
          'run',
          '--window',
          '^Fifteen$',
          '--profile',
          'sgt-fifteen',
          '--agent',
          'vlm',
          ...model(),
          '--max-steps',
          '1',
          '--runs-dir',
          out,
          '--json',
        ],
        { env: limits('screen-reader') },
      ),
    );
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res.episodes[0].score).toBeNull();
    const meta = JSON.parse(readFileSync(path.join(res.run_dir, 'run.json'), 'utf8'));
    expect(meta.episodes[0].screen_readings).toEqual([
      expect.objectContaining({ reading: null, error: expect.stringMatching(/screen reading failed: .*timed out/) }),
    ]);
    const reader = calls(res.run_dir).filter((c) => c.role === 'screen-reader');
    expect(reader).toEqual([expect.objectContaining({ ok: false })]);
    expect(reader[0].ms).toBeLessThan(LIMIT_MS + 2000);
    console.log(`screen-scored run with a stalled reader: ${Math.round(ms)} ms, reader call ${reader[0].ms} ms`);
  });
});
