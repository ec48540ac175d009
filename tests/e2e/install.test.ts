/**
 * First install on a machine that cannot download the Electron binary. A probe project carries
 * this repository's own install policy (package.json's allowScripts and postinstall, the
 * electron version and its locked dependency tree) and is installed by the real npm, offline
 * from npm's cache, with Electron's download pointed at a port where nothing listens:
 * `npm ci` must succeed and say why there is no binary. Electron 45 has no install script of its
 * own, so without ours nothing downloads and no binary is left.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';

type LockEntry = { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/** `node_modules/electron` and everything it needs, at the locations the lockfile gives them. */
function lockedClosure(start: string): Record<string, LockEntry> {
  const out: Record<string, LockEntry> = {};
  const visit = (loc: string) => {
    if (out[loc]) return;
    out[loc] = lock.packages[loc]!;
    const deps = { ...out[loc].dependencies, ...out[loc].optionalDependencies };
    for (const name of Object.keys(deps)) {
      // Node's resolution: the nearest node_modules/<name> walking up from `loc`.
      let base = loc;
      for (;;) {
        const candidate = `${base}/node_modules/${name}`;
        if (lock.packages[candidate]) {
          visit(candidate);
          break;
        }
        const up = base.lastIndexOf('/node_modules/');
        if (up < 0) {
          if (lock.packages[`node_modules/${name}`]) visit(`node_modules/${name}`);
          break;
        }
        base = base.slice(0, up);
      }
    }
  };
  visit(start);
  return out;
}

const probes: string[] = [];
afterAll(() => {
  for (const d of probes) rmSync(d, { recursive: true, force: true });
});

function probeProject(allowScripts: Record<string, boolean>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gp-install-'));
  probes.push(dir);
  mkdirSync(path.join(dir, 'scripts'));
  copyFileSync(path.join(ROOT, 'scripts', 'install-electron.mjs'), path.join(dir, 'scripts', 'install-electron.mjs'));
  const root = {
    name: 'gp-install-probe',
    version: '1.0.0',
    devDependencies: { electron: pkg.devDependencies.electron },
  };
  const manifest = { ...root, private: true, scripts: { postinstall: pkg.scripts.postinstall }, allowScripts };
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(
    path.join(dir, 'package-lock.json'),
    JSON.stringify(
      {
        name: root.name,
        version: root.version,
        lockfileVersion: 3,
        requires: true,
        packages: { '': root, ...lockedClosure('node_modules/electron') },
      },
      null,
      2,
    ),
  );
  return dir;
}

function npmCi(dir: string) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ELECTRON_MIRROR: 'http://127.0.0.1:9/',
    electron_config_cache: path.join(dir, 'electron-cache'),
  };
  delete env.ELECTRON_SKIP_BINARY_DOWNLOAD;
  return spawnSync('npm', ['ci', '--offline', '--no-audit', '--no-fund'], {
    cwd: dir,
    env,
    encoding: 'utf8',
    timeout: 110_000,
  });
}

describe('npm install without the Electron binary', () => {
  it('succeeds, says why there is no binary, and keeps electron (and its types) installed', {
    timeout: 120_000,
  }, () => {
    if (!pkg.scripts.postinstall) throw new Error('package.json has no postinstall that fetches the Electron binary');
    const dir = probeProject(pkg.allowScripts);
    const r = npmCi(dir);
    expect(r.status, r.stderr).toBe(0);
    // Electron 45's downloader (fetch) says only "fetch failed" where older ones named the refused port.
    expect(r.stderr).toMatch(
      /Electron binary could not be downloaded \(.*(ECONNREFUSED|127\.0\.0\.1|fetch failed).*\)/,
    );
    expect(r.stderr).toMatch(/npm run install-electron/);
    expect(existsSync(path.join(dir, 'node_modules', 'electron', 'electron.d.ts'))).toBe(true);
    expect(existsSync(path.join(dir, 'node_modules', 'electron', 'path.txt'))).toBe(false);
  });

  it('electron declares no install script of its own: the binary comes only through our postinstall', {
    timeout: 120_000,
  }, () => {
    // Electron ≤ 38 downloaded in its own postinstall (which this policy denied); 45 has none, so
    // without ours the install says nothing of a download and leaves no binary.
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'node_modules', 'electron', 'package.json'), 'utf8'));
    expect(manifest.scripts?.postinstall).toBeUndefined();
    expect(manifest.scripts?.install).toBeUndefined();
    const dir = probeProject(pkg.allowScripts);
    const probe = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    delete probe.scripts;
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify(probe, null, 2));
    const r = npmCi(dir);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/could not be downloaded/);
    expect(existsSync(path.join(dir, 'node_modules', 'electron', 'path.txt'))).toBe(false);
  });
});
