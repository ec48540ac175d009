/**
 * The CLI against a real third-party OpenAI-compatible server: llama.cpp's llama-server
 * (scripts/llama-server.sh builds it) serving a tiny random-weight vision model with its CLIP
 * projector. The model's answers are noise, so these tests check behaviour, never content: a
 * run ends and records every model call; tokens the server generated are counted; each call is
 * bounded by a default output limit and by its own time limit; the memory agent says when the
 * endpoint serves no embeddings; an IDC exploration with a model that never calls tools ends
 * with a reason. A recording proxy between the CLI and the server keeps what each request asked
 * for (its output limit) and what the server answered (its token counts, its errors).
 *
 * Opt-in: skipped unless GAMEPILOT_LLAMA_SERVER, GAMEPILOT_LLAMA_MODEL and
 * GAMEPILOT_LLAMA_MMPROJ are set (.ci/run sets them; docs/testing-real-server.md).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, json, spawnCli } from '../helpers/cli.ts';
import { readRun, type StepRecord } from '../../electron/store/run-store.ts';

const SERVER = process.env.GAMEPILOT_LLAMA_SERVER ?? '';
const MODEL = process.env.GAMEPILOT_LLAMA_MODEL ?? '';
const MMPROJ = process.env.GAMEPILOT_LLAMA_MMPROJ ?? '';
const ENABLED = Boolean(SERVER);
const SKIP_REASON =
  'GAMEPILOT_LLAMA_SERVER is not set: run scripts/llama-server.sh and export what it prints (docs/testing-real-server.md)';

/** The tiny model's context (make-tiny-vlm.py writes 4096); the server is started with it. */
const CONTEXT = 4096;
/** The player's time limit these runs give (--timeout-ms): no call may take longer. */
const CALL_LIMIT_MS = 60_000;
/** The IDC test's output limit for each role it calls (GAMEPILOT_MODEL_LIMITS). */
const IDC_OUTPUT_LIMITS = ['player', 'reflector', 'idc-explorer', 'idc-judge']
  .map((r) => `${r}.maxTokens=256`)
  .join(';');
/** A whole command: generous, the machine is a busy 2-core box. */
const COMMAND_LIMIT_MS = 180_000;

// ---------------------------------------------------------------------------------------------
// llama-server and a recording proxy in front of it

