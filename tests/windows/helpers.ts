/**
 * Shared by the Windows backend's tests (node:test, run by scripts/test-windows.mjs: under Wine
 * on Linux, or directly on a Windows machine). Nothing here assumes Wine: the game is whatever
 * GAMEPILOT_TEST_GAME names (default winemine.exe, Wine's Minesweeper; on Windows, a copy of
 * it or any Minesweeper-like program), and the independent reference capture is an outside
 * observer when GAMEPILOT_SCREEN_OBSERVER names one, else nut-js (libnut's own GDI grab).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Rect, WindowInfo } from '../../native/types.ts';
import type { Win32WindowManager } from '../../native/win32.ts';
import { win32 } from '../../native/win32-api.ts';
import { win32Processes } from '../../native/win32-process.ts';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it returns something truthy; throws with `what` after `ms`. */
export async function waitFor<T>(what: string, probe: () => Promise<T> | T, ms = 15_000): Promise<NonNullable<T>> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(50);
  }
}

export const GAME = process.env.GAMEPILOT_TEST_GAME ?? 'winemine.exe';

export interface Game {
  window: WindowInfo;
  pid: number;
  close(): void;
}

/**
 * Starts the game the way a person would (through `start`, so it is no child of ours: the
 * suspend guard refuses our own descendants) and waits for its new window.
 */
export async function launchGame(wm: Win32WindowManager): Promise<Game> {
  const image = path.basename(GAME).toLowerCase();
  const before = new Set((await wm.list()).map((w) => w.id));
  await startDetached();
  const window = await waitFor(`a new ${image} window`, async () => {
    const names = new Map(win32Processes().map((p) => [p.pid, p.name.toLowerCase()]));
    return (await wm.list()).find((w) => !before.has(w.id) && names.get(w.pid) === image && !w.minimized);
  });
  // Winemine shows its window at the default size and then sizes it to the board, later on a
  // busy machine: wait until it waits for input, and its client area holds still for 300 ms.
  waitForInputIdle(window.pid, 10_000);
  let last = JSON.stringify(window.bounds);
  const settled = await waitFor('the new window to keep its size', async () => {
    await sleep(300);
    const now = await wm.get(window.id);
    const same = now && JSON.stringify(now.bounds) === last;
    last = JSON.stringify(now?.bounds);
    return same ? now : undefined;
  });
  return {
    window: settled,
    pid: settled.pid,
    close: () => {
      try {
        process.kill(settled.pid);
      } catch {
        /* gone already */
      }
    },
  };
}

/**
 * `start "" GAME` through cmd.exe, until cmd.exe has exited. Under Wine on a loaded machine
 * (load 7–8 on 2 cores) creating the cmd.exe process has failed now and then (spawn UNKNOWN):
 * up to three tries, half a second apart.
 */
async function startDetached(tries = 3): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await new Promise<void>((resolve, reject) => {
        const starter = spawn('cmd.exe', ['/d', '/c', `start "" "${GAME}"`], {
          stdio: 'ignore',
          windowsVerbatimArguments: true,
          windowsHide: true,
        });
        starter.once('error', reject);
        starter.once('exit', () => resolve());
      });
      return;
    } catch (err) {
      if (attempt >= tries) throw new Error(`cannot start ${GAME} through cmd.exe (${tries} tries): ${err}`);
      await sleep(500);
    }
  }
}

/** WaitForInputIdle: the process has set itself up and waits for input (or `ms` passed). */
function waitForInputIdle(pid: number, ms: number) {
  const api = win32();
  const user32 = api.koffi.load('user32.dll');
  const WaitForInputIdle = user32.func('uint32_t __stdcall WaitForInputIdle(void *process, uint32_t ms)');
  const SYNCHRONIZE_QUERY_INFORMATION = 0x0010_0000 | 0x0400;
  const h = api.OpenProcess(SYNCHRONIZE_QUERY_INFORMATION, false, pid);
  if (!h) return;
  try {
    WaitForInputIdle(h, ms);
  } finally {
    api.CloseHandle(h);
  }
}

export interface Pixels {
  data: Buffer;
  width: number;
  height: number;
}

