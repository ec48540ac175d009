/**
 * MCP over streamable HTTP, mounted on the web shell's loopback server at /api/mcp: the shell
 * has already checked the Host, the Origin and the session token before a request gets here.
 * Each MCP session (an `initialize` without a session id) gets its own server and transport;
 * closing it (DELETE, or the shell closing) ends the play it owns.
 *
 * Clients often vanish without a DELETE (the SDK's `client.close()` sends none; a killed client
 * cannot), so sessions end on their own: one with no request in flight and no play for
 * `sessionIdleMs` is closed, and at the cap the longest-idle such session makes room for a new
 * client. A POST whose connection closes before its answer cancels the act it carried and lets
 * go of held input; a play whose client has sent no request for `heldQuietMs` has its held keys
 * released (the run goes on; the play's own idle limit ends it).
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, type McpHost } from './server.ts';

/** The largest MCP request body accepted (an act's actions and reasoning fit many times over). */
export const MAX_MCP_BODY = 1024 * 1024;
/** MCP sessions open at once over HTTP; beyond it, the longest-idle one without a play is closed, else 503. */
export const MAX_MCP_SESSIONS = 16;

export interface McpHttpLimits {
  /** A session with no request and no play this long (ms) is closed. */
  sessionIdleMs: number;
  /** A play whose client sent no request this long (ms) has its held keys released. */
  heldQuietMs: number;
}

export const MCP_HTTP_LIMITS: McpHttpLimits = { sessionIdleMs: 120_000, heldQuietMs: 3_000 };

export interface McpHttp {
  handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void>;
  /** Open sessions (for tests and the log). */
  readonly size: number;
  close(): Promise<void>;
}

/** One HTTP session: its transport, its POST requests in flight, and when it was last heard. */
interface SessionRecord {
  transport: StreamableHTTPServerTransport;
  connection: string;
  inFlight: number;
  lastRequest: number;
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

export function mcpHttp(host: McpHost, limits: McpHttpLimits = MCP_HTTP_LIMITS): McpHttp {
  const sessions = new Map<string, SessionRecord>();
  const idle = (r: SessionRecord, now: number) => (r.inFlight === 0 ? now - r.lastRequest : 0);

  /** Counts a POST or DELETE as the session's activity; one whose client leaves before the answer is lost. */
  const track = (r: SessionRecord, req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.method === 'GET') return; // the standalone event stream: a connection, not a request
    r.inFlight++;
    r.lastRequest = Date.now();
    res.once('close', () => {
      r.inFlight--;
      r.lastRequest = Date.now();
      if (!res.writableEnded && req.method === 'POST') void host.requestLost(r.connection);
    });
  };

  const sweep = () => {
    const now = Date.now();
    for (const r of sessions.values()) {
      const quiet = idle(r, now);
      if (quiet >= limits.heldQuietMs && host.playing(r.connection)) void host.quiet(r.connection, quiet);
      if (quiet >= limits.sessionIdleMs && !host.playing(r.connection)) {
        host.opts.log(`mcp: closing HTTP session ${r.connection}: no request for ${Math.round(quiet / 1000)} s`);
        void r.transport.close().catch(() => {});
      }
    }
  };
  const timer = setInterval(sweep, Math.min(500, limits.heldQuietMs / 4));
  timer.unref();

  /** Closes the longest-idle session without a play or a request in flight; false when there is none. */
  const evictOne = async (): Promise<boolean> => {
    const now = Date.now();
    const candidates = [...sessions.values()].filter((r) => r.inFlight === 0 && !host.playing(r.connection));
    const oldest = candidates.sort((a, b) => idle(b, now) - idle(a, now))[0];
    if (!oldest) return false;
    host.opts.log(`mcp: ${MAX_MCP_SESSIONS} HTTP sessions open: closing the longest idle, ${oldest.connection}`);
    sessions.delete(oldest.transport.sessionId ?? '');
    await oldest.transport.close().catch(() => {});
    return true;
  };

  return {
    get size() {
      return sessions.size;
    },
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
        const r = sessions.get(id);
        if (!r) return answer(res, 404, 'no such MCP session (it ended); initialize again');
        track(r, req, res);
        return r.transport.handleRequest(req, res, body);
      }
      if (req.method !== 'POST' || !isInitializeRequest(body))
        return answer(res, 400, 'no MCP session: send an initialize request first');
      if (sessions.size >= MAX_MCP_SESSIONS && !(await evictOne()))
        return answer(res, 503, `${MAX_MCP_SESSIONS} MCP sessions are open, each playing or busy; close one first`);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) =>
          void sessions.set(sid, { transport, connection: `http:${sid}`, inFlight: 0, lastRequest: Date.now() }),
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
      clearInterval(timer);
      for (const r of sessions.values()) await r.transport.close().catch(() => {});
      sessions.clear();
    },
  };
}
