/**
 * `gamepilot mcp`: Gamepilot as an MCP server. Over stdio (the default) the client starts this
 * command; stdout then carries only the protocol, so everything else the process would print
 * goes to stderr. The web shell runs beside it on loopback (its URL on stderr) so a person can
 * watch the client play in the Live view and stop it; the same server offers MCP over
 * streamable HTTP at /api/mcp with the shell's token. `--http` serves only that (no stdio).
 * `--print-config` prints a client's configuration for this server instead (mcp-client-config.ts).
 *
 * Clients start stdio servers without the desktop's environment, so on Linux DISPLAY is often
 * missing: the server says so on stderr at start, and every tool error that comes from the
 * missing display names the `env` entry to add (display-advice.ts).
 */
import { Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { runWebShell } from '../web/web-shell.ts';
import { openUiInBrowser } from '../web/open-ui.ts';
import { createMcpServer, McpHost } from '../mcp/server.ts';
import { mcpHttp } from '../mcp/http.ts';
import { WindowConsent } from '../mcp/consent.ts';
import { appVersion, cliCommand } from '../util/resources.ts';
import { localXDisplays, mcpDisplayAdvice } from '../session/display-advice.ts';
import { clientConfig, MCP_IDLE_TIMEOUT_S, serverLaunch } from './mcp-client-config.ts';
import { log } from '../util/log.ts';
import { io } from './io.ts';
import type { McpFlags } from './command-flags.ts';

/** Keeps stdout for the protocol: what else writes to it (a library, a stray log line) goes to stderr. */
function takeStdout(): Writable {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      write(chunk, (err) => done(err ?? null));
    },
  });
}

/** `--print-config`: the client's configuration on stdout, where it goes (and any guess) on stderr. */
function printConfig(o: McpFlags & { printConfig: NonNullable<McpFlags['printConfig']> }): number {
  if (o.http) {
    io.log(
      'mcp: --print-config is for clients that start the server (stdio); give an HTTP client the URL `gamepilot mcp --http` prints',
    );
    return 2;
  }
  const node = cliCommand();
  if ('refused' in node) {
    io.log(`mcp: ${node.refused}`);
    return 2;
  }
  const options = [
    ...(o.windows ? ['--windows', o.windows] : []),
    ...(o.idleTimeout !== MCP_IDLE_TIMEOUT_S ? ['--idle-timeout', String(o.idleTimeout)] : []),
    ...(o.acceptAnticheatRisk ? ['--accept-anticheat-risk'] : []),
    ...(o.port !== undefined ? ['--port', String(o.port)] : []),
    ...(o.open ? ['--open'] : []),
  ];
  const { launch, notes } = serverLaunch({
    node,
    runsDir: o.runsDir,
    configDir: o.configDir,
    options,
    env: process.env,
    platform: process.platform,
  });
  const config = clientConfig(o.printConfig, launch, process.platform);
  io.out(JSON.stringify(config.document, null, 2));
  for (const line of [...config.where, ...notes.map((n) => `note: ${n}`)]) io.progress(line);
  return 0;
}

export async function mcpCommand(o: McpFlags): Promise<number> {
  if (o.printConfig) return printConfig({ ...o, printConfig: o.printConfig });
  const displays = process.platform === 'linux' ? localXDisplays() : [];
  const noDisplay = process.platform === 'linux' && !process.env.DISPLAY;
  const protocolOut = o.http ? undefined : takeStdout();
  let host: McpHost | undefined;
  let http: ReturnType<typeof mcpHttp> | undefined;
  const { shell, close } = await runWebShell({
    ...(o.port !== undefined ? { port: o.port } : {}),
    runsDir: o.runsDir,
    configDir: o.configDir,
    demo: false,
    log: io.log,
    routes: (c) => {
      const consent = new WindowConsent({
        ...(o.windows ? { windows: o.windows } : {}),
        ask: (q, signal) => c.askConsent(q, signal),
      });
      host = new McpHost(c, {
        idleMs: o.idleTimeout * 1000,
        log: io.log,
        version: appVersion(),
        consent,
        acceptAnticheatRisk: !!o.acceptAnticheatRisk,
      });
      http = mcpHttp(host);
      const h = http;
      return { '/api/mcp': (req, res) => h.handle(req, res) };
    },
  });
  const mcpHost = host!;
  const endpoint = `http://127.0.0.1:${shell.port}/api/mcp`;
  log().info({ port: shell.port, runsDir: o.runsDir, stdio: !o.http }, 'mcp server listening on 127.0.0.1'); // never the token
  if (o.http) {
    io.out(`${endpoint}?token=${shell.token}`);
    io.progress(`Gamepilot MCP server (streamable HTTP) on ${endpoint}; the token is required. Ctrl+C stops.`);
  } else {
    io.progress(`Gamepilot MCP server on stdio; also on ${endpoint} with the token.`);
  }
  io.progress(`Watch and stop the client's game in the Live view: ${shell.url}`);
  if (noDisplay) io.log(`warning: no X display: DISPLAY is not set: ${mcpDisplayAdvice(displays)}`);
  const ui = o.open ? openUiInBrowser(shell, { width: 1360, height: 860, x: 0, y: 0 }, io.log) : undefined;

  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    if (protocolOut) {
      const transport = new StdioServerTransport(process.stdin, protocolOut);
      transport.onclose = resolve;
      // The client went away (it exited or was killed): its stdin pipe ends.
      process.stdin.once('end', resolve);
      process.stdin.once('close', resolve);
      protocolOut.on('error', resolve);
      void createMcpServer(mcpHost, 'stdio')
        .connect(transport)
        .catch((err: Error) => {
          io.log(`mcp: stdio failed: ${err.message}`);
          resolve();
        });
    }
  });
  io.log('mcp: stopping…');
  await mcpHost.closeAll();
  await http?.close();
  await close();
  await ui?.close();
  return 0;
}
