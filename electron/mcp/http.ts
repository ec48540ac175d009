/**
 * MCP over streamable HTTP, mounted on the web shell's loopback server at /api/mcp: the shell
 * has already checked the Host, the Origin and the session token before a request gets here.
 * Each MCP session (an `initialize` without a session id) gets its own server and transport;
 * closing it (DELETE, or the shell closing) ends the play it owns. A client that vanishes
 * without closing is ended by the play's idle limit.
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, type McpHost } from './server.ts';

/** The largest MCP request body accepted (an act's actions and reasoning fit many times over). */
export const MAX_MCP_BODY = 1024 * 1024;
/** MCP sessions open at once over HTTP; another initialize is refused until one closes. */
export const MAX_MCP_SESSIONS = 16;

export interface McpHttp {
  handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void>;
  close(): Promise<void>;
}

function answer(res: http.ServerResponse, status: number, message: string) {
  if (res.headersSent) return void res.destroy();
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_MCP_BODY) throw new RangeError(`the request body is over ${MAX_MCP_BODY} bytes`);
    chunks.push(c);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

export function mcpHttp(host: McpHost): McpHttp {
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  return {
    async handle(req, res) {
      const id = req.headers['mcp-session-id'];
      let body: unknown;
      if (req.method === 'POST') {
        try {
          body = await readBody(req);
        } catch (err) {
          return answer(res, err instanceof RangeError ? 413 : 400, (err as Error).message);
        }
      }
      if (typeof id === 'string') {
        const transport = sessions.get(id);
        if (!transport) return answer(res, 404, 'no such MCP session (it ended); initialize again');
        return transport.handleRequest(req, res, body);
      }
      if (req.method !== 'POST' || !isInitializeRequest(body))
        return answer(res, 400, 'no MCP session: send an initialize request first');
      if (sessions.size >= MAX_MCP_SESSIONS)
        return answer(res, 503, `${MAX_MCP_SESSIONS} MCP sessions are open; close one first`);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, transport),
      });
      transport.onclose = () => {
        const sid = transport.sessionId;
        if (!sid) return;
        sessions.delete(sid);
        void host.closed(`http:${sid}`);
      };
      // The connection's name is its session id, known once the initialize is answered.
      const server = createMcpServer(host, () => `http:${transport.sessionId ?? ''}`);
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    },
    async close() {
      for (const t of sessions.values()) await t.close().catch(() => {});
      sessions.clear();
    },
  };
}
