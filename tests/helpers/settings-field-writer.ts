/**
 * A shell-like process on the shared settings file that loads its settings once (as
 * SettingsService does at start), prints `ready`, waits for a line on stdin, then changes one
 * field of its own `rounds` times — the app (AppSettingsStore) its `model`, the web shell
 * (JsonFileSettingsStore) its `imageSize` — each save from its own copy, never re-read. Prints
 * JSON and exits.
 */
import path from 'node:path';
import type { Settings } from '../../electron/api/contract.ts';
import { JsonFileSettingsStore } from '../../electron/api/settings-store.ts';
import { AppSettingsStore } from '../../electron/app/app-settings-store.ts';

const [dir, role, rounds] = process.argv.slice(2) as [string, 'app' | 'web', string];
const store = role === 'app' ? new AppSettingsStore(dir) : new JsonFileSettingsStore(path.join(dir, 'settings.json'));
let current: Settings = store.load();
process.stdout.write('ready\n');
process.stdin.once('data', () => {
  for (let i = 0; i < Number(rounds); i++) {
    current = role === 'app' ? { ...current, model: `model-${i}` } : { ...current, imageSize: 256 + i };
    store.save(current);
  }
  process.stdout.write(`${JSON.stringify({ role, last: current })}\n`);
  process.exit(0);
});
