/**
 * What a crashed Gamepilot process left behind, undone at the next start of any command:
 * processes it suspended are resumed, keys and buttons it held are released. Only entries whose
 * owner is dead are touched, and nothing a live owner also lists: a second instance never thaws
 * a live run's game or lifts its deliberately held keys.
 */
import { existsSync } from 'node:fs';
import { alive, resumePids } from '../../native/process.ts';
import { ownerAlive, processStartMs, type Owner } from '../util/owner.ts';
import type { RegistryEntry } from './owned-registry.ts';
import { heldInputRegistry } from './held-input.ts';
import { releaseHeldInChild, releaseHeldSync, type Released } from './release-input.ts';
import { suspendedRegistry, type SuspendedProcess } from './suspended.ts';

export interface CrashRecovery {
  resumed: number[];
  released: string[];
  /** What could not be undone (kept on disk for the next start) and why. */
  problems: string[];
}

const whose = (owner: Owner | null) => (owner ? `a crashed run (pid ${owner.pid})` : 'an earlier, crashed run');

export interface RecoveryOptions {
  /**
   * Release keys in this process instead of a helper child. The Electron app uses it: it has a
   * display for sure, and its fuses forbid running its binary as plain Node (RunAsNode off).
   */
  releaseInProcess?: boolean;
}

export function recoverCrashLeftovers(
  configDir: string,
  log: (line: string) => void,
  opts: RecoveryOptions = {},
): CrashRecovery {
  const out: CrashRecovery = { resumed: [], released: [], problems: [] };
  const attempt = (what: string, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      out.problems.push(`${what}: ${(err as Error).message}`);
    }
  };
  attempt('resuming suspended processes', () => resumeLeftovers(configDir, log, out));
  attempt('releasing held input', () =>
    releaseLeftovers(configDir, log, out, opts.releaseInProcess ? releaseHeldSync : releaseHeldInChild),
  );
  for (const p of out.problems) log(`warning: ${p}`);
  return out;
}

function splitByOwner<T>(entries: RegistryEntry<T>[]) {
  const live = entries.filter((e) => ownerAlive(e.owner));
  return { live, dead: entries.filter((e) => !live.includes(e)) };
}

/** The very process that was suspended: alive, and not a new one that got its pid since. */
function sameProcess(p: SuspendedProcess): boolean {
  if (!alive(p.pid)) return false;
  const started = p.started === undefined ? undefined : processStartMs(p.pid);
  return started === undefined || Math.abs(started - p.started!) < 1000;
}

function resumeLeftovers(configDir: string, log: (line: string) => void, out: CrashRecovery) {
  const registry = suspendedRegistry(configDir);
  if (!existsSync(registry.file)) return;
  registry.update((entries) => {
    const { live, dead } = splitByOwner(entries);
    const heldByLive = new Set(live.flatMap((e) => e.items.map((i) => i.pid)));
    const kept = [...live];
    for (const e of dead) {
      const pids = e.items.filter((i) => !heldByLive.has(i.pid) && sameProcess(i)).map((i) => i.pid);
      if (!pids.length) continue;
      try {
        resumePids(pids);
      } catch (err) {
        kept.push(e);
        out.problems.push(
          `could not resume ${pids.join(', ')} left suspended by ${whose(e.owner)}: ${(err as Error).message}`,
        );
        continue;
      }
      out.resumed.push(...pids);
      log(`resumed process(es) ${pids.join(', ')} that ${whose(e.owner)} had left suspended`);
    }
    return kept;
  });
}

function releaseLeftovers(
  configDir: string,
  log: (line: string) => void,
  out: CrashRecovery,
  release: (items: string[]) => Released,
) {
  const registry = heldInputRegistry(configDir);
  if (!existsSync(registry.file)) return;
  registry.update((entries) => {
    const { live, dead } = splitByOwner(entries);
    const heldByLive = new Set(live.flatMap((e) => e.items));
    const orphaned = dead.map((e) => ({ owner: e.owner, items: e.items.filter((i) => !heldByLive.has(i)) }));
    const all = [...new Set(orphaned.flatMap((e) => e.items))];
    if (!all.length) return live;
    const r = release(all);
    const done = new Set([...r.released, ...r.unknown]);
    const kept = [...live];
    for (const e of orphaned) {
      const released = e.items.filter((i) => r.released.includes(i));
      if (released.length) log(`released ${released.join(', ')} that ${whose(e.owner)} had left held`);
      const left = e.items.filter((i) => !done.has(i));
      if (left.length) {
        kept.push({ owner: e.owner, items: left });
        out.problems.push(
          `could not release ${left.join(', ')} left held by ${whose(e.owner)}: ${r.error ?? 'the release failed'}`,
        );
      }
    }
    out.released.push(...r.released);
    return kept;
  });
}
