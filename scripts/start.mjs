#!/usr/bin/env node
// `npm start`: the desktop app when the Electron binary is installed; otherwise (machines
// where it cannot be downloaded) the built-in default played in a browser window.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const electronDir = path.join(root, 'node_modules', 'electron');
let electronBin;
try {
  electronBin = path.join(electronDir, 'dist', readFileSync(path.join(electronDir, 'path.txt'), 'utf8').trim());
} catch {
  electronBin = undefined;
}

function run(cmd, args) {
  const child = spawn(cmd, args, { stdio: 'inherit', cwd: root });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code) => process.exit(code ?? 0));
}

if (electronBin && existsSync(electronBin)) {
  run(process.execPath, [path.join(root, 'node_modules', '@electron-forge', 'cli', 'dist', 'electron-forge.js'), 'start']);
} else {
  console.error('The Electron binary is not installed here; serving the same UI as the web shell and opening it in a browser window.');
  console.error('Install Electron (npm install with network access) for the desktop app. Ctrl+C stops.');
  run(process.execPath, [path.join(root, 'bin', 'gamepilot.mjs'), 'web', '--open']);
}
