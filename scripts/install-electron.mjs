#!/usr/bin/env node
// The root package's postinstall: fetches the Electron binary the way electron's own postinstall
// would (package.json's allowScripts denies that one), but a failed download does not fail
// `npm install`. Without the binary `npm start` serves the same UI in a browser window; the
// desktop app can be fetched later with `npm run install-electron`.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const note = (s) => process.stderr.write(`gamepilot: ${s}\n`);

if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) {
  note('ELECTRON_SKIP_BINARY_DOWNLOAD is set: not downloading the Electron binary.');
  process.exit(0);
}

let electronDir;
try {
  electronDir = path.dirname(createRequire(path.join(root, 'package.json')).resolve('electron/package.json'));
} catch {
  process.exit(0); // a production install (--omit=dev): no Electron package, nothing to fetch
}

// Generous but bounded: a firewall that drops packets must not hang `npm install` for ever.
const timeoutS = Number(process.env.GAMEPILOT_ELECTRON_DOWNLOAD_TIMEOUT_S) || 600;
const r = spawnSync(process.execPath, ['install.js'], {
  cwd: electronDir,
  encoding: 'utf8',
  timeout: timeoutS * 1000,
  stdio: ['ignore', 'inherit', 'pipe'],
});
if (r.status === 0) process.exit(0);

const why =
  r.error?.code === 'ETIMEDOUT'
    ? `no answer within ${timeoutS} s`
    : ((r.stderr || r.error?.message || `exit ${r.status ?? r.signal}`)
        .split('\n')
        .find((l) => l.trim())
        ?.trim() ?? 'unknown error');
note(`the Electron binary could not be downloaded (${why}).`);
note(
  'The install goes on without it: `npm start` serves the same UI in a Chromium/Chrome window instead of the desktop app.',
);
note('With network access, `npm run install-electron` fetches it later (ELECTRON_MIRROR selects a mirror).');
process.exit(0);
