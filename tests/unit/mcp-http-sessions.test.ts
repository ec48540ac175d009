/**
 * MCP over HTTP ends sessions on its own: the official SDK client's close() sends no DELETE and
 * a killed client cannot, so a slot is freed by eviction at the cap and by the idle bound.
 * Served from a loopback http server with the real SDK transports on both sides; no play runs
 * (the host's core is never reached by the calls made here).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MAX_MCP_SESSIONS, mcpHttp, type McpHttp, type McpHttpLimits } from '../../electron/mcp/http.ts';
import { McpHost } from '../../electron/mcp/server.ts';
import type { GamepilotCore } from '../../electron/api/core.ts';

let server: http.Server | undefined;
let mcp: McpHttp | undefined;
const logged: string[] = [];

async function serve(limits: McpHttpLimits): Promise<URL> {
  const host = new McpHost({} as GamepilotCore, { idleMs: 60_000, log: (s) => logged.push(s), version: '0' });
  mcp = mcpHttp(host, limits);
  const m = mcp;
  server = http.createServer((req, res) => void m.handle(req, res));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return new URL(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/mcp`);
}

afterEach(async () => {
  await mcp?.close();
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = mcp = undefined;
  logged.length = 0;
});

async function connectAndLeave(url: URL, name: string) {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  const tools = (await client.listTools()).tools.map((t) => t.name);
  expect(tools).toContain('list_targets');
  await client.close(); // no DELETE: the server never hears that this client is gone
}

describe('MCP HTTP sessions', () => {
  it(`20 clients one after another, each closing without DELETE, are all served (cap ${MAX_MCP_SESSIONS})`, async () => {
    const url = await serve({ sessionIdleMs: 3_600_000, heldQuietMs: 3_000 });
    for (let i = 0; i < 20; i++) await connectAndLeave(url, `client-${i}`);
    expect(mcp!.size).toBe(MAX_MCP_SESSIONS);
    expect(logged.filter((l) => /closing the longest idle/.test(l))).toHaveLength(20 - MAX_MCP_SESSIONS);
  });

  it('a session with no request for the idle bound is closed, and its id is then unknown', async () => {
    const url = await serve({ sessionIdleMs: 400, heldQuietMs: 3_000 });
    const client = new Client({ name: 'quiet', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(url);
    await client.connect(transport);
    expect(mcp!.size).toBe(1);
    await expect.poll(() => mcp!.size, { timeout: 10_000 }).toBe(0);
    expect(logged.join('\n')).toMatch(/closing HTTP session http:\S+: no request for \d+ s/);
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    await client.close();
  });

  it('a client that keeps asking is never closed for idleness', async () => {
    const url = await serve({ sessionIdleMs: 300, heldQuietMs: 3_000 });
    const client = new Client({ name: 'busy', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    for (let i = 0; i < 6; i++) {
      await client.listTools();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(mcp!.size).toBe(1);
    await client.close();
  });
});
