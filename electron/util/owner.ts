/**
 * Who owns a record on disk (a run, a suspended pid, a held key): a process id plus that
 * process's start time, so a recycled pid is not mistaken for the owner. An owner whose
 * process is gone (or whose pid now belongs to another process) is dead, and what it left
 * behind may be recovered.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { win32ProcessStartMs } from '../../native/win32-process.ts';

export interface Owner {
  pid: number;
  /** Epoch ms when the process started (rounded to 10 ms on Linux). */
  started: number;
  host: string;
}

let bootMs: number | undefined;
function linuxBootMs(): number {
  if (bootMs === undefined) {
    const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1];
    bootMs = Number(btime) * 1000;
  }
  return bootMs;
}

/**
 * Linux: the fields of /proc/PID/stat after the command name (field 3, state, first), which may
 * hold spaces and parentheses; throws when the process is gone.
 */
export function procStatFields(pid: number | 'self'): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Start time of a process in epoch ms, or undefined when it does not exist (or cannot be read). */
export function processStartMs(pid: number): number | undefined {
  if (process.platform === 'linux') {
    try {
      const ticks = Number(procStatFields(pid)[19]); // field 22 (starttime), in clock ticks since boot
      return linuxBootMs() + (ticks * 1000) / 100; // USER_HZ is 100 on every Linux ABI Node supports
    } catch {
      return undefined;
    }
  }
  if (process.platform === 'win32') return win32ProcessStartMs(pid);
  if (pid === process.pid) return Math.round(Date.now() - process.uptime() * 1000);
  return undefined;
}

let self: Owner | undefined;
export function currentOwner(): Owner {
  self ??= {
    pid: process.pid,
    started: Math.round(processStartMs(process.pid) ?? Date.now() - process.uptime() * 1000),
    host: os.hostname(),
  };
  return self;
}

/** Whether a process with this pid is running (one we may not signal counts). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the owner's process still runs. Records from another host are treated as alive
 * (a shared folder: not ours to recover). Where start times cannot be read, a live pid counts.
 */
export function ownerAlive(owner: Owner | undefined | null): boolean {
  if (!owner || !Number.isInteger(owner.pid) || owner.pid <= 0) return false;
  if (owner.host && owner.host !== os.hostname()) return true;
  if (owner.pid === process.pid) return owner.started === currentOwner().started;
  if (!pidAlive(owner.pid)) return false;
  const started = processStartMs(owner.pid);
  return started === undefined || Math.abs(started - owner.started) < 2000;
}
