/**
 * The Electron shell cannot run here (no binary), so check what can be checked: it bundles, the
 * preload exposes only the contract, and nothing outside electron/app imports `electron`.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    if (n === 'node_modules' || n.startsWith('.')) return [];
    return statSync(p).isDirectory() ? sources(p) : /\.(ts|tsx|cts|mts)$/.test(n) ? [p] : [];
  });
}

describe('Electron shell', () => {
  it('bundles main and preload with esbuild', () => {
    const out = execFileSync(process.execPath, ['scripts/build-electron.mjs'], { cwd: ROOT, encoding: 'utf8' });
    expect(out).toMatch(/built dist-electron\/main\.mjs and dist-electron\/preload\.cjs/);
    const preload = readFileSync(path.join(ROOT, 'dist-electron', 'preload.cjs'), 'utf8');
    expect(preload).toMatch(/exposeInMainWorld\("gamepilot"/);
    expect(preload).not.toMatch(/ipcRenderer\.send\b|require\("fs"\)|child_process/);
  });

  it("keeps `electron` imports inside electron/app", () => {
    const offenders = ['electron', 'renderer', 'native', 'games', 'prompts']
      .flatMap((d) => sources(path.join(ROOT, d)))
      .filter((f) => !f.includes(`${path.sep}electron${path.sep}app${path.sep}`))
      .filter((f) => /from ['"]electron['"]|require\(['"]electron['"]\)/.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('opens windows with the renderer locked down', () => {
    const main = readFileSync(path.join(ROOT, 'electron', 'app', 'main.ts'), 'utf8');
    expect(main).toMatch(/contextIsolation: true, sandbox: true, nodeIntegration: false/);
    expect(main).toMatch(/setContentProtection\(true\)/);
    expect(main).toMatch(/globalShortcut\.register/);
  });
});
