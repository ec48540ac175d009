/**
 * The settings file the app, the web shell and the CLI share (`{ settings, apiKeyEncrypted? }`,
 * electron/api/settings-file.ts): on a user's machine the app's userData folder and the config
 * folder are the same, so each shell's save must keep the others' parts. The app's side is
 * checked twice: with its own store (AppSettingsStore, the app's class minus Electron) and with
 * electron-store's base `conf` opened the way the app opened the file up to now, which is how
 * files on users' disks were written (and how an older app reads them).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Conf from 'conf';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../electron/api/contract.ts';
import { JsonFileSettingsStore } from '../../electron/api/settings-store.ts';
import { readSettingsDoc, updateSettingsDoc } from '../../electron/api/settings-file.ts';
import { AppSettingsStore } from '../../electron/app/app-settings-store.ts';
import { ROOT } from '../helpers/cli.ts';

type Stored = { settings: Settings; apiKeyEncrypted?: string };

function tmp() {
  const dir = mkdtempSync(path.join(tmpdir(), 'gp-shared-settings-'));
  return { dir, file: path.join(dir, 'settings.json') };
}

/** electron-store as the app opened settings.json until now (name → conf's configName; no migrations). */
function electronStore(dir: string) {
  return new Conf<Stored>({
    cwd: dir,
    configName: 'settings',
    clearInvalidConfig: false,
    configFileMode: 0o600,
    defaults: { settings: DEFAULT_SETTINGS },
  });
}

/** What safeStorage hands back: a version prefix and AES ciphertext, base64. */
const ciphertext = () => Buffer.concat([Buffer.from('v11'), randomBytes(48)]).toString('base64');

/** The web shell's store, constructed as electron/web/web-shell.ts does it. */
const webShellStore = (configDir: string) => new JsonFileSettingsStore(path.join(configDir, 'settings.json'));

const onDisk = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

