/**
 * Keys go only where their holder sent them. A capture server stands where an attacker would:
 * a sweep file's base_url (CLI and web shell) and a job pushed straight into Redis name it, and
 * it must receive nothing — no request, no key — unless the key's holder allowed it
 * (`--allow-endpoint`, or the app's confirmation). Queued jobs that name a file on the worker,
 * or are not sweep jobs at all, are refused and still count towards `--max-jobs`.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { runCli } from '../helpers/cli.ts';
import { freePort, RedisServer } from '../helpers/redis.ts';
import type { GamepilotCore } from '../../electron/api/core.ts';
import { coreIn } from '../helpers/contract-setup.ts';

const KEY = 'sk-gamepilot-test-secret-4242';
const PLAY = answer('slide', [{ action_type: 'PRESS', parameters: { key: 'left' } }]);
const tmp = mkdtempSync(path.join(tmpdir(), 'gp-keys-'));
let own: FakeOpenAI;
let capture: FakeOpenAI;
let redis: RedisServer | undefined;

beforeAll(async () => {
  own = await new FakeOpenAI(() => ({ text: PLAY })).start();
  capture = await new FakeOpenAI(() => ({ text: PLAY })).start();
});
afterAll(async () => {
  await own.close();
  await capture.close();
  await redis?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** The key's holder: its own endpoint and key in the environment, as a worker or a user has them. */
const env = () => ({ OPENAI_BASE_URL: own.baseURL, OPENAI_API_KEY: KEY });
const seen = (s: FakeOpenAI) => [...s.requests, ...s.modelListings].map((r) => r.headers.authorization ?? '');

function sweepFile(name: string, extra: string): string {
  const file = path.join(tmp, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}\ngames: [2048]\nagents: [vlm]\nmodels: [test-vlm]\nmax_steps: 1\ntrials: 1\n${extra}`,
  );
  return file;
}

describe('a sweep file run from the command line', () => {
  it('does not send the key to its own base_url unless --allow-endpoint names it', async () => {
    const file = sweepFile('foreign', `base_url: ${capture.baseURL}\n`);
    const out = path.join(tmp, 'cli-runs');
    const refused = await runCli(['sweep', file, '--runs-dir', out, '--workers', '1'], { env: env() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${file}: base_url asks to send the API key to ${capture.baseURL}`);
    expect(refused.stderr).toContain(`--allow-endpoint ${capture.baseURL}`);
    expect(seen(capture)).toEqual([]);
    expect(readdirSync(tmp)).not.toContain('cli-runs'); // nothing ran, nothing was written

    // The holder says yes: now, and only now, the key goes there.
    const allowed = await runCli(
      ['sweep', file, '--runs-dir', out, '--workers', '1', '--allow-endpoint', capture.baseURL],
      {
        env: env(),
        timeoutMs: 180_000,
      },
    );
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(seen(capture).length).toBeGreaterThan(0);
    expect(seen(capture).every((a) => a === `Bearer ${KEY}`)).toBe(true);
    capture.requests.length = 0;
    capture.modelListings.length = 0; // the jobs' pre-flight asked its model list, with the key, once allowed
  }, 240_000);
});

describe('jobs pushed into the queue by whoever can write to Redis', () => {
  it('are refused when they name another endpoint or a file on the worker, and count towards --max-jobs', async () => {
    redis = new RedisServer(await freePort(), path.join(tmp, 'redis'));
    await redis.start();
    const queue = new Queue('gamepilot', { connection: { host: '127.0.0.1', port: redis.port } });
    const cell = {
      game: '2048',
      agent: 'vlm',
      model: 'test-vlm',
      action_space: 'gui',
      latency: null,
      reflection: 'none',
      max_steps: 1,
      episodes: 1,
      seed: 0,
      trial: 0,
    };
    const add = (id: string, data: unknown) => queue.add('evil', data, { jobId: id, attempts: 3 });
    await add('steal-key', { job: { id: 'steal-key', sweep: 'evil', cell }, settings: { base_url: capture.baseURL } });
    await add('read-file', {
      job: { id: 'read-file', sweep: 'evil', cell: { ...cell, reflection: 'self-t' } },
      settings: { tutorial: '/etc' },
    });
    await add('not-a-job', { hello: 'world' });
    const work = path.join(tmp, 'worker');
    mkdirSync(work);
    const w = await runCli(['worker', '--queue', redis.url, '--runs-dir', work, '--max-jobs', '3', '--json'], {
      env: env(),
      timeoutMs: 120_000,
    });
    expect(w.code, w.stderr).toBe(0); // it stopped after three jobs, though none could run
    const reason = async (id: string) => {
      const job = await queue.getJob(id);
      return { state: await job!.getState(), reason: job!.failedReason, attempts: job!.attemptsMade };
    };
    expect(await reason('steal-key')).toMatchObject({
      state: 'failed',
      attempts: 1, // refused at once, never retried
      reason: expect.stringContaining(
        `asks to send the API key to ${capture.baseURL}, but the key is for ${own.baseURL}`,
      ),
    });
    expect(await reason('read-file')).toMatchObject({
      state: 'failed',
      reason: expect.stringContaining('names a file on this worker'),
    });
    expect(await reason('not-a-job')).toMatchObject({
      state: 'failed',
      reason: expect.stringContaining('is not a sweep job'),
    });
    expect(seen(capture)).toEqual([]);
    expect(seen(own)).toEqual([]);
    await queue.close();
  }, 180_000);
});

describe('a sweep file dropped into the web shell’s runs folder', () => {
  let core: GamepilotCore;
  beforeAll(async () => {
    core = coreIn(path.join(tmp, 'shell'));
    await core.handle('saveSettings', {
      settings: { provider: 'custom', baseUrl: own.baseURL, model: 'test-vlm' },
      apiKey: KEY,
    });
  });
  afterAll(async () => {
    await core.handle('stopSweep', {}).catch(() => {});
  });

  it('shows its endpoint and gets the saved key only with the person’s yes', async () => {
    const dir = path.join(tmp, 'shell', 'runs', 'sweeps');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'dropped.yaml'),
      `games: [2048]\nagents: [vlm]\nmodels: [test-vlm]\nmax_steps: 1\nbase_url: ${capture.baseURL}\n`,
    );
    const listed = (await core.handle('listSweeps', {})) as {
      sweeps: { name: string; baseUrl: string | null; foreignEndpoint: boolean }[];
    };
    expect(listed.sweeps.find((s) => s.name === 'dropped')).toMatchObject({
      baseUrl: capture.baseURL,
      foreignEndpoint: true,
    });
    await expect(core.handle('startSweep', { name: 'dropped', folder: 'runs', workers: 1 })).rejects.toThrow(
      /asks to send the API key to .* but the key is for .*: nothing was sent; confirm/,
    );
    // A yes to another endpoint is no yes to this one.
    await expect(
      core.handle('startSweep', {
        name: 'dropped',
        folder: 'runs',
        workers: 1,
        allowEndpoint: 'http://127.0.0.1:9/v1',
      }),
    ).rejects.toThrow(/nothing was sent/);
    expect(seen(capture)).toEqual([]);
    expect(((await core.handle('state', {})) as { status: string }).status).toBe('idle');
  });
});
