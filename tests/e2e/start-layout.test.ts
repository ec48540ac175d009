/**
 * What a newcomer sees on `npm start` (scripts/start.mjs, the built dist: here the web shell in
 * Chromium with the demo playing 2048), on Xvfb + openbox at three common screen sizes: the game
 * window beside the control window, never over it, both inside the screen; a click on the
 * control window brings it in front, and it stays there while the demo plays on. One display
 * per size (Xvfb cannot be resized past the size it started with). The geometry is the window
 * manager's: `wmctrl -lG` lists the windows, xwininfo gives each one's corner and
 * _NET_FRAME_EXTENTS its frame (wmctrl's x and y under openbox are the content's corner plus the
 * frame's left and top). Screenshot: test-artifacts/ui/start-1280x800.png.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startPrivateDisplay } from '../../electron/sweep/display.ts';
import { ROOT } from '../helpers/cli.ts';

const START = path.join(ROOT, 'scripts', 'start.mjs');
const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}
interface Listed {
  id: string;
  title: string;
  /** The window with the frame the window manager drew around it. */
  frame: Rect;
}

const x = (display: string, cmd: string, args: string[]) =>
  execFileSync(cmd, args, { env: { ...process.env, DISPLAY: display }, encoding: 'utf8' });

/** The windows `wmctrl -lG` lists, each with its outer frame. */
function listWindows(display: string): Listed[] {
  return x(display, 'wmctrl', ['-lG'])
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id, , , , width, height, , ...title] = line.trim().split(/\s+/);
      const info = x(display, 'xwininfo', ['-id', id!]);
      const corner = (axis: 'X' | 'Y') => Number(new RegExp(`Absolute upper-left ${axis}:\\s+(-?\\d+)`).exec(info)![1]);
      const extents = /=\s*(\d+), (\d+), (\d+), (\d+)/.exec(x(display, 'xprop', ['-id', id!, '_NET_FRAME_EXTENTS']));
      const [left, right, top, bottom] = extents ? extents.slice(1).map(Number) : [0, 0, 0, 0];
      return {
        id: id!,
        title: title.join(' '),
        frame: {
          x: corner('X') - left!,
          y: corner('Y') - top!,
          width: Number(width) + left! + right!,
          height: Number(height) + top! + bottom!,
        },
      };
    });
}

/** Window ids as `xprop -root` gives them, bottom of the stacking order first. */
function stacking(display: string): number[] {
  const out = x(display, 'xprop', ['-root', '_NET_CLIENT_LIST_STACKING']);
  return (out.split('#')[1] ?? '').split(',').map((s) => Number.parseInt(s.trim(), 16));
}

function activeWindow(display: string): number {
  return Number.parseInt(x(display, 'xprop', ['-root', '_NET_ACTIVE_WINDOW']).split('#')[1]!.trim(), 16);
}

const overlap = (a: Rect, b: Rect) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const inside = (r: Rect, screen: { width: number; height: number }) =>
  r.x >= 0 && r.y >= 0 && r.x + r.width <= screen.width && r.y + r.height <= screen.height;

/** Steps the demo has played so far (its run folder under ./runs of where npm start ran). */
function demoSteps(cwd: string): number {
  const runs = path.join(cwd, 'runs');
  if (!existsSync(runs)) return 0;
  let steps = 0;
  for (const run of readdirSync(runs)) {
    const file = path.join(runs, run, 'steps.jsonl');
    if (existsSync(file)) steps += readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
  }
  return steps;
}

describe('npm start on a fresh machine', () => {
  for (const [width, height] of [
    [1280, 800],
    [1366, 768],
    [1920, 1080],
  ] as const) {
    it(`at ${width}×${height}: the game window beside the control window, and a click brings the control window forward`, {
      timeout: 120_000,
    }, async () => {
      const screen = { width, height };
      const xd = await startPrivateDisplay({ size: `${width}x${height}`, from: 160 });
      const cwd = mkdtempSync(path.join(tmpdir(), 'gp-start-layout-'));
      const child = spawn(process.execPath, [START], {
        cwd,
        env: { ...process.env, DISPLAY: xd.display, GAMEPILOT_CONFIG_DIR: path.join(cwd, 'config') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      try {
        // The demo has played a step: both windows are up and placed.
        await expect.poll(() => demoSteps(cwd), { timeout: 90_000, interval: 200 }).toBeGreaterThan(0);
        const windows = listWindows(xd.display);
        const control = windows.find((w) => w.title === 'Gamepilot — control');
        const game = windows.find((w) => w.title.startsWith('Gamepilot · 2048 · '));
        expect(control, JSON.stringify(windows)).toBeDefined();
        expect(game, JSON.stringify(windows)).toBeDefined();
        const geometry = JSON.stringify({ control: control!.frame, game: game!.frame, screen });
        expect(overlap(control!.frame, game!.frame), geometry).toBe(false);
        expect(inside(control!.frame, screen), geometry).toBe(true);
        expect(inside(game!.frame, screen), geometry).toBe(true);
        // The game is shown whole at its own size: 2048's view is 520×640.
        expect(game!.frame.width, geometry).toBeGreaterThanOrEqual(520);
        expect(game!.frame.height, geometry).toBeGreaterThanOrEqual(640);

        // A click inside the control window (on its side pane, clear of any button).
        const c = control!.frame;
        x(xd.display, 'xdotool', [
          'mousemove',
          String(c.x + c.width - 40),
          String(c.y + Math.round(c.height * 0.6)),
          'click',
          '1',
        ]);
        const controlId = Number.parseInt(control!.id, 16);
        await expect.poll(() => activeWindow(xd.display), { timeout: 10_000 }).toBe(controlId);
        await expect.poll(() => stacking(xd.display).at(-1), { timeout: 10_000 }).toBe(controlId);
        // ...and it stays in front while the demo plays two more steps.
        const played = demoSteps(cwd);
        await expect.poll(() => demoSteps(cwd), { timeout: 30_000, interval: 100 }).toBeGreaterThanOrEqual(played + 2);
        expect(stacking(xd.display).at(-1)).toBe(controlId);
        expect(activeWindow(xd.display)).toBe(controlId);

        // The web shell's URL is printed once (stdout), not again in the progress line.
        expect(out.match(/token=/g)?.length, out + err).toBe(1);
        expect(err).not.toMatch(/token=/);

        if (width === 1280) {
          mkdirSync(SHOTS, { recursive: true });
          x(xd.display, 'import', ['-window', 'root', path.join(SHOTS, `start-${width}x${height}.png`)]);
        }
      } finally {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(killer);
        await xd.close();
      }
      expect(await exited, err).toBe(0);
    });
  }
});
