/**
 * The app's settings file (electron-store) before the store opens it. electron-store's
 * `clearInvalidConfig` would silently replace a corrupt file by defaults, and with it the
 * encrypted API key; here a file that is not a JSON object is moved aside, kept, and named in a
 * warning instead. The file is made readable by its owner only. No `electron` import: tested
 * as is.
 */
import { chmodSync, existsSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';

/** Why `text` is not a usable settings file, or null when it is one. */
function whyUnusable(text: string): string | null {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? null : 'it does not hold a JSON object';
  } catch (err) {
    return `it is not valid JSON: ${(err as Error).message}`;
  }
}

/**
 * Moves an unreadable settings file aside (`<file>.corrupt-<time>`) and returns a warning for
 * the user; null when the file is fine or absent.
 */
export function recoverSettingsFile(file: string, now: number = Date.now()): string | null {
  if (!existsSync(file)) return null;
  const why = whyUnusable(readFileSync(file, 'utf8'));
  if (!why) return null;
  const aside = `${file}.corrupt-${now}`;
  renameSync(file, aside);
  return `${path.basename(file)} could not be read (${why}); it was kept as ${path.basename(aside)} — with the saved API key, if there was one — and Gamepilot started from default settings.`;
}

/** Settings (and the encrypted key in them) readable and writable by the owner only (POSIX). */
export function restrictToOwner(file: string): void {
  if (process.platform === 'win32' || !existsSync(file)) return;
  chmodSync(file, 0o600);
}

/**
 * electron-store's options for the settings file: an unreadable file is an error (moved aside
 * by `recoverSettingsFile`), never silently replaced; every rewrite is owner-only.
 */
export function settingsStoreOptions<T>(dir: string, defaults: T) {
  return { cwd: dir, name: 'settings', clearInvalidConfig: false, configFileMode: 0o600, defaults };
}
