#!/usr/bin/env node
// `npm install` / `npm ci` in a checkout (and `npm pack`): builds what users run once — the
// renderer (Vite) and the main-process bundle (esbuild, scripts/build-electron.mjs). An install
// without dev dependencies cannot build; it says so and leaves the install alone.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const need = createRequire(path.join(root, 'package.json'));
let vite;
try {
  need.resolve('esbuild');
  vite = path.join(path.dirname(need.resolve('vite/package.json')), 'bin', 'vite.js');
} catch {
  process.stderr.write('gamepilot: no dev dependencies (esbuild, vite): not building; `npm run build` needs them\n');
  process.exit(0);
}
for (const args of [[vite, 'build', '--logLevel', 'warn'], [path.join(root, 'scripts', 'build-electron.mjs')]]) {
  // Build output goes to stderr: `npm pack --json` keeps stdout for its JSON.
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: ['inherit', 2, 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
