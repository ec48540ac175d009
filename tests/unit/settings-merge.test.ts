/**
 * Two shells saving settings at once (electron/api/settings-store.ts over settings-file.ts): each
 * loaded its settings once and saves from its own copy, yet neither undoes the other's change of
 * an unrelated field — a save is a field-by-field merge into the file as it is now, under its lock.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../electron/api/contract.ts';
import { JsonFileSettingsStore } from '../../electron/api/settings-store.ts';
import { AppSettingsStore } from '../../electron/app/app-settings-store.ts';
import { spawnTs } from '../helpers/ts-child.ts';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-settings-merge-'));
const onDisk = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'settings.json'), 'utf8'));

describe('settings saved by two stores', () => {
  it('keep both stores’ changes of different fields; the field both changed is the last save’s', () => {
    const dir = tmp();
    new JsonFileSettingsStore(path.join(dir, 'settings.json')).save({ ...DEFAULT_SETTINGS, model: 'start' });
    const app = new AppSettingsStore(dir);
    const web = new JsonFileSettingsStore(path.join(dir, 'settings.json'));
    const a = app.load();
    const w = web.load();
    app.setKeyCiphertext('djEwKEY');
    app.save({ ...a, model: 'app-model', history: 4 });
    web.save({ ...w, stopHotkey: 'Control+F9', history: 6 });
    expect(onDisk(dir)).toEqual({
      settings: { ...DEFAULT_SETTINGS, model: 'app-model', stopHotkey: 'Control+F9', history: 6 },
      apiKeyEncrypted: 'djEwKEY',
    });
    // Saving again from a copy that never saw the other's change still leaves it alone.
    app.save({ ...a, model: 'app-model', history: 4, temperature: 0.5 });
    expect(onDisk(dir).settings).toEqual({
      ...DEFAULT_SETTINGS,
      model: 'app-model',
      stopHotkey: 'Control+F9',
      history: 6,
      temperature: 0.5,
    });
    // A field this store did not change keeps the other's value; one it changes is its own.
    web.save({ ...w, stopHotkey: 'Control+F9', history: 6 });
    expect(onDisk(dir).settings.model).toBe('app-model');
    web.save({ ...w, stopHotkey: 'Control+F9', history: 6, model: 'web-model' });
    expect(onDisk(dir).settings).toMatchObject({ model: 'web-model', temperature: 0.5 });
  });

  it('two processes saving different fields as fast as they can drop neither (each from its own copy)', async () => {
    const dir = tmp();
    new JsonFileSettingsStore(path.join(dir, 'settings.json')).save({ ...DEFAULT_SETTINGS, history: 5 });
    const rounds = 60;
    const writers = (['app', 'web'] as const).map((role) =>
      spawnTs('settings-field-writer.ts', [dir, role, String(rounds)]),
    );
    for (const w of writers) expect(await w.line()).toBe('ready'); // both loaded before either saves
    for (const w of writers) w.child.stdin!.write('go\n');
    const reports = await Promise.all(writers.map(async (w) => JSON.parse(await w.line()) as { last: Settings }));
    expect(await Promise.all(writers.map((w) => w.exited))).toEqual([0, 0]);
    expect(reports.map((r) => [r.last.model, r.last.imageSize])).toEqual([
      [`model-${rounds - 1}`, DEFAULT_SETTINGS.imageSize],
      ['', 256 + rounds - 1],
    ]);
    expect(onDisk(dir)).toEqual({
      settings: { ...DEFAULT_SETTINGS, history: 5, model: `model-${rounds - 1}`, imageSize: 256 + rounds - 1 },
    });
    expect(readdirSync(dir)).toEqual(['settings.json']);
  }, 60_000);
});
