#!/usr/bin/env node
// Bundles the Electron main process and preload with esbuild into dist-electron/.
// Native modules stay external (they are unpacked next to the asar by Forge).
import { build } from 'esbuild';

const external = [
  'electron',
  '@nut-tree-fork/*',
  'sharp',
  'screenshot-desktop',
  'uiohook-napi',
  'koffi',
  'electron-store',
  'ws',
  'bufferutil',
  'utf-8-validate',
];
await build({
  entryPoints: ['electron/app/main.ts'],
  outfile: 'dist-electron/main.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external,
  sourcemap: true,
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
await build({
  entryPoints: ['electron/app/preload.cts'],
  outfile: 'dist-electron/preload.cjs',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['electron'],
});
// The recorder's worker threads (electron/util/worker.ts finds them beside main.mjs).
const workers = ['capture-worker', 'frame-worker', 'window-watch-worker'];
await build({
  entryPoints: Object.fromEntries(workers.map((w) => [w, `electron/recording/${w}.ts`])),
  outdir: 'dist-electron',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external,
  sourcemap: true,
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
console.log(
  `built dist-electron/main.mjs and dist-electron/preload.cjs, and ${workers.map((w) => `${w}.mjs`).join(', ')}`,
);
