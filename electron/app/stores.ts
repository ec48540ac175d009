/**
 * Settings in electron-store (validated on every load; a corrupt file is moved aside, never
 * silently wiped; mode 0600) and the API key in safeStorage, with a plain statement of what
 * protects it.
 */
import { app, safeStorage } from 'electron';
import Store from 'electron-store';
import path from 'node:path';
import { DEFAULT_SETTINGS, type Settings } from '../api/contract.ts';
import { checkSettings, type SecretStore, type SettingsStore } from '../api/settings-store.ts';
import { recoverSettingsFile, restrictToOwner, settingsStoreOptions } from './settings-file.ts';
import { describeSecretStorage, type SecretStorageDescription } from './secret-storage.ts';
import { addSecret } from '../util/log.ts';

type Stored = { settings: Settings; apiKeyEncrypted?: string };

export class ElectronSettingsStore implements SettingsStore {
  warning: string | null = null;
  readonly file: string;
  private store: Store<Stored>;

  constructor(dir: string = app.getPath('userData')) {
    this.file = path.join(dir, 'settings.json');
    this.addWarning(recoverSettingsFile(this.file));
    this.store = this.open(dir);
    restrictToOwner(this.file);
  }

  private open(dir: string): Store<Stored> {
    const options = settingsStoreOptions<Stored>(dir, { settings: DEFAULT_SETTINGS });
    try {
      return new Store<Stored>(options);
    } catch {
      // Changed on disk between the check and the open: move it aside and start again.
      this.addWarning(recoverSettingsFile(this.file));
      return new Store<Stored>(options);
    }
  }

  /** Warnings accumulate; the core shows them once at start. */
  addWarning(w: string | null) {
    if (w) this.warning = this.warning ? `${this.warning} ${w}` : w;
  }

  load(): Settings {
    const { settings, problem } = checkSettings(this.store.get('settings'));
    this.addWarning(problem);
    return settings;
  }

  save(s: Settings) {
    this.store.set('settings', s);
  }

  /** The raw store, shared with the secret store (ciphertext only). */
  get raw() {
    return this.store;
  }
}

export class SafeStorageSecretStore implements SecretStore {
  readonly kind: string;
  readonly description: SecretStorageDescription;

  /** Call after app ready: before it, Linux cannot tell which backend it will use. */
  constructor(private readonly settings: ElectronSettingsStore) {
    this.description = describeSecretStorage({
      platform: process.platform,
      encryptionAvailable: safeStorage.isEncryptionAvailable(),
      ...(process.platform === 'linux' ? { backend: safeStorage.getSelectedStorageBackend() } : {}),
    });
    this.kind = this.description.kind;
  }

  getApiKey(): string | undefined {
    const enc = this.settings.raw.get('apiKeyEncrypted');
    if (enc && safeStorage.isEncryptionAvailable()) {
      try {
        const key = safeStorage.decryptString(Buffer.from(enc, 'base64'));
        addSecret(key); // never in the log, whatever quotes it
        return key;
      } catch {
        return undefined;
      }
    }
    return process.env.OPENAI_API_KEY || undefined;
  }

  setApiKey(key: string | undefined) {
    if (!key) return this.settings.raw.delete('apiKeyEncrypted');
    if (!safeStorage.isEncryptionAvailable())
      throw new Error('the OS keychain is not available; set OPENAI_API_KEY instead');
    addSecret(key);
    this.settings.raw.set('apiKeyEncrypted', safeStorage.encryptString(key).toString('base64'));
  }
}
