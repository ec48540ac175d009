/**
 * A local OpenAI-compatible chat server for tests (the only stand-in allowed): it records
 * every request and answers from a script, streamed as server-sent events or as one JSON.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedReply {
  text?: string;
  status?: number;
  delayMs?: number;
  headers?: Record<string, string>;
  /** Reasoning tokens streamed before the answer (as `reasoning_content`). */
  thinking?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Pause between streamed chunks, to watch streaming happen. */
  chunkDelayMs?: number;
  /** Tool calls to return instead of text (non-streamed requests). */
  toolCalls?: { name: string; arguments: unknown }[];
}

export interface RecordedRequest {
  body: any;
  headers: http.IncomingHttpHeaders;
  at: number;
}

export type Responder = (body: any, index: number) => ScriptedReply | Promise<ScriptedReply>;

export class FakeOpenAI {
  readonly requests: RecordedRequest[] = [];
  /** GET /models calls (connection tests), kept apart so chat request indices stay as they were. */
  readonly modelListings: RecordedRequest[] = [];
  private server: http.Server;
  port = 0;
  /** Simulated network time: every request (the model list too) waits this long before it is answered. */
  networkMs = 0;
  /** POST /embeddings calls, kept apart so chat request indices stay as they were. */
  readonly embeddingRequests: RecordedRequest[] = [];
  /** Answer /embeddings with this status instead (e.g. 404: an endpoint that serves none). */
  embeddingsStatus: number | undefined;

  /**
   * The models GET /models lists. A test that calls another model says so here, as a real
   * server would list it; the pre-flight refuses a model the endpoint does not list.
   */
  models: string[];
  /** Refuse (404, as OpenAI does) a chat or embeddings request for a model `models` does not list. */
  refuseUnlisted = false;
  /** Extra fields of a model's /models entry, e.g. `{ max_model_len: 32768 }` as vLLM reports its context. */
  modelFields: Record<string, Record<string, unknown>> = {};

  constructor(
    private responder: Responder,
    models: readonly string[] = ['test-vlm'],
  ) {
    this.models = [...models];
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  get baseURL() {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  setResponder(r: Responder) {
    this.responder = r;
  }

  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close() {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  /** The image data URLs in a request's last user message. */
  static images(body: any): string[] {
    const last = [...body.messages].reverse().find((m: any) => m.role === 'user');
    return (Array.isArray(last?.content) ? last.content : [])
      .filter((p: any) => p.type === 'image_url')
      .map((p: any) => p.image_url.url);
  }

  /** With `refuseUnlisted`: a request for a model not listed is answered 404 (recorded first). */
  private refusedUnlisted(body: any, res: http.ServerResponse): boolean {
    if (!this.refuseUnlisted || this.models.includes(body.model)) return false;
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end(
        JSON.stringify({ error: { message: `The model \`${body.model}\` does not exist`, code: 'model_not_found' } }),
      );
    return true;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    if (this.networkMs) await new Promise((r) => setTimeout(r, this.networkMs));
    if (req.method === 'GET' && req.url?.endsWith('/models')) {
      this.modelListings.push({ body: null, headers: req.headers, at: Date.now() });
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          object: 'list',
          data: this.models.map((id) => ({ id, object: 'model', ...this.modelFields[id] })),
        }),
      );
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end('{"error":{"message":"bad json"}}');
      return;
    }
    if (req.url?.endsWith('/embeddings')) {
      this.embeddingRequests.push({ body, headers: req.headers, at: Date.now() });
      if (this.refusedUnlisted(body, res)) return;
      if (this.embeddingsStatus) {
        res
          .writeHead(this.embeddingsStatus, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `scripted ${this.embeddingsStatus}`, type: 'test' } }));
        return;
      }
      const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          object: 'list',
          model: body.model,
          data: inputs.map((text, i) => ({ object: 'embedding', index: i, embedding: hashedEmbedding(String(text)) })),
          usage: { prompt_tokens: inputs.join(' ').length, total_tokens: inputs.join(' ').length },
        }),
      );
      return;
    }
    const index = this.requests.length;
    this.requests.push({ body, headers: req.headers, at: Date.now() });
    if (this.refusedUnlisted(body, res)) return;
    const reply = await this.responder(body, index);
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (res.destroyed) return;
    if (reply.status && reply.status >= 400) {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify({ error: { message: `scripted ${reply.status}`, type: 'test' } }));
      return;
    }
    const text = reply.text ?? '';
    const usage = reply.usage ?? { prompt_tokens: 1000, completion_tokens: Math.ceil(text.length / 4) };
    const base = { id: `chatcmpl-${index}`, created: Math.floor(Date.now() / 1000), model: body.model };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const message = reply.toolCalls?.length
        ? {
            role: 'assistant',
            content: null,
            tool_calls: reply.toolCalls.map((c, k) => ({
              id: `call_${index}_${k}`,
              type: 'function',
              function: { name: c.name, arguments: JSON.stringify(c.arguments) },
            })),
          }
        : { role: 'assistant', content: text };
      res.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message, finish_reason: reply.toolCalls?.length ? 'tool_calls' : 'stop' }],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (obj: unknown) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      send({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
    chunk({ role: 'assistant', content: '' });
    for (const piece of (reply.thinking ?? '').match(/.{1,12}/gs) ?? []) chunk({ reasoning_content: piece });
    for (const piece of text.match(/.{1,12}/gs) ?? []) {
      if (reply.chunkDelayMs) await new Promise((r) => setTimeout(r, reply.chunkDelayMs));
      if (res.destroyed) return;
      chunk({ content: piece });
    }
    chunk({}, 'stop');
    if (body.stream_options?.include_usage)
      send({
        ...base,
        object: 'chat.completion.chunk',
        choices: [],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
    res.end('data: [DONE]\n\n');
  }
}

/** A well-formed answer in the house format. */
export function answer(reasoning: string, actions: unknown[]): string {
  return `### Reasoning\n${reasoning}\n\n### Actions\n${JSON.stringify(actions)}`;
}

/** Dimensions of the test server's embeddings. */
export const EMBEDDING_DIMS = 256;

/**
 * A deterministic embedding: a bag of lower-case words (2+ letters) hashed into a fixed-size
 * vector, normalised, so texts sharing words are similar (cosine = their word overlap).
 */
export function hashedEmbedding(text: string): number[] {
  const v = new Array<number>(EMBEDDING_DIMS).fill(0);
  for (const w of text.toLowerCase().match(/[a-z0-9]{2,}/g) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
    v[(h >>> 0) % EMBEDDING_DIMS]! += 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}
