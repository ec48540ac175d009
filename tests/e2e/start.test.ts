/**
 * `npm start` (scripts/start.mjs), spawned for real: it reports how the app or shell ended — a
 * crash is a failure, not a success — cleans up what the crashed shell had opened, and says
 * what is missing when there is no display at all.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';

const START = path.join(ROOT, 'scripts', 'start.mjs');

function startScript(env: NodeJS.ProcessEnv, cwd: string) {
  const child = spawn(process.execPath, [START], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal })),
  );
  return { child, exited, out: () => stdout, err: () => stderr };
}

/** Pids whose process group is `pgid` (Linux /proc). */
function groupMembers(pgid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') pids.push(Number(name));
    } catch {
      /* gone meanwhile */
    }
  }
  return pids;
}

const childrenOf = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

describe('npm start', () => {
  it('with no display, says what is missing and exits non-zero', async () => {
    const env = { ...process.env };
    delete env.DISPLAY;
    delete env.WAYLAND_DISPLAY;
    const s = startScript(env, mkdtempSync(path.join(tmpdir(), 'gp-start-')));
    const timer = setTimeout(() => s.child.kill('SIGKILL'), 30_000);
    const { code } = await s.exited;
    clearTimeout(timer);
    expect(code, s.err()).toBe(1);
    expect(s.err()).toMatch(/neither DISPLAY nor WAYLAND_DISPLAY is set/);
  });

  it('exits non-zero when the shell it started is killed, and ends what that shell had opened', {
    timeout: 280_000,
  }, async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'gp-start-'));
    const s = startScript({ ...process.env, GAMEPILOT_CONFIG_DIR: path.join(cwd, 'config') }, cwd);
    let shellPid = 0;
    let windowGroups: number[] = [];
    try {
      // The web shell's first line on stdout is its URL: it is up.
      await expect
        .poll(() => s.out(), { timeout: 120_000, interval: 200 })
        .toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
      shellPid = childrenOf(s.child.pid!)[0] ?? 0;
      expect(shellPid).toBeGreaterThan(0);
      // The demo game window and the UI window are up: window hosts run in process groups of their
      // own, listed for npm start in the folder it names in the shell's environment.
      const listed = readFileSync(`/proc/${shellPid}/environ`, 'utf8')
        .split('\0')
        .find((v) => v.startsWith('GAMEPILOT_WINDOW_GROUPS='))
        ?.slice('GAMEPILOT_WINDOW_GROUPS='.length);
      expect(listed).toBeTruthy();
      await expect
        .poll(() => readdirSync(listed!).length, { timeout: 120_000, interval: 200 })
        .toBeGreaterThanOrEqual(2);
      windowGroups = readdirSync(listed!).map(Number);
      for (const g of windowGroups) expect(groupMembers(g).length).toBeGreaterThan(0);
      process.kill(shellPid, 'SIGKILL');
      const { code } = await s.exited;
      expect(code, s.err()).toBe(128 + 9);
      expect(s.err()).toMatch(/web shell was killed by SIGKILL/);
      // Nothing the shell had opened outlives it: neither its own group nor the windows' groups.
      await expect.poll(() => groupMembers(shellPid), { timeout: 15_000, interval: 200 }).toEqual([]);
      for (const g of windowGroups)
        await expect.poll(() => groupMembers(g), { timeout: 15_000, interval: 200 }).toEqual([]);
      expect(existsSync(listed!)).toBe(false);
    } finally {
      s.child.kill('SIGKILL');
      for (const g of shellPid ? [shellPid, ...windowGroups] : windowGroups) {
        try {
          process.kill(-g, 'SIGKILL');
        } catch {
          /* nothing left */
        }
      }
    }
  });
});
