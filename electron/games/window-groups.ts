/**
 * Window hosts run in process groups of their own (so their helpers end with them), which also
 * takes them out of their parent's group: a parent killed by SIGKILL could not end them. A
 * supervisor (`npm start`, scripts/start.mjs) that wants them ended with its child names a
 * folder in GAMEPILOT_WINDOW_GROUPS; each host's group is listed there while it lives, as a file
 * named by the group id holding the leader's start time (so a recycled pid is never signalled).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { processStartMs } from '../util/owner.ts';

const folder = () => process.env.GAMEPILOT_WINDOW_GROUPS;

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
