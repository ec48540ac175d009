#!/usr/bin/env node
// `npm start`: the desktop app when the Electron binary is installed; otherwise (machines
// where it cannot be downloaded) the built-in default played in a browser window.
// Exits with the child's code, or 128 + signal number when it was killed: a crash is never
// reported as success.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const say = (s) => process.stderr.write(`gamepilot: ${s}\n`);

// Linux without a graphical session: nothing could show a window; say so instead of failing later.
if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
  say('no display: neither DISPLAY nor WAYLAND_DISPLAY is set, so no window can open.');
  say('Start Gamepilot from a desktop session (X11, or XWayland under Wayland), or give it a virtual one:');
  say('  Xvfb :99 -screen 0 1600x900x24 & DISPLAY=:99 npm start');
  process.exit(1);
}

const electronDir = path.join(root, 'node_modules', 'electron');
let electronBin;
try {
  electronBin = path.join(electronDir, 'dist', readFileSync(path.join(electronDir, 'path.txt'), 'utf8').trim());
} catch {
  electronBin = undefined;
}

/** Start time of a process as /proc gives it (clock ticks since boot), or null where there is no /proc. */
function startTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  } catch {
    return null;
  }
}

/** Ends the window hosts a crashed shell left open (each listed with its leader's start time). */
function endWindowGroups(dir) {
  if (!dir) return;
  let bootMs = null;
  try {
    bootMs = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]) * 1000;
  } catch {
    /* no /proc: the start time cannot be checked */
  }
  const groups = [];
  for (const name of readdirSync(dir)) {
    try {
      const { pgid, started } = JSON.parse(readFileSync(path.join(dir, name), 'utf8'));
      const ticks = startTicks(pgid);
      // Same process only: a pid recycled since has another start time (10 ms resolution).
      if (started !== null && bootMs !== null && (ticks === null || Math.abs(bootMs + ticks * 10 - started) > 20))
        continue;
      groups.push(pgid);
    } catch {
      /* gone already, or not ours to end */
    }
  }
  endGroups(groups);
  rmSync(dir, { recursive: true, force: true });
}

const groupAlive = (pgid) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * SIGTERM to each process group, then SIGKILL to whatever is still there after 3 s: a browser
 * that is slow to quit on a loaded machine (or ignores SIGTERM) must not outlive the shell.
 */
function endGroups(pgids) {
  for (const g of pgids) {
    try {
      process.kill(-g, 'SIGTERM');
    } catch {
      /* the group is already empty */
    }
  }
  const deadline = Date.now() + 3000;
  const tick = new Int32Array(new SharedArrayBuffer(4));
  while (Date.now() < deadline && pgids.some(groupAlive)) Atomics.wait(tick, 0, 0, 50);
  for (const g of pgids.filter(groupAlive)) {
    try {
      process.kill(-g, 'SIGKILL');
    } catch {
      /* ended meanwhile */
    }
  }
}

/**
 * Runs the app or shell and mirrors how it ended. `ownGroup` puts it in a process group of its
 * own (POSIX) so that whatever it started (browser windows) is ended with it, even after a crash.
 */
function run(what, cmd, args, { cwd, ownGroup }) {
  const group = ownGroup && process.platform !== 'win32';
  // Window hosts run in groups of their own; the child lists them here (electron/games/window-groups.ts).
  const windows = group ? mkdtempSync(path.join(tmpdir(), 'gamepilot-windows-')) : undefined;
  const env = windows ? { ...process.env, GAMEPILOT_WINDOW_GROUPS: windows } : process.env;
  const child = spawn(cmd, args, {
    cwd,
    env,
    stdio: group ? ['ignore', 'inherit', 'inherit'] : 'inherit',
    detached: group,
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('error', (err) => {
    say(`could not start the ${what}: ${err.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (group) {
      endGroups([child.pid]); // leftovers of a crashed shell
      endWindowGroups(windows);
    }
    if (signal) {
      say(`the ${what} was killed by ${signal}`);
      process.exit(128 + (constants.signals[signal] ?? 0));
    }
    if (code !== 0) say(`the ${what} exited with code ${code}`);
    process.exit(code ?? 1);
  });
}

// What both run is the build (`npm install` made it); an install that skipped scripts builds it now, once.
const built = ['dist-electron/main.mjs', 'dist-electron/cli.mjs', 'dist/renderer/index.html'];
if (!built.every((f) => existsSync(path.join(root, f)))) {
  say('building the app (first start)…');
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'prepare.mjs')], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0 || !built.every((f) => existsSync(path.join(root, f)))) {
    say('the build failed; `npm run build` shows why');
    process.exit(1);
  }
}

if (electronBin && existsSync(electronBin)) {
  // The app from its bundle (package.json main: dist-electron/main.mjs), as a packaged build runs it.
  run('desktop app', electronBin, [root], { cwd: root, ownGroup: false });
} else {
  say(
    'the Electron binary is not installed here; serving the same UI as the web shell and opening it in a browser window.',
  );
  say('For the desktop app: `npm run install-electron` with network access. Ctrl+C stops.');
  // Runs go to ./runs of where it was started (the checkout, under `npm start`), as with `gamepilot run`.
  run('web shell', process.execPath, [path.join(root, 'bin', 'gamepilot.mjs'), 'web', '--open'], {
    cwd: process.cwd(),
    ownGroup: true,
  });
}
