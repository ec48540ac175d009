import path from 'node:path';
import { JsonFileSettingsStore } from '../api/settings-store.ts';
import { defaultConfigDir } from '../util/paths.ts';

/** The stop hotkey from the settings file the app and the web shell share, or the default. */
export function configuredStopHotkey(): string {
  return new JsonFileSettingsStore(path.join(defaultConfigDir(), 'settings.json')).load().stopHotkey;
}
