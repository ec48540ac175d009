import os from 'node:os';
import path from 'node:path';

/** Per-user configuration folder (settings, the suspended-process registry). */
export function defaultConfigDir(): string {
  if (process.env.GAMEPILOT_CONFIG_DIR) return process.env.GAMEPILOT_CONFIG_DIR;
  if (process.platform === 'win32') return path.join(process.env.APPDATA ?? os.homedir(), 'Gamepilot');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Application Support', 'Gamepilot');
  return path.join(process.env.XDG_CONFIG_HOME ?? path.join(os.homedir(), '.config'), 'gamepilot');
}
