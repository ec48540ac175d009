/** Pause / resume / single step / take over / stop, with keyboard shortcuts (P, N, T, Escape). */
import { useEffect } from 'react';
import type { ApiClient, ControlAction, CoreState } from '../../../electron/api/contract.ts';

export function Controls({
  client,
  core,
  onError,
}: {
  client: ApiClient;
  core: CoreState | null;
  onError: (e: string) => void;
}) {
  const status = core?.status ?? 'idle';
  /** Pause and step are a run's; an IDC, a recording or a suite only stops. */
  const pausable = !!core?.run;
  const act = (action: ControlAction) => client.request('control', { action }).catch((e: Error) => onError(e.message));
  /** A one-seat run can be taken over; who has the controls. */
  const takeover = core?.run?.takeover;
  const toggleTakeover = () => act(takeover?.active ? 'handback' : 'takeover');
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.target as HTMLElement)?.closest('input, select, textarea')) return;
      if (e.key === 'Escape' && (status === 'running' || status === 'paused')) act('stop');
      else if (!pausable) return;
      else if (e.key === 'p' && status === 'running') act('pause');
      else if (e.key === 'p' && status === 'paused') act('resume');
      else if (e.key === 'n' && status === 'paused') act('step');
      else if (e.key === 't' && takeover && (status === 'running' || status === 'paused')) toggleTakeover();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });
  const live = status === 'running' || status === 'paused';
  return (
    <div className="controls" role="toolbar" aria-label="run controls">
      <span className={`status status-${status}`} data-testid="status">
        {status}
      </span>
      {status === 'paused' && core?.run?.pausedBecause && (
        <span className="pause-reason" role="status" data-testid="pause-reason">
          {core.run.pausedBecause}
        </span>
      )}
      {status === 'running' && pausable && (
        <button type="button" onClick={() => act('pause')} title="Pause (P)">
          ❚❚ Pause
        </button>
      )}
      {status === 'paused' && pausable && (
        <button type="button" onClick={() => act('resume')} title="Resume (P)">
          ▶ Resume
        </button>
      )}
      <button
        type="button"
        onClick={() => act('step')}
        disabled={status !== 'paused'}
        title="One step while paused (N)"
      >
        ▶❚ Step
      </button>
      {takeover && live && (
        <button
          type="button"
          className={takeover.active ? 'handback' : 'takeover'}
          onClick={toggleTakeover}
          title={`${takeover.active ? 'Give the controls back to the agent' : 'Take the controls: the agent stops deciding, your input in the game window is recorded'} (T, or ${core?.takeoverHotkey ?? 'the take-over hotkey'} anywhere)`}
          data-testid="takeover"
        >
          {takeover.active ? '↩ Hand back' : '✋ Take over'}
        </button>
      )}
      {takeover?.active && live && (
        <span className="takeover-banner" role="status" data-testid="takeover-banner">
          You have the controls: play in the game window; your input is recorded. The run is marked assisted.
        </span>
      )}
      <button
        type="button"
        className="stop"
        onClick={() => act('stop')}
        disabled={!live}
        title={`Stop (Escape, or ${core?.stopHotkey ?? 'the stop hotkey'} anywhere)`}
      >
        ■ Stop
      </button>
    </div>
  );
}
