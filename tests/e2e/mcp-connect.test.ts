/**
 * An MCP client connecting the first time, as its user would set it up:
 * - the configuration `gamepilot mcp --print-config claude-desktop` prints, run as a client runs
 *   it (its command and args with the env as printed, on top of the SDK's whitelisted
 *   environment, from a folder of its own), starts a server that lists its tools and plays
 *   2048 on the test display;
 * - the same entry without DISPLAY starts a server that says, at start and in the tool's error,
 *   which `env` entry to add;
 * - over HTTP the official MCP Inspector's CLI (pinned, from npm) lists the tools with the
 *   token, and without it fails with the server's own words instead of starting OAuth.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { firstStdoutLine, ROOT, runCli, spawnCli } from '../helpers/cli.ts';
import { localXDisplays } from '../../electron/session/display-advice.ts';

/** The Inspector version the tests run (the newest published when this was written). */
/** The Inspector's CLI: a pinned devDependency (package.json), as tests/e2e/mcp-inspector.test.ts runs it. */
const INSPECTOR = path.join(ROOT, 'node_modules', '.bin', 'mcp-inspector');

const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-mcp-connect-'));
type ToolResult = { content: { type: string; text?: string; data?: string }[]; isError?: boolean };
const textOf = (r: ToolResult) => r.content.find((c) => c.type === 'text')?.text ?? '';

interface Entry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Connects the SDK's stdio client to `entry` as a client started from `cwd` would; stderr collected. */
async function connect(
  entry: Entry,
  cwd: string,
): Promise<{ client: Client; stderr: () => string; exited: Promise<void> }> {
  const transport = new StdioClientTransport({ ...entry, cwd, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d));
  const client = new Client({ name: 'first-time', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid!;
  const exited = new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      try {
        process.kill(pid, 0);
      } catch {
        clearInterval(poll);
        resolve();
      }
    }, 50);
  });
  return { client, stderr: () => stderr, exited };
}

describe('the configuration --print-config prints, run as given', () => {
  let entry: Entry;
  const runsDir = tmp();

  beforeAll(async () => {
    const printed = await runCli(['mcp', '--print-config', 'claude-desktop', '--runs-dir', runsDir]);
    expect(printed.code, printed.stderr).toBe(0);
    entry = JSON.parse(printed.stdout).mcpServers.gamepilot;
  });

  it('starts a server that lists its tools and plays 2048 on the display it names', async () => {
    expect(entry.env.DISPLAY).toBe(process.env.DISPLAY);
    const { client, exited } = await connect(entry, tmp());
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(['list_targets', 'start_session', 'observe', 'act', 'end_session']));
      const targets = JSON.parse(
        textOf((await client.callTool({ name: 'list_targets', arguments: {} })) as ToolResult),
      );
      expect(targets.games.map((g: { id: string }) => g.id)).toContain('2048');
      const started = (await client.callTool({
        name: 'start_session',
        arguments: { game: '2048', max_steps: 1 },
      })) as ToolResult;
      expect(started.isError, textOf(started)).toBeFalsy();
      const seen = (await client.callTool({ name: 'observe', arguments: {} })) as ToolResult;
      expect(seen.content.some((c) => c.type === 'image' && c.data)).toBe(true);
      const ended = JSON.parse(textOf((await client.callTool({ name: 'end_session', arguments: {} })) as ToolResult));
      // The runs folder is the printed absolute one, not one under the client's folder.
      expect(path.dirname(ended.runDir)).toBe(runsDir);
    } finally {
      await client.close();
    }
    await exited;
  });

  it('without DISPLAY, says which env entry to add: on stderr at start and in the first tool that needs it', async () => {
    const { DISPLAY: _dropped, ...env } = entry.env;
    const { client, stderr, exited } = await connect({ ...entry, env }, tmp());
    try {
      // It proposes a display this machine serves (the test display is one of them).
      expect(localXDisplays()).toContain(process.env.DISPLAY);
      await expect.poll(stderr).toMatch(/warning: no X display: DISPLAY is not set: .*"env": \{"DISPLAY": ":\d+"\}/);
      const entryAdvice = /"env": \{"DISPLAY": ":\d+"\}/.exec(stderr())![0];
      const listed = (await client.callTool({ name: 'list_targets', arguments: {} })) as ToolResult;
      expect(listed.isError).toBe(true);
      expect(textOf(listed)).toContain(entryAdvice);
      expect(textOf(listed)).toMatch(/^no X display: DISPLAY is not set: .*--print-config/);
    } finally {
      await client.close();
    }
    await exited;
  });
});

