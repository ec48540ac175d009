/**
 * Settings and secrets behind small interfaces. Settings are the shared settings file
 * (settings-file.ts) for every shell; the app adds the key's ciphertext to it (electron/app/),
 * the web shell and CLI keep the key in process memory. A corrupt settings file is moved aside
 * and replaced by defaults, never silently lost; invalid fields fall back to their defaults.
 */
import { isDeepStrictEqual } from 'node:util';
import { addSecret, log } from '../util/log.ts';
import { DEFAULT_SETTINGS, SettingsSchema, type Settings } from './contract.ts';
import {
  readSettingsDoc,
  restrictToOwner,
  type SettingsDoc,
  settingsPart,
  updateSettingsDoc,
  withSettings,
} from './settings-file.ts';

export interface SettingsStore {
  load(): Settings;
  save(s: Settings): void;
  /** A note for the user when loading had to recover (corrupt file, invalid fields). */
  readonly warning: string | null;
}

export interface SecretStore {
  readonly kind: string;
  getApiKey(): string | undefined;
  setApiKey(key: string | undefined): void;
}

type FieldSchema = { safeParse(v: unknown): { success: boolean; data?: unknown } };

/**
 * Validates whatever was stored: fields that fail validation fall back to their defaults, and
 * `problem` names them (null when everything was valid).
 */
export function checkSettings(raw: unknown): { settings: Settings; problem: string | null } {
  const whole = SettingsSchema.safeParse(raw);
  if (whole.success) return { settings: whole.data, problem: null };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    return { settings: { ...DEFAULT_SETTINGS }, problem: 'The saved settings were not an object; defaults are used.' };
  const out: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  const invalid: string[] = [];
  for (const [k, v] of Object.entries(raw)) {
    const field = (SettingsSchema.shape as Record<string, FieldSchema>)[k];
    const r = field?.safeParse(v);
    if (r?.success) out[k] = r.data;
    else if (field) invalid.push(k);
  }
  const problem = invalid.length
    ? `Some settings were invalid and were reset to defaults: ${invalid.join(', ')}.`
    : null;
  return { settings: out as Settings, problem };
}

/**
 * The settings part of the shared settings file, the same class in every shell (the app
 * extends it with its key's ciphertext). Saving rewrites `settings` only; whatever else the
 * file holds (the app's `apiKeyEncrypted`) stays byte for byte. A save is a merge, field by
 * field, under the file's lock: the fields this store changed since it last loaded or saved
 * take its values, every other field keeps what the file holds now — so the app and the web
 * shell saving at once do not undo each other's unrelated changes.
 */
export class JsonFileSettingsStore implements SettingsStore {
  warning: string | null = null;
  /** The settings as this store last loaded or saved them: what its next save's changes are relative to. */
  private base: Settings | undefined;

  constructor(readonly file: string) {}

  /** Warnings accumulate (each once); the core shows them at start. */
  addWarning(w: string | null) {
    if (!w || this.warning?.includes(w)) return;
    this.warning = this.warning ? `${this.warning} ${w}` : w;
  }

  load(): Settings {
    const { doc, warning } = readSettingsDoc(this.file);
    this.addWarning(warning);
    restrictToOwner(this.file); // one written by an older version with a wider mode
    const { settings, problem } = checkSettings(settingsPart(doc));
    this.addWarning(problem);
    this.base = settings;
    return settings;
  }

  save(s: Settings) {
    const mine = SettingsSchema.parse(s);
    const base = this.base;
    this.update((doc) => {
      const stored = settingsPart(doc);
      // Nothing to merge with (no file, or never loaded): this store's settings are the whole.
      if (!base || !stored || typeof stored !== 'object' || !Object.keys(stored).length) return withSettings(doc, mine);
      const merged: Record<string, unknown> = { ...checkSettings(stored).settings };
      for (const [k, v] of Object.entries(mine))
        if (!isDeepStrictEqual(v, (base as Record<string, unknown>)[k])) merged[k] = v;
      return withSettings(doc, SettingsSchema.parse(merged));
    });
    this.base = mine;
  }

  /** Changes this shell's part of the file (settings-file.ts); a corrupt file moved aside on the way is reported. */
  protected update(change: (doc: SettingsDoc) => SettingsDoc): void {
    const warning = updateSettingsDoc(this.file, change);
    if (warning) {
      this.addWarning(warning);
      log().warn(warning);
    }
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
