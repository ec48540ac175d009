/**
 * A cross-process lock: an exclusively created lock file holding its owner (pid + process start
 * time + host, ./owner.ts) and a nonce. A lock whose owner is dead (SIGKILLed, crashed, its pid
 * now another process's) is taken over; a live owner is waited for, up to a bound, and then the
 * error names the file and who holds it. `withFileLock(file, fn)` guards a read-change-write of
 * `file` with `<file>.lock`; `tryLock` takes a long-lived lock (a sweep's out folder) or says
 * who holds it.
 *
 * The lock file is born full (a hard link of a written temp file), so a reader never sees it
 * half written; on a filesystem without hard links it is created exclusively, then filled, and
 * an unreadable one is judged by its age. Breaking a dead owner's lock moves it aside and checks
 * that what was moved is the lock judged dead (else it goes back), so two processes recovering
 * the same lock at once do not break each other's fresh one.
 */
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { CodedError } from '../domain.ts';
import { currentOwner, ownerAlive, type Owner } from './owner.ts';

export interface LockOptions {
  /** How long to wait for a live holder before giving up (default 10 s; 0: try once). */
  timeoutMs?: number;
  /** Break a lock this old even when its owner lives (a hung holder); default never. */
  staleMs?: number;
  /** Between tries while waiting (default 5 ms, growing to 50 ms). */
  pollMs?: number;
}

export interface FileLock {
  readonly file: string;
  /** Removes the lock file, only while it is still this holder's. */
  release(): void;
}

/** A live owner kept the lock past the wait (`busy` on the wire); `owner` is who (null when the lock file was unreadable). */
export class LockTimeoutError extends CodedError {
  constructor(
    readonly file: string,
    readonly owner: Owner | null,
    waitedMs: number,
  ) {
    super(
      'busy',
      `${file}: gave up after ${(waitedMs / 1000).toFixed(1)} s waiting for the lock held by ${describeOwner(owner)}; ` +
        `if that process is gone, remove ${lockFileOf(file)}`,
    );
  }
}

export function lockFileOf(file: string): string {
  return `${file}.lock`;
}

function describeOwner(owner: Owner | null): string {
  if (!owner) return 'another process';
  const where = owner.host && owner.host !== os.hostname() ? ` on ${owner.host}` : '';
  return `pid ${owner.pid}${where} (started ${new Date(owner.started).toISOString()})`;
}

/** Who holds a lock file now, if it is held and readable. */
export function lockOwner(lock: string): Owner | null {
  const text = readText(lock);
  return text === undefined ? null : parseOwner(text);
}

/**
 * Takes `lock` (the lock file's own path) once: the lock, or who holds it. A dead owner's lock
 * (or, with `staleMs`, an old one) is taken over.
 */
export function tryLock(lock: string, opts: Pick<LockOptions, 'staleMs'> = {}): FileLock | { held: Owner | null } {
  mkdirSync(path.dirname(lock), { recursive: true });
  const token = JSON.stringify({ ...currentOwner(), nonce: randomBytes(6).toString('hex') });
  for (let i = 0; i < 5; i++) {
    if (tryCreate(lock, token)) return held(lock, token);
    const text = readText(lock);
    if (text === undefined) continue; // released meanwhile: try again
    if (!isStale(lock, text, opts.staleMs)) return { held: parseOwner(text) };
    breakLock(lock, text);
  }
  return { held: lockOwner(lock) };
}

/** Takes `lock` (the lock file's own path), waiting for a live holder up to `timeoutMs` (synchronously). */
export function lockSync(lock: string, opts: LockOptions = {}): FileLock {
  const t0 = Date.now();
  for (let n = 0; ; n++) {
    const r = attempt(lock, opts, t0, n);
    if (typeof r !== 'number') return r;
    sleepSync(r);
  }
}

/** Takes `lock` (the lock file's own path), waiting for a live holder up to `timeoutMs` without blocking the thread. */
export async function lockAsync(lock: string, opts: LockOptions = {}): Promise<FileLock> {
  const t0 = Date.now();
  for (let n = 0; ; n++) {
    const r = attempt(lock, opts, t0, n);
    if (typeof r !== 'number') return r;
    await new Promise((res) => setTimeout(res, r));
  }
}

