/**
 * The pre-flight on the built CLI: an endpoint on a closed port, a hosted endpoint with no key
 * and a model the test server does not list are each refused with one line and exit 2, the check
 * itself in under 5 s (as the log file times it: on a loaded 2-core machine Node's own start
 * may take longer than that), before anything opens — traced with strace: no program started (the game's browser
 * window never launched), no network connection for the missing key — and nothing in the runs
 * folder. `--no-preflight` skips it: that run starts and writes its folder.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { BIN, ROOT, runCli } from '../helpers/cli.ts';

let server: FakeOpenAI;
let closedPort: number;
const tmp = mkdtempSync(path.join(tmpdir(), 'gp-preflight-'));

beforeAll(async () => {
  server = await new FakeOpenAI(() => ({
    text: answer('up', [{ action_type: 'PRESS', parameters: { key: 'up' } }]),
  })).start();
  closedPort = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
});
afterAll(() => server.close());

interface Traced {
  code: number | null;
  stderr: string;
  /** The whole process. */
  ms: number;
  /** The pre-flight's own time, from the log file. */
  preflightMs: number;
  /** Programs the CLI started (its own node binary first). */
  programs: string[];
  /** Internet (IPv4/IPv6) connections it opened or tried. */
  inetConnects: string[];
}

/** `gamepilot run …` under `strace -f`, with exactly `env` over a copy of ours (minus OPENAI_*). */
async function tracedRun(name: string, args: string[], env: Record<string, string> = {}): Promise<Traced> {
  const trace = path.join(tmp, `${name}.strace`);
  const config = mkdtempSync(path.join(tmp, `${name}-config-`));
  const childEnv: Record<string, string | undefined> = { ...process.env, GAMEPILOT_CONFIG_DIR: config, ...env };
  for (const k of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'GAMEPILOT_MODEL']) if (!(k in env)) delete childEnv[k];
  const t0 = performance.now();
  const child = spawn(
    'strace',
    ['-f', '-qq', '--seccomp-bpf', '-e', 'trace=execve,connect', '-o', trace, process.execPath, BIN, 'run', ...args],
    { cwd: ROOT, env: childEnv, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  const ms = performance.now() - t0;
  const lines = readFileSync(trace, 'utf8').split('\n');
  const logged = readFileSync(path.join(config, 'gamepilot.log'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { msg: string; ms?: number })
    .filter((l) => l.msg === 'pre-flight');
  expect(logged).toHaveLength(1);
  return {
    code,
    stderr,
    ms,
    preflightMs: logged[0]!.ms!,
    programs: lines.flatMap((l) => /execve\("([^"]*)"/.exec(l)?.[1] ?? []),
    inetConnects: lines.filter((l) => /connect\(.*AF_INET6?\b/.test(l)),
  };
}

const out = (name: string) => path.join(tmp, name, 'runs');
const runFolders = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);
const vlm = (model: string, baseUrl: string) => [
  '--game',
  '2048',
  '--agent',
  'vlm',
  '--model',
  model,
  '--base-url',
  baseUrl,
];

/** A refusal: exit 2, checked in under 5 s, one line on stderr, only the CLI's own program run, no run folder. */
function expectRefused(r: Traced, dir: string, line: RegExp) {
  expect(r.code, r.stderr).toBe(2);
  expect(r.preflightMs).toBeLessThan(5000);
  expect(r.ms).toBeLessThan(60_000); // Node's start and the bundle's load on a busy machine, not the check
  expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(line)]);
  expect(r.programs).toEqual([process.execPath]); // no browser, no window tool: the game's window never opened
  expect(runFolders(dir)).toEqual([]);
}

describe('pre-flight on `gamepilot run`', () => {
  it('refuses an endpoint on a closed port before any window opens', async () => {
    const r = await tracedRun('closed', [
      ...vlm('test-vlm', `http://127.0.0.1:${closedPort}/v1`),
      '--runs-dir',
      out('closed'),
    ]);
    expectRefused(
      r,
      out('closed'),
      new RegExp(`^error: pre-flight: http://127\\.0\\.0\\.1:${closedPort}/v1 refused the connection: .*--base-url$`),
    );
  });

  it('refuses a hosted endpoint without a key, naming it, with no connection made', async () => {
    const r = await tracedRun('hosted', [...vlm('gpt-4o', 'https://api.openai.com/v1'), '--runs-dir', out('hosted')]);
    expectRefused(
      r,
      out('hosted'),
      /^error: pre-flight: https:\/\/api\.openai\.com\/v1 \(the player's endpoint\) needs an API key .*--api-key, set OPENAI_API_KEY/,
    );
    expect(r.inetConnects).toEqual([]);
  });

  it('refuses a model the endpoint does not list and will not serve, naming the ones it does', async () => {
    server.refuseUnlisted = true; // as OpenAI does; llama-server serves any name (the unit test)
    const r = await tracedRun('unlisted', [...vlm('other-vlm', server.baseURL), '--runs-dir', out('unlisted')]).finally(
      () => (server.refuseUnlisted = false),
    );
    expectRefused(
      r,
      out('unlisted'),
      /^error: pre-flight: http:\/\/127\.0\.0\.1:\d+\/v1 does not serve the model "other-vlm" \(--model, the player's\); it serves: test-vlm$/,
    );
    // The model list, then the model asked for by name once (one token), which the server refused.
    expect(server.modelListings.length).toBeGreaterThan(0);
    expect(server.requests.map((q) => [q.body.model, q.body.max_tokens])).toEqual([['other-vlm', 1]]);
  });

  it('--no-preflight skips it: the run starts against the closed port', async () => {
    const dir = out('skipped');
    const r = await runCli([
      ...['run', ...vlm('test-vlm', `http://127.0.0.1:${closedPort}/v1`), '--no-preflight'],
      ...['--max-steps', '1', '--episodes', '1', '--max-retries', '0', '--runs-dir', dir],
    ]);
    expect(r.stderr).not.toMatch(/pre-flight/);
    expect(r.stderr).toMatch(/run folder: /);
    const [run] = runFolders(dir);
    expect(JSON.parse(readFileSync(path.join(dir, run!, 'run.json'), 'utf8'))).toMatchObject({ model: 'test-vlm' });
  });
});
