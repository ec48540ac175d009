/**
 * Per-provider rate limits (requests and tokens per minute) shared by every worker of a sweep:
 * two token buckets a provider, refilled continuously. Workers ask before each model request
 * (`acquire`, which waits until both buckets hold enough) and settle the estimate against the
 * tokens the provider reports afterwards. In-process for the local pool; in Redis (one Lua
 * script, atomic) for queue workers on many machines — the same interface, the same numbers.
 */
import type { Redis } from 'ioredis';

export interface ProviderLimits {
  rpm?: number | undefined;
  tpm?: number | undefined;
}

export interface RateLimiter {
  /** Waits until `tokens` (an estimate) and one request may go to `provider` under `limits`. */
  acquire(provider: string, limits: ProviderLimits, tokens: number, signal?: AbortSignal): Promise<void>;
  /** The request used `delta` more tokens than estimated (negative: fewer). */
  settle(provider: string, limits: ProviderLimits, delta: number): Promise<void>;
}

/** The limits that apply to a provider: its own entry, else "default", else none. */
export function limitsFor(table: Record<string, ProviderLimits> | undefined, provider: string): ProviderLimits {
  return table?.[provider] ?? table?.default ?? {};
}

interface Bucket {
  level: number;
  at: number;
}

/** Level of a bucket of `capacity` refilling at capacity per minute, `now` ms later. */
function refill(b: Bucket, capacity: number, now: number): Bucket {
  return { level: Math.min(capacity, b.level + ((now - b.at) * capacity) / 60_000), at: now };
}

/** How long until a bucket holds `need` (ms). */
function waitFor(b: Bucket, capacity: number, need: number): number {
  return b.level >= need ? 0 : Math.ceil(((need - b.level) * 60_000) / capacity);
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('stopped'));
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(new Error('stopped'));
      },
      { once: true },
    );
  });

export class LocalRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, { req: Bucket; tok: Bucket }>();
  constructor(private readonly now: () => number = Date.now) {}

  private state(provider: string, l: ProviderLimits) {
    let s = this.buckets.get(provider);
    if (!s) {
      const t = this.now();
      // Full at the start: a provider's limit allows a first minute's worth at once.
      s = { req: { level: l.rpm ?? 0, at: t }, tok: { level: l.tpm ?? 0, at: t } };
      this.buckets.set(provider, s);
    }
    return s;
  }

  /** Takes from the buckets if both hold enough; otherwise how long to wait (ms). */
  tryTake(provider: string, l: ProviderLimits, tokens: number): number {
    if (!l.rpm && !l.tpm) return 0;
    const s = this.state(provider, l);
    const t = this.now();
    if (l.rpm) s.req = refill(s.req, l.rpm, t);
    if (l.tpm) s.tok = refill(s.tok, l.tpm, t);
    const need = l.tpm ? Math.min(tokens, l.tpm) : 0; // a request larger than a minute's tokens waits for a full bucket
    const wait = Math.max(l.rpm ? waitFor(s.req, l.rpm, 1) : 0, l.tpm ? waitFor(s.tok, l.tpm, need) : 0);
    if (wait > 0) return wait;
    if (l.rpm) s.req.level -= 1;
    if (l.tpm) s.tok.level -= need;
    return 0;
  }

  async acquire(provider: string, limits: ProviderLimits, tokens: number, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const wait = this.tryTake(provider, limits, tokens);
      if (wait === 0) return;
      await sleep(Math.min(wait, 5000), signal);
    }
  }

  async settle(provider: string, l: ProviderLimits, delta: number): Promise<void> {
    const s = this.buckets.get(provider);
    if (s && l.tpm) s.tok.level = Math.min(l.tpm, s.tok.level - delta);
  }
}

/**
 * KEYS[1] requests bucket, KEYS[2] tokens bucket (hashes: level, at); ARGV rpm, tpm, tokens, now.
 * Returns 0 when taken, else the ms to wait. Redis runs it atomically: one answer for all workers.
 */
const TAKE = `
local rpm, tpm, need, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local function load(key, cap)
  local v = redis.call('HMGET', key, 'level', 'at')
  local level, at = tonumber(v[1]), tonumber(v[2])
  if not level then return cap end
  return math.min(cap, level + (now - at) * cap / 60000)
end
local r = rpm > 0 and load(KEYS[1], rpm) or 0
local t = tpm > 0 and load(KEYS[2], tpm) or 0
need = math.min(need, tpm)
local wait = 0
if rpm > 0 and r < 1 then wait = math.max(wait, math.ceil((1 - r) * 60000 / rpm)) end
if tpm > 0 and t < need then wait = math.max(wait, math.ceil((need - t) * 60000 / tpm)) end
if wait > 0 then return wait end
if rpm > 0 then redis.call('HSET', KEYS[1], 'level', r - 1, 'at', now); redis.call('PEXPIRE', KEYS[1], 120000) end
if tpm > 0 then redis.call('HSET', KEYS[2], 'level', t - need, 'at', now); redis.call('PEXPIRE', KEYS[2], 120000) end
return 0
`;
const SETTLE = `
local tpm, delta, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local v = redis.call('HMGET', KEYS[1], 'level', 'at')
local level, at = tonumber(v[1]), tonumber(v[2])
if not level then return 0 end
level = math.min(tpm, level + (now - at) * tpm / 60000)
redis.call('HSET', KEYS[1], 'level', math.min(tpm, level - delta), 'at', now)
redis.call('PEXPIRE', KEYS[1], 120000)
return 0
`;

export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'gamepilot:ratelimit',
  ) {}

  private keys(provider: string): [string, string] {
    return [`${this.prefix}:${provider}:requests`, `${this.prefix}:${provider}:tokens`];
  }

  async acquire(provider: string, l: ProviderLimits, tokens: number, signal?: AbortSignal): Promise<void> {
    if (!l.rpm && !l.tpm) return;
    for (;;) {
      // Redis's clock, so machines with skewed clocks share one bucket.
      const [sec, usec] = await this.redis.time();
      const now = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
      const wait = Number(await this.redis.eval(TAKE, 2, ...this.keys(provider), l.rpm ?? 0, l.tpm ?? 0, tokens, now));
      if (wait === 0) return;
      await sleep(Math.min(wait, 5000), signal);
    }
  }

  async settle(provider: string, l: ProviderLimits, delta: number): Promise<void> {
    if (!l.tpm || delta === 0) return;
    const [sec, usec] = await this.redis.time();
    await this.redis.eval(
      SETTLE,
      1,
      this.keys(provider)[1],
      l.tpm,
      delta,
      Number(sec) * 1000 + Math.floor(Number(usec) / 1000),
    );
  }
}
