/**
 * The app's settings store without Electron: the settings file every shell shares
 * (../api/settings-file.ts, in the config folder every shell uses) plus the one part only the app
 * writes, the API key's ciphertext (`apiKeyEncrypted`; stores.ts encrypts it with safeStorage).
 * Saving settings leaves the ciphertext alone and saving the ciphertext leaves the settings
 * alone, whichever shell wrote them. No `electron` import: tested as is.
 */
import path from 'node:path';
import { JsonFileSettingsStore } from '../api/settings-store.ts';
import { peekSettingsDoc } from '../api/settings-file.ts';

export class AppSettingsStore extends JsonFileSettingsStore {
  constructor(dir: string) {
    super(path.join(dir, 'settings.json'));
  }

  /** The stored ciphertext (base64), read from the file as it is now; undefined when there is none. */
  keyCiphertext(): string | undefined {
    const enc = peekSettingsDoc(this.file)?.apiKeyEncrypted;
    return typeof enc === 'string' && enc ? enc : undefined;
  }

  /** Stores (or with undefined removes) the ciphertext; every other part of the file stays as it is. */
  setKeyCiphertext(enc: string | undefined): void {
    this.update((doc) =>
      enc
        ? { ...doc, apiKeyEncrypted: enc }
        : Object.fromEntries(Object.entries(doc).filter(([k]) => k !== 'apiKeyEncrypted')),
    );
  }
}
