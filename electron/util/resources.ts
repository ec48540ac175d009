/**
 * Where Gamepilot's own files are. The only module that computes such a path: prompts, shipped
 * games data (profiles), the renderer, the Electron view-window script, the recorder's worker
 * threads, the CLI entry that sweep jobs start, and the bench's Python yardstick.
 *
 * Three layouts, told apart by where this module's code runs from:
 * - checkout: the TypeScript sources through tsx or vitest (`electron/util/resources.ts`);
 * - bundle: the built main-process code (`dist-electron/*.mjs`) in a checkout or an installed
 *   npm package;
 * - packaged: the same bundle inside Electron Forge's `resources/app.asar` (Electron's fs reads
 *   into the archive; native modules sit in `app.asar.unpacked`).
 * The bundle and the packaged app share one layout relative to the bundle's folder, so a path
 * right in one is right in the other. ING-VP and Sokoban levels are JSON compiled into the code
 * (no file at run time).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type Layout = 'checkout' | 'bundle' | 'packaged';

export interface ResourcePaths {
  layout: Layout;
  /** The app's root: the checkout, the installed package, or `…/resources/app.asar`. */
  root: string;
  /** Prompt templates (`prompts/*.txt`). */
  prompts: string;
  /** Shipped games data: `<id>/profile.yaml` for every shipped title. */
  games: string;
  /** The built renderer (`index.html` and its assets). */
  renderer: string;
  /** What the renderer is built from (in a checkout; absent elsewhere): rebuilt when newer. */
  rendererSources: string[];
  /** Vite's config for that rebuild. */
  viteConfig: string;
  /** The bundle's folder (`dist-electron/`): main, preload, CLI and worker entries. */
  bundleDir: string;
  /** The plain Electron script that opens a built-in game's view (used when Electron hosts it). */
  viewWindowScript: string;
  /** The CLI entry a sweep job starts with this Node (`bin/gamepilot.mjs`). */
  cliLauncher: string;
  /** The CLI's TypeScript entry, which GAMEPILOT_DEV=1 runs (a checkout only; absent elsewhere). */
  cliSource: string;
  /** `bench --compare`'s Python yardstick. */
  benchReference: string;
  packageJson: string;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const fromSource = import.meta.url.endsWith('.ts');

/** The layout the code at `moduleDir` runs in (exported for the tests' sake). */
export function layoutOf(moduleDir: string, isSource: boolean): Layout {
  if (isSource) return 'checkout';
  return /[\\/]app\.asar(?:[\\/]|$)/.test(moduleDir) ? 'packaged' : 'bundle';
}

/** Every path for code whose module lies in `moduleDir` (source: electron/util/; built: dist-electron/). */
export function resourcePathsFor(moduleDir: string, isSource: boolean): ResourcePaths {
  const layout = layoutOf(moduleDir, isSource);
  const root = isSource ? path.resolve(moduleDir, '..', '..') : path.resolve(moduleDir, '..');
  const bundleDir = path.join(root, 'dist-electron');
  return {
    layout,
    root,
    prompts: process.env.GAMEPILOT_PROMPTS_DIR ?? path.join(root, 'prompts'),
    games: process.env.GAMEPILOT_GAMES_DIR ?? path.join(root, 'games'),
    renderer: path.join(root, 'dist', 'renderer'),
    rendererSources: [path.join(root, 'renderer'), path.join(root, 'electron', 'api', 'contract.ts')],
    viteConfig: path.join(root, 'vite.config.ts'),
    bundleDir,
    viewWindowScript:
      layout === 'checkout'
        ? path.join(root, 'electron', 'app', 'view-window.cjs')
        : path.join(bundleDir, 'view-window.cjs'),
    cliLauncher: path.join(root, 'bin', 'gamepilot.mjs'),
    cliSource: path.join(root, 'electron', 'cli', 'main.ts'),
    benchReference: path.join(root, 'bench', 'reference.py'),
    packageJson: path.join(root, 'package.json'),
  };
}

/** This process's resource paths (the two environment overrides are read at each call: tests set them). */
export function resources(): ResourcePaths {
  return resourcePathsFor(here, fromSource);
}

/**
 * A recorder worker thread: from source, a bootstrap that registers tsx and then imports the .ts
 * module; from the bundle, its bundled file (an entry of scripts/build-electron.mjs).
 */
export function workerEntry(name: string): { file: string; sourceEntry?: string } {
  const r = resources();
  if (r.layout === 'checkout')
    return {
      file: path.join(r.root, 'electron', 'util', 'worker-boot.mjs'),
      sourceEntry: path.join(r.root, 'electron', 'recording', `${name}.ts`),
    };
  return { file: path.join(r.bundleDir, `${name}.mjs`) };
}

/** How to start a `gamepilot …` child process (sweep jobs), or why this process cannot. */
export type CliCommand = { command: string; args: string[]; env: Record<string, string> } | { refused: string };

/**
 * This Node with the launcher; under an unpackaged Electron (`npm start`), its binary as Node. A
 * packaged app can start none: its Electron has the RunAsNode fuse off and ships no launcher.
 */
export function cliCommand(): CliCommand {
  const r = resources();
  if (r.layout === 'packaged')
    return {
      refused:
        'the packaged app cannot start gamepilot processes (its Electron runs no scripts): run sweeps from the command line (`gamepilot sweep FILE`) or the web shell',
    };
  return {
    command: process.execPath,
    args: [r.cliLauncher],
    env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {},
  };
}

let version: string | undefined;

/** The package version (package.json ships in every layout). */
export function appVersion(): string {
  version ??= (JSON.parse(readFileSync(resources().packageJson, 'utf8')) as { version: string }).version;
  return version;
}
