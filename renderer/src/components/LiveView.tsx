/** What the agent sees and does, live: frame with overlay, streamed reasoning, actions, timings. */
import { useEffect, useRef } from 'react';
import type { LiveState } from '../useCore.ts';
import { Overlay } from './Overlay.tsx';
import { LatencyBar } from './LatencyBar.tsx';
import { RunTimingFigures } from './RunTimingFigures.tsx';
import { LatencySwitch } from './LatencySwitch.tsx';
import { ReflectionPanel } from './ReflectionPanel.tsx';
import { MemoryPanel } from './MemoryPanel.tsx';
import { MilestoneChecklist } from './MilestoneChecklist.tsx';
import { ActionList, ErrorList } from './StepLists.tsx';
import type { ApiClient } from '../../../electron/api/contract.ts';
import { SeatColumns, episodeResult } from './SeatColumns.tsx';
import { seatColour, seatOverlay } from './seats.ts';
import { LiveScoreText } from './LiveScore.tsx';

const NO_SCORE = { score: null, gameScore: null, scoreFormula: null };

export function LiveView({
  live,
  client,
  onError,
}: {
  live: LiveState;
  client: ApiClient;
  onError: (e: string) => void;
}) {
  const run = live.core?.run ?? null;
  const reasoningRef = useRef<HTMLPreElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: keeps the reasoning scrolled to its end whenever the streamed text grows
  useEffect(() => {
    const el = reasoningRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [live.answer, live.thinking]);
  const step =
    live.step && live.frame && live.step.step === live.frame.step && live.step.episode === live.frame.episode
      ? live.step
      : null;
  const refused = !!step?.errors.some((e) => e.startsWith('refused'));
  // A client over MCP answers only when it acts: while it thinks, its last step's reasoning stays up.
  const remote = !!run?.agent.startsWith('mcp:');
  const lastRemote =
    remote && live.lastStep?.reasoning ? `Step ${live.lastStep.step + 1}: ${live.lastStep.reasoning}` : '';
  const streamed =
    live.answer || step?.reasoning || (lastRemote ? `${lastRemote}\n\nWaiting for ${run?.agent}’s next actions…` : '');
  const seats = run?.seats;
  // Two seats: each seat's latest turn in this episode, in its colour (turn-based: the other seat's last move too).
  const seatTurns = Object.values(live.seatTurns)
    .filter((t) => t.episode === live.frame?.episode)
    .sort((a, b) => a.seat - b.seat);

  return (
    <section className="live" aria-label="live view">
      <div className="frame-pane">
        <LatencySwitch client={client} latency={run?.latency} onError={onError} />
        {live.frame ? (
          <div className="frame" data-testid="live-frame" data-step={live.frame.step} data-episode={live.frame.episode}>
            <img src={live.frame.dataUrl} alt={`frame ${live.frame.step + 1} of episode ${live.frame.episode + 1}`} />
            {seats && seatTurns.length > 0 && (
              <Overlay
                width={live.frame.width}
                height={live.frame.height}
                refused={false}
                {...seatOverlay(seatTurns)}
              />
            )}
            {!seats && step && (
              <Overlay
                width={live.frame.width}
                height={live.frame.height}
                actions={step.actions}
                outcomes={step.outcomes}
                refused={refused}
              />
            )}
          </div>
        ) : (
          <div className="frame placeholder">
            {run ? 'Waiting for the first frame…' : 'No run. Pick a target to start.'}
          </div>
        )}
        <div className="counters" data-testid="counters">
          {run?.demo ? (
            // The demo plays on until a model is configured: its episode budget is no promise.
            <span data-testid="demo-counter">
              demo · game <b>{run.episode + 1}</b>
            </span>
          ) : (
            <span>
              episode <b>{run ? run.episode + 1 : '–'}</b>/{run?.episodes ?? '–'}
            </span>
          )}
          <span
            title={
              run?.takeover?.takeovers
                ? `a person's steps are numbered too, but the budget of ${run.maxSteps} counts the agent's only`
                : undefined
            }
          >
            step <b data-testid="step-counter">{run ? run.step + 1 : '–'}</b>
            {run?.takeover?.takeovers ? ' (with a person’s)' : run?.demo ? '' : `/${run?.maxSteps ?? '–'}`}
          </span>
          {seats ? (
            seats.map((s) => (
              <span key={s.seat} style={{ color: seatColour(s.seat) }}>
                {s.name} <b>{run?.seatScores?.[s.seat] ?? '–'}</b>
              </span>
            ))
          ) : (
            <LiveScoreText score={run ?? NO_SCORE} testId="score" />
          )}
          <span>
            tokens{' '}
            <b>{run ? `${run.tokens.input.toLocaleString()} in · ${run.tokens.output.toLocaleString()} out` : '–'}</b>
          </span>
          <span>
            cost <b>{run?.costUsd != null ? `$${run.costUsd.toFixed(4)}` : '–'}</b>
          </span>
        </div>
        <LatencyBar latency={live.lastStep?.latency_ms} />
        <RunTimingFigures timing={run?.timing} />
        {live.lastStep?.latency_mode && (
          <div className="muted step-clock" data-testid="step-clock">
            step {live.lastStep.step + 1}: {live.lastStep.latency_mode} · world paused{' '}
            {Math.round(live.lastStep.paused_ms ?? 0)} ms
            {live.lastStep.drift_ticks !== undefined ? ` · drift ${live.lastStep.drift_ticks} ticks` : ''}
          </div>
        )}
        {live.warnings.map((w, i) => (
          <div key={i} className="errors" role="alert">
            {w}
          </div>
        ))}
      </div>
      <div className="side-pane">
        {seats ? (
          <SeatColumns seats={seats} scores={run?.seatScores} live={live} />
        ) : (
          <>
            <h3>Reasoning {live.answer && !step ? <span className="pulse">streaming</span> : null}</h3>
            {live.thinking && (
              <section aria-label="model thinking">
                <pre className="thinking">{live.thinking}</pre>
              </section>
            )}
            <pre className="reasoning" ref={reasoningRef} data-testid="reasoning" aria-live="polite">
              {streamed ||
                (!run
                  ? 'No run is going. The model’s answer streams here during a run.'
                  : run.agent === 'vlm' || run.agent === 'memory'
                    ? 'The model’s answer streams here.'
                    : remote
                      ? `Waiting for ${run.agent}’s actions; its reasoning shows here when it gives one.`
                      : `The ${run.agent} baseline does not explain itself.`)}
            </pre>
            {run?.memory && <MemoryPanel info={run.memory} memory={live.memory} />}
            <h3>Actions</h3>
            <ActionList actions={step?.actionsText} outcomes={step?.outcomes} testId="actions" />
            <ErrorList items={step?.errors} testId="step-errors" />
          </>
        )}
        {live.episodes.length > 0 && (
          <>
            <h3>Episodes</h3>
            <table className="episodes">
              <tbody>
                {live.episodes.map((e) => (
                  <tr key={e.episode}>
                    <td>#{e.episode + 1}</td>
                    <td>{seats ? episodeResult(e, seats) : (e.score ?? 'n/a')}</td>
                    <td>{e.steps} steps</td>
                    <td title={e.end_detector}>
                      {e.end}
                      {e.end_detector ? ` — ${e.end_detector}` : ''}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
        {run && live.milestones?.runId === run.id && (
          <MilestoneChecklist
            client={client}
            runId={run.id}
            episode={live.milestones.episode}
            items={live.milestones.items}
            score={live.milestones.score}
            calls={live.milestones.calls}
            budget={live.milestones.budget}
            onError={onError}
          />
        )}
        {run?.reflection && (
          <ReflectionPanel
            client={client}
            run={run}
            lessons={live.lessons}
            paused={live.core?.status === 'paused'}
            onError={onError}
          />
        )}
      </div>
    </section>
  );
}
