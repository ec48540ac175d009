/**
 * The app's stores: settings in the settings file every shell shares (../api/settings-file.ts, in the
 * config folder, util/paths.ts; validated on every load, a corrupt file moved aside, never silently wiped;
 * mode 0600) and the API key in it as safeStorage ciphertext, with a plain statement of what
 * protects it.
 */
import { safeStorage } from 'electron';
import type { SecretStore } from '../api/settings-store.ts';
import { AppSettingsStore } from './app-settings-store.ts';
import { describeSecretStorage, type SecretStorageDescription } from './secret-storage.ts';
import { addSecret } from '../util/log.ts';

export class ElectronSettingsStore extends AppSettingsStore {
  constructor(dir: string) {
    super(dir);
    this.load(); // recovers a corrupt file now, so its warning is there before the core starts
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
    const enc = this.settings.keyCiphertext();
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
    if (!key) return this.settings.setKeyCiphertext(undefined);
    if (!safeStorage.isEncryptionAvailable())
      throw new Error('the OS keychain is not available; set OPENAI_API_KEY instead');
    addSecret(key);
    this.settings.setKeyCiphertext(safeStorage.encryptString(key).toString('base64'));
  }
}
