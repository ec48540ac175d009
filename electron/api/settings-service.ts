/**
 * Settings and the model connection: what is saved (never the API key in the settings file),
 * where the stored key may go (only to the endpoint it was saved for), the connection test,
 * and the model settings a run is built with.
 */
import { ModelCaller } from '../agents/model-endpoint.ts';
import { DEFAULT_SETTINGS, PROVIDERS, type Results, type Settings } from './contract.ts';
import type { SecretStore, SettingsStore } from './settings-store.ts';
import { describeApiError, type VlmSettings } from '../agents/vlm.ts';
import { parseAccelerator } from '../input/accelerator.ts';
import { CodedError } from '../domain.ts';
import { sameEndpoint } from '../util/endpoint.ts';

/** The model settings a run gets from Settings. */
export type RunModelSettings = Partial<VlmSettings> & { model: string };

/** The base URL a settings patch points at: explicit, else the chosen provider's preset, else the current one. */
function effectiveBaseUrl(s: Settings, patch: Partial<Settings>): string {
  if (patch.baseUrl) return patch.baseUrl;
  if (patch.provider && patch.provider !== 'custom' && patch.baseUrl === undefined)
    return PROVIDERS[patch.provider].baseUrl;
  return baseUrlOf(s);
}

function baseUrlOf(s: Settings): string {
  return s.baseUrl || PROVIDERS[s.provider].baseUrl;
}

export class SettingsService {
  private current: Settings;

  constructor(
    private readonly store: SettingsStore,
    private readonly secrets: SecretStore,
  ) {
    this.current = store.load();
  }

  get settings(): Settings {
    return this.current;
  }

  /** A note from loading (a corrupt file kept aside), if there was one. */
  /** The endpoint the saved key is for (the chosen provider's, or the custom base URL). */
  get endpoint(): string {
    return baseUrlOf(this.current);
  }

  get warning(): string | null {
    return this.store.warning;
  }

  view(): Results['getSettings'] {
    return { settings: this.current, apiKeySet: !!this.secrets.getApiKey(), secretStorage: this.secrets.kind };
  }

  /** Saves a patch; a stop hotkey that is no key combination is refused before anything is written. */
  save(patch: Partial<Settings>, apiKey?: string): Results['saveSettings'] {
    for (const field of ['stopHotkey', 'takeoverHotkey'] as const) {
      const acc = patch[field];
      if (acc === undefined) continue;
      try {
        parseAccelerator(acc);
      } catch (err) {
        throw new CodedError(
          'bad-input',
          `saveSettings: ${field}: ${(err as Error).message} (e.g. ${DEFAULT_SETTINGS[field]})`,
        );
      }
    }
    const next = { ...this.current, ...patch };
    if (patch.provider && patch.provider !== 'custom' && patch.baseUrl === undefined)
      next.baseUrl = PROVIDERS[patch.provider].baseUrl;
    // A stored key belongs to its endpoint: moving to another one without a new key drops it,
    // so a page holding the token cannot point the key at a server of its own.
    const keyCleared =
      apiKey === undefined && !sameEndpoint(baseUrlOf(this.current), baseUrlOf(next)) && !!this.secrets.getApiKey();
    this.store.save(next);
    this.current = next;
    if (apiKey !== undefined) this.secrets.setApiKey(apiKey);
    else if (keyCleared) this.secrets.setApiKey(undefined);
    return {
      settings: this.current,
      apiKeySet: !!this.secrets.getApiKey(),
      ...(keyCleared ? { keyCleared: true } : {}),
    };
  }

  /**
   * Lists the models at a base URL. The stored API key goes only to the saved base URL: a
   * request for another URL (explicit, or a provider's preset) sends the key it brings, or none.
   */
  async testConnection(
    patch: Partial<Settings>,
    givenKey?: string,
    signal?: AbortSignal,
  ): Promise<Results['testConnection']> {
    const t0 = performance.now();
    const s = { ...this.current, ...patch };
    const baseUrl = effectiveBaseUrl(s, patch);
    const apiKey = givenKey || (sameEndpoint(baseUrl, baseUrlOf(this.current)) ? this.secrets.getApiKey() : undefined);
    try {
      if (!baseUrl) throw new Error('no base URL: pick a provider or enter a base URL');
      const caller = new ModelCaller(
        { model: s.model || '', baseUrl, ...(apiKey ? { apiKey } : {}) },
        'test-connection',
      );
      const models = await caller.listModels(signal ? { signal } : {});
      const known = !s.model || models.length === 0 || models.includes(s.model);
      return {
        ok: true,
        models,
        ms: Math.round(performance.now() - t0),
        ...(known ? {} : { error: `connected, but the server does not list model "${s.model}"` }),
      };
    } catch (err) {
      return {
        ok: false,
        models: [],
        error: `${baseUrl}: ${describeApiError(err)}`,
        ms: Math.round(performance.now() - t0),
      };
    }
  }

  /** The model a run plays with, from Settings; refused when none is configured. */
  model(): RunModelSettings {
    const s = this.current;
    if (!s.model) throw new CodedError('bad-input', 'no model configured: open Settings, pick a provider and a model');
    const apiKey = this.secrets.getApiKey();
    return {
      model: s.model,
      baseUrl: baseUrlOf(s),
      ...(apiKey ? { apiKey } : {}),
      detail: s.detail,
      history: s.history,
      ...(s.temperature !== null ? { temperature: s.temperature } : {}),
      ...(s.priceIn !== null || s.priceOut !== null
        ? { price: { inputPerM: s.priceIn ?? 0, outputPerM: s.priceOut ?? 0 } }
        : {}),
    };
  }
}
