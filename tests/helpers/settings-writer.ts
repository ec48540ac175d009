/**
 * A second Gamepilot-like process for the shared settings file: as the web shell (`settings`:
 * saves a model name) or as the app (`key`: stores a ciphertext), `rounds` times as fast as it
 * can, counting the times its own latest write was gone when read straight back (another
 * writer's save built on a stale copy: a lost update). Prints its count as JSON and exits.
 */
import path from 'node:path';
import { DEFAULT_SETTINGS } from '../../electron/api/contract.ts';
import { JsonFileSettingsStore } from '../../electron/api/settings-store.ts';
import { AppSettingsStore } from '../../electron/app/app-settings-store.ts';

const [dir, role, rounds] = process.argv.slice(2) as [string, 'settings' | 'key', string];
const web = new JsonFileSettingsStore(path.join(dir, 'settings.json'));
const app = new AppSettingsStore(dir);
let lost = 0;
for (let i = 0; i < Number(rounds); i++) {
  if (role === 'settings') {
    web.save({ ...DEFAULT_SETTINGS, model: `model-${i}` });
    if (web.load().model !== `model-${i}`) lost++;
  } else {
    app.setKeyCiphertext(`djEx-${i}`);
    if (app.keyCiphertext() !== `djEx-${i}`) lost++;
  }
}
process.stdout.write(`${JSON.stringify({ role, lost })}\n`);
