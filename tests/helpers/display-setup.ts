/**
 * Starts a private X display (Xvfb 1600×900 + openbox) for the suites that need real windows,
 * so tests never inject input into the developer's own desktop. GAMEPILOT_TEST_DISPLAY=:N
 * reuses an existing display instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

let xvfb: ChildProcess | undefined;
let wm: ChildProcess | undefined;

function freeDisplay(): number {
  for (let n = 90; n < 200; n++) if (!existsSync(`/tmp/.X11-unix/X${n}`) && !existsSync(`/tmp/.X${n}-lock`)) return n;
  throw new Error('no free X display number');
}

export async function setup() {
  if (process.env.GAMEPILOT_TEST_DISPLAY) {
    process.env.DISPLAY = process.env.GAMEPILOT_TEST_DISPLAY;
    return;
  }
  if (process.platform !== 'linux') return;
  const n = freeDisplay();
  xvfb = spawn('Xvfb', [`:${n}`, '-screen', '0', '1600x900x24', '-nolisten', 'tcp', '-ac'], { stdio: 'ignore' });
  const started = Date.now();
  while (!existsSync(`/tmp/.X11-unix/X${n}`)) {
    if (xvfb.exitCode !== null) throw new Error('Xvfb failed to start (is the xvfb package installed?)');
    if (Date.now() - started > 10_000) throw new Error('Xvfb did not start within 10 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  process.env.DISPLAY = `:${n}`;
  wm = spawn('openbox', [], { stdio: 'ignore', env: { ...process.env, DISPLAY: `:${n}` } });
  await new Promise((r) => setTimeout(r, 500));
}

export async function teardown() {
  wm?.kill();
  xvfb?.kill();
}
