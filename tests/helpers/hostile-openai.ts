/**
 * A local chat-completions server that misbehaves on purpose (next to fake-openai.ts, the same
 * allowed stand-in): it stalls after the headers, trickles forever, answers 429 with a long
 * Retry-After, streams 50 MB (in many chunks, or as one single SSE line), sends garbage or
 * broken JSON after `data:`. It records when each client hung up and how much it sent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Hostility =
  /** A normal streamed answer. */
  | { kind: 'answer'; text: string }
  /** 200 and SSE headers (and optionally one role chunk), then nothing, forever. */
  | { kind: 'stall-after-headers'; firstChunk?: boolean }
  /** An SSE comment every `intervalMs`, never an answer: never idle, never done. */
  | { kind: 'trickle'; intervalMs: number }
  /** An error status, e.g. 429 with `retry-after: 40`. */
  | { kind: 'status'; status: number; headers?: Record<string, string> }
  /** `bytes` of answer: as many ordinary chunks, or as one single `data:` line. */
  | { kind: 'huge'; bytes: number; singleLine?: boolean }
  /** Lines that are not SSE at all, then the end of the body. */
  | { kind: 'garbage' }
  /** One good chunk, then a `data:` line whose JSON is cut off. */
  | { kind: 'broken-json' }
  /** An error object inside the stream, as some providers send mid-answer. */
  | { kind: 'stream-error'; message: string };

export interface HostileRequest {
  index: number;
  body: any;
  at: number;
  /** When the client closed the connection (or we ended it). */
  closedAt?: number;
  /** Whether the client hung up before we finished. */
  hungUp: boolean;
  bytesSent: number;
}

const PIECE = 64 * 1024;

export class HostileOpenAI {
  readonly requests: HostileRequest[] = [];
  private server: http.Server;
  private timers = new Set<NodeJS.Timeout>();
  port = 0;

  /** GET /models calls answered from `models`, kept apart from the hostile requests. */
  readonly modelListings: number[] = [];

  constructor(
    private behave: (index: number, body: any) => Hostility,
    /**
     * The models GET /models lists, as a well-behaved server would (the pre-flight asks before a
     * run); without them /models is one more request that gets the hostile behaviour.
     */
    readonly models?: readonly string[],
  ) {
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  get baseURL() {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  setBehaviour(b: (index: number, body: any) => Hostility) {
    this.behave = b;
    this.requests.length = 0;
  }

  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close() {
    for (const t of this.timers) clearInterval(t);
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  /** Resolves when `n` requests have arrived. */
  async untilRequests(n: number, timeoutMs = 30_000) {
    const t0 = Date.now();
    while (this.requests.length < n) {
      if (Date.now() - t0 > timeoutMs)
        throw new Error(`only ${this.requests.length} of ${n} requests arrived within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.requests[n - 1]!;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    if (this.models && req.method === 'GET' && req.url?.endsWith('/models')) {
      this.modelListings.push(Date.now());
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data: this.models.map((id) => ({ id, object: 'model' })) }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: any = null;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      /* recorded as null */
    }
    const rec: HostileRequest = { index: this.requests.length, body, at: Date.now(), hungUp: false, bytesSent: 0 };
    this.requests.push(rec);
    let finished = false;
    res.on('error', () => {});
    res.on('close', () => {
      rec.closedAt = Date.now();
      rec.hungUp = !finished;
    });
    const write = async (text: string | Buffer): Promise<boolean> => {
      if (res.destroyed) return false;
      rec.bytesSent += Buffer.byteLength(text);
      if (!res.write(text)) {
        await new Promise<void>((r) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            r();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
      return !res.destroyed;
    };
    const end = (text = '') => {
      finished = true;
      rec.bytesSent += Buffer.byteLength(text);
      res.end(text);
    };
    const base = {
      id: `chatcmpl-h${rec.index}`,
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: body?.model ?? 'x',
    };
    const event = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const sse = () =>
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });

    const h = this.behave(rec.index, body);
    switch (h.kind) {
      case 'answer': {
        sse();
        for (const piece of h.text.match(/.{1,12}/gs) ?? []) if (!(await write(event({ content: piece })))) return;
        await write(event({}, 'stop'));
        return end('data: [DONE]\n\n');
      }
      case 'stall-after-headers':
        sse();
        if (h.firstChunk) await write(event({ role: 'assistant', content: '' }));
        else res.flushHeaders();
        return; // and never another byte
      case 'trickle': {
        sse();
        const t = setInterval(() => void write(': still thinking\n\n'), h.intervalMs);
        this.timers.add(t);
        res.once('close', () => clearInterval(t));
        return;
      }
      case 'status':
        res.writeHead(h.status, { 'content-type': 'application/json', ...h.headers });
        return end(JSON.stringify({ error: { message: `hostile ${h.status}`, type: 'test' } }));
      case 'huge': {
        sse();
        if (h.singleLine) {
          const head = `data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"`;
          if (!(await write(head))) return;
          const fill = Buffer.alloc(PIECE, 'x');
          for (let sent = 0; sent < h.bytes; sent += PIECE) if (!(await write(fill))) return;
          await write('"}}]}\n\n');
          return end('data: [DONE]\n\n');
        }
        const piece = event({ content: 'x'.repeat(PIECE - 300) });
        for (let sent = 0; sent < h.bytes; sent += piece.length) if (!(await write(piece))) return;
        await write(event({}, 'stop'));
        return end('data: [DONE]\n\n');
      }
      case 'garbage':
        sse();
        await write('this is not server-sent events\n{"choices": nope}\n<html>502 Bad Gateway</html>\n\n');
        return end('more garbage without a field name\n\n');
      case 'broken-json':
        sse();
        await write(event({ role: 'assistant', content: '### Reasoning\n' }));
        await write(
          'data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"cut\n\n',
        );
        return end('data: [DONE]\n\n');
      case 'stream-error':
        sse();
        await write(event({ role: 'assistant', content: '' }));
        return end(`data: ${JSON.stringify({ error: { message: h.message, type: 'server_error' } })}\n\n`);
    }
  }
}
