/**
 * What protects the API key that Electron's safeStorage encrypts, in words for the Settings
 * view. On Linux without a keyring (safeStorage backend `basic_text`) the key is encrypted with
 * a password built into Chromium, so anyone who can read the settings file can decrypt it:
 * that is said plainly, with a warning. No `electron` import: tested as is.
 */

export type LinuxBackend = 'basic_text' | 'gnome_libsecret' | 'kwallet' | 'kwallet5' | 'kwallet6' | 'unknown';

export interface SecretStorageFacts {
  platform: NodeJS.Platform;
  encryptionAvailable: boolean;
  /** safeStorage.getSelectedStorageBackend(), Linux only. */
  backend?: LinuxBackend;
}

export interface SecretStorageDescription {
  /** Shown in Settings as where the key is kept. */
  kind: string;
  /** True when an OS keychain (or DPAPI) protects the key. */
  keychain: boolean;
  warning: string | null;
}

const LINUX_KEYCHAINS: Partial<Record<LinuxBackend, string>> = {
  gnome_libsecret: 'the Secret Service keyring (libsecret)',
  kwallet: 'KWallet',
  kwallet5: 'KWallet 5',
  kwallet6: 'KWallet 6',
};

export function describeSecretStorage(f: SecretStorageFacts): SecretStorageDescription {
  if (!f.encryptionAvailable) {
    return {
      kind: 'no store: the OS keychain is not available, so a key cannot be saved (set OPENAI_API_KEY instead)',
      keychain: false,
      warning:
        'The OS keychain is not available: an API key cannot be saved. Set OPENAI_API_KEY in the environment instead.',
    };
  }
  if (f.platform === 'darwin')
    return {
      kind: 'the settings file, encrypted with a key held by the macOS Keychain',
      keychain: true,
      warning: null,
    };
  if (f.platform === 'win32')
    return {
      kind: 'the settings file, encrypted with Windows DPAPI (tied to your user account)',
      keychain: true,
      warning: null,
    };
  const keychain = f.backend ? LINUX_KEYCHAINS[f.backend] : undefined;
  if (keychain)
    return { kind: `the settings file, encrypted with a key held by ${keychain}`, keychain: true, warning: null };
  if (f.backend === 'basic_text') {
    return {
      kind: 'the settings file, NOT protected by a keychain: no keyring was found, so Electron encrypts it with a password built into Electron (basic_text)',
      keychain: false,
      warning:
        'No keyring (GNOME Keyring / KWallet) was found, so a saved API key is encrypted with a password built into Electron (basic_text): anyone who can read the settings file can recover it. Start a keyring, or set OPENAI_API_KEY instead of saving the key.',
    };
  }
  return {
    kind: `the settings file, encrypted by Electron with an unidentified backend (${f.backend ?? 'unknown'}): a keychain is not confirmed`,
    keychain: false,
    warning:
      'Gamepilot could not tell which secret store protects a saved API key; treat it as not protected by a keychain, or set OPENAI_API_KEY instead.',
  };
}
