/**
 * The web shell: the renderer and the contract on 127.0.0.1 only. Every request must name a
 * loopback Host (DNS rebinding) and come from no or our own Origin; every API route and the
 * socket demand the session token (query `token=` or `Authorization: Bearer`); static files
 * of the renderer are public. A browser we open gets the token through a one-time launch
 * code (`/launch/<code>` → redirect to `/#token=…`), so it never sits on a command line.
 * A request without the token gets 401 with `WWW-Authenticate: Bearer` naming the
 * protected-resource metadata (RFC 6750, RFC 9728, as MCP's authorization spec asks), which
 * says the token comes from the person, not from an authorization server: clients then ask
 * for it instead of starting OAuth.
 * Nothing a client sends can throw out of a handler: bad requests get a 4xx, and the server
 * keeps serving.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { GamepilotCore } from '../api/core.ts';
import { serveSocket } from '../api/ws-transport.ts';

export interface LaunchCode {
  /** Open this in a browser: it redirects once to the UI with the token in the fragment. */
  url: string;
  /** Resolves true when the code was used, false when it expired unused (or the shell closed). */
  used: Promise<boolean>;
}

export interface WebShell {
  /** The UI's URL with the session token: for the person who started the shell (stdout), never for argv. */
  url: string;
  port: number;
  token: string;
  /** Where the server really listens (the socket's own address). */
  address(): AddressInfo;
  /** A fresh launch code, valid once and for `launchTtlMs`. */
  launch(): LaunchCode;
  close(): Promise<void>;
}

export interface WebShellOptions {
  port?: number;
  staticDir: string;
  token?: string;
  /** How long a launch code stays valid (default 30 s). */
  launchTtlMs?: number;
  /** Messages about refused or failed requests (default: none). */
  log?: (s: string) => void;
  /** More API routes by path (e.g. the MCP endpoint, `/api/mcp`), behind the same Host, Origin and token checks. */
  routes?: Record<string, ApiRoute>;
}

/** An API route's handler; it gets the request only once the shell's checks passed. */
export type ApiRoute = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

const COMMON_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/** Largest WebSocket message accepted; a bigger one closes that socket with 1009. */
export const MAX_WS_MESSAGE = 1024 * 1024;

function secretEquals(expected: string, given: string | null | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

function reply(
  res: http.ServerResponse,
  status: number,
  body: string,
  type = 'text/plain; charset=utf-8',
  headers: Record<string, string> = {},
) {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { ...COMMON_HEADERS, ...headers, 'content-type': type }).end(body);
}

/** Refuses an upgrade on the raw socket with a plain HTTP answer. */
function refuseUpgrade(socket: Duplex, status: number, reason: string, headers: Record<string, string> = {}) {
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  if (socket.writable)
    socket.end(`HTTP/1.1 ${status} ${reason}\r\n${lines.join('')}Connection: close\r\nContent-Length: 0\r\n\r\n`);
  else socket.destroy();
}

/** Where the protected-resource metadata lives (RFC 9728 §3); a resource's path may follow it. */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * The `WWW-Authenticate` of a 401 (RFC 6750 §3): the metadata's address, and `invalid_token`
 * only when a token was given (a request with none gets no error code).
 */
export function bearerChallenge(origin: string, tokenGiven: boolean): string {
  const error = tokenGiven ? `, error="invalid_token", error_description="not this server's token"` : '';
  return `Bearer realm="gamepilot", resource_metadata="${origin}${RESOURCE_METADATA_PATH}"${error}`;
}

/** How to authorize here, in words: the token the person was given, never OAuth. */
const TOKEN_ADVICE =
  'send the token that `gamepilot mcp --http` (or `gamepilot web`) printed (the token= of its URL) as `Authorization: Bearer <token>`';

/**
 * The endpoints a client that starts OAuth anyway falls back to when no authorization server is
 * named (MCP authorization spec 2025-03-26, kept by the SDK and the Inspector): they answer
 * with an OAuth error saying there is no OAuth here, so the client shows that, not a bare 404.
 */
const OAUTH_FALLBACK_PATHS = new Set(['/register', '/authorize', '/token']);
const NO_OAUTH = { error: 'invalid_request', error_description: `Gamepilot has no OAuth: ${TOKEN_ADVICE}` };

/**
 * The protected-resource metadata (RFC 9728 §2) of `resource`: bearer tokens in the header and
 * no authorization server, since the token is the one `gamepilot mcp --http` or `gamepilot web`
 * printed, not one OAuth hands out.
 */
export function resourceMetadata(resource: string) {
  return {
    resource,
    bearer_methods_supported: ['header'],
    resource_name: 'Gamepilot',
    description: `No OAuth and no authorization server: ${TOKEN_ADVICE}.`,
  };
}

