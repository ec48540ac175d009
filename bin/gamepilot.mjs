#!/usr/bin/env node
// `gamepilot`: runs the built CLI (dist-electron/cli.mjs, made by `npm run build`, which
// `npm install` runs). GAMEPILOT_DEV=1 runs the TypeScript sources through tsx instead: for
// development in a checkout with its dev dependencies, never what users or the tests run.
import { existsSync, readdirSync, statSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { nodeFloor, nodeHelp } from './check-node.mjs';

const node = nodeFloor();
if (!node.ok) {
  process.stderr.write(`gamepilot: ${nodeHelp()}\n`);
  process.exit(2);
}

// A reader that closed the pipe (`gamepilot games | head`) ends the command quietly, not with a stack.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

// V8's code cache on disk (Node ≥ 22.1): later starts skip compiling the bundle and its
// dependencies again (about a third of `gamepilot games`' start here).
module.enableCompileCache?.();

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = path.join(root, 'dist-electron', 'cli.mjs');

/** Newest modification time of the bundled sources under `dir` (0 when absent, as in a package). */
function newest(dir) {
  if (!existsSync(dir)) return 0;
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else if (/\.(c?ts|json)$/.test(e.name)) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

let main;
if (process.env.GAMEPILOT_DEV === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../electron/cli/main.ts'));
} else {
  if (!existsSync(bundle)) {
    process.stderr.write(
      `gamepilot: the CLI is not built (${bundle} is missing): run \`npm run build\`, or set GAMEPILOT_DEV=1 to run the sources\n`,
    );
    process.exit(2);
  }
  // In a checkout, tell a person at a terminal when the bundle is older than its sources. Only
  // there: walking the sources costs ~20 ms, which sweep jobs and other child starts need not pay.
  if (
    process.stderr.isTTY &&
    ['electron', 'native', 'games'].some((d) => newest(path.join(root, d)) > statSync(bundle).mtimeMs)
  )
    process.stderr.write('gamepilot: warning: the built CLI is older than its sources; run `npm run build`\n');
  ({ main } = await import(pathToFileURL(bundle).href));
}
const code = await main(process.argv.slice(2));
// The command is done and its files are written: exit now rather than wait for idle
// keep-alive sockets or helper handles to time out (a stopped run must end at once).
// stdout is flushed first, so a --json result is never cut short.
process.stdout.write('', () => process.exit(code));
