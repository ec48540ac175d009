import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { createWindowManager, findWindows, type WindowInfo } from '../../native/index.ts';
import { CHROMIUM_FLAGS, findBrowser } from '../../electron/games/launcher.ts';

/** Starts a real program and waits for its window: a new one, so several with one title can be told apart. */
export async function startWindow(
  cmd: string,
  args: string[],
  title: RegExp,
  timeoutMs = 20_000,
): Promise<{ child: ChildProcess; window: WindowInfo }> {
  const wm = createWindowManager();
  const before = new Set((await findWindows(wm, title)).map((w) => w.id));
  const child = spawn(cmd, args, { stdio: 'ignore', env: { ...process.env, NO_AT_BRIDGE: '1', GTK_A11Y: 'none' } });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${cmd} exited with ${child.exitCode}`);
    const w = (await findWindows(wm, title)).find((x) => !before.has(x.id));
    if (w) return { child, window: w };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`${cmd}: no window matching ${title} within ${timeoutMs} ms`);
}

/**
 * A Chromium app window showing `html` (a data: URL page), found once its title is exactly
 * `title`: Chromium first titles the window with the page's URL, which holds the <title> too.
 */
export function pageWindow(
  html: string,
  title: string,
  geometry: { x: number; y: number; width: number; height: number },
) {
  const profile = mkdtempSync(path.join(tmpdir(), 'gp-solid-'));
  return startWindow(
    findBrowser()!,
    [
      ...CHROMIUM_FLAGS,
      `--user-data-dir=${profile}`,
      `--window-size=${geometry.width},${geometry.height}`,
      `--window-position=${geometry.x},${geometry.y}`,
      `--app=data:text/html,${encodeURIComponent(html)}`,
    ],
    exactTitle(title),
  );
}

/** A plain X window (tests/helpers/x-drawer.ts) that draws every `intervalMs` by itself; with `log`, it writes down when it drew. */
export function drawerWindow(
  title: string,
  geometry: { x: number; y: number; width: number; height: number },
  intervalMs = 10,
  log?: string,
) {
  const script = fileURLToPath(new URL('./x-drawer.ts', import.meta.url));
  const { x, y, width, height } = geometry;
  return startWindow(
    process.execPath,
    [script, title, ...[x, y, width, height, intervalMs].map(String), ...(log ? [log] : [])],
    exactTitle(title),
  );
}

/** A pattern matching `title` and nothing else. */
function exactTitle(title: string): RegExp {
  return new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
}

/** The share of a picture's pixels that are a decoy's magenta (#ff00ff, after JPEG): 0–1. */
export async function magentaShare(file: string | Buffer): Promise<number> {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  let n = 0;
  for (let i = 0; i < data.length; i += info.channels)
    if (data[i]! > 200 && data[i + 1]! < 60 && data[i + 2]! > 200) n++;
  return n / (info.width * info.height);
}

/** A plain Chromium app window filled with one colour: an obstacle or a decoy. */
export function solidWindow(
  color: string,
  title: string,
  geometry: { x: number; y: number; width: number; height: number },
) {
  return pageWindow(`<title>${title}</title><body style="margin:0;background:${color}"></body>`, title, geometry);
}

/**
 * A window with a green 40×40 square at `square` (page pixels) that reports every mouse press
 * in its title: `<title> hit|miss <count> <screenX>,<screenY>`.
 */
export function clickProbeWindow(
  title: string,
  geometry: { x: number; y: number; width: number; height: number },
  square: { x: number; y: number },
) {
  // The title becomes `title` only once the listener is in place and a frame has been drawn
  // (Chromium drops input a page receives before its first frame; under load that took > 400 ms).
  const html =
    `<title>${title} loading</title><body style="margin:0;background:#203040">` +
    `<div id="s" style="position:absolute;left:${square.x}px;top:${square.y}px;width:40px;height:40px;background:#00ff00"></div>` +
    `<script>let n=0;addEventListener('mousedown',(e)=>{n++;document.title='${title} '+(e.target.id==='s'?'hit':'miss')+' '+n+' '+e.screenX+','+e.screenY;});` +
    `requestAnimationFrame(()=>requestAnimationFrame(()=>{document.title='${title}';}));</script></body>`;
  return pageWindow(html, title, geometry);
}

/** xdotool / wmctrl on one window (ids as `gamepilot windows` prints them). */
export const xdo = (...args: string[]) => execFileSync('xdotool', args, { encoding: 'utf8' });
export const decimal = (id: string) => String(parseInt(id, 16));
export const minimize = (id: string) => xdo('windowminimize', decimal(id));
export const activate = (id: string) => execFileSync('wmctrl', ['-i', '-a', id]);

/** Moves (and optionally resizes) a window's frame, then waits until the window manager has settled it. */
export async function placeWindow(
  id: string,
  x: number,
  y: number,
  size?: { width: number; height: number },
): Promise<WindowInfo> {
  if (size) xdo('windowsize', decimal(id), String(size.width), String(size.height));
  xdo('windowmove', decimal(id), String(x), String(y));
  return settled(id);
}

/** The window's facts once two looks 150 ms apart agree (window managers move and animate asynchronously). */
export async function settled(id: string, timeoutMs = 5000): Promise<WindowInfo> {
  const wm = createWindowManager();
  const deadline = Date.now() + timeoutMs;
  let last = JSON.stringify(await wm.get(id));
  for (;;) {
    await new Promise((r) => setTimeout(r, 150));
    const w = await wm.get(id);
    const now = JSON.stringify(w);
    if (w && now === last) return w;
    if (Date.now() > deadline) throw new Error(`window ${id} did not settle: ${now}`);
    last = now;
  }
}

export async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}
