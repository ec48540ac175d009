/**
 * Freezes a game's process tree for the latency modes, with every suspended pid written to
 * `suspended.json` (config folder) under this process's owner before it is stopped, so that
 * should this process die, the next start resumes exactly what it left stopped — and nothing a
 * live run froze.
 */
import path from 'node:path';
import { listProcesses, processTree, refusal, resumePids, suspendPids } from '../../native/process.ts';
import { processStartMs } from '../util/owner.ts';
import { OwnedRegistry } from './owned-registry.ts';

export const SUSPENDED_FILE = 'suspended.json';

/** A suspended pid and its start time, so a recycled pid is never resumed by mistake. */
export interface SuspendedProcess {
  pid: number;
  started?: number;
}

const isSuspendedProcess = (v: unknown): v is SuspendedProcess => {
  const p = v as SuspendedProcess;
  return (
    !!p &&
    typeof p === 'object' &&
    Number.isInteger(p.pid) &&
    p.pid > 1 &&
    (p.started === undefined || typeof p.started === 'number')
  );
};

export function suspendedRegistry(configDir: string): OwnedRegistry<SuspendedProcess> {
  return new OwnedRegistry<SuspendedProcess>(path.join(configDir, SUSPENDED_FILE), {
    note: 'processes Gamepilot processes suspended; what a dead process left stopped is resumed at the next start',
    isItem: isSuspendedProcess,
    // Before owners were recorded the file was {"pids": [...]}.
    legacy: (raw) =>
      Array.isArray(raw.pids)
        ? raw.pids.filter((p): p is number => Number.isInteger(p) && p > 1).map((pid) => ({ pid }))
        : [],
  });
}

export class ProcessFreezer {
  private stopped = new Map<number, SuspendedProcess>();

  constructor(private readonly registry: OwnedRegistry<SuspendedProcess>) {}

  /** Suspends `pid` and its children; throws with the reason when refused. Returns the pids stopped. */
  async suspend(pid: number): Promise<number[]> {
    const procs = listProcesses();
    const why = refusal(pid, procs);
    if (why) throw new Error(`will not suspend: ${why}`);
    const tree = processTree(pid, procs).filter((p) => !refusal(p, procs));
    const added = tree.filter((p) => !this.stopped.has(p));
    for (const p of added) this.stopped.set(p, { pid: p, ...optionalStart(p) });
    try {
      this.registry.setMine([...this.stopped.values()]); // on disk before anything stops
    } catch (err) {
      for (const p of added) this.stopped.delete(p);
      throw err;
    }
    // Only what is not stopped yet: NtSuspendProcess nests (two suspends need two resumes).
    await suspendPids(added);
    return tree;
  }

  /** Resumes everything this freezer stopped. Synchronous on POSIX so exit handlers can use it. Never throws. */
  resumeAll(): number[] {
    const pids = [...this.stopped.keys()].reverse();
    if (!pids.length) return [];
    try {
      resumePids(pids);
    } catch {
      /* Windows: a process could not be opened or resumed; the entry stays for the next start */
      return [];
    }
    this.stopped.clear();
    try {
      this.registry.setMine([]);
    } catch {
      /* they run again; at worst the next start sends SIGCONT to running processes */
    }
    return pids;
  }

  get suspended(): number[] {
    return [...this.stopped.keys()];
  }
}

function optionalStart(pid: number): { started?: number } {
  const started = processStartMs(pid);
  return started === undefined ? {} : { started };
}