interface Llama {
  port: number;
  args: string[];
  /** From spawn to the first 200 from /health. */
  startupMs: number;
  log: () => string;
  close: () => Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Starts llama-server on a free loopback port with the tiny model and its projector; resolves once /health says ok. */
async function startLlama(opts: { embeddings?: boolean } = {}): Promise<Llama> {
  for (const [name, file] of [
    ['GAMEPILOT_LLAMA_SERVER', SERVER],
    ['GAMEPILOT_LLAMA_MODEL', MODEL],
    ['GAMEPILOT_LLAMA_MMPROJ', MMPROJ],
  ] as const)
    if (!file || !existsSync(file))
      throw new Error(`${name} names no file (${file || 'unset'}): run scripts/llama-server.sh`);
  const port = await freePort();
  const args = [
    ['-m', MODEL],
    ['--mmproj', MMPROJ],
    ['--host', '127.0.0.1'],
    ['--port', String(port)],
    ['--ctx-size', String(CONTEXT)],
    ['--parallel', '1'],
    // One thread: ggml's threads meet at a spin barrier after every layer, so on a busy 2-core
    // machine a descheduled thread stalls the other (measured beside two busy loops: 128 tokens
    // in 5.5–6.1 s with two threads, 2.1–3.0 s with one; quiet, one thread is ~20% slower).
    ['--threads', '1'],
    ['--threads-batch', '1'],
    opts.embeddings ? ['--embeddings'] : [],
  ].flat();
  const started = performance.now();
  const child = spawn(SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (d: Buffer) => {
    log += d.toString();
    if (log.length > 1_000_000) log = log.slice(-500_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const close = () => stopChild(child);
  const deadline = started + 60_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `llama-server exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${log.slice(-4000)}`,
      );
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
      if (res.status === 200)
        return { port, args, startupMs: Math.round(performance.now() - started), log: () => log, close };
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await close();
  throw new Error(`llama-server was not healthy within 60 s:\n${log.slice(-4000)}`);
}

/** One request through the proxy and what the server answered. */
interface Exchange {
  method: string;
  path: string;
  /** The request body (JSON), images replaced by their length. */
  body: any;
  /** The output limit the request asked for (max_tokens or max_completion_tokens). */
  maxTokens: number | undefined;
  tools: boolean;
  stream: boolean;
  status: number;
  ms: number;
  /** Tokens the server reported in its answer (usage, or llama.cpp's timings). */
  reported?: { input?: number; output?: number };
  /** Streamed chunks that carried text. */
  textChunks: number;
  /** What the server's log says it did for this request (see serverTasks). */
  server?: ServerTask;
  /** The server's error: an HTTP error body's message or an in-stream error event's. */
  error?: string;
  /** The client went away before the answer ended. */
  aborted: boolean;
}

const isChat = (e: Exchange) => e.method === 'POST' && e.path.endsWith('/chat/completions');
/**
 * Tokens the server generated for an exchange: its log's count, else what it reported, else the
 * streamed chunks that carried text. (llama.cpp often streams only a few chunks of a long answer
 * and ends with an error event that carries no counts; its log has the truth.)
 */
const generated = (e: Exchange) => e.server?.generated ?? e.reported?.output ?? e.textChunks;

/** One completion as llama-server's log reports it (`release`, and `print_timing` when it ran to its end). */
interface ServerTask {
  task: number;
  /** Tokens generated and the server's time for them (not logged for a request the client gave up on). */
  generated?: number;
  evalMs?: number;
  /** Tokens in the slot's context when it stopped; truncated: it stopped because the context was full. */
  contextTokens: number;
  truncated: boolean;
}

/** The completions llama-server logged, in order (one at a time: --parallel 1); each has one `release` line. */
function serverTasks(log: string): ServerTask[] {
  const tasks = new Map<number, ServerTask>();
  const task = (id: number) => {
    const t = tasks.get(id) ?? { task: id, contextTokens: 0, truncated: false };
    tasks.set(id, t);
    return t;
  };
  for (const line of log.split('\n')) {
    const ev = /\| task (\d+) \|\s+eval time =\s+([\d.]+) ms \/\s+(\d+) tokens/.exec(line);
    if (ev) Object.assign(task(Number(ev[1])), { evalMs: Number(ev[2]), generated: Number(ev[3]) });
    const rel = /\| task (\d+) \| stop processing: n_tokens = (\d+), truncated = (\d)/.exec(line);
    if (rel) Object.assign(task(Number(rel[1])), { contextTokens: Number(rel[2]), truncated: rel[3] === '1' });
  }
  return [...tasks.values()];
}

function stripImages(v: unknown): unknown {
  if (typeof v === 'string') return v.startsWith('data:') && v.length > 200 ? `<data URL, ${v.length} chars>` : v;
  if (Array.isArray(v)) return v.map(stripImages);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, stripImages(x)]));
  return v;
}

function countsOf(o: any): { input?: number; output?: number } | undefined {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const input = num(o?.usage?.prompt_tokens) ?? num(o?.timings?.prompt_n);
  const output = num(o?.usage?.completion_tokens) ?? num(o?.timings?.predicted_n);
  return input === undefined && output === undefined ? undefined : { input, output };
}

/** What an answer (SSE or one JSON body) says: token counts, text chunks, an error. */
function analyse(e: Exchange, text: string) {
  const objects: any[] = [];
  if (e.stream && /^(data|error):/m.test(text)) {
    for (const line of text.split('\n')) {
      const m = /^(?:data|error):\s?(.*)$/.exec(line);
      if (!m || m[1] === '[DONE]') continue;
      try {
        objects.push(JSON.parse(m[1]!));
      } catch {
        /* not JSON: not ours to judge here */
      }
    }
  } else {
    try {
      objects.push(JSON.parse(text));
    } catch {
      if (e.status >= 400) e.error = text.slice(0, 500);
    }
  }
  for (const o of objects) {
    const delta = o?.choices?.[0]?.delta;
    if (delta?.content || delta?.reasoning_content) e.textChunks++;
    const c = countsOf(o) ?? countsOf(o?.error);
    if (c) e.reported = { ...e.reported, ...Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined)) };
    if (o?.error) e.error = String(o.error.message ?? JSON.stringify(o.error)).slice(0, 500);
  }
}

class RecordingProxy {
  readonly exchanges: Exchange[] = [];
  private server?: http.Server;
  port = 0;

  constructor(private readonly upstream: number) {}

