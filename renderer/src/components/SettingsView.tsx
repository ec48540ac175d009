/** Model provider, model, key and image settings, with a connection test. */
import { useEffect, useState } from 'react';
import { PROVIDERS, type ApiClient, type Provider, type Settings } from '../../../electron/api/contract.ts';
import { CountInput } from './CountInput.tsx';
import { MemoryStores } from './MemoryStores.tsx';

export function SettingsView({ client, onSaved }: { client: ApiClient; onSaved: () => void }) {
  const [s, setS] = useState<Settings | null>(null);
  const [keySet, setKeySet] = useState(false);
  const [storage, setStorage] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);

  useEffect(() => {
    client.request('getSettings').then((r) => {
      setS(r.settings);
      setKeySet(r.apiKeySet);
      setStorage(r.secretStorage);
    });
  }, [client]);
  if (!s) return <section className="settings">Loading…</section>;
  const set = <K extends keyof Settings>(k: K, v: Settings[K]) => setS({ ...s, [k]: v });
  const baseUrl = s.baseUrl || PROVIDERS[s.provider].baseUrl;

  const save = async () => {
    try {
      const r = await client.request('saveSettings', { settings: { ...s, baseUrl }, ...(apiKey ? { apiKey } : {}) });
      setS(r.settings);
      setKeySet(r.apiKeySet);
      setApiKey('');
      setNote({
        ok: true,
        text: r.keyCleared
          ? 'Saved. The endpoint changed, so the stored API key was removed: enter the key for the new endpoint.'
          : 'Saved.',
      });
      onSaved();
    } catch (e) {
      setNote({ ok: false, text: (e as Error).message });
    }
  };
  const test = async () => {
    setNote({ ok: true, text: 'Testing…' });
    const r = await client.request('testConnection', { settings: { ...s, baseUrl }, ...(apiKey ? { apiKey } : {}) });
    setNote({
      ok: r.ok && !r.error,
      text: r.ok
        ? `Connected in ${r.ms} ms · ${r.models.length} models${r.error ? ` · ${r.error}` : ''}`
        : `Failed: ${r.error}`,
    });
  };

  return (
    <section className="settings" aria-label="settings">
      <h2>Model</h2>
      <div className="form">
        <label>
          Provider
          <select
            value={s.provider}
            onChange={(e) =>
              setS({
                ...s,
                provider: e.target.value as Provider,
                baseUrl: PROVIDERS[e.target.value as Provider].baseUrl,
              })
            }
            data-testid="provider"
          >
            {Object.entries(PROVIDERS).map(([id, p]) => (
              <option key={id} value={id}>
                {p.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Base URL{' '}
          <input
            value={baseUrl}
            onChange={(e) => setS({ ...s, provider: 'custom', baseUrl: e.target.value })}
            data-testid="base-url"
            placeholder="https://…/v1"
          />
        </label>
        <label>
          Model{' '}
          <input
            value={s.model}
            onChange={(e) => set('model', e.target.value)}
            data-testid="model"
            placeholder="e.g. gpt-4o, gemini-2.5-flash, qwen2.5-vl"
          />
        </label>
        <label>
          API key{' '}
          <input
            type="password"
            value={apiKey}
            onChange={(e) => setApiKey(e.target.value)}
            placeholder={keySet ? '•••••• (set; type to replace)' : 'not set (local servers need none)'}
            autoComplete="off"
          />
        </label>
        <p className="muted" data-testid="secret-storage">
          The API key is kept in {storage}; never in run files or logs.
        </p>
      </div>
      <h2>Images and prompting</h2>
      <div className="form">
        <label>
          Image long side (px){' '}
          <input
            type="number"
            min={256}
            max={4096}
            value={s.imageSize}
            onChange={(e) => set('imageSize', Number(e.target.value) || 1280)}
          />
        </label>
        <label>
          Image detail
          <select value={s.detail} onChange={(e) => set('detail', e.target.value as Settings['detail'])}>
            <option value="auto">auto</option>
            <option value="low">low</option>
            <option value="high">high</option>
          </select>
        </label>
        <CountInput
          label="History (frame–action pairs)"
          max={16}
          value={s.history}
          onChange={(n) => set('history', n)}
        />
        <label>
          Temperature{' '}
          <input
            type="number"
            min={0}
            max={2}
            step={0.1}
            value={s.temperature ?? ''}
            placeholder="provider default"
            onChange={(e) => set('temperature', e.target.value === '' ? null : Number(e.target.value))}
          />
        </label>
        {(['priceIn', 'priceOut'] as const).map((key) => (
          <label key={key} title="For the cost of runs and their cost cap; blank: the model's list price, if known">
            {key === 'priceIn' ? 'Price in' : 'Price out'} (USD / million tokens){' '}
            <input
              type="number"
              min={0}
              step={0.01}
              value={s[key] ?? ''}
              placeholder="list price"
              data-testid={key === 'priceIn' ? 'price-in' : 'price-out'}
              onChange={(e) => set(key, e.target.value === '' ? null : Number(e.target.value))}
            />
          </label>
        ))}
        <label>
          Stop hotkey <input value={s.stopHotkey} onChange={(e) => set('stopHotkey', e.target.value)} />
        </label>
        <label title="Takes the controls of a running agent, and gives them back">
          Take-over hotkey <input value={s.takeoverHotkey} onChange={(e) => set('takeoverHotkey', e.target.value)} />
        </label>
      </div>
      <div className="form-actions">
        <button type="button" onClick={test} data-testid="test-connection">
          Test connection
        </button>
        <button type="button" className="primary" onClick={save} data-testid="save-settings">
          Save
        </button>
        {note && (
          <span className={note.ok ? 'ok' : 'bad'} role="status" data-testid="settings-note">
            {note.text}
          </span>
        )}
      </div>
      <MemoryStores client={client} />
    </section>
  );
}
