/**
 * What the packaged desktop app ships (Electron Forge, forge.config.ts), decided in one place:
 * - the app's own built files and data, at the layout electron/util/resources.ts expects inside
 *   `resources/app.asar`: package.json, dist-electron/ (the bundle), dist/renderer/, prompts/,
 *   games/<id>/profile.yaml — and nothing else of the checkout (no sources, tests, docs, scripts);
 * - of node_modules, only the packages the bundle imports (a scan of dist-electron/) and what
 *   those need at run time (their dependencies, optional dependencies that are installed, and
 *   required peers), without TypeScript declarations or source maps. Renderer-only packages
 *   (React, bundled into dist/renderer by Vite) and dev tools stay out.
 * scripts/test-package.mjs checks the packaged result against the resources module.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

/** The app's own folders that ship whole (source maps aside), relative to the checkout. */
export const APP_DIRS = ['dist-electron', 'dist/renderer', 'prompts'] as const;

const BUILTINS = new Set(builtinModules);
const PACKAGE_NAME = /^(?:@[a-z0-9~][\w.~-]*\/)?[a-z0-9~][\w.~-]*$/i;

/** The package a bare specifier names (`@aws-sdk/client-s3/x` → `@aws-sdk/client-s3`); undefined for builtins, paths and URLs. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('node:') || /^[./]|^[a-z]+:/i.test(specifier)) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  if (BUILTINS.has(name) || !PACKAGE_NAME.test(name)) return undefined;
  return name;
}

// What esbuild writes for the four ways the code reaches a package: `import … from "x"` (and
// `export … from`), `import "x"`, `import("x")`, and a require function's call or `.resolve`
// (`require("x")`, `createRequire(…)("x")`, `req.resolve("x")`).
const IMPORT_FORMS = [
  /\bfrom\s*["']([^"'\n]+)["']/g,
  /\bimport\s*["']([^"'\n]+)["']/g,
  /\bimport\(\s*["']([^"'\n]+)["']\s*\)/g,
  /(?:\brequire|\.resolve|\))\(\s*["']([^"'\n]+)["']\s*\)/g,
];

/** Bare package names the bundle's files (`*.mjs`, `*.cjs`, `*.js` in `bundleDir`) import or resolve, sorted. */
export function bundleImports(bundleDir: string): string[] {
  return [...new Set(bundleSpecifiers(bundleDir).map((s) => packageOf(s)!))].sort();
}

/**
 * The package specifiers themselves (`@modelcontextprotocol/sdk/server/mcp.js`, `sharp`), sorted:
 * what must load from a package, whose root may have nothing to load.
 */
export function bundleSpecifiers(bundleDir: string): string[] {
  if (!existsSync(bundleDir)) throw new Error(`${bundleDir} is missing: build the bundle first (npm run build)`);
  const found = new Set<string>();
  for (const file of readdirSync(bundleDir)) {
    if (!/\.(?:mjs|cjs|js)$/.test(file)) continue;
    const code = readFileSync(path.join(bundleDir, file), 'utf8');
    for (const form of IMPORT_FORMS) for (const m of code.matchAll(form)) if (packageOf(m[1]!)) found.add(m[1]!);
  }
  return [...found].sort();
}

