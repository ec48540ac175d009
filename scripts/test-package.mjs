#!/usr/bin/env node
// `npm run test:package`: packages the desktop app with Electron Forge's own packaging step
// (`electron-forge package` through @electron-forge/core's API, with forge.config.ts as it is)
// for linux/x64, and checks what it made:
// - Electron's release zip cannot be downloaded here, so the packager gets a stand-in
//   (scripts/package-electron-stub.ts) through packagerConfig.electronZipDir; the fuses plugin
//   is left out (GAMEPILOT_PACKAGE_TEST=1: a shell-script Electron has no fuses to flip);
// - every resource electron/util/resources.ts computes for the packaged layout
//   (resourcePathsFor(<app.asar>/dist-electron)) is in the asar, or unpacked beside it;
// - every package the bundle imports is in the asar's node_modules, native addons unpacked;
// - sources, tests, docs, scripts, declarations, source maps and dev tools are not;
// - the asar extracted to a folder outside the checkout runs under plain Node: every imported
//   package loads from it, and the bundled CLI's main() lists the shipped profiles and version.
// Prints the sizes and what was checked; exits 1 on any failure.
// GAMEPILOT_PACKAGE_KEEP=1 keeps the temporary folder (its path is printed).
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const need = createRequire(path.join(root, 'package.json'));
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const started = performance.now();
const seconds = (t) => `${((performance.now() - t) / 1000).toFixed(1)} s`;
const say = (s) => console.log(s);

const { register } = await import('tsx/esm/api');
register();
const { resourcePathsFor } = await import('../electron/util/resources.ts');
const { bundleImports, bundleSpecifiers, packageOf, UNUSED_FILES } = await import('./package-contents.ts');
const sharp = need('sharp');
const { writeElectronStubZip } = await import('./package-electron-stub.ts');

const failures = [];
/** One check: printed either way, remembered when it fails. */
function check(ok, what, detail = '') {
  say(`  ${ok ? 'ok  ' : 'FAIL'} ${what}${detail && !ok ? `: ${detail}` : ''}`);
  if (!ok) failures.push(detail ? `${what}: ${detail}` : what);
  return ok;
}

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-package-'));
const dirs = Object.fromEntries(
  ['electron-zip', 'out', 'packager-tmp', 'extracted', 'config', 'cwd'].map((d) => {
    mkdirSync(path.join(tmp, d));
    return [d, path.join(tmp, d)];
  }),
);