/** Try `n` of a wait begun at `t0`: the lock, or how long to wait before the next try; throws past the timeout. */
function attempt(lock: string, opts: LockOptions, t0: number, n: number): FileLock | number {
  const timeout = opts.timeoutMs ?? 10_000;
  const r = tryLock(lock, opts);
  if ('release' in r) return r;
  const waited = Date.now() - t0;
  if (waited >= timeout) throw new LockTimeoutError(targetOf(lock), r.held, waited);
  return Math.min(pollDelay(opts, n), timeout - waited);
}

/** Runs `fn` holding `<file>.lock` (a read-change-write of `file`, synchronous). */
export function withFileLockSync<T>(file: string, fn: () => T, opts: LockOptions = {}): T {
  const lock = lockSync(lockFileOf(file), opts);
  try {
    return fn();
  } finally {
    lock.release();
  }
}

/** Runs `fn` holding `<file>.lock`, waiting for it without blocking the thread. */
export async function withFileLock<T>(file: string, fn: () => T | Promise<T>, opts: LockOptions = {}): Promise<T> {
  const lock = await lockAsync(lockFileOf(file), opts);
  try {
    return await fn();
  } finally {
    lock.release();
  }
}

function targetOf(lock: string): string {
  return lock.endsWith('.lock') ? lock.slice(0, -'.lock'.length) : lock;
}

function pollDelay(opts: LockOptions, n: number): number {
  return opts.pollMs ?? Math.min(50, 5 * 2 ** Math.min(n, 4));
}

function held(lock: string, token: string): FileLock {
  return {
    file: lock,
    release() {
      // Only while it is still ours: a hung holder's lock may have been broken and retaken.
      if (readText(lock) === token) rmSync(lock, { force: true });
    },
  };
}

const waitCell = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number) {
  Atomics.wait(waitCell, 0, 0, Math.max(1, ms));
}

/** Creates `lock` with `content` only if it does not exist (a hard link is atomic and born full). */
function tryCreate(lock: string, content: string): boolean {
  const tmp = `${lock}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, lock);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw err;
    // A filesystem without hard links: exclusive create, then fill.
    try {
      const lfd = openSync(lock, 'wx', 0o644);
      try {
        writeSync(lfd, content);
      } finally {
        closeSync(lfd);
      }
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  } finally {
    rmSync(tmp, { force: true });
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function parseOwner(text: string): Owner | null {
  try {
    const o = JSON.parse(text) as Partial<Owner>;
    return o && Number.isInteger(o.pid) && typeof o.started === 'number'
      ? { pid: o.pid!, started: o.started, host: String(o.host ?? '') }
      : null;
  } catch {
    return null;
  }
}

/** An unreadable lock file younger than this is being filled (no hard links); older, it was left half written. */
const UNREADABLE_GRACE_MS = 2000;

function isStale(lock: string, text: string, staleMs: number | undefined): boolean {
  const owner = parseOwner(text);
  if (owner && !ownerAlive(owner)) return true;
  const limit = owner ? staleMs : Math.min(staleMs ?? UNREADABLE_GRACE_MS, UNREADABLE_GRACE_MS);
  if (limit === undefined) return false;
  try {
    return Date.now() - statSync(lock).mtimeMs > limit;
  } catch {
    return false;
  }
}

/** Moves the stale lock aside; if what was moved is not the lock judged stale, puts it back. */
function breakLock(lock: string, judged: string) {
  const aside = `${lock}.stale.${randomBytes(4).toString('hex')}`;
  try {
    renameSync(lock, aside);
  } catch {
    return; // someone else broke it first
  }
  if (readText(aside) !== judged) {
    try {
      linkSync(aside, lock);
    } catch {
      /* the lock was taken again meanwhile: theirs stands */
    }
  }
  rmSync(aside, { force: true });
}