describe('the MCP Inspector over HTTP', () => {
  let server: ChildProcess;
  let endpoint: string;
  let token: string;
  const inspectorEnv = {
    ...process.env,
    // The Inspector's `#!/usr/bin/env node` must find this Node (it needs 22.19 or newer).
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`,
    MCP_CATALOG_PATH: path.join(tmp(), 'mcp.json'),
    MCP_INSPECTOR_SECRET_STORE: 'memory',
  };
  /** `mcp-inspector --cli …`: its exit code and output. */
  const inspector = (args: string[], viaTerminal = false) =>
    new Promise<{ code: number; out: string }>((resolve) => {
      const cli = [INSPECTOR, '--cli', ...args];
      // `script` gives it a terminal, as a person at one has: the case where it would start OAuth.
      const [file, argv] = viaTerminal
        ? ['script', ['-qec', cli.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' '), '/dev/null']]
        : [cli[0]!, cli.slice(1)];
      execFile(file, argv, { env: inspectorEnv, timeout: 90_000 }, (err, stdout, stderr) =>
        resolve({ code: typeof err?.code === 'number' ? err.code : err ? -1 : 0, out: `${stdout}\n${stderr}` }),
      );
    });

  beforeAll(async () => {
    server = spawnCli(['mcp', '--http', '--runs-dir', tmp()]);
    const url = new URL(await firstStdoutLine(server));
    token = url.searchParams.get('token')!;
    endpoint = `${url.origin}${url.pathname}`;
  });
  afterAll(async () => {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  });

  it('gets 401 with the Bearer challenge and the metadata it names', async () => {
    const bare = await fetch(endpoint, { method: 'POST' });
    expect(bare.status).toBe(401);
    const challenge = bare.headers.get('www-authenticate')!;
    const metadataUrl = /^Bearer realm="gamepilot", resource_metadata="([^"]+)"$/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(`${new URL(endpoint).origin}/.well-known/oauth-protected-resource`);
    const meta = await (await fetch(metadataUrl!)).json();
    expect(meta).toMatchObject({ bearer_methods_supported: ['header'] });
    expect(meta.authorization_servers).toBeUndefined();
  });

  it('lists the tools with the token', async () => {
    const r = await inspector([
      endpoint,
      '--transport',
      'http',
      '--method',
      'tools/list',
      '--header',
      `Authorization: Bearer ${token}`,
    ]);
    expect(r.code, r.out).toBe(0);
    const listed = JSON.parse(r.out.slice(r.out.indexOf('{'), r.out.lastIndexOf('}') + 1));
    expect(listed.tools.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(['list_targets', 'start_session', 'observe', 'act', 'end_session']),
    );
  });

  it("without the token fails with the server's words, in CI mode and at a terminal, and starts no login", async () => {
    const ci = await inspector([endpoint, '--transport', 'http', '--method', 'tools/list', '--stored-auth-only']);
    expect(ci.code).not.toBe(0);
    expect(ci.out).toMatch(/auth_required/);
    expect(ci.out).toContain('as `Authorization: Bearer <token>`');
    const person = await inspector([endpoint, '--transport', 'http', '--method', 'tools/list'], true);
    expect(person.code).not.toBe(0);
    // It tried to register as an OAuth client and was told there is no OAuth: no authorization URL to open.
    expect(person.out).toContain('Gamepilot has no OAuth');
    expect(person.out).not.toMatch(/\/authorize\?/);
  });
});
