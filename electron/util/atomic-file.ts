/**
 * Whole-file replacement that a crash cannot tear: write a uniquely named temp file beside
 * the target, fsync it, rename it over the target. A failure (disk full, permissions) removes
 * the temp file and rethrows with the target's path in the message.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

export interface AtomicWriteOptions {
  /** File mode for a new file (e.g. 0o600 for settings). */
  mode?: number;
  /** Skip fsync for files rewritten very often where a lost update is harmless. */
  fsync?: boolean;
}

export function writeFileAtomic(file: string, data: string | Buffer, opts: AtomicWriteOptions = {}): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  let fd: number | undefined;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    fd = openSync(tmp, 'wx', opts.mode ?? 0o644);
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
    if (opts.fsync !== false) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, file);
  } catch (err) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        /* already closed */
      }
    }
    try {
      rmSync(tmp, { force: true });
    } catch {
      /* no temp file to remove (its folder could not be made) */
    }
    const e = err as NodeJS.ErrnoException;
    const why =
      e.code === 'ENOSPC'
        ? 'the disk is full'
        : e.code === 'EACCES' || e.code === 'EPERM'
          ? 'permission denied'
          : e.message;
    const wrapped = new Error(`cannot write ${file}: ${why}`) as NodeJS.ErrnoException;
    if (e.code !== undefined) wrapped.code = e.code;
    throw wrapped;
  }
}
