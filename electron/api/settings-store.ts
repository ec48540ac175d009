/**
 * Settings and secrets behind small interfaces: the app uses electron-store and safeStorage
 * (electron/app/), the web shell and CLI a JSON file and process memory. A corrupt settings
 * file is moved aside and replaced by defaults, never silently lost.
 */
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { addSecret } from '../util/log.ts';
import path from 'node:path';
import { DEFAULT_SETTINGS, SettingsSchema, type Settings } from './contract.ts';

export interface SettingsStore {
  load(): Settings;
  save(s: Settings): void;
  /** A note for the user when loading had to recover (corrupt file), once. */
  readonly warning: string | null;
}

export interface SecretStore {
  readonly kind: string;
  getApiKey(): string | undefined;
  setApiKey(key: string | undefined): void;
}

/** Validates whatever was stored; fields that fail validation fall back to their defaults. */
export function sanitizeSettings(raw: unknown): Settings {
  const whole = SettingsSchema.safeParse(raw);
  if (whole.success) return whole.data;
  const out: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  if (raw && typeof raw === 'object') {
    for (const [k, v] of Object.entries(raw)) {
      const field = (
        SettingsSchema.shape as Record<string, { safeParse(v: unknown): { success: boolean; data?: unknown } }>
      )[k];
      const r = field?.safeParse(v);
      if (r?.success) out[k] = r.data;
    }
  }
  return out as Settings;
}

export class JsonFileSettingsStore implements SettingsStore {
  warning: string | null = null;

  constructor(private readonly file: string) {}

  load(): Settings {
    if (!existsSync(this.file)) return { ...DEFAULT_SETTINGS };
    const text = readFileSync(this.file, 'utf8');
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed && typeof parsed === 'object' && 'apiKey' in parsed) delete (parsed as Record<string, unknown>).apiKey;
      return sanitizeSettings(parsed);
    } catch (err) {
      const aside = `${this.file}.corrupt-${Date.now()}`;
      renameSync(this.file, aside);
      this.warning = `settings file was not valid JSON (${(err as Error).message}); kept it as ${path.basename(aside)} and started from defaults`;
      return { ...DEFAULT_SETTINGS };
    }
  }

  save(s: Settings) {
    writeFileAtomic(this.file, JSON.stringify(SettingsSchema.parse(s), null, 2), { mode: 0o600 });
  }
}

/** Keeps the key in this process only (web shell and CLI); OPENAI_API_KEY is the default. */
export class MemorySecretStore implements SecretStore {
  readonly kind = 'memory (this session only; set OPENAI_API_KEY to keep it)';
  private key: string | undefined = process.env.OPENAI_API_KEY || undefined;

  getApiKey() {
    return this.key;
  }

  setApiKey(key: string | undefined) {
    this.key = key || undefined;
    addSecret(this.key); // never in the log, whatever quotes it
  }
}
