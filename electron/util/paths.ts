import os from 'node:os';
import path from 'node:path';

/** Per-user configuration folder (settings, the suspended-process registry). */
export function defaultConfigDir(): string {
  if (process.env.GAMEPILOT_CONFIG_DIR) return process.env.GAMEPILOT_CONFIG_DIR;
  if (process.platform === 'win32') return path.join(process.env.APPDATA ?? os.homedir(), 'Gamepilot');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Application Support', 'Gamepilot');
  return path.join(process.env.XDG_CONFIG_HOME ?? path.join(os.homedir(), '.config'), 'gamepilot');
}

/** Per-user cache folder: what can be fetched again (a bucket's runs read through `--runs-dir s3://…`). */
export function defaultCacheDir(): string {
  if (process.platform === 'win32')
    return path.join(process.env.LOCALAPPDATA ?? path.join(os.homedir(), 'AppData', 'Local'), 'Gamepilot', 'Cache');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Caches', 'Gamepilot');
  return path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'gamepilot');
}