/** Pixels whose colour differs (alpha ignored: GDI and libnut leave it 0 or 255 as they like). */
export function differingPixels(a: Pixels, b: Pixels, area?: Rect): number {
  if (a.width !== b.width || a.height !== b.height)
    throw new Error(`sizes differ: ${a.width}×${a.height} vs ${b.width}×${b.height}`);
  const r = area ?? { x: 0, y: 0, width: a.width, height: a.height };
  let n = 0;
  for (let y = r.y; y < r.y + r.height; y++)
    for (let x = r.x; x < r.x + r.width; x++) {
      const i = (y * a.width + x) * 4;
      if (a.data[i] !== b.data[i] || a.data[i + 1] !== b.data[i + 1] || a.data[i + 2] !== b.data[i + 2]) n++;
    }
  return n;
}

/** Distinct colours in a frame: a blank (all black, all one colour) capture has one. */
export function colourCount(p: Pixels): number {
  const seen = new Set<number>();
  for (let i = 0; i < p.data.length; i += 4) seen.add(p.data.readUIntLE(i, 3));
  return seen.size;
}

let observed = 0;
/**
 * The same screen region captured by someone else: the runner's X11 capture under Wine (a
 * request file in GAMEPILOT_SCREEN_OBSERVER, answered with raw BGRA), else nut-js in this
 * process. Returns who answered, for the test's message.
 */
export async function referenceGrab(region: Rect): Promise<Pixels & { by: string }> {
  const dir = process.env.GAMEPILOT_SCREEN_OBSERVER;
  if (dir) {
    mkdirSync(dir, { recursive: true });
    const name = `${process.pid}-${++observed}`;
    // Renamed into place so the observer never reads half a request.
    writeFileSync(path.join(dir, `${name}.tmp`), JSON.stringify(region));
    renameSync(path.join(dir, `${name}.tmp`), path.join(dir, `${name}.request.json`));
    const done = path.join(dir, `${name}.done`);
    await waitFor('the screen observer', () => existsSync(done), 20_000);
    const answer = JSON.parse(readFileSync(done, 'utf8')) as { error?: string; by: string };
    if (answer.error) throw new Error(`the screen observer failed: ${answer.error}`);
    const data = readFileSync(path.join(dir, `${name}.raw`));
    return { data, width: region.width, height: region.height, by: answer.by };
  }
  const nut = await import('@nut-tree-fork/nut-js');
  const img = await nut.screen.grabRegion(new nut.Region(region.x, region.y, region.width, region.height));
  return { data: img.data, width: img.width, height: img.height, by: 'nut-js (libnut GDI grab)' };
}

/** Leftover requests of an earlier run would only confuse the observer. */
export function clearObserver() {
  const dir = process.env.GAMEPILOT_SCREEN_OBSERVER;
  if (!dir || !existsSync(dir)) return;
  for (const f of readdirSync(dir)) if (f.startsWith(`${process.pid}-`)) rmSync(path.join(dir, f), { force: true });
}

/** A frame's sub-rectangle (both in the frame's own pixels). */
export function crop(p: Pixels, r: Rect): Pixels {
  const data = Buffer.alloc(r.width * r.height * 4);
  for (let y = 0; y < r.height; y++)
    p.data.copy(data, y * r.width * 4, ((r.y + y) * p.width + r.x) * 4, ((r.y + y) * p.width + r.x + r.width) * 4);
  return { data, width: r.width, height: r.height };
}

/** Where test artifacts go (timings, frames), if the runner says. */
export function artifactsDir(): string | undefined {
  const dir = process.env.GAMEPILOT_TEST_ARTIFACTS;
  if (dir) mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Starts one of the helper programs beside the tests (bundled next to them as .mjs by the
 * runner) with this Node, and resolves with it once it has printed its first line.
 */
export async function startProgram(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; line: string }> {
  const file = fileURLToPath(new URL(`./${name}.mjs`, import.meta.url));
  const child = spawn(process.execPath, [file, ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.once('error', () => {});
  return { child, line: await nextLine(child) };
}

/** The next line the program prints; rejects if it exits first. */
export function nextLine(child: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (!out.includes('\n')) return;
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
      resolve(out.slice(0, out.indexOf('\n')));
    };
    const onExit = (code: number | null) => reject(new Error(`the program exited with ${code} before saying more`));
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

export function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((r) => child.once('exit', r));
}
