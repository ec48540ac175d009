/**
 * The Electron shell cannot run here (no binary), so its decisions live in plain modules that
 * are checked here for what they do: the core loads without Electron, the window
 * options and navigation/permission guards, what protects the API key, and the fuses Forge
 * flips. The app's settings file, which the other shells share, is checked in settings-file.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';
import {
  controlWindowOptions,
  denyPermissionCheck,
  denyPermissionRequest,
  gameWindowOptions,
  guardContents,
  navigationAllowed,
} from '../../electron/app/window-policy.ts';
import { describeSecretStorage } from '../../electron/app/secret-storage.ts';
import config, { FUSES } from '../../forge.config.ts';
import { FuseV1Options } from '@electron/fuses';
import { bundleImports } from '../../scripts/package-contents.ts';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    if (n === 'node_modules' || n.startsWith('.')) return [];
    return statSync(p).isDirectory() ? sources(p) : /\.(ts|tsx|cts|mts)$/.test(n) ? [p] : [];
  });
}

describe('the core without Electron', () => {
  const importUnderNoElectron = (files: string[]) =>
    spawnSync(
      process.execPath,
      ['--import', './tests/helpers/no-electron.mjs', '--import', 'tsx', 'tests/helpers/import-modules.mjs', ...files],
      { cwd: ROOT, encoding: 'utf8' },
    );

  it('every module outside electron/app loads in a Node where `electron` cannot be imported', () => {
    const core = ['electron', 'native', 'games']
      .flatMap((d) => sources(path.join(ROOT, d)))
      .filter(
        (f) =>
          !f.includes(`${path.sep}electron${path.sep}app${path.sep}`) && /\.ts$/.test(f) && !/-worker\.ts$/.test(f),
      ) // worker threads are entry points, run from the bundle in e2e
      .map((f) => path.relative(ROOT, f));
    expect(core.length).toBeGreaterThan(80);
    const r = importUnderNoElectron(core);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(`${core.length} modules loaded`);
    expect(r.status).toBe(0);
  });

  it('(the same Node refuses electron/app, which does import it)', () => {
    const r = importUnderNoElectron(['electron/app/stores.ts']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/electron imported by file:.*electron\/app\/stores\.ts/);
  });
});

describe('windows', () => {
  it('game windows get a plain sandboxed page: no Node, no preload, no dev tools', () => {
    const o = gameWindowOptions({ width: 520, height: 640, x: 10, y: 20 });
    expect(o).toMatchObject({ width: 520, height: 640, x: 10, y: 20, useContentSize: true });
    expect(o.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      webviewTag: false,
      devTools: false,
    });
    expect(o.webPreferences).not.toHaveProperty('preload');
  });

  it('the control window gets the same lock-down plus only the contract’s preload', () => {
    const o = controlWindowOptions('/app/dist-electron/preload.cjs', 'Gamepilot 1.2.3');
    expect(o.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      preload: '/app/dist-electron/preload.cjs',
    });
    expect(o.show).toBe(false);
    expect(o.title).toBe('Gamepilot 1.2.3');
  });

  it('a window navigates only within the origin it was opened with; a file: page never', () => {
    const game = 'http://127.0.0.1:41234/game/2048?token=abc';
    expect(navigationAllowed(game, 'http://127.0.0.1:41234/game/2048?token=abc#board')).toBe(true);
    expect(navigationAllowed(game, 'http://127.0.0.1:41235/game/2048')).toBe(false); // another port
    expect(navigationAllowed(game, 'https://127.0.0.1:41234/game/2048')).toBe(false);
    expect(navigationAllowed(game, 'https://evil.example/')).toBe(false);
    expect(navigationAllowed(game, 'file:///etc/passwd')).toBe(false);
    expect(navigationAllowed(game, 'javascript:alert(1)')).toBe(false);
    expect(navigationAllowed(game, 'not a url')).toBe(false);
    expect(navigationAllowed('file:///app/dist/renderer/index.html', 'file:///app/dist/renderer/index.html')).toBe(
      false,
    );
  });

  it('guards a webContents: off-origin navigation and redirects are stopped, new windows and webviews refused', () => {
    const contents = Object.assign(new EventEmitter(), {
      openHandler: undefined as undefined | ((d: { url: string }) => { action: string }),
      setWindowOpenHandler(h: (d: { url: string }) => { action: 'deny' }) {
        this.openHandler = h;
      },
    });
    const blocked: string[] = [];
    guardContents(contents, 'http://127.0.0.1:41234/game/2048', (w) => blocked.push(w));
    const navigate = (event: string, url: string) => {
      let prevented = false;
      // Electron ≥ 25 passes the URL on the event; older listeners got it as the second argument.
      contents.emit(event, { url, preventDefault: () => (prevented = true) }, url);
      return prevented;
    };
    expect(navigate('will-navigate', 'http://127.0.0.1:41234/game/2048?step=2')).toBe(false);
    expect(navigate('will-navigate', 'https://evil.example/')).toBe(true);
    expect(navigate('will-redirect', 'http://169.254.169.254/latest/meta-data')).toBe(true);
    expect(navigate('will-frame-navigate', 'file:///home')).toBe(true);
    expect(navigate('will-attach-webview', '')).toBe(true);
    expect(contents.openHandler!({ url: 'https://evil.example/popup' })).toEqual({ action: 'deny' });
    expect(blocked).toEqual([
      'navigation to https://evil.example/',
      'navigation to http://169.254.169.254/latest/meta-data',
      'navigation to file:///home',
      'a <webview>',
      'a new window for https://evil.example/popup',
    ]);
  });

  it('refuses every permission request and check', () => {
    for (const permission of [
      'media',
      'geolocation',
      'notifications',
      'clipboard-read',
      'display-capture',
      'openExternal',
      'fullscreen',
      'pointerLock',
      'hid',
      'serial',
      'usb',
    ]) {
      let granted: boolean | undefined;
      denyPermissionRequest({}, permission, (g) => (granted = g));
      expect(granted, permission).toBe(false);
    }
    expect(denyPermissionCheck()).toBe(false);
  });
});

describe('secret storage', () => {
  it('on Linux without a keyring (basic_text) says plainly the key is not protected by a keychain, and warns', () => {
    const d = describeSecretStorage({ platform: 'linux', encryptionAvailable: true, backend: 'basic_text' });
    expect(d.keychain).toBe(false);
    expect(d.kind).toMatch(/NOT protected by a keychain/);
    expect(d.warning).toMatch(/basic_text/);
  });

  it('names the keychain when there is one, without a warning', () => {
    for (const [platform, backend] of [
      ['linux', 'gnome_libsecret'],
      ['linux', 'kwallet6'],
      ['darwin', undefined],
      ['win32', undefined],
    ] as const) {
      const d = describeSecretStorage({ platform, encryptionAvailable: true, ...(backend ? { backend } : {}) });
      expect(d.keychain, `${platform} ${backend}`).toBe(true);
      expect(d.warning).toBeNull();
    }
  });

  it('an unknown backend or no encryption at all is not passed off as a keychain', () => {
    expect(describeSecretStorage({ platform: 'linux', encryptionAvailable: true, backend: 'unknown' })).toMatchObject({
      keychain: false,
      warning: expect.any(String),
    });
    expect(describeSecretStorage({ platform: 'darwin', encryptionAvailable: false })).toMatchObject({
      keychain: false,
      warning: expect.stringMatching(/OPENAI_API_KEY/),
    });
  });
});

describe('fuses', () => {
  it('Forge flips them in the packaged binary: no RunAsNode, no NODE_OPTIONS or inspect, cookies encrypted, only the integrity-checked asar', () => {
    const plugin = config.plugins!.find((p) => (p as { name?: string }).name === 'fuses') as unknown as {
      fusesConfig: typeof FUSES;
    };
    expect(plugin).toBeDefined();
    expect(plugin.fusesConfig).toBe(FUSES);
    expect(FUSES).toMatchObject({
      [FuseV1Options.RunAsNode]: false,
      [FuseV1Options.EnableCookieEncryption]: true,
      [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
      [FuseV1Options.EnableNodeCliInspectArguments]: false,
      [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
      [FuseV1Options.OnlyLoadAppFromAsar]: true,
    });
  });
});

describe('packaging (forge.config.ts; npm run test:package packages for real)', () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const ignore = config.packagerConfig!.ignore as (file: string) => boolean;
  const files = (dir: string): string[] =>
    readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(`${dir}/${e.name}`) : [`${dir}/${e.name}`],
    );

  it('ships the profiles of games/ and none of its TypeScript; of the checkout only the app’s own folders', () => {
    const games = files('games');
    const profiles = games.filter((f) => f.endsWith('/profile.yaml'));
    expect(profiles.length).toBeGreaterThan(10);
    for (const f of profiles) expect(ignore(`/${f}`), f).toBe(false);
    for (const f of games.filter((g) => !g.endsWith('/profile.yaml'))) expect(ignore(`/${f}`), f).toBe(true);
    const app = new Set(['package.json', 'dist-electron', 'dist', 'prompts', 'games', 'node_modules']);
    for (const name of readdirSync(ROOT)) expect(ignore(`/${name}`), name).toBe(!app.has(name));
    for (const f of files('prompts')) expect(ignore(`/${f}`), f).toBe(false);
  });

  it('ships the packages the bundle imports and no dev dependency; declarations and maps of none', () => {
    const deps = pkg.dependencies as Record<string, string>;
    const imported = bundleImports(path.join(ROOT, 'dist-electron')).filter((n) => n in deps);
    expect(imported.length).toBeGreaterThan(10);
    for (const name of imported) expect(ignore(`/node_modules/${name}/package.json`), name).toBe(false);
    for (const name of Object.keys(pkg.devDependencies)) expect(ignore(`/node_modules/${name}`), name).toBe(true);
    expect(ignore('/node_modules/.bin')).toBe(true);
    // The filter judges paths: within a shipped package, its declarations and source maps stay out.
    const [first] = imported;
    expect(ignore(`/node_modules/${first}/index.js`)).toBe(false);
    expect(ignore(`/node_modules/${first}/index.d.ts`)).toBe(true);
    expect(ignore(`/node_modules/${first}/index.js.map`)).toBe(true);
  });

  it('prompts ship inside the asar (no extraResource), node_modules is the filter’s alone, nothing is rebuilt', () => {
    expect(config.packagerConfig!.extraResource).toBeUndefined();
    expect(config.packagerConfig!.prune).toBe(false); // the ignore function decides node_modules too
    expect(config.rebuildConfig).toEqual({ onlyModules: [] }); // N-API prebuilds: no Electron headers to fetch
  });
});
