/**
 * The web shell: the renderer and the contract on 127.0.0.1 only. Every API route and the
 * socket demand the session token (query `token=` or `Authorization: Bearer`) and refuse
 * foreign origins; static files of the renderer are public.
 */
import http from 'node:http';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { GamepilotCore } from '../api/core.ts';
import { serveSocket } from '../api/ws-transport.ts';

export interface WebShell {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json', '.woff2': 'font/woff2',
};

function tokenOk(expected: string, given: string | null | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function startWebShell(core: GamepilotCore, opts: { port?: number; staticDir: string; token?: string }): Promise<WebShell> {
  const token = opts.token ?? randomBytes(24).toString('base64url');
  let origins: Set<string> = new Set();
  const originOk = (origin: string | undefined) => !origin || origins.has(origin);
  const given = (req: http.IncomingMessage, url: URL) => url.searchParams.get('token') ?? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (!originOk(req.headers.origin)) return void res.writeHead(403).end('foreign origin');
    if (url.pathname.startsWith('/api/')) {
      if (!tokenOk(token, given(req, url))) return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"token required"}');
      if (url.pathname === '/api/health') {
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(await core.handle('health', {})));
      }
      return void res.writeHead(404).end('{"error":"not found"}');
    }
    const rel = url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname.slice(1));
    const file = path.resolve(opts.staticDir, rel);
    if (!file.startsWith(path.resolve(opts.staticDir) + path.sep) || !existsSync(file) || !statSync(file).isFile()) {
      return void res.writeHead(404).end('not found');
    }
    res.writeHead(200, {
      'content-type': MIME[path.extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
    });
    createReadStream(file).pipe(res);
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/api/ws' || !tokenOk(token, given(req, url)) || !originOk(req.headers.origin)) {
      socket.write('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return socket.destroy();
    }
    wss.handleUpgrade(req, socket, head, (ws) => serveSocket(core, ws));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  origins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
