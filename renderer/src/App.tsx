/** One window: live view, target picker, runs and replay, settings. */
import { useEffect, useState } from 'react';
import type { ApiClient } from '../../electron/api/contract.ts';
import { useCore } from './useCore.ts';
import { ConsentPrompt } from './components/ConsentPrompt.tsx';
import { Controls } from './components/Controls.tsx';
import { LiveView } from './components/LiveView.tsx';
import { TargetPicker } from './components/TargetPicker.tsx';
import { SettingsView } from './components/SettingsView.tsx';
import { RunsView } from './components/RunsView.tsx';
import { RecordView } from './components/RecordView.tsx';
import { IdcView } from './components/IdcView.tsx';
import { IngvpView } from './components/IngvpView.tsx';
import { SweepView } from './components/SweepView.tsx';

type Tab = 'live' | 'targets' | 'record' | 'idc' | 'ingvp' | 'sweeps' | 'runs' | 'settings';

export function App({
  client,
  onConnection,
}: {
  client: ApiClient;
  onConnection?: (l: (c: boolean) => void) => () => void;
}) {
  const live = useCore(client);
  const [tab, setTab] = useState<Tab>('live');
  const [error, setError] = useState<string | null>(null);
  // The core's last error stays in its state until the next run; dismissing hides that one message.
  const [dismissed, setDismissed] = useState<string | null>(null);
  const [connected, setConnected] = useState(true);
  const [runsKey, setRunsKey] = useState(0);
  /** A run to open in the Runs tab (a sweep job's run link). */
  const [openRun, setOpenRun] = useState<string | null>(null);
  const core = live.core;
  useEffect(() => onConnection?.(setConnected), [onConnection]);
  useEffect(() => {
    if (!core?.lastError) setDismissed(null); // a new run clears it; the same message later shows again
  }, [core?.lastError]);
  useEffect(() => {
    if (core?.status === 'idle') setRunsKey((k) => k + 1);
  }, [core?.status]);
  const busy = !!core && core.status !== 'idle';
  const coreError = core?.lastError && core.lastError !== dismissed ? core.lastError : null;
  const shownError = error ?? coreError;
  const tabs: [Tab, string][] = [
    ['live', 'Live'],
    ['targets', 'New run'],
    ['record', 'Record human'],
    ['idc', 'Improve'],
    ['ingvp', 'ING-VP'],
    ['sweeps', 'Sweeps'],
    ['runs', 'Runs'],
    ['settings', 'Settings'],
  ];

  return (
    <div className="app">
      <header>
        <div className="brand">Gamepilot</div>
        <div className="tabs" role="tablist" aria-label="screens">
          {tabs.map(([id, label]) => (
            <button
              type="button"
              key={id}
              role="tab"
              aria-selected={tab === id}
              className={tab === id ? 'active' : ''}
              onClick={() => {
                setOpenRun(null);
                setTab(id);
              }}
              data-testid={`tab-${id}`}
            >
              {label}
            </button>
          ))}
        </div>
        <div className="run-label">
          {core?.run
            ? `${core.run.target} · ${core.run.agent}${core.run.model ? ` (${core.run.model})` : ''} · ${core.run.actionSpace}`
            : core?.suite
              ? `ING-VP suite ${core.suite.name} · ${core.suite.agent}${core.suite.model ? ` (${core.suite.model})` : ''}`
              : core?.sweep
                ? `sweep ${core.sweep.name} · ${core.sweep.workers} worker${core.sweep.workers === 1 ? '' : 's'}`
                : 'idle'}
        </div>
        <Controls client={client} core={core} onError={setError} />
      </header>
      {core?.recording && (
        <div className="banner rec" role="status" data-testid="rec-banner">
          ● Recording {core.recording.target} — only this window and input inside it are captured. Stop:{' '}
          {core.stopHotkey}
        </div>
      )}
      {core?.consent && <ConsentPrompt client={client} consent={core.consent} onError={setError} />}
      {!connected && (
        <div className="banner bad" role="alert">
          Connection to Gamepilot lost — reconnecting…
        </div>
      )}
      {core && !core.modelConfigured && (
        <div className="banner" data-testid="first-launch">
          {core.run?.demo ? 'A baseline agent is playing the built-in 2048 so you can see how it works. ' : ''}
          No model is configured yet: open{' '}
          <button type="button" className="link" onClick={() => setTab('settings')}>
            Settings
          </button>
          , pick a provider (OpenAI, Gemini, OpenRouter, vLLM, Ollama, LM Studio), enter a model and key, then start a
          run from{' '}
          <button type="button" className="link" onClick={() => setTab('targets')}>
            New run
          </button>
          .
        </div>
      )}
      {shownError && (
        <div className="banner bad" role="alert" data-testid="error">
          {shownError}{' '}
          <button
            type="button"
            className="link"
            data-testid="dismiss-error"
            onClick={() => (error ? setError(null) : setDismissed(core?.lastError ?? null))}
          >
            dismiss
          </button>
        </div>
      )}
      <main>
        {tab === 'live' && <LiveView live={live} client={client} onError={setError} />}
        {tab === 'targets' && (
          <TargetPicker
            client={client}
            modelConfigured={!!core?.modelConfigured}
            busy={busy}
            onError={setError}
            onStarted={() => {
              setError(null);
              setTab('live');
            }}
          />
        )}
        {tab === 'record' && <RecordView client={client} core={core} recorded={live.recorded} onError={setError} />}
        {tab === 'idc' && <IdcView client={client} core={core} live={live} onError={setError} />}
        {tab === 'ingvp' && <IngvpView client={client} core={core} live={live} onError={setError} />}
        {tab === 'sweeps' && (
          <SweepView
            client={client}
            core={core}
            live={live}
            onError={setError}
            onOpenRun={(id) => {
              setOpenRun(id);
              setTab('runs');
            }}
          />
        )}
        {tab === 'runs' && (
          <RunsView
            key={openRun ?? ''}
            client={client}
            refreshKey={runsKey}
            liveRun={core?.run ?? null}
            {...(openRun ? { openRun } : {})}
            onClosedRun={() => setOpenRun(null)}
          />
        )}
        {tab === 'settings' && <SettingsView client={client} onSaved={() => setError(null)} />}
      </main>
      <footer>
        {core?.shell === 'web' ? 'web shell' : 'app'} · stop hotkey <kbd>{core?.stopHotkey ?? '…'}</kbd> · keys: P
        pause/resume, N step, Esc stop
        {live.released.length > 0 && <span> · released on stop: {live.released.join(', ')}</span>}
      </footer>
    </div>
  );
}
