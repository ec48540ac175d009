#!/usr/bin/env node
// Builds the main-process code once into dist-electron/ (esbuild): the Electron app (main.mjs),
// the CLI, web shell and sweep workers (cli.mjs, run by bin/gamepilot.mjs), the recorder's worker
// threads, the preload (preload.cjs) and the view-window script. What users run — the app, the
// CLI, an installed npm package, a packaged app — is this bundle; the tests run it too.
// Every package import stays external: dependencies are installed beside the bundle (Forge ships
// them in the asar; native modules unpacked). Commands load their code on demand (code splitting),
// so `gamepilot games` does not load capture, input or model clients.
// The build goes to a fresh folder that replaces dist-electron/ whole, so no stale chunk is left.
import { copyFileSync, existsSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist-electron');
const staging = `${out}.build-${process.pid}`;
const quiet = process.argv.includes('--quiet');

/** The recorder's worker threads (util/resources.ts finds them beside the entries). */
export const WORKERS = ['capture-worker', 'frame-worker', 'window-watch-worker'];

const started = performance.now();
rmSync(staging, { recursive: true, force: true });
try {
  await build({
    absWorkingDir: root,
    entryPoints: {
      main: 'electron/app/main.ts',
      cli: 'electron/cli/main.ts',
      ...Object.fromEntries(WORKERS.map((w) => [w, `electron/recording/${w}.ts`])),
    },
    outdir: staging,
    outExtension: { '.js': '.mjs' },
    // Chunks beside the entries: util/resources.ts locates the app from the folder its code is in.
    chunkNames: 'chunk-[hash]',
    splitting: true,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node22',
    sourcemap: 'linked',
    logLevel: 'warning',
    // A few dependencies are CommonJS-only and read through require() in our code.
    banner: {
      js: "import { createRequire as __gpCreateRequire } from 'node:module'; const require = __gpCreateRequire(import.meta.url);",
    },
  });
  await build({
    absWorkingDir: root,
    entryPoints: ['electron/app/preload.cts'],
    outfile: path.join(staging, 'preload.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    external: ['electron'],
    logLevel: 'warning',
  });
  copyFileSync(path.join(root, 'electron/app/view-window.cjs'), path.join(staging, 'view-window.cjs'));
  if (existsSync(out)) rmSync(out, { recursive: true, force: true });
  renameSync(staging, out);
} catch (err) {
  rmSync(staging, { recursive: true, force: true });
  throw err;
}
if (!quiet)
  console.log(
    `built dist-electron/ (main.mjs, cli.mjs, preload.cjs, ${WORKERS.map((w) => `${w}.mjs`).join(', ')}) in ${Math.round(performance.now() - started)} ms`,
  );
