/**
 * What each Windows backend call costs, measured against a real game window and written to
 * test-artifacts (the runner prints the table; the README quotes it). Only generous bounds are
 * asserted: these machines are shared and noisy.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { listProcesses } from '../../native/process.ts';
import { Win32WindowManager } from '../../native/win32.ts';
import { Win32GdiCapture } from '../../native/win32-capture.ts';
import { Win32InputBackend } from '../../native/win32-input.ts';
import { win32Resume, win32Suspend } from '../../native/win32-process.ts';
import { artifactsDir, type Game, launchGame } from './helpers.ts';

const N = 30;
const wm = new Win32WindowManager();
const capture = new Win32GdiCapture();
const input = new Win32InputBackend();
let game: Game;
let other: Game;

interface Row {
  call: string;
  p50: number;
  p95: number;
  n: number;
}
const rows: Row[] = [];

async function measure(call: string, fn: () => unknown, n = N) {
  await fn(); // warm
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  const row = { call, p50: ms[Math.floor(n / 2)]!, p95: ms[Math.min(n - 1, Math.ceil(n * 0.95) - 1)]!, n };
  rows.push(row);
  return row;
}

before(async () => {
  game = await launchGame(wm);
  other = await launchGame(wm);
});
after(() => {
  game?.close();
  other?.close();
  const dir = artifactsDir();
  const note = `${os.version()} ${os.release()}, node ${process.version}`;
  if (dir) writeFileSync(path.join(dir, 'timings.json'), `${JSON.stringify({ calls: rows, note }, null, 2)}\n`);
  for (const r of rows) console.log(`${r.call.padEnd(38)} p50 ${r.p50.toFixed(2)} ms  p95 ${r.p95.toFixed(2)} ms`);
});

it('costs little per call', async () => {
  const id = game.window.id;
  const { bounds } = game.window;
  const region = { x: 0, y: 0, width: 1280, height: 800 };
  const nut = await import('@nut-tree-fork/nut-js');
  await measure('list (EnumWindows + facts)', () => wm.list());
  await measure('get (one window)', () => wm.get(id));
  await measure('focus (already active)', async () => wm.focus(id));
  let turn = 0;
  await measure('focus (switch between two)', () => wm.focus(turn++ % 2 ? id : other.window.id), 10);
  await wm.focus(id);
  await measure('capture 1280×800 (BitBlt, koffi)', () => capture.grab(region));
  await measure('capture 1280×800 (nut-js grabRegion)', () =>
    nut.screen.grabRegion(new nut.Region(region.x, region.y, region.width, region.height)),
  );
  await measure('capture window (PrintWindow)', () => capture.grabWindow(id));
  await measure('key (Shift down + up)', async () => {
    await input.keyDown('LeftShift');
    await input.keyUp('LeftShift');
  });
  // On the counter at the top left: a click there changes nothing in the game.
  const spot = { x: bounds.x + 8, y: bounds.y + 8 };
  await measure('click (move + down + up)', async () => {
    await input.move(spot.x, spot.y);
    await input.button('down', 'left');
    await input.button('up', 'left');
  });
  await measure('suspend + resume (NtSuspendProcess)', () => {
    win32Suspend([game.pid]);
    win32Resume([game.pid]);
  });
  await measure('process listing (Toolhelp32)', () => listProcesses());
  for (const r of rows) assert.ok(r.p50 < 1000, `${r.call}: ${r.p50} ms`);
});
