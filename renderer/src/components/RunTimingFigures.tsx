/**
 * The run's times so far, per latency mode its steps were played in: input to screen (first
 * injected input → the window's first changed pixel), the model's time and the harness's own
 * overhead (locate + capture + encode + act), p50 / p95 in ms over the agent's steps.
 */
import { LATENCY_MODES, percentilesText, type ModeFigures, type TimingByMode } from '../../../electron/api/contract.ts';

function ModeLine({ mode, t }: { mode: string; t: ModeFigures }) {
  return (
    <div className="legend" data-testid={`run-timing-${mode}`}>
      <span>
        <b>{mode}</b> · {t.steps} {t.steps === 1 ? 'step' : 'steps'}
      </span>
      <span title="from the step's first input to the game window's first changed pixel">
        input → screen p50 / p95 <b data-key="to-screen">{percentilesText(t.effect_ms)}</b> ms ({t.effect_ms.n}{' '}
        measured)
      </span>
      <span title="the model's time on the steps it answered">
        model <b data-key="model">{percentilesText(t.model_ms)}</b> ms
      </span>
      <span title="the harness's own part of a step: locate + capture + encode + act">
        overhead <b data-key="overhead">{percentilesText(t.overhead_ms)}</b> ms
      </span>
    </div>
  );
}

export function RunTimingFigures({ timing }: { timing: TimingByMode<ModeFigures> | undefined }) {
  const modes = LATENCY_MODES.filter((m) => timing?.[m]);
  if (!timing || !modes.length) return null;
  return (
    <section className="latency" data-testid="run-timing" aria-label="the run’s times so far">
      {modes.map((m) => (
        <ModeLine key={m} mode={m} t={timing[m]!} />
      ))}
    </section>
  );
}
