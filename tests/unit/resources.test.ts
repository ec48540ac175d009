/**
 * util/resources.ts, the one module that knows where Gamepilot's files are: the three layouts
 * it tells apart and the paths in each, checked against the files this checkout really has
 * (the bundle is built by the suites' global setup). The packaged layout is checked for real by
 * `npm run test:package` (Forge's own packaging) and tests/unit/electron-app-bundle.test.ts.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliCommand, layoutOf, resourcePathsFor, resources, workerEntry } from '../../electron/util/resources.ts';
import { ROOT } from '../helpers/cli.ts';

describe('the resources module', () => {
  it('tells the checkout, the bundle and the packaged app apart by where its code runs from', () => {
    expect(layoutOf(path.join(ROOT, 'electron', 'util'), true)).toBe('checkout');
    expect(layoutOf(path.join(ROOT, 'dist-electron'), false)).toBe('bundle');
    expect(layoutOf('/opt/Gamepilot/resources/app.asar/dist-electron', false)).toBe('packaged');
    expect(layoutOf('C:\\Gamepilot\\resources\\app.asar\\dist-electron', false)).toBe('packaged');
    expect(layoutOf('/home/me/app.asarx/dist-electron', false)).toBe('bundle');
  });

  it('finds the same existing files from the sources and from the bundle of this checkout', () => {
    const fromSource = resourcePathsFor(path.join(ROOT, 'electron', 'util'), true);
    const fromBundle = resourcePathsFor(path.join(ROOT, 'dist-electron'), false);
    expect(fromSource.root).toBe(ROOT);
    expect(fromBundle.root).toBe(ROOT);
    for (const r of [fromSource, fromBundle]) {
      for (const file of [r.packageJson, r.cliLauncher, r.benchReference, r.viewWindowScript])
        expect(existsSync(file), file).toBe(true);
      expect(existsSync(path.join(r.renderer, 'index.html'))).toBe(true);
      expect(existsSync(path.join(r.prompts, 'system.md'))).toBe(true);
      const profiles = readdirSync(r.games).filter((d) => existsSync(path.join(r.games, d, 'profile.yaml')));
      expect(profiles.length).toBeGreaterThan(10);
    }
    // The bundle's view-window script is its own copy, beside main.mjs.
    expect(fromBundle.viewWindowScript).toBe(path.join(ROOT, 'dist-electron', 'view-window.cjs'));
  });

  it('lays the packaged app out as the bundle, inside the asar', () => {
    const asar = path.join('/opt', 'Gamepilot', 'resources', 'app.asar');
    const r = resourcePathsFor(path.join(asar, 'dist-electron'), false);
    expect(r.layout).toBe('packaged');
    expect(r.renderer).toBe(path.join(asar, 'dist', 'renderer'));
    expect(r.games).toBe(path.join(asar, 'games'));
    expect(r.bundleDir).toBe(path.join(asar, 'dist-electron'));
  });

  it('this process (vitest, from sources): checkout paths, workers through the tsx bootstrap', () => {
    expect(resources().layout).toBe('checkout');
    const w = workerEntry('capture-worker');
    expect(existsSync(w.file)).toBe(true);
    expect(existsSync(w.sourceEntry!)).toBe(true);
  });

  it('starts gamepilot children with this Node and the launcher (outside a packaged app)', () => {
    const cli = cliCommand();
    if ('refused' in cli) throw new Error(cli.refused);
    expect(cli).toEqual({ command: process.execPath, args: [path.join(ROOT, 'bin', 'gamepilot.mjs')], env: {} });
  });
});
