/**
 * `npm pack` and an install elsewhere, as a user gets Gamepilot from npm: the tarball (prepare
 * builds the bundle and the renderer) holds what runs and no tests, docs or sources; installed
 * into an empty folder outside the checkout by the real npm, from npm's cache (no network), with
 * its own postinstall run (Electron, a dev dependency, is absent, so it fetches nothing), the
 * installed `gamepilot` prints its version, lists the shipped profiles, plays the maze with the
 * solver in a real Chromium window on the test display and runs an ING-VP suite, each from the
 * installed package's own files.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { resourcePathsFor } from '../../electron/util/resources.ts';
import { formatTable } from '../../electron/ingvp/table.ts';
import { INGVP_SETTINGS } from '../../electron/ingvp/ingvp-settings.ts';
import { maze } from '../../games/maze/index.ts';

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const profileDirs = readdirSync(path.join(ROOT, 'games'))
  .filter((d) => existsSync(path.join(ROOT, 'games', d, 'profile.yaml')))
  .sort();
const tmp = mkdtempSync(path.join(tmpdir(), 'gp-npm-pack-'));
const dir = (name: string) => {
  const d = path.join(tmp, name);
  mkdirSync(d, { recursive: true });
  return d;
};
const consumer = dir('consumer');
const installed = path.join(consumer, 'node_modules', pkg.name);
const configDir = dir('config');
const timings: string[] = [];

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (killed with its group after `timeoutMs`); never rejects, so a failure shows its output. */
function run(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }) {
  const started = performance.now();
  return new Promise<Result>((resolve) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? cleanEnv(), detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      stderr += `\n(${cmd} ${args.join(' ')} killed after ${opts.timeoutMs} ms)`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, opts.timeoutMs);
    child.on('error', (err) => (stderr += String(err)));
    child.on('close', (code) => {
      clearTimeout(timer);
      timings.push(`${[cmd, ...args].join(' ').slice(0, 70)}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
      resolve({ code, stdout, stderr });
    });
  });
}

/** npm settings the user's npm would read too (where the cache is); npm's other script variables name the checkout. */
const NPM_KEPT = new Set([
  'npm_config_cache',
  'npm_config_userconfig',
  'npm_config_globalconfig',
  'npm_config_registry',
]);

/** This environment without what would lead back to the checkout (npm's script variables, NODE_PATH, dev overrides). */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_/i.test(k) && !NPM_KEPT.has(k.toLowerCase())) continue;
    if (
      [
        'INIT_CWD',
        'NODE_PATH',
        'NODE_OPTIONS',
        'GAMEPILOT_DEV',
        'GAMEPILOT_PROMPTS_DIR',
        'GAMEPILOT_GAMES_DIR',
      ].includes(k)
    )
      continue;
    env[k] = v;
  }
  return { ...env, GAMEPILOT_CONFIG_DIR: configDir };
}

const show = (r: Result) =>
  `exit ${r.code}\n--- stdout ---\n${r.stdout.slice(-4000)}\n--- stderr ---\n${r.stderr.slice(-4000)}`;
const gamepilot = (args: string[], timeoutMs = 110_000) =>
  // --no: never from the registry, only the installed one; --: the rest is gamepilot's (else npx takes --version).
  run('npx', ['--no', '--', 'gamepilot', ...args], { cwd: consumer, timeoutMs });

let packed: string[] = [];
const started = performance.now();

beforeAll(async () => {
  // The real pack: prepare builds dist-electron/ and dist/renderer/ first.
  const packDir = dir('pack');
  const pack = await run('npm', ['pack', '--pack-destination', packDir], { cwd: ROOT, timeoutMs: 120_000 });
  expect(pack.code, show(pack)).toBe(0);
  const tarballs = readdirSync(packDir).filter((f) => f.endsWith('.tgz'));
  expect(tarballs).toEqual([`${pkg.name}-${pkg.version}.tgz`]);
  // Its file list, as npm reports it (scripts skipped: the tree was just built; prepare's build output would mix into the JSON).
  const dry = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, timeoutMs: 60_000 });
  expect(dry.code, show(dry)).toBe(0);
  packed = (JSON.parse(dry.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path).sort();
  // The tarball itself holds the same files.
  const tar = await run('tar', ['-tzf', path.join(packDir, tarballs[0]!)], { cwd: packDir, timeoutMs: 30_000 });
  expect(tar.code, show(tar)).toBe(0);
  const inTarball = tar.stdout
    .split('\n')
    .filter((l) => l && !l.endsWith('/'))
    .map((l) => l.replace(/^package\//, ''))
    .sort();
  expect(inTarball).toEqual(packed);

  // An empty project outside the checkout; the real npm installs the tarball from its cache.
  writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'gp-pack-consumer', private: true }));
  const install = await run(
    'npm',
    ['install', path.join(packDir, tarballs[0]!), '--prefer-offline', '--no-audit', '--no-fund'],
    { cwd: consumer, timeoutMs: 300_000 },
  );
  expect(install.code, show(install)).toBe(0);
}, 420_000);

afterAll(() => {
  timings.push(`total: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  console.log(`npm pack and install elsewhere:\n  ${timings.join('\n  ')}`);
  rmSync(tmp, { recursive: true, force: true });
});

describe('npm pack', () => {
  it('ships the bundle, renderer, prompts, profiles and the postinstall script, and no tests, docs, sources or maps', () => {
    const postinstall = /^node (\S+)$/.exec(pkg.scripts.postinstall)![1]!;
    const required = [
      'package.json',
      pkg.main,
      pkg.bin.gamepilot,
      postinstall,
      'dist/renderer/index.html',
      ...profileDirs.map((d) => `games/${d}/profile.yaml`),
      ...readdirSync(path.join(ROOT, 'prompts'), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/')),
    ];
    for (const f of required) expect(packed, f).toContain(f);
    // At the top only what `files` names and what npm always adds (package.json, README).
    const top = [...new Set(packed.map((f) => f.split('/')[0]!))].sort();
    const named = (pkg.files as string[]).filter((f) => !f.startsWith('!')).map((f) => f.split('/')[0]!);
    expect(top.filter((t) => !named.includes(t) && !/^(?:package\.json|README(?:\.md)?)$/i.test(t))).toEqual([]);
    for (const d of ['tests', 'docs', 'electron', 'native', 'renderer', 'types']) expect(top, d).not.toContain(d);
    expect(packed.filter((f) => /\.(?:[cm]?ts|tsx)$/.test(f))).toEqual([]); // games/**/*.ts too
    expect(packed.filter((f) => f.endsWith('.map'))).toEqual([]); // maps embed the sources
    expect(packed.filter((f) => f.startsWith('scripts/'))).toEqual([postinstall]);
    expect(packed.filter((f) => f.startsWith('games/') && !f.endsWith('/profile.yaml'))).toEqual([]);
    expect(packed.filter((f) => f.startsWith('dist/') && !f.startsWith('dist/renderer/'))).toEqual([]);
  });
});

describe('installed from the tarball into an empty folder', () => {
  it('installs without Electron (a dev dependency): its postinstall has nothing to fetch', () => {
    expect(existsSync(path.join(installed, 'package.json'))).toBe(true);
    expect(existsSync(path.join(consumer, 'node_modules', 'electron'))).toBe(false);
    expect(existsSync(path.join(consumer, 'node_modules', '.bin', 'gamepilot'))).toBe(true);
  });

  it('has every resource the bundle reads, where electron/util/resources.ts looks in the installed package', () => {
    const r = resourcePathsFor(path.join(installed, 'dist-electron'), false);
    expect(r.layout).toBe('bundle');
    expect(r.root).toBe(installed);
    for (const f of [
      r.viewWindowScript,
      r.cliLauncher, // what sweep jobs start
      r.benchReference,
      r.packageJson,
      path.join(r.renderer, 'index.html'),
      ...profileDirs.map((d) => path.join(r.games, d, 'profile.yaml')),
    ])
      expect(existsSync(f), f).toBe(true);
    const html = readFileSync(path.join(r.renderer, 'index.html'), 'utf8');
    const assets = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)]
      .map((m) => m[1]!)
      .filter((u) => !/^[a-z]+:/i.test(u));
    expect(assets.length).toBeGreaterThan(0);
    for (const a of assets) expect(existsSync(path.join(r.renderer, a.replace(/^\.?\//, ''))), a).toBe(true);
    // No sources: the renderer is served as built, never rebuilt (Vite is not installed).
    for (const src of r.rendererSources) expect(existsSync(src), src).toBe(false);
  });

  it('npx gamepilot --version prints the package version', async () => {
    const r = await gamepilot(['--version']);
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('npx gamepilot profiles --json lists every shipped profile, read from the installed package', async () => {
    const r = await gamepilot(['profiles', '--json']);
    expect(r.code, show(r)).toBe(0);
    const { profiles, errors } = JSON.parse(r.stdout) as {
      profiles: { file: string; source: string }[];
      errors: unknown[];
    };
    expect(errors).toEqual([]);
    expect(profiles.map((p) => path.relative(installed, p.file).split(path.sep).join('/')).sort()).toEqual(
      profileDirs.map((d) => `games/${d}/profile.yaml`),
    );
    expect(new Set(profiles.map((p) => p.source))).toEqual(new Set(['shipped']));
  });

  it('npx gamepilot run --game maze --agent solver plays in a real window and writes a scored run', async () => {
    const runs = dir('runs');
    const r = await gamepilot(['run', '--game', 'maze', '--agent', 'solver', '--runs-dir', runs, '--json']);
    expect(r.code, show(r)).toBe(0);
    const res = JSON.parse(r.stdout) as {
      run_dir: string;
      status: string;
      mean: number;
      episodes: { score: number; end: string }[];
    };
    expect(res.status).toBe('completed');
    expect(path.dirname(res.run_dir)).toBe(runs);
    expect(res.episodes).toHaveLength(maze.trials);
    for (const e of res.episodes) expect(e).toMatchObject({ score: 100, end: 'game_over' });
    expect(res.mean).toBe(100);
    const { meta, steps } = readRun(res.run_dir);
    expect(meta.target.kind).toBe('builtin');
    expect(meta.status).toBe('completed');
    expect(meta.profile?.file).toBe(path.join(installed, 'games', 'maze', 'profile.yaml'));
    expect(meta.episodes.map((e) => e.score)).toEqual(res.episodes.map((e) => e.score));
    expect(steps.length).toBeGreaterThanOrEqual(maze.trials);
    for (const s of steps) expect(s.view_inputs).toHaveLength(1); // each key went through the OS into the window
  });

  it('npx gamepilot suite ingvp --agent solver --games sokoban --levels 1-2 prints the table it writes', async () => {
    const out = path.join(tmp, 'suite');
    const r = await gamepilot([
      'suite',
      'ingvp',
      '--agent',
      'solver',
      '--games',
      'sokoban',
      '--levels',
      '1-2',
      '--out',
      out,
    ]);
    expect(r.code, show(r)).toBe(0);
    const table = JSON.parse(readFileSync(path.join(out, 'table.json'), 'utf8'));
    expect(table.settings).toEqual(INGVP_SETTINGS);
    expect(table.games).toEqual(['sokoban']);
    for (const s of INGVP_SETTINGS)
      expect(table.rows.sokoban[s], s).toEqual({
        levels: 2,
        accuracy: 100,
        completion: 100,
        efficiency: 100,
        efficiency_pooled: 100,
      });
    expect(r.stdout).toContain(formatTable(table));
    const levelRuns = readdirSync(path.join(out, 'runs'));
    expect(levelRuns).toHaveLength(INGVP_SETTINGS.length * 2);
    for (const d of levelRuns) expect(readRun(path.join(out, 'runs', d)).meta.status, d).toBe('completed');
  });
});
