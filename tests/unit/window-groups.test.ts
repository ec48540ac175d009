/**
 * A supervisor ends the window hosts a child killed outright left behind: those listed in its
 * GAMEPILOT_WINDOW_GROUPS folder, and (Linux) those started but not yet listed when the child
 * died, found by the folder named in their environment. Its own process group is never touched.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { endListedWindowGroups, listWindowGroup } from '../../electron/games/window-groups.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A stand-in host: a detached process group (as launcher.ts starts them) with the folder in its environment. */
function host(folder: string) {
  const child = spawn('sleep', ['60'], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, GAMEPILOT_WINDOW_GROUPS: folder },
  });
  const exited = new Promise((r) => child.once('exit', r));
  return { pid: child.pid!, exited };
}

describe.runIf(process.platform === 'linux')('ending a killed child’s window hosts', () => {
  it('ends a listed host and one never listed, and nothing of its own group', async () => {
    const folder = path.join(mkdtempSync(path.join(tmpdir(), 'gp-groups-')), 'groups');
    const listed = host(folder);
    const unlisted = host(folder);
    const elsewhere = host(`${folder}-other`);
    const previous = process.env.GAMEPILOT_WINDOW_GROUPS;
    process.env.GAMEPILOT_WINDOW_GROUPS = folder;
    try {
      listWindowGroup(listed.pid);
    } finally {
      if (previous === undefined) delete process.env.GAMEPILOT_WINDOW_GROUPS;
      else process.env.GAMEPILOT_WINDOW_GROUPS = previous;
    }
    const ended = await endListedWindowGroups(folder);
    expect(ended.sort()).toEqual([listed.pid, unlisted.pid].sort());
    await Promise.all([listed.exited, unlisted.exited]);
    expect(alive(elsewhere.pid)).toBe(true); // another folder's host is not this supervisor's
    expect(alive(process.pid)).toBe(true);
    process.kill(-elsewhere.pid, 'SIGKILL');
    await elsewhere.exited;
  });
});