interface Manifest {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const readManifest = (file: string): Manifest => JSON.parse(readFileSync(file, 'utf8')) as Manifest;

/** Node's lookup: the nearest `node_modules/<name>` from `fromDir` (relative to `root`, '' = root) up to `root`. */
function resolvePackageDir(root: string, fromDir: string, name: string): string | undefined {
  let dir = fromDir;
  for (;;) {
    if (path.posix.basename(dir) !== 'node_modules') {
      const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
      if (existsSync(path.join(root, candidate, 'package.json'))) return candidate;
    }
    if (!dir) return undefined;
    const up = path.posix.dirname(dir);
    dir = up === '.' ? '' : up;
  }
}

/**
 * The installed package folders (relative to `root`, e.g. `node_modules/a/node_modules/b`) that
 * `names` need at run time: each package, its dependencies, its optional dependencies where
 * installed (platform builds), and its non-optional peers. A missing required dependency is an
 * error: the app would not run.
 */
export function runtimeClosure(root: string, names: Iterable<string>): Set<string> {
  const kept = new Set<string>();
  const visit = (fromDir: string, name: string, required: boolean) => {
    const dir = resolvePackageDir(root, fromDir, name);
    if (!dir) {
      if (!required) return;
      throw new Error(`${name}, needed by ${fromDir || 'the bundle'}, is not installed (npm ci)`);
    }
    if (kept.has(dir)) return;
    kept.add(dir);
    const m = readManifest(path.join(root, dir, 'package.json'));
    const optional = new Set(Object.keys(m.optionalDependencies ?? {}));
    for (const d of Object.keys(m.dependencies ?? {})) visit(dir, d, !optional.has(d));
    for (const d of optional) visit(dir, d, false);
    for (const d of Object.keys(m.peerDependencies ?? {}))
      if (!m.peerDependenciesMeta?.[d]?.optional) visit(dir, d, true);
  };
  for (const name of names) visit('', name, true);
  return kept;
}

/** The bundle's imports that are the app's own dependencies: what node_modules ships for. */
export function shippedRoots(root: string): string[] {
  const deps = readManifest(path.join(root, 'package.json')).dependencies ?? {};
  return bundleImports(path.join(root, 'dist-electron')).filter((n) => n in deps);
}

/** `rel` ('/'-separated, relative to the checkout) is one of the app's own files or folders that ship. */
export function appPathShipped(root: string, rel: string): boolean {
  if (rel === '' || rel === 'package.json' || rel === 'dist') return true;
  if (rel.endsWith('.map')) return false;
  if (APP_DIRS.some((d) => rel === d || rel.startsWith(`${d}/`))) return true;
  const games = /^games(?:\/([^/]+)(?:\/(.+))?)?$/.exec(rel);
  if (!games) return false;
  const [, id, inside] = games;
  if (!id) return true;
  // A game's folder only for its profile: engines and views are TypeScript compiled into the bundle.
  return (
    existsSync(path.join(root, 'games', id, 'profile.yaml')) && (inside === undefined || inside === 'profile.yaml')
  );
}

/** The package folder a node_modules path lies in, or undefined for a container (`node_modules`, `@scope`, `…/node_modules`). */
export function packageDirOf(rel: string): string | undefined {
  const parts = rel.split('/');
  const i = parts.lastIndexOf('node_modules');
  if (i < 0) return undefined;
  const first = parts[i + 1];
  if (first === undefined) return undefined;
  const end = first.startsWith('@') ? i + 3 : i + 2;
  return parts.length >= end ? parts.slice(0, end).join('/') : undefined;
}

/**
 * Files of shipped packages the app never loads, left out by name: tesseract.js-core's `.wasm.js`
 * builds (the wasm inlined for browsers, ≈ 24 MB; Node loads `tesseract-core*.js` and its
 * `.wasm`), and @tesseract.js-data/eng's `4.0.0_best_int` (its langPath is `4.0.0`).
 * scripts/test-package.mjs reads a line by OCR from the extracted app to prove the rest suffices.
 */
export const UNUSED_FILES: readonly RegExp[] = [
  /^node_modules\/tesseract\.js-core\/[\w-]+\.wasm\.js$/,
  /^node_modules\/@tesseract\.js-data\/eng\/4\.0\.0_best_int(?:\/|$)/,
];

/** `rel` under node_modules ships: it lies in a package of `kept`, or leads to one; declarations, maps and UNUSED_FILES never. */
export function modulePathShipped(rel: string, kept: ReadonlySet<string>): boolean {
  if (/\.(?:[cm]?ts|map)$/.test(rel) || UNUSED_FILES.some((re) => re.test(rel))) return false;
  const owner = packageDirOf(rel);
  if (owner !== undefined) return kept.has(owner);
  for (const k of kept) if (k.startsWith(`${rel}/`)) return true;
  return false;
}

/**
 * @electron/packager's `ignore` function for the checkout at `root` (true = leave out). It gets
 * each path relative to `root` with a leading '/'. The node_modules closure is computed at the
 * first call, when Forge copies: after the generateAssets hook has built dist-electron/.
 */
export function packageIgnore(root: string): (file: string) => boolean {
  let kept: Set<string> | undefined;
  return (file) => {
    const rel = file.replace(/\\/g, '/').replace(/^\/+/, '');
    if (rel === 'node_modules' || rel.startsWith('node_modules/')) {
      kept ??= runtimeClosure(root, shippedRoots(root));
      return !modulePathShipped(rel, kept);
    }
    return !appPathShipped(root, rel);
  };
}