describe('the settings file the shells share', () => {
  it("a web-shell save keeps the app's encrypted key byte for byte and saves exactly its settings", () => {
    const { dir, file } = tmp();
    const enc = ciphertext();
    const app = electronStore(dir);
    app.set('settings', { ...DEFAULT_SETTINGS, provider: 'openrouter', model: 'app-model', history: 4 });
    app.set('apiKeyEncrypted', enc);
    const before = readFileSync(file, 'utf8');
    expect(before).toContain(`"apiKeyEncrypted": "${enc}"`); // electron-store's own layout, tabs and all

    const web = webShellStore(dir);
    const loaded = web.load();
    expect(loaded).toMatchObject({ provider: 'openrouter', model: 'app-model', history: 4 }); // the app's, not defaults
    expect(web.warning).toBeNull();
    const saved: Settings = { ...loaded, model: 'web-model', temperature: 0.3 };
    web.save(saved);

    const after = readFileSync(file, 'utf8');
    expect(after).toContain(`"apiKeyEncrypted": "${enc}"`);
    expect(onDisk(file)).toEqual({ settings: saved, apiKeyEncrypted: enc });
    expect(webShellStore(dir).load()).toEqual(saved);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('the app reads what the web shell saved: its own store and an older electron-store one alike', () => {
    const { dir, file } = tmp();
    const enc = ciphertext();
    const app = new AppSettingsStore(dir);
    app.save({ ...DEFAULT_SETTINGS, model: 'app-model' });
    app.setKeyCiphertext(enc);
    const saved: Settings = { ...DEFAULT_SETTINGS, provider: 'ollama', model: 'web-model', stopHotkey: 'Control+F9' };
    webShellStore(dir).save(saved);

    const reopened = new AppSettingsStore(dir);
    expect(reopened.load()).toEqual(saved);
    expect(reopened.keyCiphertext()).toBe(enc);
    expect(reopened.warning).toBeNull();
    const older = electronStore(dir);
    expect(older.get('settings')).toEqual(saved);
    expect(older.get('apiKeyEncrypted')).toBe(enc);
    // The app's key change, in turn, leaves the web shell's settings alone.
    app.setKeyCiphertext(undefined);
    expect(onDisk(file)).toEqual({ settings: saved });
  });

  it('keeps parts it does not know (electron-store bookkeeping) through every save', () => {
    const { dir, file } = tmp();
    writeFileSync(
      file,
      JSON.stringify({ settings: DEFAULT_SETTINGS, __internal__: { migrations: { version: '0.1.0' } } }),
    );
    webShellStore(dir).save({ ...DEFAULT_SETTINGS, model: 'm' });
    new AppSettingsStore(dir).setKeyCiphertext('abcd');
    expect(onDisk(file)).toEqual({
      settings: { ...DEFAULT_SETTINGS, model: 'm' },
      __internal__: { migrations: { version: '0.1.0' } },
      apiKeyEncrypted: 'abcd',
    });
  });

  it('the web shell moves a corrupt app file aside, key and all, names it in a warning and starts from defaults', () => {
    const { dir, file } = tmp();
    const corrupt = `{"settings": {"model": "gpt-4o"}, "apiKeyEncrypted": "${ciphertext()}", `;
    writeFileSync(file, corrupt);
    const web = webShellStore(dir);
    expect(web.load()).toEqual(DEFAULT_SETTINGS);
    const aside = readdirSync(dir).filter((f) => f.startsWith('settings.json.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(path.join(dir, aside[0]!), 'utf8')).toBe(corrupt);
    expect(web.warning).toContain(aside[0]);
    expect(existsSync(file)).toBe(false);
    // Anything but a JSON object is moved aside too; a good or missing file is left alone.
    writeFileSync(file, '[1, 2]');
    expect(readSettingsDoc(file, 7).warning).toContain('settings.json.corrupt-7');
    expect(readSettingsDoc(file)).toEqual({ doc: {}, warning: null });
    const good = JSON.stringify({ settings: { model: 'x' }, apiKeyEncrypted: 'abc' });
    writeFileSync(file, good);
    expect(readSettingsDoc(file).warning).toBeNull();
    expect(readFileSync(file, 'utf8')).toBe(good);
  });

  it('a save over a file that turned corrupt moves it aside first, and the app can still find its key there', () => {
    const { file } = tmp();
    writeFileSync(file, '{"apiKeyEncrypted": "djEw');
    const warning = updateSettingsDoc(file, (doc) => ({ ...doc, settings: DEFAULT_SETTINGS }), 42);
    expect(warning).toContain('settings.json.corrupt-42');
    expect(readFileSync(`${file}.corrupt-42`, 'utf8')).toBe('{"apiKeyEncrypted": "djEw');
    expect(onDisk(file)).toEqual({ settings: DEFAULT_SETTINGS });
  });

  it('invalid fields fall back to their defaults, with a warning naming them; the rest is kept', () => {
    const { dir, file } = tmp();
    writeFileSync(
      file,
      JSON.stringify({ settings: { model: 'kept', history: 99, detail: 'ultra' }, apiKeyEncrypted: 'k' }),
    );
    const web = webShellStore(dir);
    expect(web.load()).toEqual({ ...DEFAULT_SETTINGS, model: 'kept' });
    expect(web.warning).toMatch(/history, detail/);
  });

  it('migrates an old web-shell file (the bare settings object) on the next save, losing nothing', () => {
    const { dir, file } = tmp();
    // What JsonFileSettingsStore wrote until now: the parsed settings, two-space JSON, at the top level.
    const old: Settings = {
      ...DEFAULT_SETTINGS,
      provider: 'custom',
      baseUrl: 'http://127.0.0.1:8000/v1',
      model: 'qwen',
      history: 5,
    };
    writeFileSync(file, JSON.stringify(old, null, 2), { mode: 0o644 });
    const web = webShellStore(dir);
    expect(web.load()).toEqual(old);
    expect(web.warning).toBeNull();
    expect(statSync(file).mode & 0o777).toBe(0o600); // narrowed on open
    web.save({ ...old, imageSize: 768 });
    expect(onDisk(file)).toEqual({ settings: { ...old, imageSize: 768 } });
    expect(new AppSettingsStore(dir).load()).toEqual({ ...old, imageSize: 768 });
  });

  it('reads the base URL saved under its former name (`baseURL`), in both layouts, and saves it as `baseUrl`', () => {
    const { dir, file } = tmp();
    const former = { ...DEFAULT_SETTINGS, provider: 'custom', model: 'qwen' } as Record<string, unknown>;
    delete former.baseUrl;
    writeFileSync(
      file,
      JSON.stringify({ settings: { ...former, baseURL: 'http://127.0.0.1:8000/v1' }, apiKeyEncrypted: 'k' }),
    );
    const expected: Settings = {
      ...DEFAULT_SETTINGS,
      provider: 'custom',
      model: 'qwen',
      baseUrl: 'http://127.0.0.1:8000/v1',
    };
    const web = webShellStore(dir);
    expect(web.load()).toEqual(expected);
    expect(web.warning).toBeNull();
    expect(new AppSettingsStore(dir).load()).toEqual(expected);
    web.save({ ...expected, history: 5 });
    expect(onDisk(file)).toEqual({ settings: { ...expected, history: 5 }, apiKeyEncrypted: 'k' });

    const bare = tmp();
    writeFileSync(bare.file, JSON.stringify({ ...former, baseURL: 'http://bare/v1' }, null, 2));
    expect(webShellStore(bare.dir).load()).toEqual({ ...expected, baseUrl: 'http://bare/v1' });
    // Both names: the new one is what a newer version saved last.
    const both = tmp();
    writeFileSync(both.file, JSON.stringify({ settings: { ...expected, baseURL: 'http://old/v1' } }));
    expect(webShellStore(both.dir).load()).toEqual(expected);
  });

  it('reads a file both layouts left behind: the top-level fields when `settings` holds only the defaults an older app filled in', () => {
    const { dir, file } = tmp();
    const bare: Settings = { ...DEFAULT_SETTINGS, model: 'web-model' };
    writeFileSync(file, JSON.stringify(bare, null, 2));
    electronStore(dir).set('apiKeyEncrypted', 'djEwKEY'); // an older app opens it: adds `settings: defaults` beside the fields
    expect(onDisk(file)).toMatchObject({ settings: DEFAULT_SETTINGS, model: 'web-model', apiKeyEncrypted: 'djEwKEY' });
    expect(webShellStore(dir).load()).toEqual(bare);
    // Once the app saved settings of its own, those are the newer ones.
    electronStore(dir).set('settings', { ...DEFAULT_SETTINGS, model: 'app-model' });
    const web = webShellStore(dir);
    expect(web.load().model).toBe('app-model');
    web.save({ ...DEFAULT_SETTINGS, model: 'app-model', history: 3 });
    expect(onDisk(file)).toEqual({
      settings: { ...DEFAULT_SETTINGS, model: 'app-model', history: 3 },
      apiKeyEncrypted: 'djEwKEY',
    });
  });

  it('two processes saving their own parts at once lose neither part, and the file stays whole', async () => {
    const { dir, file } = tmp();
    const rounds = 100;
    const writers = (['settings', 'key'] as const).map((role) =>
      spawn(
        process.execPath,
        ['--import', 'tsx', path.join(ROOT, 'tests', 'helpers', 'settings-writer.ts'), dir, role, String(rounds)],
        { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
      ),
    );
    const reports = await Promise.all(
      writers.map(
        (w) =>
          new Promise<{ role: string; lost: number }>((resolve, reject) => {
            let text = '';
            w.stdout!.on('data', (d) => (text += d));
            w.once('exit', (code) =>
              code === 0 ? resolve(JSON.parse(text)) : reject(new Error(`writer ended with ${code}`)),
            );
          }),
      ),
    );
    expect(reports).toEqual([
      { role: 'settings', lost: 0 },
      { role: 'key', lost: 0 },
    ]);
    expect(onDisk(file)).toEqual({
      settings: { ...DEFAULT_SETTINGS, model: `model-${rounds - 1}` },
      apiKeyEncrypted: `djEx-${rounds - 1}`,
    });
    expect(readdirSync(dir)).toEqual(['settings.json']); // no lock or temp file left behind
  });
});
