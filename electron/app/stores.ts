/** Settings in electron-store (validated on every load) and the API key in safeStorage. */
import { safeStorage } from 'electron';
import Store from 'electron-store';
import { DEFAULT_SETTINGS, type Settings } from '../api/contract.ts';
import { sanitizeSettings, type SecretStore, type SettingsStore } from '../api/settings-store.ts';

export class ElectronSettingsStore implements SettingsStore {
  warning: string | null = null;
  private store: Store<{ settings: Settings; apiKeyEncrypted?: string }>;

  constructor() {
    // clearInvalidConfig: a corrupt file is replaced by defaults instead of crashing the app.
    this.store = new Store({ name: 'settings', clearInvalidConfig: true, defaults: { settings: DEFAULT_SETTINGS } });
  }

  load(): Settings {
    const raw = this.store.get('settings');
    const clean = sanitizeSettings(raw);
    if (JSON.stringify(clean) !== JSON.stringify(raw)) this.warning = 'some settings were invalid and were reset to defaults';
    return clean;
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
  readonly kind = 'the OS keychain (Electron safeStorage)';

  constructor(private readonly settings: ElectronSettingsStore) {}

  getApiKey(): string | undefined {
    const enc = this.settings.raw.get('apiKeyEncrypted');
    if (enc && safeStorage.isEncryptionAvailable()) {
      try {
        return safeStorage.decryptString(Buffer.from(enc, 'base64'));
      } catch {
        return undefined;
      }
    }
    return process.env.OPENAI_API_KEY || undefined;
  }

  setApiKey(key: string | undefined) {
    if (!key) return this.settings.raw.delete('apiKeyEncrypted');
    if (!safeStorage.isEncryptionAvailable()) throw new Error('the OS keychain is not available; set OPENAI_API_KEY instead');
    this.settings.raw.set('apiKeyEncrypted', safeStorage.encryptString(key).toString('base64'));
  }
}
