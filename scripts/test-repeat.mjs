#!/usr/bin/env node
// `npm run test:repeat -- FILE [N] [--load]`: the flake check. Runs one vitest file N times
// (default 10), one run after another, optionally beside two busy loops (`--load`: two `yes`
// processes, so a 2-core machine is as busy as a CI machine running other work), and prints
// each run's result and time, then pass/fail counts and the slowest run. Each run's whole
// output is kept in test-artifacts/repeat/<file>-<run>.log (a failed run's path is printed).
// Exits 1 when any run failed.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const say = (s) => process.stdout.write(`${s}\n`);

const args = process.argv.slice(2);
const load = args.includes('--load');
const [file, count = '10'] = args.filter((a) => a !== '--load');
const runs = Number(count);
if (!file || !Number.isInteger(runs) || runs < 1) {
  process.stderr.write('usage: npm run test:repeat -- FILE [N] [--load]   (N: runs, default 10)\n');
  process.exit(2);
}
const rel = path.relative(root, path.resolve(file));
// The vitest project is the folder under tests/ (unit, e2e, chaos, real-server); a file of
// tests/e2e is in e2e or e2e-alone (vitest.config.ts), and vitest runs it in the one that has it.
const project = /^tests\/([^/]+)\//.exec(rel)?.[1];
const projects = project === 'e2e' ? ['e2e', 'e2e-alone'] : [project];
if (!project || !/\.test\.ts$/.test(rel)) {
  process.stderr.write(`test:repeat: ${file} is not a test file under tests/<project>/\n`);
  process.exit(2);
}

const busy = load ? [0, 1].map(() => spawn('yes', [], { stdio: ['ignore', 'ignore', 'ignore'] })) : [];
const stopBusy = () => {
  for (const b of busy) b.kill('SIGKILL');
};
process.on('exit', stopBusy);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

const logs = path.join(root, 'test-artifacts', 'repeat');
mkdirSync(logs, { recursive: true });
const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');

/** One run of the file: exit code, seconds, the summary line, the names of failed tests. */
function once() {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [vitest, 'run', ...projects.flatMap((p) => ['--project', p]), rel], {
      cwd: root,
      env: { ...process.env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => {
      const summary = /^tests: .*$/m.exec(out)?.[0] ?? 'no summary line';
      const failed = [...out.matchAll(/^\s*(?:×|✗|FAIL)\s+(.+)$/gm)].map((m) => m[1].trim());
      resolve({ code, s: (Date.now() - t0) / 1000, summary, failed, out });
    });
  });
}

say(`test:repeat: ${rel} × ${runs} (project ${project})${load ? ', beside two busy loops' : ''}`);
const results = [];
for (let i = 1; i <= runs; i++) {
  const r = await once();
  results.push(r);
  let line = `run ${i}/${runs}: ${r.code === 0 ? 'passed' : 'FAILED'} in ${r.s.toFixed(1)} s — ${r.summary}`;
  const log = path.join(logs, `${path.basename(rel, '.test.ts')}-${i}.log`);
  writeFileSync(log, r.out);
  if (r.code !== 0)
    line += `\n  log: ${path.relative(root, log)}${r.failed.length ? `\n  ${[...new Set(r.failed)].slice(0, 8).join('\n  ')}` : ''}`;
  say(line);
}
stopBusy();
const passed = results.filter((r) => r.code === 0).length;
const slowest = results.reduce((a, b) => (b.s > a.s ? b : a));
say(`slowest run: ${slowest.s.toFixed(1)} s (run ${results.indexOf(slowest) + 1})`);
say(`repeat: ${passed} passed, ${runs - passed} failed`);
process.exit(passed === runs ? 0 : 1);
