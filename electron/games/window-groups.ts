/**
 * Window hosts run in process groups of their own (so their helpers end with them), which also
 * takes them out of their parent's group: a parent killed by SIGKILL could not end them. A
 * supervisor (`npm start`, scripts/start.mjs) that wants them ended with its child names a
 * folder in GAMEPILOT_WINDOW_GROUPS; each host's group is listed there while it lives, as a file
 * named by the group id holding the leader's start time (so a recycled pid is never signalled).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { processStartMs, procStatFields } from '../util/owner.ts';

const ENV_NAME = 'GAMEPILOT_WINDOW_GROUPS';
const folder = () => process.env[ENV_NAME];

/** Lists a host's group for the supervisor; returns how to take it off the list. */
export function listWindowGroup(pgid: number | undefined): () => void {
  const dir = folder();
  if (!dir || !pgid) return () => {};
  const file = path.join(dir, String(pgid));
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(file, JSON.stringify({ pgid, started: processStartMs(pgid) ?? null }), { mode: 0o600 });
  } catch {
    return () => {}; // the supervisor's folder is gone: nothing to tell it
  }
  return () => rmSync(file, { force: true });
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pgid: number, sig: NodeJS.Signals) {
  try {
    process.kill(-pgid, sig);
  } catch {
    /* already gone */
  }
}

/** SIGTERM (and SIGCONT, for a suspended game) to a process group; SIGKILL if any of it is left after `graceMs`. */
export async function endProcessGroup(pgid: number, graceMs = 3000): Promise<void> {
  signalGroup(pgid, 'SIGTERM');
  signalGroup(pgid, 'SIGCONT');
  const start = Date.now();
  let killed = false;
  // After SIGKILL, a second more for the group to go (its members reaped), then give up waiting.
  while (groupAlive(pgid) && Date.now() - start < graceMs + 1000) {
    if (!killed && Date.now() - start > graceMs) {
      signalGroup(pgid, 'SIGKILL');
      killed = true;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!killed && groupAlive(pgid)) signalGroup(pgid, 'SIGKILL');
}

/**
 * The supervisor's side, for a child given `folder` as GAMEPILOT_WINDOW_GROUPS: ends the window
 * hosts it left listed (a child killed outright cannot close its windows), then removes the
 * folder. A listed group whose leader lives with another start time belongs to a process that got
 * the pid since: left alone. On Linux the groups of processes whose environment names the folder
 * are ended too (a host started just before the kill was never listed). Returns the groups it ended.
 */
export async function endListedWindowGroups(folder: string): Promise<number[]> {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return []; // nothing was listed
  }
  const groups: number[] = [];
  for (const name of names) {
    try {
      const { pgid, started } = JSON.parse(readFileSync(path.join(folder, name), 'utf8')) as {
        pgid: unknown;
        started: unknown;
      };
      if (typeof pgid !== 'number' || !Number.isInteger(pgid) || pgid <= 1) continue;
      const now = processStartMs(pgid);
      if (now !== undefined && typeof started === 'number' && Math.abs(now - started) > 20) continue;
      if (groupAlive(pgid)) groups.push(pgid);
    } catch {
      /* half written or gone: not ours to end */
    }
  }
  for (const g of groupsNaming(folder)) if (!groups.includes(g)) groups.push(g);
  await Promise.all(groups.map((g) => endProcessGroup(g)));
  rmSync(folder, { recursive: true, force: true });
  return groups;
}

/**
 * Linux: the process groups of processes whose environment names `folder` (a host inherits it
 * from the child that started it), other than the caller's own group. A child killed between
 * starting a host and listing its group leaves it unlisted; this still finds it.
 */
function groupsNaming(folder: string): number[] {
  if (process.platform !== 'linux') return [];
  const needle = `\0${ENV_NAME}=${folder}\0`;
  const groupOf = (pid: number | 'self') => Number(procStatFields(pid)[2]); // field 5, pgrp
  let own: number;
  let pids: string[];
  try {
    own = groupOf('self');
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return [];
  }
  const found = new Set<number>();
  for (const pid of pids) {
    try {
      if (!`\0${readFileSync(`/proc/${pid}/environ`, 'latin1')}`.includes(needle)) continue;
      const pgid = groupOf(Number(pid));
      if (Number.isInteger(pgid) && pgid > 1 && pgid !== own) found.add(pgid);
    } catch {
      /* gone, or not ours to read */
    }
  }
  return [...found];
}
