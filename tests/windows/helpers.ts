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
  /** How the start went and the client areas the window had until it held still, for failure messages. */
  launch: string;
  close(): void;
}

/**
 * Starts the game the way a person would (through `start`, so it is no child of ours: the
 * suspend guard refuses our own descendants) and waits for its new window. When none comes,
 * the error says what there was instead (the game's processes and every window they own,
 * shown or not), so a failure on a loaded machine explains itself.
 */
export async function launchGame(wm: Win32WindowManager): Promise<Game> {
  const image = path.basename(GAME).toLowerCase();
  const before = new Set((await wm.list()).map((w) => w.id));
  const started = await startDetached();
  const window = await waitFor(`a new ${image} window`, async () => {
    const names = new Map(win32Processes().map((p) => [p.pid, p.name.toLowerCase()]));
    return (await wm.list()).find((w) => !before.has(w.id) && names.get(w.pid) === image && !w.minimized);
  }).catch((e: Error) => {
    throw new Error(`${e.message} (${started}; before it: ${[...before].join(', ') || 'none'}; ${gameState(image)})`);
  });
  // Winemine sizes its window to the board while creating it (WM_CREATE), before showing it, and
  // is first seen at the board's size (36 of 36 starts watched at load 10–15). Yet on loaded
  // runs the first game of the run has ended up at Wine's default size (1194×631 on 1600×900:
  // the board in its top-left corner, so a click low in the middle met no cell), cause not yet
  // known: wait until it waits for input and its client area holds still for 300 ms, and keep
  // the sizes seen on the way for the failure messages (Game.launch, inputState).
  const t0 = Date.now();
  const area = (r?: Rect) => (r ? `${r.width}×${r.height} at ${r.x},${r.y}` : 'gone');
  const seen = [`${area(window.bounds)} (+0 ms)`];
  waitForInputIdle(window.pid, 10_000);
  let last = area(window.bounds);
  const settled = await waitFor('the new window to keep its size', async () => {
    await sleep(300);
    const now = await wm.get(window.id);
    const same = now && area(now.bounds) === last;
    last = area(now?.bounds);
    if (!same) seen.push(`${last} (+${Date.now() - t0} ms)`);
    return same ? now : undefined;
  });
  return {
    window: settled,
    pid: settled.pid,
    launch: `${started}; its client area ${seen.join(', then ')}`,
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
 * `start "" GAME` through cmd.exe, until cmd.exe has exited; resolves with what it took. Under
 * Wine on a loaded machine (load 7–8 on 2 cores) creating a process has failed now and then:
 * cmd.exe itself (spawn UNKNOWN), or the start.exe and game that cmd.exe's `start` creates in
 * turn, which cmd.exe reports only by its exit code. Either is a start that did not happen, not
 * a slow one: up to three tries, half a second apart, rather than waiting for a window that no
 * process will open.
 */
async function startDetached(tries = 3): Promise<string> {
  const t0 = Date.now();
  const failures: string[] = [];
  for (let attempt = 1; ; attempt++) {
    const code = await new Promise<number | string>((resolve) => {
      const starter = spawn('cmd.exe', ['/d', '/c', `start "" "${GAME}"`], {
        stdio: 'ignore',
        windowsVerbatimArguments: true,
        windowsHide: true,
      });
      starter.once('error', (err) => resolve(String(err)));
      starter.once('exit', (c, signal) => resolve(c ?? `cmd.exe ended by ${signal}`));
    });
    if (code === 0) return `started in ${Date.now() - t0} ms${failures.length ? ` after ${failures.join(', ')}` : ''}`;
    failures.push(typeof code === 'number' ? `cmd.exe exit code ${code}` : code);
    if (attempt >= tries)
      throw new Error(`cannot start ${GAME} through cmd.exe (${tries} tries): ${failures.join('; ')}`);
    await sleep(500);
  }
}

interface DiagnosticApi {
  GetClassNameW(h: bigint, buf: Buffer, chars: number): number;
  WindowFromPoint(p: { x: number; y: number }): bigint | null;
  GetAncestor(h: bigint, flags: number): bigint | null;
  GetGUIThreadInfo(tid: number, info: Record<string, unknown>): boolean;
}
let diagnostics: DiagnosticApi | undefined;
/** A few more user32 calls, for failure messages only. */
function diagnosticApi(): DiagnosticApi {
  if (diagnostics) return diagnostics;
  const { koffi } = win32();
  const user32 = koffi.load('user32.dll');
  koffi.struct('GP_DIAG_GUITHREADINFO', {
    cbSize: 'uint32_t',
    flags: 'uint32_t',
    hwndActive: 'void *',
    hwndFocus: 'void *',
    hwndCapture: 'void *',
    hwndMenuOwner: 'void *',
    hwndMoveSize: 'void *',
    hwndCaret: 'void *',
    rcCaret: 'GP_RECT',
  });
  diagnostics = {
    GetClassNameW: user32.func('int __stdcall GetClassNameW(void *h, _Out_ void *buf, int chars)'),
    WindowFromPoint: user32.func('void * __stdcall WindowFromPoint(GP_POINT p)'),
    GetAncestor: user32.func('void * __stdcall GetAncestor(void *h, uint32_t flags)'),
    GetGUIThreadInfo: user32.func('bool __stdcall GetGUIThreadInfo(uint32_t tid, _Inout_ GP_DIAG_GUITHREADINFO *info)'),
  } as DiagnosticApi;
  return diagnostics;
}

const hex = (h: unknown) => (typeof h === 'bigint' && h ? `0x${h.toString(16)}` : 'none');

/** One top-level window as a failure message names it: handle, owner, shown or not, title, class. */
function describeWindow(h: bigint, names: Map<number, string>): string {
  const api = win32();
  const buf = Buffer.alloc(1024);
  const pid = [0];
  api.GetWindowThreadProcessId(h, pid);
  const n = api.GetWindowTextW(h, buf, 256);
  const title = n > 0 ? buf.toString('utf16le', 0, n * 2) : '';
  const c = diagnosticApi().GetClassNameW(h, buf, 256);
  const cls = c > 0 ? buf.toString('utf16le', 0, c * 2) : '';
  const state = api.IsIconic(h) ? 'minimized' : api.IsWindowVisible(h) ? 'shown' : 'hidden';
  return `${hex(h)} of ${names.get(pid[0]!) ?? '?'} ${pid[0]} ${state} "${title}" <${cls}>`;
}

/** The game's processes and every top-level window they own (shown, hidden or minimized). */
function gameState(image: string): string {
  const api = win32();
  const procs = win32Processes();
  const names = new Map(procs.map((p) => [p.pid, p.name.toLowerCase()]));
  const games = procs.filter((p) => p.name.toLowerCase() === image);
  const windows: string[] = [];
  api.EnumWindows((h) => {
    const pid = [0];
    api.GetWindowThreadProcessId(h, pid);
    if (names.get(pid[0]!) === image) windows.push(describeWindow(h, names));
    return true;
  }, 0);
  const starters = procs.filter((p) => ['cmd.exe', 'start.exe'].includes(p.name.toLowerCase()));
  const list = (xs: string[]) => xs.join(' | ') || 'none';
  return `${image} processes: ${list(games.map((p) => `${p.pid} (parent ${p.ppid})`))}; their windows: ${list(windows)}; cmd.exe/start.exe running: ${list(starters.map((p) => String(p.pid)))}`;
}

/**
 * What input met at the game, for a test whose input changed nothing: where the window is now
 * against where the test aimed, the foreground window and its thread's focus, capture and menu
 * mode, the cursor, what lies under the point, and which modifiers and buttons are down.
 */
export async function inputState(
  wm: Win32WindowManager,
  game: Game,
  aimedAt: Rect,
  point?: { x: number; y: number },
): Promise<string> {
  const id = game.window.id;
  const api = win32();
  const more = diagnosticApi();
  const names = new Map(win32Processes().map((p) => [p.pid, p.name.toLowerCase()]));
  const now = await wm.get(id);
  const cursor = { x: 0, y: 0 };
  api.GetCursorPos(cursor);
  const fg = api.GetForegroundWindow();
  const info: Record<string, unknown> = { cbSize: api.koffi.sizeof('GP_DIAG_GUITHREADINFO') };
  const gui = fg ? more.GetGUIThreadInfo(api.GetWindowThreadProcessId(fg, [0]), info) : false;
  const under = point ? more.WindowFromPoint(point) : null;
  const vks = { Shift: 0x10, Ctrl: 0x11, Alt: 0x12, LButton: 0x01, RButton: 0x02, MButton: 0x04 };
  const held = Object.entries(vks).filter(([, vk]) => (api.GetAsyncKeyState(vk) & 0x8000) !== 0);
  return [
    `launch: ${game.launch}`,
    `window ${id} aimed at ${JSON.stringify(aimedAt)}, now ${now ? `${JSON.stringify(now.bounds)}${now.minimized ? ' minimized' : ''}` : 'gone'}`,
    `foreground ${fg ? describeWindow(fg, names) : 'none'}`,
    gui
      ? `its thread: focus ${hex(info.hwndFocus)}, capture ${hex(info.hwndCapture)}, menu owner ${hex(info.hwndMenuOwner)}, flags 0x${Number(info.flags).toString(16)}`
      : 'no GUI thread info',
    `cursor ${cursor.x},${cursor.y}`,
    point
      ? `under ${point.x},${point.y}: ${under ? describeWindow(more.GetAncestor(under, 2) ?? under, names) : 'nothing'}`
      : '',
    `held: ${held.map(([k]) => k).join(', ') || 'nothing'}`,
  ]
    .filter(Boolean)
    .join('; ');
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