async function run() {
  // --- Forge's packaging, with a stand-in Electron -------------------------------------------
  const electronVersion = JSON.parse(readFileSync(need.resolve('electron/package.json'), 'utf8')).version;
  const zip = writeElectronStubZip(dirs['electron-zip'], electronVersion);
  say(`stand-in Electron ${electronVersion}: ${path.basename(zip)} (the real zip cannot be downloaded here)`);
  say(
    'fuses: SKIPPED (GAMEPILOT_PACKAGE_TEST=1) — the fuses plugin flips bytes in the real Electron binary; the stand-in is a shell script with none',
  );
  const env = {
    GAMEPILOT_PACKAGE_TEST: '1',
    GAMEPILOT_ELECTRON_ZIP_DIR: dirs['electron-zip'],
    // The packager clears <tmpdir>/electron-packager first: a private one, so parallel runs do not collide.
    TMPDIR: dirs['packager-tmp'],
  };
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  const { default: config } = await import('../forge.config.ts');
  const { api } = createRequire(need.resolve('@electron-forge/cli/package.json'))('@electron-forge/core');
  let t = performance.now();
  say('electron-forge package --platform linux --arch x64 (generateAssets builds the renderer and the bundle)…');
  try {
    await api.package({ dir: root, interactive: false, platform: 'linux', arch: 'x64', outDir: dirs.out });
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
  say(`packaged in ${seconds(t)}`);

  const { packagerConfig } = config;
  const appDir = path.join(dirs.out, `${packagerConfig.name}-linux-x64`);
  const resourcesDir = path.join(appDir, 'resources');
  const asarPath = path.join(resourcesDir, 'app.asar');
  const unpackedDir = `${asarPath}.unpacked`;
  if (!check(existsSync(asarPath), `the package has ${path.relative(dirs.out, asarPath)}`)) return;

  say('\nthe stand-in made into the app:');
  const exe = path.join(appDir, packagerConfig.executableName);
  check(
    existsSync(exe) && (statSync(exe).mode & 0o111) !== 0,
    `the Electron executable renamed to ${path.basename(exe)}`,
  );
  check(!existsSync(path.join(appDir, 'electron')), 'no executable left under the name electron');
  const besideAsar = readdirSync(resourcesDir).sort();
  check(
    besideAsar.join() === ['app.asar', 'app.asar.unpacked'].join(),
    'resources/ holds only app.asar and app.asar.unpacked (no default_app.asar, no extraResource)',
    besideAsar.join(', '),
  );

  // --- The asar's contents -----------------------------------------------------------------------
  const asar = createRequire(createRequire(need.resolve('@electron-forge/core')).resolve('@electron/packager'))(
    '@electron/asar',
  );
  const entries = new Set(asar.listPackage(asarPath, { isPack: false }).map((e) => e.replace(/\\/g, '/')));
  const stat = (entry) => asar.statFile(asarPath, entry.slice(1), false);
  const isFile = (entry) => entries.has(entry) && !('files' in stat(entry));
  /** The asar entry ('/…') of a path inside the asar, or undefined for a path outside it. */
  const entryOf = (abs) => {
    const rel = path.relative(asarPath, abs);
    return rel.startsWith('..') || path.isAbsolute(rel) ? undefined : `/${rel.split(path.sep).join('/')}`;
  };
  /** A file the app reads: in the asar, and where the asar says it is unpacked, on disk beside it too. */
  const shipped = (abs) => {
    const entry = entryOf(abs);
    if (!entry || !isFile(entry)) return false;
    return !stat(entry).unpacked || existsSync(path.join(unpackedDir, entry));
  };

  say('\nresources, as electron/util/resources.ts computes them for the packaged app:');
  const r = resourcePathsFor(path.join(asarPath, 'dist-electron'), false);
  check(r.layout === 'packaged', `layout of <app.asar>/dist-electron is "packaged"`, r.layout);
  check(r.root === asarPath, 'root is resources/app.asar', r.root);
  const checked = [];
  const resource = (label, abs) => {
    checked.push(`${label}: ${path.relative(path.dirname(asarPath), abs)}`);
    check(shipped(abs), `${label} ${path.relative(asarPath, abs)}`);
  };
  const entryMain = path.join(r.root, pkg.main);
  resource('package.json main (the Electron app)', entryMain);
  check(path.dirname(entryMain) === r.bundleDir, 'package.json main lies in the bundle folder', pkg.main);
  resource('the CLI bundle', path.join(r.bundleDir, 'cli.mjs'));
  resource('the preload the control window loads', path.join(r.bundleDir, 'preload.cjs'));
  // The workers the code starts (startWorker("<name>", …) in the bundle); workerEntry() finds them as <bundleDir>/<name>.mjs.
  const workers = [
    ...new Set(
      readdirSync(path.join(root, 'dist-electron'))
        .filter((f) => f.endsWith('.mjs'))
        .flatMap((f) => [
          ...readFileSync(path.join(root, 'dist-electron', f), 'utf8').matchAll(/\bstartWorker\(\s*"([^"]+)"/g),
        ])
        .map((m) => m[1]),
    ),
  ].sort();
  check(workers.length > 0, 'the bundle starts worker threads', 'no startWorker("…") call found');
  for (const w of workers) resource(`worker thread ${w}`, path.join(r.bundleDir, `${w}.mjs`));
  resource('the view-window script', r.viewWindowScript);
  const indexHtml = path.join(r.renderer, 'index.html');
  resource('the renderer page', indexHtml);
  if (shipped(indexHtml)) {
    const html = asar.extractFile(asarPath, entryOf(indexHtml).slice(1)).toString('utf8');
    const assets = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]).filter((u) => !/^[a-z]+:/i.test(u));
    check(assets.length > 0, 'the renderer page loads assets', 'no src/href in index.html');
    for (const a of assets) resource('renderer asset', path.join(r.renderer, a.replace(/^\.?\//, '')));
  }
  const promptFiles = listFiles(path.join(root, 'prompts'));
  for (const f of promptFiles) resource('prompt', path.join(r.prompts, f));
  const profileDirs = readdirSync(path.join(root, 'games'))
    .filter((d) => existsSync(path.join(root, 'games', d, 'profile.yaml')))
    .sort();
  for (const d of profileDirs) resource('profile', path.join(r.games, d, 'profile.yaml'));
  resource('package.json', r.packageJson);
  const shippedPkg = JSON.parse(asar.extractFile(asarPath, 'package.json').toString('utf8'));
  check(shippedPkg.version === pkg.version, `its version is ${pkg.version}`, shippedPkg.version);
  const under = (dir) => [...entries].filter((e) => e.startsWith(`${entryOf(dir)}/`) && isFile(e));
  check(under(r.prompts).length === promptFiles.length, `prompts/ holds the ${promptFiles.length} prompt files only`);
  check(under(r.games).length === profileDirs.length, `games/ holds the ${profileDirs.length} profiles only`);
  // Absent by design; each check says why.
  for (const src of r.rendererSources)
    check(
      !entries.has(entryOf(src)),
      `no renderer sources (${path.relative(r.root, src)}): the shipped build is served, never rebuilt`,
    );
  check(
    !shipped(r.cliLauncher),
    `no CLI launcher (${path.relative(r.root, r.cliLauncher)}): the app has no CLI (RunAsNode fuse off)`,
  );
  check(
    !shipped(r.benchReference),
    `no bench yardstick (${path.relative(r.root, r.benchReference)}): bench is a CLI command`,
  );

  // --- Extracted, under plain Node -----------------------------------------------------------------
  t = performance.now();
  const app = path.join(dirs.extracted, 'app');
  asar.extractAll(asarPath, app);
  say(`\nextracted the asar to a folder outside the checkout in ${seconds(t)}`);
  const imports = bundleImports(path.join(app, 'dist-electron'));
  const deps = pkg.dependencies ?? {};
  // Imports the package does not ship, and why; any other import that is not shipped fails.
  const notShipped = {
    electron: 'the Electron runtime provides it',
    vite: 'imported only to rebuild the renderer from its sources, which exist only in a checkout',
  };

  say('\npackages the bundle imports (scanned in the shipped dist-electron/):');
  for (const name of imports) {
    const here = isFile(`/node_modules/${name}/package.json`);
    if (name in notShipped) check(!here, `${name} not shipped: ${notShipped[name]}`);
    else check(here, `${name} in node_modules${name in deps ? '' : ' (not a dependency of ours: resolved from one)'}`);
  }
  const runner = path.join(app, 'dist-electron', 'package-test-runner.mjs');
  writeFileSync(runner, RUNNER);
  // Each specifier as the bundle writes it: a package's root may have nothing to load (the MCP
  // SDK's does not) while the subpaths the bundle imports do.
  const loadable = bundleSpecifiers(path.join(app, 'dist-electron')).filter((n) => !(packageOf(n) in notShipped));
  const loaded = runNode(runner, ['imports', ...loadable]);
  const report = parseJson(loaded.stdout);
  if (check(report !== undefined, 'the imports runner answers', gist(loaded.stderr))) {
    for (const name of loadable) {
      const a = report[name] ?? { error: 'no answer' };
      const inside = a.file?.startsWith(`${app}${path.sep}`);
      // electron-store and the like import `electron`, which only Electron provides.
      const needsElectron = /Cannot find (?:package|module) 'electron'/.test(a.error ?? '');
      check(
        inside && (a.loaded || needsElectron),
        `${name} ${needsElectron ? 'resolves (it imports electron: loads in Electron only)' : 'loads'} from the extracted app`,
        a.file && !inside ? `resolved outside it: ${a.file}` : a.error,
      );
    }
  }

  say('\nthe bundled CLI from the extracted app (plain Node, cwd and config outside the checkout, no NODE_PATH):');
  const version = runNode(runner, ['cli', '--version']);
  check(
    version.stdout.trim() === pkg.version,
    `main(['--version']) prints ${pkg.version}`,
    gist(version.stdout + version.stderr),
  );
  const listed = runNode(runner, ['cli', 'profiles', '--json']);
  const profiles = parseJson(listed.stdout);
  if (check(profiles !== undefined, "main(['profiles', '--json']) prints JSON", gist(listed.stderr))) {
    const files = profiles.profiles.map((p) => path.relative(app, p.file).split(path.sep).join('/')).sort();
    const expected = profileDirs.map((d) => `games/${d}/profile.yaml`);
    check(
      files.join() === expected.join(),
      `it lists the ${expected.length} shipped profiles, read from the extracted app's games/`,
      `listed ${files.join(', ')}`,
    );
    check(
      profiles.profiles.every((p) => p.source === 'shipped'),
      'all as shipped profiles',
      JSON.stringify(profiles.profiles.map((p) => p.source)),
    );
    check(profiles.errors.length === 0, 'with no profile errors', JSON.stringify(profiles.errors));
  }

  // --- OCR from the pruned tesseract packages ---------------------------------------------------------
  say('\nOCR from the extracted app (tesseract.js without its browser builds, with the data its langPath names):');
  const unused = [...entries].filter((e) => UNUSED_FILES.some((re) => re.test(e.slice(1))));
  check(unused.length === 0, "tesseract's browser builds and unused data are left out", unused.join(', '));
  const line = await sharp({
    create: { width: 360, height: 90, channels: 3, background: '#ffffff' },
  })
    .composite([
      {
        input: Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="360" height="90"><text x="12" y="62" font-family="DejaVu Sans" font-size="48">Moves: 42</text></svg>',
        ),
      },
    ])
    .png()
    .toBuffer();
  const ocr = runNode(runner, ['ocr', line.toString('base64')]);
  const read = parseJson(ocr.stdout);
  check(
    read?.text === 'Moves: 42',
    `a line drawn as "Moves: 42" reads back so (got ${JSON.stringify(read?.text)})`,
    gist(ocr.stderr),
  );

  // --- Native code -------------------------------------------------------------------------------
  say('\nnative code:');
  const natives = [...entries].filter((e) => e.endsWith('.node')).sort();
  check(natives.length > 0, 'the asar lists native addons');
  for (const e of natives)
    check(stat(e).unpacked && existsSync(path.join(unpackedDir, e)), `${e.slice(1)} unpacked in app.asar.unpacked`);
  const img = [...entries].filter((e) => e.startsWith('/node_modules/@img/') && isFile(e));
  check(
    img.length > 0 && img.every((e) => stat(e).unpacked),
    `sharp's @img packages unpacked whole (${img.length} files: the addon loads libvips from beside it)`,
  );
  // Shared libraries an addon loads from its own folder (libturbojpeg.so.0 beside jpeg-turbo's,
  // libnut's MSVC runtime DLLs) are on disk too.
  const besideAddons = [...entries].filter(
    (e) =>
      /\.(dll|dylib|so(\.\d+)*)$/.test(e) &&
      isFile(e) &&
      natives.some((n) => path.posix.dirname(n) === path.posix.dirname(e)),
  );
  check(
    besideAddons.every((e) => stat(e).unpacked && existsSync(path.join(unpackedDir, e))),
    `the shared libraries beside the addons unpacked with them (${besideAddons.length}, e.g. jpeg-turbo's libturbojpeg.so.0)`,
    besideAddons.filter((e) => !stat(e).unpacked).join(', '),
  );
  // Every addon of a shipped package in the checkout came along (none lost to the filter).
  const shippedPackages = [...entries].filter((e) => /\/node_modules\/(?:@[^/]+\/)?[^/@]+\/package\.json$/.test(e));
  const lost = shippedPackages.flatMap((e) => {
    const dir = path.join(root, path.dirname(e));
    return listFiles(dir, (rel) => !rel.includes('node_modules/'))
      .filter((f) => f.endsWith('.node'))
      .map((f) => `${path.dirname(e)}/${f}`)
      .filter((f) => !entries.has(f));
  });
  check(
    lost.length === 0,
    `every .node file of the ${shippedPackages.length} shipped packages came along`,
    lost.join(', '),
  );

  // --- What must not ship --------------------------------------------------------------------------
  say('\nleft out:');
  const appTop = new Set(['package.json', 'dist-electron', 'dist', 'prompts', 'games', 'node_modules']);
  const others = readdirSync(root)
    .filter((n) => !appTop.has(n))
    .sort();
  const leaked = others.filter((n) => entries.has(`/${n}`));
  check(leaked.length === 0, `none of the checkout's other entries: ${others.join(', ')}`, leaked.join(', '));
  const distOthers = readdirSync(path.join(root, 'dist')).filter((n) => n !== 'renderer' && entries.has(`/dist/${n}`));
  check(distOthers.length === 0, 'of dist/, only renderer/', distOthers.join(', '));
  const typescript = [...entries].filter((e) => /\.(?:[cm]?ts|tsx)$/.test(e));
  check(
    typescript.length === 0,
    'no TypeScript file anywhere (games/**/*.ts, electron/, native/, renderer/, declarations)',
    typescript.slice(0, 5).join(', '),
  );
  const maps = [...entries].filter((e) => e.endsWith('.map'));
  check(maps.length === 0, 'no source maps (they embed the sources)', maps.slice(0, 5).join(', '));
  check(!entries.has('/node_modules/.bin'), 'no node_modules/.bin');
  // Dev dependencies: none at the top; nested only where a shipped package itself depends on one.
  const devHits = [...entries]
    .map((e) => /^(.*)\/node_modules\/((?:@[^/]+\/)?[^/@]+)\/package\.json$/.exec(e))
    .filter((m) => m && m[2] in (pkg.devDependencies ?? {}))
    .filter((m) => {
      if (m[1] === '') return true;
      const owner = JSON.parse(asar.extractFile(asarPath, `${m[1].slice(1)}/package.json`).toString('utf8'));
      return !(m[2] in { ...owner.dependencies, ...owner.optionalDependencies });
    })
    .map((m) => `${m[1]}/node_modules/${m[2]}`);
  check(
    devHits.length === 0,
    `no dev dependency (${Object.keys(pkg.devDependencies ?? {}).length} checked: ${Object.keys(pkg.devDependencies ?? {}).join(', ')})`,
    devHits.join(', '),
  );

  // --- Sizes --------------------------------------------------------------------------------------
  const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  const asarBytes = statSync(asarPath).size;
  const unpackedBytes = sizeOf(unpackedDir);
  say('\nsize:');
  say(`  app folder ${path.basename(appDir)}/: ${mb(sizeOf(appDir))} (stand-in Electron, so without Electron itself)`);
  say(`  resources/app.asar: ${mb(asarBytes)} (${entries.size} entries)`);
  say(`  resources/app.asar.unpacked: ${mb(unpackedBytes)} (${natives.length} addons, sharp's libvips)`);
  say(`  node_modules: ${shippedPackages.length} packages`);
  say(`\nresources checked (${checked.length}):`);
  for (const c of checked) say(`  ${c}`);
}

/** Files under `dir`, relative and '/'-separated, sorted; `keep` prunes by relative path. */
function listFiles(dir, keep = () => true) {
  const out = [];
  const walk = (rel) => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (!keep(r)) continue;
      if (e.isDirectory()) walk(r);
      else out.push(r);
    }
  };
  walk('');
  return out.sort();
}