  get baseURL() {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.forward(req, res, Buffer.concat(chunks)));
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) {
    let parsed: any;
    try {
      parsed = body.length ? JSON.parse(body.toString()) : undefined;
    } catch {
      parsed = undefined;
    }
    const limit = parsed?.max_tokens ?? parsed?.max_completion_tokens;
    const e: Exchange = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      body: stripImages(parsed),
      maxTokens: typeof limit === 'number' ? limit : undefined,
      tools: Array.isArray(parsed?.tools) && parsed.tools.length > 0,
      stream: parsed?.stream === true,
      status: 0,
      ms: 0,
      textChunks: 0,
      aborted: false,
    };
    this.exchanges.push(e);
    const t0 = performance.now();
    let text = '';
    let finished = false;
    const up = http.request(
      {
        host: '127.0.0.1',
        port: this.upstream,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: `127.0.0.1:${this.upstream}` },
      },
      (upRes) => {
        e.status = upRes.statusCode ?? 0;
        res.writeHead(e.status, upRes.headers);
        upRes.on('data', (c: Buffer) => {
          if (text.length < 16 * 1024 * 1024) text += c.toString();
          res.write(c);
        });
        upRes.on('end', () => {
          finished = true;
          e.ms = Math.round(performance.now() - t0);
          analyse(e, text);
          res.end();
        });
        upRes.on('error', () => res.destroy());
      },
    );
    up.on('error', (err) => {
      e.error = `proxy: ${err.message}`;
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    res.on('close', () => {
      if (finished) return;
      e.aborted = true;
      e.ms = Math.round(performance.now() - t0);
      analyse(e, text);
      up.destroy();
    });
    up.end(body);
  }

  async close() {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

// ---------------------------------------------------------------------------------------------

interface CallRecord {
  role: string;
  ok: boolean;
  ms: number;
  error?: string;
  tokens?: { input: number; output: number; estimated?: true };
}
const callsOf = (s: StepRecord) => (s.model_calls ?? []) as CallRecord[];
const tmp = (prefix: string) => mkdtempSync(path.join(tmpdir(), prefix));
const report = (r: Bounded) => `${Math.round(r.ms / 1000)} s, ${r.timedOut ? 'KILLED at the limit' : `exit ${r.code}`}`;

/** One line per exchange, for a failure message and the log. */
function listExchanges(exchanges: Exchange[]): string {
  return exchanges
    .map(
      (e, i) =>
        `#${i} ${e.method} ${e.path} ${e.status} ${e.ms} ms max_tokens=${e.maxTokens ?? '-'}${e.tools ? ' tools' : ''} generated=${generated(e)}${e.server ? ` (log: ${e.server.generated ?? '?'} in ${e.server.evalMs === undefined ? '?' : Math.round(e.server.evalMs)} ms, context ${e.server.contextTokens}${e.server.truncated ? ' FULL' : ''})` : ''} reported=${JSON.stringify(e.reported ?? null)}${e.aborted ? ' ABORTED' : ''}${e.error ? ` error="${e.error.slice(0, 160)}"` : ''}`,
    )
    .join('\n');
}

interface Bounded extends CliResult {
  ms: number;
  /** Killed at the limit: the command hung or took far too long. */
  timedOut: boolean;
}

/** `gamepilot …` as runCli runs it, but a command past its limit is killed and reported, not thrown. */
function runBounded(args: string[], limitMs: number, env: Record<string, string> = {}): Promise<Bounded> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawnCli(args, env);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, limitMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut, ms: Math.round(performance.now() - t0) });
    });
  });
}

let llama: Llama | undefined;
let proxy: RecordingProxy | undefined;

/**
 * Clears the proxy's record and returns a function that, after a command, gives each chat
 * exchange what the server's log says of it (one logged completion per chat request).
 */
function record(): () => Exchange[] {
  proxy!.exchanges.length = 0;
  const from = llama!.log().length;
  return () => {
    const chats = proxy!.exchanges.filter(isChat);
    const tasks = serverTasks(llama!.log().slice(from));
    if (tasks.length === chats.length) {
      for (const [i, e] of chats.entries()) e.server = tasks[i];
    } else
      process.stderr.write(
        `real-server: ${chats.length} chat requests but ${tasks.length} completions in the server's log; counts from the answers only\n`,
      );
    return chats;
  };
}

