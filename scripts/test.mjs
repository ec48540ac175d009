#!/usr/bin/env node
// `npm test`: every suite, on a fresh machine too. First what the suites need that npm does not
// bring: a supported Node, and (Linux) the Debian packages in scripts/system-packages.txt —
// installed when run as root, otherwise the exact install line is printed and the run fails.
// Then the build users run (renderer + main-process bundle), lint, types, the vitest suites
// (unit, then e2e on a private Xvfb), Forge's packaging (test:package) and the Windows backend
// under Wine (test:windows). All suites run even after one fails; the exit code says whether
// any did. `--only a,b` runs some of them (names as printed).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeFloor, nodeHelp } from '../bin/check-node.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const say = (s) => process.stderr.write(`npm test: ${s}\n`);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const node = nodeFloor();
if (!node.ok) {
  say(nodeHelp());
  process.exit(1);
}

/** The package names of scripts/system-packages.txt. */
export function systemPackages() {
  return readFileSync(path.join(root, 'scripts', 'system-packages.txt'), 'utf8')
    .split('\n')
    .flatMap((line) => line.replace(/#.*/, '').trim().split(/\s+/))
    .filter(Boolean);
}

function installed(pkg) {
  const r = spawnSync('dpkg-query', ['-s', pkg], { encoding: 'utf8' });
  return r.status === 0 && /^Status: install ok installed$/m.test(r.stdout);
}

function ensureSystemPackages() {
  if (process.platform !== 'linux') {
    say(`on ${process.platform} the display suites need X11: run them on Linux (see README, Platform notes)`);
    return;
  }
  if (spawnSync('dpkg-query', ['--version'], { stdio: 'ignore' }).status !== 0) {
    say(`not a Debian-based system: install the equivalents of ${systemPackages().join(' ')}`);
    return;
  }
  const missing = systemPackages().filter((p) => !installed(p));
  if (missing.length === 0) return;
  const line = `apt-get update && apt-get install -y ${missing.join(' ')}`;
  if (process.getuid?.() !== 0) {
    say(`missing system packages: ${missing.join(' ')}`);
    say(`install them (as root) and run npm test again:\n  sudo sh -c '${line}'`);
    process.exit(1);
  }
  say(`installing ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', ...missing],
  ]) {
    const r = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (r.status !== 0) {
      say(`apt-get ${args[0]} failed (exit ${r.status}); install by hand: ${line}`);
      process.exit(1);
    }
  }
}

const SUITES = [
  ['build', [npm, 'run', 'build']],
  ['lint', [npm, 'run', 'lint']],
  ['typecheck', [npm, 'run', 'typecheck']],
  ['vitest', [npm, 'exec', '--', 'vitest', 'run']],
  ['package', [npm, 'run', 'test:package']],
  ['windows', [npm, 'run', 'test:windows']],
];

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1]?.split(',') : undefined;
const unknown = only?.filter((n) => !SUITES.some(([name]) => name === n)) ?? [];
if (unknown.length) {
  say(`unknown suite ${unknown.join(', ')}; there are ${SUITES.map(([n]) => n).join(', ')}`);
  process.exit(2);
}

ensureSystemPackages();
// The vitest reporter lists failed tests here, to be repeated after the last suite's output.
const failuresFile = path.join(mkdtempSync(path.join(tmpdir(), 'gp-test-')), 'failures.txt');
const results = [];
for (const [name, [cmd, ...args]] of SUITES) {
  if (only && !only.includes(name)) continue;
  const t0 = Date.now();
  say(`— ${name}: ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, GAMEPILOT_TEST_FAILURES: failuresFile },
  });
  const ok = r.status === 0;
  results.push({ name, ok, s: Math.round((Date.now() - t0) / 1000) });
  // Without a build nothing after it tests what users run.
  if (!ok && name === 'build') break;
}
for (const r of results) say(`${r.ok ? 'passed' : 'FAILED'}  ${r.name} (${r.s} s)`);
const failedTests = existsSync(failuresFile) ? readFileSync(failuresFile, 'utf8').trim() : '';
if (failedTests) say(`failed tests:\n  ${failedTests.split('\n').join('\n  ')}`);
const failed = results.filter((r) => !r.ok).length;
process.stdout.write(`\nsuites: ${results.length - failed} passed, ${failed} failed\n`);
process.exit(failed ? 1 : 0);
