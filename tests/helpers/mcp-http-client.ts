/**
 * An MCP client over streamable HTTP in a process of its own (for tests that kill it): starts a
 * session on the built-in game given, and holds shift down with KEY_DOWN.
 * `between`: the act returns, the client prints one JSON line (the run folder) and sends no
 * further request until it is killed. `during`: it prints the line first, then sends an act that
 * holds shift through a long WAIT, and is killed while that request is open.
 * Usage: mcp-http-client.ts <server url with token> <game> <between|during>
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, game, mode] = process.argv.slice(2) as [string, string, 'between' | 'during'];
const client = new Client({ name: `hold-shift-${mode}`, version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const text = (r: Record<string, unknown>) =>
  (r.content as { type: string; text?: string }[]).find((c) => c.type === 'text')?.text ?? '';
const started = JSON.parse(text(await client.callTool({ name: 'start_session', arguments: { game, max_steps: 50 } })));
await client.callTool({ name: 'observe', arguments: {} });
const shift = { action_type: 'KEY_DOWN', parameters: { key: 'shift' } };
if (mode === 'between') {
  const acted = JSON.parse(text(await client.callTool({ name: 'act', arguments: { actions: [shift] } })));
  process.stdout.write(`${JSON.stringify({ runDir: started.runDir, outcomes: acted.outcomes })}\n`);
} else {
  process.stdout.write(`${JSON.stringify({ runDir: started.runDir })}\n`);
  const wait = { action_type: 'WAIT', parameters: { duration: 60 } };
  await client.callTool({ name: 'act', arguments: { actions: [shift, wait] } }, undefined, { timeout: 120_000 });
}
await new Promise(() => {}); // until killed
