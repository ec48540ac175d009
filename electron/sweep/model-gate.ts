/**
 * The one door a sweep's runs use to reach their model providers: a loopback HTTP relay in the
 * sweep (or queue worker) process. Each run's --base-url points here; before forwarding a
 * request the gate asks the shared rate limiter for one request and an estimate of its tokens,
 * and afterwards settles the estimate with the usage the provider reported. Runs stay ordinary
 * `gamepilot run`s (their own retries, time limits and key), and the limits hold across all of
 * a sweep's workers — across machines when the limiter lives in Redis. Answers stream through
 * as they come; the API key passes through and is never stored.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ProviderLimits, RateLimiter } from './rate-limit.ts';

/** Largest request relayed (frames are base64 in the body). */
const MAX_BODY = 64 * 1024 * 1024;
const HOP_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'accept-encoding',
  'keep-alive',
  'transfer-encoding',
]);

/** A rough token count of a chat request, before the provider says: text / 4, ~1100 an image, plus the answer's cap. */
export function estimateTokens(body: unknown): number {
  if (!body || typeof body !== 'object') return 1;
  const b = body as { messages?: unknown; max_tokens?: number; max_completion_tokens?: number; input?: unknown };
  let chars = 0;
  let images = 0;
  const walk = (v: unknown) => {
    if (typeof v === 'string') chars += v.startsWith('data:image/') ? 0 : v.length;
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.type === 'image_url') images++;
      else for (const [k, x] of Object.entries(o)) if (k !== 'role' && k !== 'type') walk(x);
    }
  };
  walk(b.messages ?? b.input);
  const answer = b.max_completion_tokens ?? b.max_tokens ?? 1024;
  return Math.ceil(chars / 4) + images * 1100 + answer;
}

/** The provider's reported usage, from a JSON answer or the tail of a stream. */
export function usageIn(text: string): number | undefined {
  const p = [...text.matchAll(/"prompt_tokens"\s*:\s*(\d+)/g)].at(-1);
  const c = [...text.matchAll(/"completion_tokens"\s*:\s*(\d+)/g)].at(-1);
  const t = [...text.matchAll(/"total_tokens"\s*:\s*(\d+)/g)].at(-1);
  if (p || c) return Number(p?.[1] ?? 0) + Number(c?.[1] ?? 0);
  return t ? Number(t[1]) : undefined;
}

/** A provider's name for limits: the host of its base URL. */
export function providerOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}

interface Route {
  upstream: string;
  provider: string;
  limits: ProviderLimits;
}

export class ModelGate {
  private readonly routes: Route[] = [];
  private server: http.Server | undefined;
  private port = 0;
  /** Requests relayed and how long they waited for the limiter (for progress and tests). */
  readonly stats = { requests: 0, waitedMs: 0 };

  constructor(private readonly limiter: RateLimiter) {}

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      this.relay(req, res).catch((err: Error) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `sweep model gate: ${err.message}` } }));
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** The base URL a run uses to reach `upstream` under `limits`. */
  route(upstream: string, limits: ProviderLimits): string {
    const u = upstream.replace(/\/+$/, '');
    let i = this.routes.findIndex((r) => r.upstream === u && JSON.stringify(r.limits) === JSON.stringify(limits));
    if (i < 0) i = this.routes.push({ upstream: u, provider: providerOf(u), limits }) - 1;
    return `http://127.0.0.1:${this.port}/r${i}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  private async relay(req: http.IncomingMessage, res: http.ServerResponse) {
    const m = /^\/r(\d+)(\/.*)?$/.exec(req.url ?? '');
    const route = m ? this.routes[Number(m[1])] : undefined;
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req) {
      size += (c as Buffer).length;
      if (size > MAX_BODY) throw new Error('request larger than 64 MiB');
      chunks.push(c as Buffer);
    }
    const body = Buffer.concat(chunks);
    let estimate = 1;
    if (body.length && /json/.test(req.headers['content-type'] ?? '')) {
      try {
        estimate = estimateTokens(JSON.parse(body.toString('utf8')));
      } catch {
        /* not JSON after all: the provider will say so */
      }
    }
    const ctl = new AbortController();
    res.on('close', () => ctl.abort()); // the run gave up (its time limit, a stop): so do we
    const waited = performance.now();
    await this.limiter.acquire(route.provider, route.limits, estimate, ctl.signal);
    this.stats.waitedMs += performance.now() - waited;
    this.stats.requests++;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP_HEADERS.has(k) && typeof v === 'string') headers[k] = v;
    const upstream = await fetch(`${route.upstream}${m![2] ?? ''}`, {
      method: req.method ?? 'GET',
      headers,
      ...(body.length ? { body } : {}),
      signal: ctl.signal,
    });
    const out: Record<string, string> = {};
    upstream.headers.forEach((v, k) => {
      if (!HOP_HEADERS.has(k) && k !== 'content-encoding') out[k] = v;
    });
    res.writeHead(upstream.status, out);
    let tail = '';
    if (upstream.body)
      for await (const chunk of Readable.fromWeb(upstream.body as import('node:stream/web').ReadableStream)) {
        res.write(chunk);
        tail = (tail + (chunk as Buffer).toString('utf8')).slice(-8192);
      }
    res.end();
    const used = usageIn(tail);
    if (used !== undefined) await this.limiter.settle(route.provider, route.limits, used - estimate);
  }
}
