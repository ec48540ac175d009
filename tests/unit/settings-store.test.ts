import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSettings, JsonFileSettingsStore } from '../../electron/api/settings-store.ts';
import { DEFAULT_SETTINGS } from '../../electron/api/contract.ts';

describe('settings file', () => {
  it('keeps a corrupt file aside, starts from defaults and says so', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gp-set-'));
    const file = path.join(dir, 'settings.json');
    writeFileSync(file, '{"model": "gpt-4o", "history": 3,,, oops');
    const store = new JsonFileSettingsStore(file);
    expect(store.load()).toEqual(DEFAULT_SETTINGS);
    const aside = readdirSync(dir).find((f) => f.startsWith('settings.json.corrupt-'))!;
    expect(store.warning).toContain(aside);
    expect(readFileSync(path.join(dir, aside), 'utf8')).toContain('oops'); // nothing lost
    expect(existsSync(file)).toBe(false);
  });

  it('keeps the valid fields of a half-broken file and drops a stray API key', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gp-set-'));
    const file = path.join(dir, 'settings.json');
    writeFileSync(
      file,
      JSON.stringify({ model: 'qwen2.5-vl', history: 99, detail: 'ultra', provider: 'ollama', apiKey: 'sk-leak' }),
    );
    const store = new JsonFileSettingsStore(file);
    const s = store.load();
    expect(s).toMatchObject({ model: 'qwen2.5-vl', provider: 'ollama', history: 2, detail: 'auto' }); // an invalid history falls back to the default: current frame + the previous pair
    expect(JSON.stringify(s)).not.toContain('sk-leak');
    store.save(s);
    expect(readFileSync(file, 'utf8')).not.toContain('sk-leak'); // nor on disk once saved
    expect(checkSettings('nonsense').settings).toEqual(DEFAULT_SETTINGS);
  });

  it('saves through a fresh temp file: never through a file planted at a predictable name, never leaving one behind', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gp-set-'));
    const file = path.join(dir, 'settings.json');
    const victim = path.join(dir, 'victim.txt');
    writeFileSync(victim, 'keep me');
    symlinkSync(victim, `${file}.tmp`); // a name the old save wrote to (and through)
    new JsonFileSettingsStore(file).save({ ...DEFAULT_SETTINGS, model: 'm1' });
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    expect(lstatSync(file).isFile()).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(new JsonFileSettingsStore(file).load().model).toBe('m1');
    expect(readdirSync(dir).sort()).toEqual(['settings.json', 'settings.json.tmp', 'victim.txt']); // only what was there, and the file
  });
});
