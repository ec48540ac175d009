import path from 'node:path';
import { JsonFileSettingsStore } from '../api/settings-store.ts';
import { defaultConfigDir } from '../util/paths.ts';

/** The stop hotkey from the user's settings file (the web shell's), or the default. */
export function configuredStopHotkey(): string {
  return new JsonFileSettingsStore(path.join(defaultConfigDir(), 'settings.json')).load().stopHotkey;
}
