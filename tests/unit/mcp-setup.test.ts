/**
 * Connecting an MCP client the first time: `gamepilot mcp --print-config` in each client's
 * format (the built CLI, as a person runs it), the advice a server without a display gives,
 * and the web shell's answer to a request without its token (401 with `WWW-Authenticate:
 * Bearer` and the protected-resource metadata, RFC 6750 / RFC 9728) on a real loopback server.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { BIN, ROOT, runCli } from '../helpers/cli.ts';
import type { GamepilotCore } from '../../electron/api/core.ts';
import { startWebShell, type WebShell } from '../../electron/web/loopback-server.ts';
import {
  DISPLAY_FAILURE,
  localXDisplays,
  mcpDisplayAdvice,
  TERMINAL_DISPLAY_ADVICE,
  withMcpDisplayAdvice,
} from '../../electron/session/display-advice.ts';
import { PreflightError } from '../../electron/session/preflight.ts';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-mcp-setup-'));

interface Entry {
  type?: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

describe('gamepilot mcp --print-config', () => {
  const runsDir = 'my-runs'; // relative: the printed entry must name it absolutely
  const configDir = tmp();
  const env = { DISPLAY: ':42', XAUTHORITY: '/home/me/.Xauthority-test', GAMEPILOT_CONFIG_DIR: configDir };
  const printed = async (client?: string) => {
    const r = await runCli(['mcp', '--print-config', ...(client ? [client] : []), '--runs-dir', runsDir], { env });
    expect(r.code, r.stderr).toBe(0);
    return { doc: JSON.parse(r.stdout) as Record<string, Record<string, Entry>>, stderr: r.stderr };
  };
  type Printed = Awaited<ReturnType<typeof printed>>;
  let desktop: Entry;
  let byClient: Record<'claude-code' | 'cursor' | 'vscode', Printed>;

  // One CLI start each, at once (each takes about a second).
  beforeAll(async () => {
    const [fallback, claudeCode, cursor, vscode] = await Promise.all(
      [undefined, 'claude-code', 'cursor', 'vscode'].map(printed),
    );
    expect(Object.keys(fallback!.doc)).toEqual(['mcpServers']);
    desktop = fallback!.doc.mcpServers!.gamepilot!;
    byClient = { 'claude-code': claudeCode!, cursor: cursor!, vscode: vscode! };
  });

  it("prints Claude Desktop's format by default: this Node, the launcher and the runs folder by absolute path, and the env", () => {
    expect(desktop.command).toBe(process.execPath);
    expect(path.isAbsolute(desktop.command)).toBe(true);
    expect(desktop.args).toEqual([BIN, 'mcp', '--runs-dir', path.join(ROOT, runsDir)]);
    expect(desktop.env).toEqual({ DISPLAY: ':42', XAUTHORITY: env.XAUTHORITY, GAMEPILOT_CONFIG_DIR: configDir });
    expect(desktop.type).toBeUndefined();
  });

  it("prints Claude Code's .mcp.json and the `claude mcp add-json` line with the same entry", () => {
    const { doc, stderr } = byClient['claude-code'];
    const entry = doc.mcpServers!.gamepilot!;
    expect(entry).toEqual({ type: 'stdio', ...desktop });
    const line = /claude mcp add-json gamepilot '(.+)'$/m.exec(stderr);
    expect(line, stderr).not.toBeNull();
    expect(JSON.parse(line![1]!)).toEqual(entry);
    expect(stderr).toMatch(/\.mcp\.json/);
  });

  it("prints Cursor's and VS Code's formats naming the same command", () => {
    const { cursor } = byClient;
    expect(cursor.doc.mcpServers!.gamepilot).toEqual(desktop);
    expect(cursor.stderr).toMatch(/~\/\.cursor\/mcp\.json/);
    const { vscode } = byClient;
    expect(Object.keys(vscode.doc)).toEqual(['servers']);
    expect(vscode.doc.servers!.gamepilot).toEqual({ type: 'stdio', ...desktop });
    expect(vscode.stderr).toMatch(/\.vscode\/mcp\.json/);
  });

  it('says where Claude Desktop keeps its file, and passes on the options given with it', async () => {
    const r = await runCli(
      ['mcp', '--print-config', '--runs-dir', runsDir, '--windows', 'Fifteen', '--idle-timeout', '60'],
      { env },
    );
    expect(r.stderr).toMatch(/~\/\.config\/Claude\/claude_desktop_config\.json/);
    expect(JSON.parse(r.stdout).mcpServers.gamepilot.args.slice(4)).toEqual([
      '--windows',
      'Fifteen',
      '--idle-timeout',
      '60',
    ]);
  });

  it('without DISPLAY proposes a display this machine serves and says it guessed', async () => {
    const r = await runCli(['mcp', '--print-config'], { env: { GAMEPILOT_CONFIG_DIR: configDir } });
    expect(r.code).toBe(0);
    const served = localXDisplays();
    expect(JSON.parse(r.stdout).mcpServers.gamepilot.env.DISPLAY).toBe(served[0] ?? ':0');
    expect(r.stderr).toMatch(/note: DISPLAY is not set here/);
  });

  it('refuses an unknown client and --http', async () => {
    const [unknown, http] = await Promise.all([
      runCli(['mcp', '--print-config', 'notepad'], { env }),
      runCli(['mcp', '--http', '--print-config'], { env }),
    ]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/claude-desktop, claude-code, cursor, vscode/);
    expect(http.code).toBe(2);
    expect(http.stdout).toBe('');
    expect(http.stderr).toMatch(/for clients that start the server/);
  });
});

describe('the advice of a server without a display', () => {
  it('lists the X displays by their sockets, lowest first', () => {
    const dir = tmp();
    for (const f of ['X12', 'X0', 'X3']) writeFileSync(path.join(dir, f), '');
    mkdirSync(path.join(dir, 'not-a-display'));
    expect(localXDisplays(dir)).toEqual([':0', ':3', ':12']);
    expect(localXDisplays(path.join(dir, 'absent'))).toEqual([]);
  });

  it('names the env entry with the first display served, and the others', () => {
    expect(mcpDisplayAdvice([':1'])).toContain('"env": {"DISPLAY": ":1"}');
    expect(mcpDisplayAdvice([':0', ':7'])).toMatch(/"DISPLAY": ":0"}.*serves :0, :7/);
    expect(mcpDisplayAdvice([])).toMatch(/"DISPLAY": ":0"}.*no X server runs here/);
  });

  it("turns the X library's error and the pre-flight's into the client configuration's fix", () => {
    const xlib = withMcpDisplayAdvice(new Error('no X display: DISPLAY is not set'), [':5']);
    expect(xlib.message).toMatch(/^no X display: DISPLAY is not set: .*"env": \{"DISPLAY": ":5"\}.*--print-config/);
    const pre = new PreflightError(
      'display',
      `no X display: DISPLAY is not set (x): ${TERMINAL_DISPLAY_ADVICE}`,
      'bad-input',
    );
    const advised = withMcpDisplayAdvice(pre, [':5']);
    expect(advised).toBe(pre);
    expect(advised.message).not.toContain(TERMINAL_DISPLAY_ADVICE);
    expect(advised.message).toContain('"env": {"DISPLAY": ":5"}');
    // Said once, however many layers pass the error on.
    expect(withMcpDisplayAdvice(advised, [':5']).message).toBe(advised.message);
    const other = new Error('no window 0x1 to play');
    expect(withMcpDisplayAdvice(other, [':5']).message).toBe('no window 0x1 to play');
    expect(DISPLAY_FAILURE.test('cannot open the X display :9')).toBe(true);
  });
});

describe('the web shell without its token', () => {
  let shell: WebShell;
  let origin: string;
  const core = { handle: async () => ({ ok: true }) } as unknown as GamepilotCore;

  beforeAll(async () => {
    const staticDir = tmp();
    writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html>');
    shell = await startWebShell(core, { staticDir, routes: { '/api/mcp': async (_q, res) => void res.end('{}') } });
    origin = `http://127.0.0.1:${shell.port}`;
  });
  afterAll(() => shell.close());

  it('answers 401 with WWW-Authenticate: Bearer naming the metadata, on /api/mcp and every token-guarded route', async () => {
    const challenge = `Bearer realm="gamepilot", resource_metadata="${origin}/.well-known/oauth-protected-resource"`;
    for (const route of ['/api/mcp', '/api/health']) {
      const bare = await fetch(`${origin}${route}`, { method: route === '/api/mcp' ? 'POST' : 'GET' });
      expect(bare.status).toBe(401);
      expect(bare.headers.get('www-authenticate')).toBe(challenge);
      expect((await bare.json()).error_description).toMatch(/Authorization: Bearer <token>/);
    }
    const wrong = await fetch(`${origin}/api/mcp`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe(
      `${challenge}, error="invalid_token", error_description="not this server's token"`,
    );
    const right = await fetch(`${origin}/api/mcp`, { headers: { authorization: `Bearer ${shell.token}` } });
    expect(right.status).toBe(200);
  });

  it('refuses the socket without the token with the same challenge', async () => {
    const header = await new Promise<string | undefined>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${shell.port}/api/ws`);
      ws.on('unexpected-response', (_req, res) => {
        resolve(res.headers['www-authenticate'] as string | undefined);
        ws.terminate();
      });
      ws.on('open', () => reject(new Error('the socket opened without the token')));
      ws.on('error', () => {});
    });
    expect(header).toMatch(
      /^Bearer realm="gamepilot", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource"$/,
    );
  });

  it('serves the protected-resource metadata, also path-suffixed: header bearer tokens, no authorization server', async () => {
    for (const [suffix, resource] of [
      ['', `${origin}/`],
      ['/api/mcp', `${origin}/api/mcp`],
    ] as const) {
      const r = await fetch(`${origin}/.well-known/oauth-protected-resource${suffix}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/json');
      const meta = await r.json();
      expect(meta).toMatchObject({ resource, bearer_methods_supported: ['header'], resource_name: 'Gamepilot' });
      expect(meta).not.toHaveProperty('authorization_servers');
      expect(meta.description).toMatch(/No OAuth.*gamepilot mcp --http/);
    }
    // The resource is the host the client used (it checks the two match).
    const viaLocalhost = await fetch(`http://localhost:${shell.port}/.well-known/oauth-protected-resource/api/mcp`);
    expect((await viaLocalhost.json()).resource).toBe(`http://localhost:${shell.port}/api/mcp`);
    expect((await fetch(`${origin}/.well-known/oauth-protected-resource/elsewhere`)).status).toBe(404);
    expect((await fetch(`${origin}/.well-known/oauth-protected-resource`, { method: 'POST' })).status).toBe(405);
  });

  it('answers the OAuth endpoints a client falls back to with an OAuth error saying there is none', async () => {
    for (const [method, route] of [
      ['POST', '/register'],
      ['GET', '/authorize'],
      ['POST', '/token'],
    ] as const) {
      const r = await fetch(`${origin}${route}`, { method });
      expect(r.status).toBe(400);
      expect(await r.json()).toEqual({
        error: 'invalid_request',
        error_description: expect.stringMatching(/^Gamepilot has no OAuth: .*Authorization: Bearer <token>/),
      });
    }
  });
});
