/**
 * An MCP client in a process of its own (for tests that kill it): starts `gamepilot mcp` over
 * stdio with the SDK's client, starts a session in stop mode on the window given, holds a key
 * down with KEY_DOWN, observes again (the game frozen, the key held), prints one JSON line
 * (the server's pid, the run folder, the act's outcomes) and then waits to be killed.
 * Usage: mcp-client.ts <window id> <key> <runs dir>
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, ROOT } from './cli.ts';

const [windowId, key, runsDir] = process.argv.slice(2) as [string, string, string];
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [BIN, 'mcp', '--runs-dir', runsDir],
  cwd: ROOT,
  env: process.env as Record<string, string>,
  stderr: 'inherit',
});
const client = new Client({ name: 'hold-client', version: '1.0.0' });
await client.connect(transport);
const text = (r: Record<string, unknown>) =>
  (r.content as { type: string; text?: string }[]).find((c) => c.type === 'text')?.text ?? '';
const started = JSON.parse(
  text(await client.callTool({ name: 'start_session', arguments: { window_id: windowId, latency: 'stop' } })),
);
await client.callTool({ name: 'observe', arguments: {} });
const acted = JSON.parse(
  text(
    await client.callTool({ name: 'act', arguments: { actions: [{ action_type: 'KEY_DOWN', parameters: { key } }] } }),
  ),
);
await client.callTool({ name: 'observe', arguments: {} });
process.stdout.write(
  `${JSON.stringify({ serverPid: transport.pid, runDir: started.runDir, outcomes: acted.outcomes })}\n`,
);
await new Promise(() => {}); // until killed