export async function startWebShell(core: GamepilotCore, opts: WebShellOptions): Promise<WebShell> {
  const token = opts.token ?? randomBytes(24).toString('base64url');
  const log = opts.log ?? (() => {});
  const ttl = opts.launchTtlMs ?? 30_000;
  const staticRoot = path.resolve(opts.staticDir);
  const launches = new Map<string, { expires: number; settle: (used: boolean) => void; timer: NodeJS.Timeout }>();
  let hosts = new Set<string>();
  let origins = new Set<string>();

  const hostOk = (host: string | undefined) => !!host && hosts.has(host.toLowerCase());
  const originOk = (origin: string | undefined) => !origin || origins.has(origin.toLowerCase());
  const given = (req: http.IncomingMessage, url: URL) =>
    url.searchParams.get('token') ?? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  /** Host, then Origin: what every request and upgrade must pass before anything else. */
  const refusal = (req: http.IncomingMessage): [number, string] | undefined => {
    if (!hostOk(req.headers.host)) return [403, 'unknown host'];
    if (!originOk(req.headers.origin)) return [403, 'foreign origin'];
    return undefined;
  };

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const refused = refusal(req);
    if (refused) return reply(res, refused[0], refused[1]);
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://127.0.0.1');
    } catch {
      return reply(res, 400, 'bad request target');
    }
    const origin = `http://${req.headers.host!.toLowerCase()}`;
    if (url.pathname === RESOURCE_METADATA_PATH || url.pathname.startsWith(`${RESOURCE_METADATA_PATH}/`)) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return reply(res, 405, 'method not allowed');
      const resourcePath = url.pathname.slice(RESOURCE_METADATA_PATH.length);
      if (resourcePath && !resourcePath.startsWith('/api/')) return reply(res, 404, 'not found');
      return reply(res, 200, JSON.stringify(resourceMetadata(`${origin}${resourcePath || '/'}`)), 'application/json');
    }
    if (url.pathname.startsWith('/api/')) {
      const presented = given(req, url);
      if (!secretEquals(token, presented)) {
        const body = { error: presented ? 'invalid_token' : 'token required', error_description: TOKEN_ADVICE };
        return reply(res, 401, JSON.stringify(body), 'application/json', {
          'www-authenticate': bearerChallenge(origin, !!presented),
        });
      }
      if (url.pathname === '/api/health')
        return reply(res, 200, JSON.stringify(await core.handle('health', {})), 'application/json');
      const route = opts.routes && Object.hasOwn(opts.routes, url.pathname) ? opts.routes[url.pathname] : undefined;
      if (route) return route(req, res);
      return reply(res, 404, '{"error":"not found"}', 'application/json');
    }
    if (OAUTH_FALLBACK_PATHS.has(url.pathname)) return reply(res, 400, JSON.stringify(NO_OAUTH), 'application/json');
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(res, 405, 'method not allowed');
    const launch = /^\/launch\/([\w-]{1,64})$/.exec(url.pathname);
    if (launch) {
      const entry = launches.get(launch[1]!);
      if (!entry || entry.expires < Date.now())
        return reply(
          res,
          410,
          'This launch link was already used or has expired. Open the URL that `gamepilot web` printed.',
        );
      launches.delete(launch[1]!);
      clearTimeout(entry.timer);
      entry.settle(true);
      // The fragment never travels to a server; the page moves the token into sessionStorage.
      res.writeHead(302, { ...COMMON_HEADERS, location: `/#token=${encodeURIComponent(token)}` }).end();
      return;
    }
    let rel: string;
    try {
      rel = url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname.slice(1));
    } catch {
      return reply(res, 400, 'bad path');
    }
    const file = path.resolve(staticRoot, rel);
    if (rel.includes('\0') || !file.startsWith(staticRoot + path.sep) || !existsSync(file) || !statSync(file).isFile())
      return reply(res, 404, 'not found');
    res.writeHead(200, { ...COMMON_HEADERS, 'content-type': MIME[path.extname(file)] ?? 'application/octet-stream' });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      log(`web shell: ${req.method} ${String(req.url).slice(0, 200)} failed: ${err.message}`);
      reply(res, 500, 'internal error');
    });
  });
  // Requests Node cannot parse never reach the handler: answer 400 and drop the connection.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_WS_MESSAGE });
  wss.on('error', (err) => log(`web shell socket server: ${err.message}`));
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    try {
      const refused = refusal(req);
      if (refused) return refuseUpgrade(socket, refused[0], 'Forbidden');
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/api/ws') return refuseUpgrade(socket, 404, 'Not Found');
      const presented = given(req, url);
      if (!secretEquals(token, presented))
        return refuseUpgrade(socket, 401, 'Unauthorized', {
          'WWW-Authenticate': bearerChallenge(`http://${req.headers.host!.toLowerCase()}`, !!presented),
        });
      wss.handleUpgrade(req, socket, head, (ws) => serveSocket(core, ws, log));
    } catch (err) {
      log(`web shell: upgrade failed: ${(err as Error).message}`);
      socket.destroy();
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', resolve);
  });
  server.on('error', (err) => log(`web shell: ${err.message}`));
  const port = (server.address() as AddressInfo).port;
  hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  origins = new Set([...hosts].map((h) => `http://${h}`));
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    address: () => server.address() as AddressInfo,
    launch() {
      const code = randomBytes(18).toString('base64url');
      let settle: (used: boolean) => void = () => {};
      const used = new Promise<boolean>((r) => (settle = r));
      const timer = setTimeout(() => {
        launches.delete(code);
        settle(false);
      }, ttl);
      timer.unref();
      launches.set(code, { expires: Date.now() + ttl, settle, timer });
      return { url: `http://127.0.0.1:${port}/launch/${code}`, used };
    },
    close: async () => {
      for (const [code, l] of launches) {
        clearTimeout(l.timer);
        l.settle(false);
        launches.delete(code);
      }
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
