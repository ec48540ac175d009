/**
 * The cross-process lock (electron/util/file-lock.ts) and the sweep's out-folder lock built on
 * it (electron/sweep/pool.ts), with real processes: a holder that is SIGKILLed releases nothing,
 * and its lock is taken over once it is dead; a live holder is waited for up to a bound, or (a
 * sweep) refused at once, and named.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockAsync, lockFileOf, lockOwner, tryLock, withFileLock } from '../../electron/util/file-lock.ts';
import { currentOwner } from '../../electron/util/owner.ts';
import { takeSweepLock } from '../../electron/sweep/pool.ts';
import { spawnTs } from '../helpers/ts-child.ts';

const dir = () => mkdtempSync(path.join(tmpdir(), 'gp-lock-'));

describe('file lock', () => {
  it('is exclusive within a process too; released only by its holder; a wait is bounded and names the file', async () => {
    const file = path.join(dir(), 'data.json');
    const order: string[] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((n) =>
        withFileLock(file, async () => {
          order.push(`${n}+`);
          await new Promise((r) => setTimeout(r, 20));
          order.push(`${n}-`);
        }),
      ),
    );
    expect(order.join(' ')).toMatch(/^(\w)\+ \1- (\w)\+ \2- (\w)\+ \3-$/); // never two inside at once
    const held = await lockAsync(lockFileOf(file));
    expect(lockOwner(lockFileOf(file))).toEqual(currentOwner());
    expect(tryLock(lockFileOf(file))).toEqual({ held: currentOwner() });
    const err = await lockAsync(lockFileOf(file), { timeoutMs: 100 }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/: gave up after \d\.\d s waiting for the lock held by pid \d+ /);
    expect((err as Error).message).toContain(`${file}: gave up after`);
    expect((err as Error).message).toContain(`held by pid ${process.pid} `);
    held.release();
    expect(existsSync(lockFileOf(file))).toBe(false);
  });

  it('takes over a lock whose owner is gone: a pid no process has, or a recycled pid with another start time', () => {
    const d = dir();
    const lock = path.join(d, 'x.lock');
    for (const owner of [
      { pid: 2 ** 22 + 17, started: Date.now(), host: currentOwner().host },
      { ...currentOwner(), started: currentOwner().started - 3_600_000 }, // this pid, an earlier process
    ]) {
      writeFileSync(lock, JSON.stringify(owner));
      const r = tryLock(lock);
      expect('release' in r).toBe(true);
      expect(lockOwner(lock)).toEqual(currentOwner());
      if ('release' in r) r.release();
    }
    expect(readdirSync(d)).toEqual([]);
  });

  it('a holder SIGKILLed mid-hold: its lock is refused while it lives and taken over once it is dead', async () => {
    const file = path.join(dir(), 'store.json');
    const holder = spawnTs('lock-holder.ts', ['file', file]);
    const { owner } = JSON.parse(await holder.line()) as { owner: { pid: number; started: number } };
    expect(owner.pid).toBe(holder.child.pid);
    expect(tryLock(lockFileOf(file))).toEqual({ held: expect.objectContaining({ pid: owner.pid }) });
    holder.child.kill('SIGKILL');
    expect(await holder.exited).toBe('SIGKILL');
    expect(lockOwner(lockFileOf(file))?.pid).toBe(owner.pid); // left behind
    expect(await withFileLock(file, () => 'mine', { timeoutMs: 2000 })).toBe('mine');
    expect(existsSync(lockFileOf(file))).toBe(false);
  }, 60_000);
});

describe('the sweep lock on an out folder', () => {
  it('refuses a second sweep while the first lives; a SIGKILLed sweep’s lock is taken over', async () => {
    const work = path.join(dir(), 'runs', '.sweep');
    mkdirSync(work, { recursive: true });
    const sweep = spawnTs('lock-holder.ts', ['sweep', work]);
    const { lock, owner } = JSON.parse(await sweep.line()) as { lock: string; owner: { pid: number; host: string } };
    expect(lock).toBe(path.join(work, 'lock.json'));
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject(owner);
    expect(() => takeSweepLock(work)).toThrow(
      `another sweep (pid ${owner.pid} on ${owner.host}) is running in ${path.dirname(work)}; wait for it or stop it`,
    );
    sweep.child.kill('SIGKILL');
    expect(await sweep.exited).toBe('SIGKILL');
    expect(existsSync(lock)).toBe(true);
    const unlock = takeSweepLock(work);
    expect(lockOwner(lock)).toEqual(currentOwner());
    unlock();
    expect(existsSync(lock)).toBe(false);
  }, 60_000);
});
