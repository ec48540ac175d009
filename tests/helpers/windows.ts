import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createWindowManager, findWindow, type WindowInfo } from '../../native/index.ts';
import { CHROMIUM_FLAGS, findBrowser } from '../../electron/games/launcher.ts';

/** Starts a real program and waits for its window to appear. */
export async function startWindow(cmd: string, args: string[], title: RegExp, timeoutMs = 20_000): Promise<{ child: ChildProcess; window: WindowInfo }> {
  const child = spawn(cmd, args, { stdio: 'ignore', env: { ...process.env, NO_AT_BRIDGE: '1', GTK_A11Y: 'none' } });
  const wm = createWindowManager();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${cmd} exited with ${child.exitCode}`);
    const w = await findWindow(wm, title);
    if (w) return { child, window: w };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`${cmd}: no window matching ${title} within ${timeoutMs} ms`);
}

/** A plain Chromium app window filled with one colour: an obstacle or a decoy. */
export function solidWindow(color: string, title: string, geometry: { x: number; y: number; width: number; height: number }) {
  const html = `<title>${title}</title><body style="margin:0;background:${color}"></body>`;
  const profile = mkdtempSync(path.join(tmpdir(), 'gp-solid-'));
  return startWindow(findBrowser()!, [
    ...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, `--window-size=${geometry.width},${geometry.height}`,
    `--window-position=${geometry.x},${geometry.y}`, `--app=data:text/html,${encodeURIComponent(html)}`,
  ], new RegExp(title));
}

export async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}
