/**
 * SuperTux (Debian package `supertux`), a real real-time platformer, for the latency tests: it
 * opens the first level of world 1 with its enemies taken out (so Tux cannot die while a test
 * waits), software rendering, no sound, and no pause when it loses focus, and waits until the
 * level itself is on the screen (past the level's title card).
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NutCapturer } from '../../electron/capture/nut-capturer.ts';
import { createWindowManager, findWindows, type WindowInfo } from '../../native/index.ts';
import { startWindow, stop } from './windows.ts';

export const SUPERTUX = '/usr/games/supertux2';
const LEVEL = '/usr/share/games/supertux2/levels/world1/welcome_antarctica.stl';
const ENEMIES = new Set(['snowball', 'flyingsnowball', 'jumpy', 'mrbomb', 'mriceblock', 'smartball', 'stalactite']);

/** The level file without the objects named in `drop` (SuperTux levels are S-expressions). */
export function withoutObjects(level: string, drop: Set<string>): string {
  let out = '';
  const head = /\(([\w-]+)/y;
  for (let i = 0; i < level.length; ) {
    const c = level[i]!;
    if (c === '"') {
      const end = level.indexOf('"', i + 1);
      out += level.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    if (c === '(') {
      head.lastIndex = i;
      const name = head.exec(level)?.[1];
      if (name && drop.has(name)) {
        let depth = 0;
        for (; i < level.length; i++) {
          if (level[i] === '"') i = level.indexOf('"', i + 1);
          else if (level[i] === '(') depth++;
          else if (level[i] === ')' && --depth === 0) break;
        }
        i++;
        continue;
      }
    }
    out += c;
    i++;
  }
  return out;
}

/** The share of pixels (0–1) that differ noticeably between two raw frames of one size. */
export function changedShare(a: Buffer, b: Buffer, channels = 4): number {
  if (a.length !== b.length) return 1;
  let changed = 0;
  for (let i = 0; i < a.length; i += channels) {
    if (Math.abs(a[i]! - b[i]!) > 24 || Math.abs(a[i + 1]! - b[i + 1]!) > 24 || Math.abs(a[i + 2]! - b[i + 2]!) > 24)
      changed++;
  }
  return changed / (a.length / channels);
}

/** The share of near-black pixels: SuperTux's level title card is black, the level is not. */
function darkShare(frame: Buffer) {
  let dark = 0;
  for (let i = 0; i < frame.length; i += 4) if (frame[i]! + frame[i + 1]! + frame[i + 2]! < 60) dark++;
  return dark / (frame.length / 4);
}

export async function startSuperTux(): Promise<{ child: ChildProcess; window: WindowInfo }> {
  if (!existsSync(SUPERTUX))
    throw new Error(`${SUPERTUX} is missing: install the Debian package supertux (.ci/run does)`);
  const dir = mkdtempSync(path.join(tmpdir(), 'gp-supertux-'));
  writeFileSync(path.join(dir, 'config'), '(supertux-config\n  (pause_on_focusloss #f)\n)\n');
  const level = path.join(dir, 'flat.stl');
  writeFileSync(level, withoutObjects(readFileSync(LEVEL, 'utf8'), ENEMIES));
  const started = await startWindow(
    SUPERTUX,
    [
      '--userdir',
      dir,
      '--window',
      '--geometry',
      '640x480',
      '--renderer',
      'sdl',
      '--disable-sound',
      '--disable-music',
      '--show-pos',
      level,
    ],
    /^SuperTux/,
    30_000,
  );
  try {
    const cap = new NutCapturer();
    const wm = createWindowManager();
    const deadline = Date.now() + 30_000;
    // SDL may replace the window it first mapped (a video mode set): the window is looked up
    // again by the game's pid before each use, never kept by its first id.
    const current = async () => {
      const w = (await findWindows(wm, /^SuperTux/)).find((x) => x.pid === started.child.pid);
      if (!w) throw new Error('SuperTux has no window');
      return w;
    };
    const inLevel = async () => darkShare((await cap.grab((await current()).bounds)).data) < 0.3;
    // The title card waits for a key; the game may not read keys yet right after its window maps.
    pressing: for (;;) {
      const id = String(parseInt((await current()).id, 16));
      execFileSync('xdotool', ['windowactivate', '--sync', id]);
      execFileSync('xdotool', ['key', 'Return']);
      for (let i = 0; i < 12; i++) {
        await new Promise((r) => setTimeout(r, 250));
        if (await inLevel()) break pressing;
      }
      if (Date.now() > deadline) throw new Error('SuperTux never left its level title card');
    }
    await new Promise((r) => setTimeout(r, 1000)); // the title card fades out
    return { child: started.child, window: await current() };
  } catch (err) {
    await stop(started.child);
    throw err;
  }
}
