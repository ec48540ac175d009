import path from 'node:path';
import { JsonFileSettingsStore } from '../api/settings-store.ts';
import { defaultConfigDir } from '../util/paths.ts';
import type { GamepilotHotkeys } from '../input/accelerator.ts';

/** The stop and take-over hotkeys from the settings file the app and the web shell share, or the defaults. */
export function configuredHotkeys(): GamepilotHotkeys {
  const s = new JsonFileSettingsStore(path.join(defaultConfigDir(), 'settings.json')).load();
  return { stop: s.stopHotkey, takeover: s.takeoverHotkey };
}
