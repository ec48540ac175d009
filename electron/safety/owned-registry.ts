/**
 * A registry file of things a process must undo should it die (suspended pids, held keys):
 * one entry per owner (pid + start time, electron/util/owner.ts). Several Gamepilot processes
 * may share the file: each replaces only its own entry, and every read-change-write happens
 * under a lock file, so no live owner's entries are ever dropped. All of it is synchronous, so
 * process `exit` handlers can use it.
 */
import { mkdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { lockSync } from '../util/file-lock.ts';
import { currentOwner, type Owner } from '../util/owner.ts';

export interface RegistryEntry<T> {
  /** null for entries written before owners were recorded: treated as dead. */
  owner: Owner | null;
  items: T[];
}

export interface RegistryFormat<T> {
  /** Says in the file what it is for, for a person who finds it. */
  note: string;
  isItem: (v: unknown) => v is T;
  /** Items of an older, ownerless layout of the same file, if there was one. */
  legacy?: (raw: Record<string, unknown>) => T[];
}

/** A lock is only held for one read-change-write (milliseconds); one this old belongs to a hung process. */
const LOCK_STALE_MS = 10_000;

export function sameOwner(a: Owner | null, b: Owner | null): boolean {
  return !!a && !!b && a.pid === b.pid && a.started === b.started && a.host === b.host;
}

export class OwnedRegistry<T> {
  constructor(
    readonly file: string,
    private readonly format: RegistryFormat<T>,
  ) {}

  /** Every entry on disk now (no lock: a snapshot for looking, not for changing). */
  read(): RegistryEntry<T>[] {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch {
      return [];
    }
    let raw: Record<string, unknown>;
    try {
      raw = JSON.parse(text) as Record<string, unknown>;
      if (!raw || typeof raw !== 'object') throw new Error('not an object');
    } catch (err) {
      // Never silently lose what a crash left behind: keep the bad file for a person to read.
      const aside = `${this.file}.corrupt`;
      try {
        renameSync(this.file, aside);
        process.emitWarning(`${this.file} was unreadable (${(err as Error).message}); moved to ${aside}`);
      } catch {
        /* someone else moved it first */
      }
      return [];
    }
    if (!Array.isArray(raw.entries)) {
      const items = this.format.legacy?.(raw) ?? [];
      return items.length ? [{ owner: null, items }] : [];
    }
    const out: RegistryEntry<T>[] = [];
    for (const e of raw.entries as unknown[]) {
      const entry = e as { owner?: unknown; items?: unknown };
      if (!entry || !Array.isArray(entry.items)) continue;
      const o = entry.owner as Owner | null | undefined;
      const owner =
        o && typeof o === 'object' && Number.isInteger(o.pid) && typeof o.started === 'number'
          ? { pid: o.pid, started: o.started, host: String(o.host ?? '') }
          : null;
      const items = entry.items.filter(this.format.isItem);
      if (items.length) out.push({ owner, items });
    }
    return out;
  }

  /** Replaces this process's own entry with `items` (removing it when empty); others are kept as they are. */
  setMine(items: T[]): void {
    const me = currentOwner();
    this.update((entries) => [
      ...entries.filter((e) => !sameOwner(e.owner, me)),
      ...(items.length ? [{ owner: me, items }] : []),
    ]);
  }

  /** Runs `change` on the entries under the lock and writes what it returns. */
  update(change: (entries: RegistryEntry<T>[]) => RegistryEntry<T>[]): RegistryEntry<T>[] {
    let lock: { release(): void };
    try {
      mkdirSync(path.dirname(this.file), { recursive: true });
      // A dead owner's lock, or one held past 10 s (a hung holder), is taken over.
      lock = lockSync(`${this.file}.lock`, { staleMs: LOCK_STALE_MS, timeoutMs: LOCK_STALE_MS * 2, pollMs: 2 });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      const why =
        e.code === 'ENOSPC'
          ? 'the disk is full'
          : e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS'
            ? 'permission denied'
            : e.message;
      throw Object.assign(new Error(`cannot write ${this.file}: ${why}`), { code: e.code });
    }
    try {
      const before = this.read();
      const after = change(before).filter((e) => e.items.length > 0);
      if (JSON.stringify(after) !== JSON.stringify(before)) {
        // No fsync: these records describe live processes and the X server's key state, which a
        // machine crash wipes anyway; a killed process still leaves its page cache to the kernel.
        writeFileAtomic(this.file, JSON.stringify({ note: this.format.note, entries: after }), { fsync: false });
      }
      return after;
    } finally {
      lock.release();
    }
  }
}