function sizeOf(p) {
  const s = statSync(p);
  if (!s.isDirectory()) return s.size;
  return readdirSync(p).reduce((n, e) => n + sizeOf(path.join(p, e)), 0);
}

/** The line of a child's output that says what went wrong (its first error line, else its last line). */
function gist(text) {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return (lines.find((l) => /\bError\b/.test(l)) ?? lines.at(-1) ?? '(no output)').slice(0, 300);
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Plain Node on `script`, as a user's machine would run it: nothing of the checkout on the way. */
function runNode(script, args) {
  const env = { ...process.env, GAMEPILOT_CONFIG_DIR: dirs.config };
  for (const k of ['NODE_PATH', 'NODE_OPTIONS', 'GAMEPILOT_PROMPTS_DIR', 'GAMEPILOT_GAMES_DIR', 'GAMEPILOT_DEV'])
    delete env[k];
  const r = spawnSync(process.execPath, [script, ...args], { cwd: dirs.cwd, env, encoding: 'utf8', timeout: 120_000 });
  return { stdout: r.stdout ?? '', stderr: `${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

// Runs inside the extracted app's dist-electron/, so packages resolve exactly as from the bundle.
const RUNNER = `import { fileURLToPath } from 'node:url';
const [mode, ...args] = process.argv.slice(2);
if (mode === 'imports') {
  const out = {};
  // A specifier the bundle reaches through require.resolve (a path without extension)
  // is loaded as require loads it when import cannot.
  const { createRequire } = await import('node:module');
  const req = createRequire(import.meta.url);
  const first = (err) => String(err?.message ?? err).split('\\n')[0];
  for (const name of args) {
    let file;
    try {
      file = fileURLToPath(import.meta.resolve(name));
      await import(name);
      out[name] = { file, loaded: true };
    } catch (err) {
      try {
        file = req.resolve(name);
        req(name);
        out[name] = { file, loaded: true };
      } catch {
        out[name] = { ...(file ? { file } : {}), error: first(err) };
      }
    }
  }
  process.stdout.write(JSON.stringify(out), () => process.exit(0));
} else if (mode === 'ocr') {
  // What electron/scoring/ocr.ts does, from the packaged node_modules: LSTM-only, the shipped English data.
  const { createRequire } = await import('node:module');
  const { createWorker, OEM } = await import('tesseract.js');
  const eng = createRequire(import.meta.url)('@tesseract.js-data/eng');
  const worker = await createWorker('eng', OEM.LSTM_ONLY, { langPath: eng.langPath, gzip: eng.gzip, cacheMethod: 'none' });
  const { data } = await worker.recognize(Buffer.from(args[0], 'base64'));
  await worker.terminate();
  process.stdout.write(JSON.stringify({ text: data.text.trim() }), () => process.exit(0));
} else {
  const { main } = await import('./cli.mjs');
  const code = await main(args);
  process.stdout.write('', () => process.exit(code));
}
`;

try {
  await run();
} catch (err) {
  failures.push(`unexpected error: ${err?.stack ?? err}`);
  console.error(err);
} finally {
  if (process.env.GAMEPILOT_PACKAGE_KEEP === '1') say(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}
say('');
if (failures.length) {
  say(`test:package FAILED (${failures.length}) in ${seconds(started)}:`);
  for (const f of failures) say(`  - ${f}`);
  process.exit(1);
}
say(`test:package passed in ${seconds(started)}`);
