/**
 * A real S3-compatible server for tests (tests/helpers/s3-server-main.ts: s3rver, SigV4 checked)
 * on a loopback port, in its own process: started, killed like a crash (SIGKILL) and started
 * again on the same port and folder, as a storage server that went away and came back.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { listObjects, openBucket } from '../../electron/store/bucket.ts';
import { keyOf } from '../../electron/store/bucket-url.ts';
import { ROOT } from './cli.ts';
import { onJsonLines } from './json-lines.ts';
import { freePort } from './redis.ts';

/** One line of the server's log: an answered request, or the request it holds. */
export interface S3Event {
  req?: string;
  path?: string;
  status?: number;
  held?: string;
  corrupted?: string;
}

export const S3_ACCESS_KEY = 'S3RVER';
export const S3_SECRET = 'S3RVER';

export class S3Server {
  private proc: ChildProcess | undefined;
  private port = 0;
  /** Every request answered (or held), across restarts, in order. */
  readonly events: S3Event[] = [];
  private readonly listeners: ((e: S3Event) => void)[] = [];
  private markers = 0;

  constructor(
    readonly dir: string,
    readonly bucket: string,
  ) {}

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The environment a Gamepilot process reads the bucket's endpoint and credentials from. */
  env(secret = S3_SECRET): Record<string, string> {
    return {
      AWS_ENDPOINT_URL: this.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: S3_ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: secret,
    };
  }

  /**
   * Starts (or starts again, same port and data). `hold`: a "METHOD /path" pattern whose first
   * request is never answered; `corrupt`: a "bucket/key" pattern whose first object is stored
   * with bytes it was not sent.
   */
  async start(opts: { hold?: string; corrupt?: string } = {}): Promise<void> {
    if (!this.port) this.port = await freePort();
    const args = ['--dir', this.dir, '--bucket', this.bucket, '--port', String(this.port)];
    if (opts.hold) args.push('--hold', opts.hold);
    if (opts.corrupt) args.push('--corrupt', opts.corrupt);
    // s3rver's continuation tokens (a listing longer than a page) are DES-encrypted, which
    // OpenSSL 3 keeps in its legacy provider: without it every truncated listing answers 500.
    const proc = spawn(
      process.execPath,
      [
        '--openssl-legacy-provider',
        '--import',
        'tsx',
        path.join(ROOT, 'tests', 'helpers', 's3-server-main.ts'),
        ...args,
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.proc = proc;
    let stderr = '';
    proc.stderr!.on('data', (d) => (stderr += d));
    await new Promise<void>((resolve, reject) => {
      onJsonLines(proc.stdout!, (e) => {
        if (typeof e.port === 'number') return resolve();
        this.events.push(e);
        for (const l of this.listeners) l(e);
      });
      proc.once('exit', (code) => reject(new Error(`the S3 server exited (${code}) before listening: ${stderr}`)));
    });
  }

  /**
   * Waits until every request answered so far is in `events`. A request's line is written when
   * its answer is handed to the OS, so it can reach the test after the client has the answer; a
   * marker request made now is answered after them, and its line comes after theirs.
   */
  async settled(): Promise<void> {
    const marker = `/settled-marker-${++this.markers}`;
    await fetch(`${this.endpoint}${marker}`).catch(() => {});
    await this.waitFor((e) => e.path === marker, 10_000);
  }

  /** Calls `fn` with each request the server answers (or holds) from now on, across restarts. */
  listen(fn: (e: S3Event) => void): void {
    this.listeners.push(fn);
  }

  /** Waits until a logged event satisfies `pred` (failing after `ms`); returns it. */
  async waitFor(pred: (e: S3Event) => boolean, ms = 120_000): Promise<S3Event> {
    const until = Date.now() + ms;
    for (;;) {
      const hit = this.events.find(pred);
      if (hit) return hit;
      if (Date.now() > until) throw new Error(`the S3 server saw no such request in ${ms} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /**
   * While the server is down: resets each connection made to its port until `n` have come, then
   * leaves the port closed again. An outage that lasts until clients have tried `n` times, so a
   * test waits on their retries rather than on the clock.
   */
  async refuse(n: number, ms = 120_000): Promise<void> {
    let count = 0;
    let reached: () => void = () => {};
    const enough = new Promise<void>((r) => (reached = r));
    const door = net.createServer((socket) => {
      socket.resetAndDestroy();
      if (++count >= n) reached();
    });
    await new Promise<void>((resolve, reject) => door.once('error', reject).listen(this.port, '127.0.0.1', resolve));
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        enough,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`only ${count} of ${n} connections came in ${ms} ms`)), ms);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      await new Promise<void>((r) => door.close(() => r()));
    }
  }

  /** Ends the server with `signal` (SIGKILL: a crash mid-request). */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill(signal);
    await exited;
  }

  /** Object keys PUT with success, in the order the server finished them (multipart parts and completions left out). */
  putKeys(): string[] {
    const prefix = `/${this.bucket}/`;
    return this.events
      .filter((e) => e.req === 'PUT' && e.status === 200 && e.path?.startsWith(prefix))
      .map((e) => decodeURIComponent(e.path!.slice(prefix.length)));
  }
}

/**
 * Every object under `url` written into `dir` as a folder (the test's own reader: what the
 * bucket holds, whatever Gamepilot's readers make of it). Returns the number of objects.
 */
export async function downloadBucket(url: string, dir: string): Promise<number> {
  const b = openBucket(url);
  const all = await listObjects(b);
  for (const o of all) {
    const r = await b.client.send(new GetObjectCommand({ Bucket: b.bucket, Key: keyOf(b.prefix, o.key) }));
    const file = path.join(dir, ...o.key.split('/'));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, await r.Body!.transformToByteArray());
  }
  return all.length;
}