beforeAll(async () => {
  if (!ENABLED) return;
  llama = await startLlama();
  proxy = await new RecordingProxy(llama.port).start();
  process.stderr.write(`real-server: llama-server healthy in ${llama.startupMs} ms on port ${llama.port}\n`);
}, 90_000);

afterAll(async () => {
  await proxy?.close();
  await llama?.close();
  if (llama) {
    const file = path.join(tmp('gp-llama-log-'), 'llama-server.log');
    writeFileSync(file, llama.log());
    process.stderr.write(`real-server: llama-server's log is in ${file}\n`);
  }
});

describe('the CLI against llama-server, a real OpenAI-compatible server', () => {
  it('plays a few steps of 2048: the run ends, every call is recorded and bounded, generated tokens are counted', async (ctx) => {
    if (!ENABLED) ctx.skip(SKIP_REASON);
    const p = proxy!;
    const settle = record();
    const out = tmp('gp-llama-run-');
    const r = await runBounded(
      [
        'run',
        '--game',
        '2048',
        '--agent',
        'vlm',
        '--model',
        'tiny-vlm',
        '--base-url',
        p.baseURL,
        '--api-key',
        'sk-none',
        '--episodes',
        '1',
        '--max-steps',
        '3',
        '--timeout-ms',
        String(CALL_LIMIT_MS),
        '--runs-dir',
        out,
        '--json',
      ],
      COMMAND_LIMIT_MS,
    );
    // The pre-flight asks for the model by name once, one token (llama-server lists it only
    // under its file name): that call comes first and is no step's.
    const exchanged = settle();
    const probes = exchanged.findIndex((e) => e.maxTokens !== 1);
    expect(probes, listExchanges(exchanged)).toBe(1);
    const chats = exchanged.slice(probes);
    process.stderr.write(`real-server run: ${report(r)}\n${listExchanges(p.exchanges)}\n`);
    expect(r.timedOut, `killed after ${COMMAND_LIMIT_MS / 1000} s\n${r.stderr}`).toBe(false);
    const { meta, steps } = readRun(json(r).run_dir);
    expect(steps).toHaveLength(3);
    // The noise model's answers may all be errors of the server's: a run that never got an
    // answer is failed (exit 1), one that got any completes (exit 0) — whichever the calls say.
    const answered = steps.flatMap(callsOf).some((c) => c.ok);
    expect([r.code, meta.status], r.stderr).toEqual(answered ? [0, 'completed'] : [1, 'failed']);
    if (!answered) expect(meta.error).toMatch(/never answered/);

    // Every step either acted or says why not; every step recorded its model calls.
    for (const s of steps) {
      expect(s.actions.length > 0 || s.errors.length > 0, `step ${s.step}: neither actions nor an error`).toBe(true);
      expect(callsOf(s).length, `step ${s.step} recorded no model call`).toBeGreaterThan(0);
      for (const c of callsOf(s)) expect(c.role).toBe('player');
    }
    // One recorded attempt per request the server received, in order; none outlived its own limit.
    const calls = steps.flatMap(callsOf);
    expect(calls.length, listExchanges(chats)).toBe(chats.length);
    for (const c of calls) expect(c.ms).toBeLessThanOrEqual(CALL_LIMIT_MS + 2000);
    // The server's own errors (e.g. "…does not match the expected peg-native format") are the step's.
    chats.forEach((e, i) => {
      if (!e.error) return;
      expect(calls[i]!.ok).toBe(false);
      expect(calls[i]!.error).toContain(e.error.slice(0, 60));
      const step = steps.find((s) => callsOf(s).includes(calls[i]!))!;
      expect(step.errors.join('\n')).toContain(e.error.slice(0, 60));
    });

    // Tokens: a call in which the server generated tokens (its log says how many) records
    // tokens, also when the stream then ended in an error: what the server reported where it
    // reported a count, else an estimate marked as one. (llama.cpp's error event carries no
    // count and it streams only part of a long answer, so an estimate can be far below the log's.)
    chats.forEach((e, i) => {
      if (generated(e) === 0) return;
      const rec = calls[i]!;
      expect(
        rec.tokens?.output ?? 0,
        `call ${i}: the server generated ${generated(e)} tokens, none recorded\n${listExchanges(chats)}`,
      ).toBeGreaterThan(0);
      if (e.reported?.output !== undefined) expect(rec.tokens!.output).toBe(e.reported.output);
      else expect(rec.tokens!.estimated, `call ${i}: a count the server never sent is not marked estimated`).toBe(true);
    });
    const stepOutput = steps.reduce((n, s) => n + (s.tokens?.output ?? 0), 0);
    expect(meta.totals.tokens_out).toBe(stepOutput);
    if (chats.some((e) => generated(e) > 0)) expect(meta.totals.tokens_out).toBeGreaterThan(0);

    // Each call is bounded by a default output limit: the request says how many tokens it may
    // take, the server kept to it, and the answer ended by that limit (or the model's end) — not
    // by running the model's context full (≈ 4,000 tokens, ≈ 10 s a call here). How long a
    // bounded call takes is printed above, not asserted: a busy machine may slow any call.
    for (const [i, e] of chats.entries()) {
      expect(e.maxTokens, `call ${i} sent no max_tokens\n${listExchanges(chats)}`).toBeTypeOf('number');
      expect(generated(e)).toBeLessThanOrEqual(e.maxTokens!);
      expect(e.server?.truncated, `call ${i} ran the context full\n${listExchanges(chats)}`).not.toBe(true);
    }
  });

  it('memory agent: an endpoint without embeddings makes retrieval lexical, and the run says so', async (ctx) => {
    if (!ENABLED) ctx.skip(SKIP_REASON);
    const p = proxy!;
    const settle = record();
    const cfg = tmp('gp-llama-mem-cfg-');
    const out = tmp('gp-llama-mem-out-');
    const r = await runBounded(
      [
        'run',
        '--game',
        '2048',
        '--agent',
        'memory',
        '--model',
        'tiny-vlm',
        '--base-url',
        p.baseURL,
        '--api-key',
        'sk-none',
        '--embedding-model',
        'tiny-embed',
        '--memory-scope',
        'real-server',
        '--episodes',
        '1',
        '--max-steps',
        '2',
        '--timeout-ms',
        String(CALL_LIMIT_MS),
        // What this test is about is the fallback; the default output limits are the first test's.
        '--max-tokens',
        '256',
        '--runs-dir',
        out,
        '--json',
      ],
      COMMAND_LIMIT_MS,
      { GAMEPILOT_CONFIG_DIR: cfg },
    );
    settle();
    process.stderr.write(`real-server memory run: ${report(r)}\n${listExchanges(p.exchanges)}\n`);
    expect(r.timedOut, `killed after ${COMMAND_LIMIT_MS / 1000} s\n${r.stderr}`).toBe(false);
    const { meta, steps } = readRun(json(r).run_dir);
    expect(steps).toHaveLength(2);
    // Completed when the noise model answered once, failed (exit 1) when it never did.
    const answered = steps.flatMap(callsOf).some((c) => c.ok);
    expect([r.code, meta.status], r.stderr).toEqual(answered ? [0, 'completed'] : [1, 'failed']);
    for (const s of steps)
      expect(s.actions.length > 0 || s.errors.length > 0, `step ${s.step}: neither actions nor an error`).toBe(true);

    // The endpoint was asked for embeddings (the run learns at its first step whether they
    // work) and llama-server, started without --embeddings, refused.
    const embeddings = p.exchanges.filter((e) => e.path.endsWith('/embeddings'));
    expect(
      embeddings.length,
      `no embeddings request reached the server\n${listExchanges(p.exchanges)}\n${r.stderr}`,
    ).toBeGreaterThan(0);
    expect(embeddings[0]!.status).toBeGreaterThanOrEqual(400);

    // The fallback is said: on stderr, in run.json, in every step from the first, and the
    // refused attempts are recorded as the embeddings role's calls.
    expect(r.stderr).toMatch(/warning: long-term memory: the embeddings endpoint failed \(.+\); retrieval is lexical/);
    expect(meta.memory).toMatchObject({ scope: 'real-server', retrieval: 'lexical' });
    expect(meta.memory!.retrieval_note).toMatch(/the embeddings endpoint failed/);
    expect(meta.memory!.retrieval_note).toContain(String(embeddings[0]!.status));
    for (const s of steps) expect((s.memory as { retrieval: string }).retrieval).toBe('lexical');
    const runCalls = path.join(json(r).run_dir, 'model-calls.jsonl');
    const recorded = [
      ...steps.flatMap(callsOf),
      ...(existsSync(runCalls)
        ? readFileSync(runCalls, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as CallRecord)
        : []),
    ];
    const refused = recorded.filter((c) => c.role === 'embeddings');
    expect(refused.length, 'no embeddings call recorded in steps.jsonl or model-calls.jsonl').toBeGreaterThan(0);
    for (const c of refused) expect(c.ok).toBe(false);
    // Nothing in the store claims an embedding model (the noise may have saved nothing at all).
    const store = path.join(cfg, 'memory', 'real-server.json');
    if (existsSync(store)) expect(JSON.parse(readFileSync(store, 'utf8')).embedding ?? null).toBeNull();
  });

  it('IDC: the explorer gets no tool calls from the model and ends with a stated reason, in bounded time', async (ctx) => {
    if (!ENABLED) ctx.skip(SKIP_REASON);
    const p = proxy!;
    const settle = record();
    const out = tmp('gp-llama-idc-');
    const r = await runBounded(
      [
        'idc',
        '--game',
        'fifteen',
        '--rounds',
        '1',
        '--episodes',
        '1',
        '--max-steps',
        '1',
        '--held-out',
        '1',
        '--judge-tries',
        '1',
        '--model',
        'tiny-vlm',
        '--base-url',
        p.baseURL,
        '--api-key',
        'sk-none',
        '--runs-dir',
        out,
        '--json',
      ],
      COMMAND_LIMIT_MS,
      // What this test is about is how the explorer ends; the default output limits are the first
      // test's. IDC makes seven or more calls, and at 2,048 tokens each (the defaults) the noise
      // model's answers alone take ~15 s a call quiet and ~30 s beside two busy loops.
      { GAMEPILOT_MODEL_LIMITS: IDC_OUTPUT_LIMITS },
    );
    settle();
    process.stderr.write(`real-server idc: ${report(r)}\n${listExchanges(p.exchanges)}\n${r.stderr.slice(-3000)}\n`);
    expect(r.timedOut, `killed after ${COMMAND_LIMIT_MS / 1000} s\n${r.stderr}`).toBe(false);
    // When every player call of a round was an error of the server's (the noise model's usual
    // answer), that round never got an answer: it is no point of the curve, and the IDC fails
    // saying so. Round 0 failing so comes before any reflection; a later round (or a held-out
    // play) failing so comes after round 0 answered and its reflection was asked. Otherwise
    // the IDC completes, as below.
    const never = /(round (\d+)|held-out [^:]+) failed: the model never answered/.exec(r.stderr);
    if (r.code === 1 && never) {
      const explorer = p.exchanges.filter((e) => isChat(e) && e.tools);
      if (never[2] === '0') expect(explorer).toEqual([]);
      else expect(r.stderr, 'round 0 answered, then its reflection came').toMatch(/IDC round 1: /);
      return;
    }
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res.curve).toHaveLength(2);
    expect(existsSync(path.join(res.run_dir, 'idc.json'))).toBe(true);
    // The explorer offered its tools; the model used none.
    const explorer = p.exchanges.filter((e) => isChat(e) && e.tools);
    expect(explorer.length, listExchanges(p.exchanges)).toBeGreaterThan(0);
    const round0 = res.rounds[0];
    expect(round0.tool_calls ?? 0).toBe(0);
    // It ended with a reason, recorded on the round and printed: a staged reflection without
    // tools and why, or why reflection failed — in the server's own words where it said why.
    if (round0.reflector_mode === 'staged (no tool calling)') {
      expect(r.stderr).toMatch(/reflector: .+; using a staged reflection without tools/);
    } else {
      expect(round0.error, JSON.stringify(round0)).toMatch(/^reflection failed: .+/);
      const said = explorer.find((e) => e.error)?.error;
      if (said) expect(round0.error).toContain(said.slice(0, 60));
      expect(r.stderr).toContain(round0.error);
    }
    // Every call asked for the output limit the environment set (GAMEPILOT_MODEL_LIMITS wins).
    // (The pre-flight's one-token call for the model by name aside.)
    const runCalls = p.exchanges.filter(isChat).filter((e) => e.maxTokens !== 1);
    for (const e of runCalls) expect(e.maxTokens, listExchanges(p.exchanges)).toBe(256);
    // No call outlived its role's limit: the explorer's 180 s, the player's 120 s.
    for (const e of explorer) expect(e.ms).toBeLessThan(180_000);
    for (const round of res.rounds as { run_dir: string }[])
      for (const c of readRun(round.run_dir).steps.flatMap(callsOf)) expect(c.ms).toBeLessThanOrEqual(122_000);
  });
});
