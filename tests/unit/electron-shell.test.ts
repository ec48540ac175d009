/**
 * The Electron shell cannot run here (no binary), so its decisions live in plain modules that
 * are checked here for what they do: the core loads without Electron, the window
 * options and navigation/permission guards, the settings file's recovery and mode (with
 * electron-store's own base, conf), what protects the API key, and the fuses Forge flips.
 */
import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Conf from 'conf';
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
import { recoverSettingsFile, restrictToOwner, settingsStoreOptions } from '../../electron/app/settings-file.ts';
import { describeSecretStorage } from '../../electron/app/secret-storage.ts';
import config, { FUSES } from '../../forge.config.ts';
import { FuseV1Options } from '@electron/fuses';

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

describe('settings file', () => {
  const corrupt = '{"settings": {"model": "gpt-4o"}, "apiKeyEncrypted": "djEwAAAA", ';

  it('a corrupt file is moved aside with the encrypted key in it, and named in a warning', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gp-settings-'));
    const file = path.join(dir, 'settings.json');
    writeFileSync(file, corrupt);
    const warning = recoverSettingsFile(file, 1234);
    expect(existsSync(file)).toBe(false);
    expect(readFileSync(`${file}.corrupt-1234`, 'utf8')).toBe(corrupt);
    expect(warning).toContain('settings.json.corrupt-1234');
  });

  it('anything but a JSON object is moved aside too; a good or missing file is left alone', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gp-settings-'));
    const file = path.join(dir, 'settings.json');
    expect(recoverSettingsFile(file)).toBeNull();
    writeFileSync(file, '[1, 2]');
    expect(recoverSettingsFile(file, 1)).not.toBeNull();
    expect(existsSync(`${file}.corrupt-1`)).toBe(true);
    const good = JSON.stringify({ settings: { model: 'x' }, apiKeyEncrypted: 'abc' });
    writeFileSync(file, good);
    expect(recoverSettingsFile(file, 2)).toBeNull();
    expect(readFileSync(file, 'utf8')).toBe(good);
  });

  it('with the app’s store options the key is never silently wiped, and the file is owner-only', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gp-settings-'));
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'settings.json');
    // electron-store is conf plus Electron's paths; it passes `name` on as conf's `configName`.
    const { name, ...options } = settingsStoreOptions(dir, { settings: { model: '' } });
    const open = () => new Conf({ ...options, configName: name });
    // What clearInvalidConfig: true did: the corrupt file read as empty, the key gone with the next write.
    const before = mkdtempSync(path.join(tmpdir(), 'gp-settings-'));
    writeFileSync(path.join(before, 'settings.json'), corrupt);
    new Conf({ ...options, cwd: before, configName: name, clearInvalidConfig: true }).set('settings', {
      model: 'gpt-4o',
    });
    expect(readFileSync(path.join(before, 'settings.json'), 'utf8')).not.toContain('apiKeyEncrypted');
    expect(readdirSync(before)).toEqual(['settings.json']);
    // With the app's options an unreadable file is an error, never an empty store…
    writeFileSync(file, corrupt);
    expect(open).toThrow(/JSON/);
    // …and the app moves it aside first, then opens.
    expect(recoverSettingsFile(file, 99)).toMatch(/corrupt-99/);
    const store = open();
    store.set('settings', { model: 'gpt-4o' });
    expect(readFileSync(`${file}.corrupt-99`, 'utf8')).toContain('apiKeyEncrypted');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // A file created before (by an older version) with a wider mode is narrowed.
    const old = path.join(dir, 'old.json');
    writeFileSync(old, '{}', { mode: 0o644 });
    restrictToOwner(old);
    expect(statSync(old).mode & 0o777).toBe(0o600);
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
