/** The latency mode, switchable live (effective at the next step), and the world's state. */
import type { ApiClient, LatencyMode, WorldState } from '../../../electron/api/contract.ts';

const MODES: [LatencyMode, string][] = [
  ['stop', 'frozen while the model thinks, then runs a fixed interval'],
  ['slow', 'frozen for a buffer after each capture, then runs'],
  ['normal', 'the world never waits'],
  ['lcrt', 'frozen during the call, then runs for the model’s compute time'],
];

export function LatencySwitch({
  client,
  latency,
  onError,
}: {
  client: ApiClient;
  latency: WorldState | undefined;
  onError: (e: string) => void;
}) {
  if (!latency) return null;
  const set = (mode: LatencyMode) => client.request('setLatency', { mode }).catch((e: Error) => onError(e.message));
  return (
    <fieldset className="latency-switch" aria-label="latency mode">
      <span className="label">World clock</span>
      {MODES.map(([m, help]) => (
        <button
          type="button"
          key={m}
          className={latency.mode === m ? 'active' : ''}
          aria-pressed={latency.mode === m}
          title={help}
          onClick={() => set(m)}
          data-testid={`latency-${m}`}
        >
          {m}
        </button>
      ))}
      <span
        className={`world ${latency.frozen ? 'frozen' : 'running'}`}
        data-testid="world-state"
        title={`frozen through: ${latency.world}`}
      >
        {latency.world === 'none' ? 'cannot freeze this window' : latency.frozen ? 'world frozen' : 'world running'}
      </span>
    </fieldset>
  );
}
