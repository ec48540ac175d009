/** Every run on disk, and a replay viewer that scrubs through frame, reasoning, actions, timings. */
import { useEffect, useState } from 'react';
import type {
  ApiClient,
  LiveScore,
  MilestoneItemWire,
  MilestoneLabelWire,
  Results,
  RunSummary,
} from '../../../electron/api/contract.ts';
import { MilestoneChecklist } from './MilestoneChecklist.tsx';
import { LiveScoreText } from './LiveScore.tsx';
import { Overlay } from './Overlay.tsx';
import { stepOverlay } from './seats.ts';
import { LatencyBar } from './LatencyBar.tsx';
import { MemoryPanel, type MemoryInfo } from './MemoryPanel.tsx';
import { ReportPanel } from './ReportPanel.tsx';
import { LeaderboardTable } from './LeaderboardTable.tsx';
import { ArenaPanel } from './ArenaTable.tsx';
import { ErrorList } from './StepLists.tsx';
import type { MemoryStepRecord } from '../../../electron/api/contract.ts';

interface StepRow {
  step: number;
  episode: number;
  frame: string | null;
  reasoning: string;
  actions: unknown[];
  /** One per action; a semantic call's carries the GUI actions it became (`expanded`). */
  outcomes?: unknown[];
  errors: string[];
  latency_ms: Record<string, number>;
  frame_size?: { width: number; height: number };
  score?: number | null;
  game_score?: number | null;
  score_formula?: string;
  memory?: unknown;
  /** Who played it: a person during a takeover (absent in runs before takeovers: the agent). */
  actor?: 'agent' | 'human';
}

/** The parts of a run's run.json the replay header reads (read from disk: any may be missing). */
interface ReplayMeta {
  game?: string | null;
  target?: { label?: string };
  agent?: string;
  model?: string | null;
  status?: string;
  kind?: string;
  memory?: { scope?: unknown; retrieval?: unknown; retrieval_note?: unknown; embedding_model?: unknown };
  milestones?: {
    judge_model?: string;
    calls?: number;
    budget?: number | null;
    episodes?: { episode: number; items: MilestoneItemWire[]; score: number }[];
  };
}

/** A replayed run's memory store as the panel shows it, when run.json has a readable one. */
function memoryInfo(meta: ReplayMeta | null): MemoryInfo | null {
  const m = meta?.memory;
  if (!m || typeof m.scope !== 'string' || (m.retrieval !== 'embedding' && m.retrieval !== 'lexical')) return null;
  return {
    scope: m.scope,
    retrieval: m.retrieval,
    ...(typeof m.retrieval_note === 'string' ? { note: m.retrieval_note } : {}),
    embeddingModel: typeof m.embedding_model === 'string' ? m.embedding_model : null,
  };
}

/** A step's memory record from steps.jsonl, when it has the shape the panel reads. */
function stepMemory(s: StepRow): (MemoryStepRecord & { step: number }) | null {
  const m = s.memory as Partial<Record<keyof MemoryStepRecord, unknown>> | undefined;
  if (!m || typeof m.summary !== 'string' || !Array.isArray(m.retrieved)) return null;
  const text = (x: unknown) =>
    x && typeof (x as { text?: unknown }).text === 'string' ? (x as { text: string }) : null;
  const similar = (x: unknown) => typeof (x as { similarity?: unknown } | null)?.similarity === 'number';
  const saved = text(m.saved);
  const skipped = text(m.skipped);
  return {
    scope: typeof m.scope === 'string' ? m.scope : '',
    retrieval: m.retrieval === 'lexical' ? 'lexical' : 'embedding',
    summary: m.summary,
    retrieved: m.retrieved.filter((x) => text(x) && similar(x)) as MemoryStepRecord['retrieved'],
    saved: saved ? { id: String((m.saved as { id?: unknown }).id ?? ''), text: saved.text } : null,
    skipped: skipped && similar(m.skipped) ? (m.skipped as MemoryStepRecord['skipped']) : null,
    ...(Array.isArray(m.errors) ? { errors: m.errors.filter((e): e is string => typeof e === 'string') } : {}),
    step: s.step,
  };
}

export function RunsView({
  client,
  refreshKey,
  openRun,
  onClosedRun,
  liveRun,
}: {
  client: ApiClient;
  refreshKey: number;
  /** The run going now: its row shows the live score instead of the mean of its finished episodes. */
  liveRun?: (LiveScore & { id: string }) | null;
  /** A run to open at once (a sweep job's run link). */
  openRun?: string;
  onClosedRun?: () => void;
}) {
  const [runs, setRuns] = useState<RunSummary[]>([]);
  const [warnings, setWarnings] = useState<string[]>([]);
  const [board, setBoard] = useState<Results['leaderboard']['rows']>([]);
  const [notPooled, setNotPooled] = useState<Pick<Results['leaderboard'], 'failed' | 'invalid'>>({
    failed: [],
    invalid: [],
  });
  const [agreement, setAgreement] = useState<Results['milestoneAgreement']['games']>([]);
  const [open, setOpen] = useState<string | null>(openRun ?? null);
  const [reportOpen, setReportOpen] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey is the parent's signal to load the list again
  useEffect(() => {
    client.request('listRuns').then(
      (r) => {
        setRuns(r.runs);
        setWarnings(r.warnings);
      },
      (e: Error) => setWarnings([`cannot list the runs: ${e.message}`]),
    );
    client.request('leaderboard', {}).then(
      (r) => {
        setBoard(r.rows);
        setNotPooled({ failed: r.failed, invalid: r.invalid });
      },
      () => {},
    );
    client.request('milestoneAgreement').then(
      (r) => setAgreement(r.games),
      () => {},
    );
  }, [client, refreshKey, open]);
  const failed = runs.filter((r) => r.status === 'failed');
  const played = runs.filter((r) => r.status !== 'failed');
  if (open)
    return (
      <Replay
        client={client}
        id={open}
        onClose={() => {
          setOpen(null);
          onClosedRun?.();
        }}
      />
    );
  /** A row that opens its run's replay, by click or Enter. */
  const opens = (id: string) => ({
    tabIndex: 0,
    onClick: () => setOpen(id),
    onKeyDown: (e: React.KeyboardEvent) => e.key === 'Enter' && setOpen(id),
  });
  return (
    <section className="runs" aria-label="runs">
      {agreement.length > 0 && (
        <>
          <h2>Milestone judge vs people</h2>
          <table className="run-table" data-testid="milestone-agreement">
            <thead>
              <tr>
                <th>Title</th>
                <th>Labelled runs</th>
                <th>Mean judged</th>
                <th>Mean human</th>
                <th>% difference</th>
              </tr>
            </thead>
            <tbody>
              {agreement.map((g) => (
                <tr key={g.game}>
                  <td>{g.game}</td>
                  <td>{g.runs}</td>
                  <td>{g.judged.toFixed(1)}</td>
                  <td>{g.human.toFixed(1)}</td>
                  <td>{g.pct_diff === null ? 'n/a' : `${g.pct_diff.toFixed(1)} %`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {board.some((r) => !r.assisted) && (
        <>
          <h2>Scores</h2>
          <LeaderboardTable rows={board.filter((r) => !r.assisted)} testId="leaderboard" />
        </>
      )}
      {board.some((r) => r.assisted) && (
        <>
          <h3>Assisted (a person took the controls)</h3>
          <LeaderboardTable rows={board.filter((r) => r.assisted)} testId="leaderboard-assisted" />
        </>
      )}
      {(notPooled.failed.length > 0 || notPooled.invalid.length > 0) && (
        <>
          <h3>Not pooled</h3>
          <ul className="not-pooled" data-testid="leaderboard-not-pooled">
            {notPooled.failed.map((f) => (
              <li key={`f-${f.run}`}>
                failed run {f.run} ({f.game}, {f.player}
                {f.model ? ` ${f.model}` : ''}): <span className="bad">{f.error ?? 'no error recorded'}</span>
              </li>
            ))}
            {notPooled.invalid.map((e) => (
              <li key={`i-${e.run}-${e.episode}`}>
                invalid episode {e.episode + 1} of {e.run} ({e.game}, {e.player}
                {e.model ? ` ${e.model}` : ''}; the game said {e.score ?? 'no score'}): {e.reason}
              </li>
            ))}
          </ul>
        </>
      )}
      <ArenaPanel client={client} refreshKey={refreshKey} onOpenRun={setOpen} />
      <details className="report-details" open={reportOpen} onToggle={(e) => setReportOpen(e.currentTarget.open)}>
        <summary>Report</summary>
        {reportOpen && <ReportPanel client={client} refreshKey={refreshKey} />}
      </details>
      <h2>Runs</h2>
      <ErrorList items={warnings} testId="runs-warnings" />
      {runs.length === 0 && <p className="muted">No runs yet.</p>}
      {failed.length > 0 && (
        <>
          <h3>Failed runs (never pooled)</h3>
          <table className="run-table" data-testid="failed-runs">
            <thead>
              <tr>
                <th>Date</th>
                <th>Title</th>
                <th>Agent</th>
                <th>Model</th>
                <th>Steps</th>
                <th>Error</th>
              </tr>
            </thead>
            <tbody>
              {failed.map((r) => (
                <tr key={r.id} {...opens(r.id)} data-testid="failed-run-row">
                  <td>{new Date(r.created).toLocaleString()}</td>
                  <td title={r.title.id}>{r.title.name}</td>
                  <td>{r.agent}</td>
                  <td>{r.model ?? '–'}</td>
                  <td>{r.steps}</td>
                  <td className="bad">{r.error ?? 'no error recorded'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <table className="run-table">
        <thead>
          <tr>
            <th>Date</th>
            <th>Title</th>
            <th>Agent</th>
            <th>Model</th>
            <th>Mode</th>
            <th>Score</th>
            <th>Episodes</th>
            <th>Steps</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          {played.map((r) => (
            <tr key={r.id} {...opens(r.id)} data-testid="run-row">
              <td>{new Date(r.created).toLocaleString()}</td>
              <td
                title={r.title.kind === 'unprofiled' ? 'no profile: listed apart under the window title' : r.title.id}
              >
                {r.title.name}
                {r.title.kind === 'unprofiled' ? ' (unprofiled)' : ''}
              </td>
              <td>{r.kind === 'human' ? 'human' : r.agent}</td>
              <td>{r.model ?? '–'}</td>
              <td>{r.actionSpace}</td>
              <td>
                {liveRun?.id === r.id ? (
                  <LiveScoreText score={liveRun} testId="live-run-score" />
                ) : r.mean === null ? (
                  '–'
                ) : (
                  `${r.mean}${r.std ? ` ± ${r.std}` : ''}`
                )}
              </td>
              <td>
                {r.episodes}
                {r.invalid && (
                  <span className="bad" data-testid="run-invalid">
                    {' '}
                    ({r.invalid.length} invalid: {r.invalid.map((e) => `#${e.episode + 1} ${e.reason}`).join('; ')})
                  </span>
                )}
              </td>
              <td>{r.steps}</td>
              <td className={r.status === 'crashed' || r.status === 'failed' ? 'bad' : ''}>
                {r.status}
                {r.demo ? ' (demo)' : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function Replay({
  client,
  id,
  onClose,
  closeLabel = '← Runs',
}: {
  client: ApiClient;
  id: string;
  onClose: () => void;
  closeLabel?: string;
}) {
  const [steps, setSteps] = useState<StepRow[]>([]);
  const [meta, setMeta] = useState<ReplayMeta | null>(null);
  const [i, setI] = useState(0);
  const [img, setImg] = useState<string | null>(null);
  const [note, setNote] = useState('');
  const [skipped, setSkipped] = useState<string[]>([]);
  const [labels, setLabels] = useState<MilestoneLabelWire[]>([]);
  useEffect(() => {
    client.request('milestoneLabels', { id }).then(
      (r) => setLabels(r.labels),
      () => {},
    );
    client.request('getRun', { id }).then(
      (r) => {
        setMeta(r.meta as ReplayMeta);
        setSteps(r.steps as unknown as StepRow[]);
        setSkipped(r.warnings ?? []);
      },
      (e: Error) => setSkipped([`cannot open the run: ${e.message}`]),
    );
  }, [client, id]);
  const s = steps[i];
  // A run that keeps fewer frames (keep frames every:N, changed, none): the episode's last kept one stands in.
  let shown: StepRow | undefined;
  // (Before the steps arrive there is no step, and nothing to look back through.)
  for (let k = i; s && k >= 0 && steps[k]?.episode === s.episode; k--)
    if (steps[k]!.frame) {
      shown = steps[k];
      break;
    }
  const [playing, setPlaying] = useState(false);
  useEffect(() => {
    if (!playing) return;
    const timer = setInterval(
      () =>
        setI((k) => {
          if (k + 1 < steps.length) return k + 1;
          setPlaying(false);
          return k;
        }),
      500,
    );
    return () => clearInterval(timer);
  }, [playing, steps.length]);
  useEffect(() => {
    if (!shown?.frame) return setImg(null);
    client.request('getFrame', { id, frame: shown.frame }).then(
      (f) => setImg(f.dataUrl),
      () => setImg(null),
    );
  }, [client, id, shown?.frame]);
  const exportIt = async () => {
    try {
      setNote(`Exported to ${(await client.request('exportRun', { id })).path}`);
    } catch (e) {
      setNote((e as Error).message);
    }
  };
  return (
    <section className="replay" aria-label="replay">
      <div className="replay-head">
        <button type="button" onClick={onClose}>
          {closeLabel}
        </button>
        <h2>
          {meta?.game ?? meta?.target?.label} · {meta?.agent}
          {meta?.model ? ` · ${meta.model}` : ''} · {meta?.status}
        </h2>
        <button type="button" onClick={exportIt}>
          Export folder
        </button>
        <button
          type="button"
          onClick={async () => {
            try {
              setNote(`Video written to ${(await client.request('exportVideo', { id })).path}`);
            } catch (e) {
              setNote((e as Error).message);
            }
          }}
        >
          Export video
        </button>
        {note && (
          <span className="muted" role="status">
            {note}
          </span>
        )}
      </div>
      <ErrorList items={skipped.map((w) => `skipped ${w}`)} testId="replay-warnings" />
      {steps.length === 0 ? (
        <p className="muted">This run has no steps.</p>
      ) : (
        <>
          <div className="scrub">
            <button type="button" onClick={() => setPlaying((p) => !p)} data-testid="replay-play">
              {playing ? '❚❚ Pause' : '▶ Play'}
            </button>
            <button type="button" onClick={() => setI(Math.max(0, i - 1))} aria-label="previous step">
              ◀
            </button>
            <input
              type="range"
              min={0}
              max={steps.length - 1}
              value={i}
              onChange={(e) => setI(Number(e.target.value))}
              aria-label="step"
              data-testid="scrub"
            />
            <button type="button" onClick={() => setI(Math.min(steps.length - 1, i + 1))} aria-label="next step">
              ▶
            </button>
            <span data-testid="replay-position">
              episode {s!.episode + 1} · step {s!.step + 1} ({i + 1}/{steps.length})
              {s!.actor === 'human' && <b className="actor-human"> · played by a person</b>}
            </span>
          </div>
          {steps.some((x) => x.actor === 'human') && (
            <div
              className="actor-strip"
              data-testid="actor-strip"
              title="who played each step: agent, or a person (orange)"
            >
              {steps.map((x, k) => (
                <button
                  type="button"
                  key={k}
                  className={`${x.actor === 'human' ? 'human' : 'agent'}${k === i ? ' current' : ''}`}
                  onClick={() => setI(k)}
                  aria-label={`step ${x.step + 1}: ${x.actor === 'human' ? 'a person' : 'the agent'}`}
                />
              ))}
            </div>
          )}
          <div className="live">
            <div className="frame-pane">
              <div className="frame">
                {img && <img src={img} alt={`step ${shown!.step + 1}`} data-testid="replay-frame" />}
                {s && !s.frame && (
                  <p className="muted" data-testid="replay-frame-note">
                    {shown
                      ? `This step's frame was not kept: showing step ${shown.step + 1}'s.`
                      : 'No frame was kept for this step.'}
                  </p>
                )}
                {img && shown === s && s!.frame_size && (
                  <Overlay
                    width={s!.frame_size.width}
                    height={s!.frame_size.height}
                    {...stepOverlay(s!)}
                    refused={s!.errors.some((e) => e.startsWith('refused'))}
                  />
                )}
              </div>
              {meta?.kind !== 'human' && <LatencyBar latency={s!.latency_ms} />}
            </div>
            <div className="side-pane">
              <h3>Reasoning</h3>
              <pre className="reasoning" data-testid="replay-reasoning">
                {s!.reasoning || '(none)'}
              </pre>
              <h3>Actions</h3>
              <pre className="json">{JSON.stringify(s!.actions, null, 1)}</pre>
              {s!.errors.length > 0 && (
                <div className="errors">
                  {s!.errors.map((e, k) => (
                    <div key={k}>{e}</div>
                  ))}
                </div>
              )}
              {s!.score !== undefined && (
                <p>
                  score after this step:{' '}
                  <LiveScoreText
                    score={{
                      score: s!.score,
                      gameScore: s!.game_score ?? null,
                      scoreFormula: s!.score_formula ?? null,
                    }}
                    testId="replay-score"
                  />
                </p>
              )}
              {memoryInfo(meta) && <MemoryPanel info={memoryInfo(meta)!} memory={stepMemory(s!)} />}
              {(() => {
                const judged = meta?.milestones?.episodes?.find((e) => e.episode === s!.episode);
                if (!judged) return null;
                // As the checklist stood at this step: a milestone ticks at the step that proves it.
                const items = judged.items.map((m) =>
                  m.reached && (m.step ?? 0) <= s!.step
                    ? m
                    : { name: m.name, ...(m.level ? { level: m.level } : {}), reached: false },
                );
                return (
                  <MilestoneChecklist
                    client={client}
                    runId={id}
                    episode={s!.episode}
                    items={items}
                    score={items.length ? (items.filter((m) => m.reached).length / items.length) * 100 : 0}
                    {...(meta?.milestones?.calls !== undefined ? { calls: meta.milestones.calls } : {})}
                    budget={meta?.milestones?.budget ?? null}
                    labels={labels}
                    onLabel={(milestone, reached) =>
                      client.request('labelMilestone', { id, episode: s!.episode, milestone, reached }).then(
                        (r) => setLabels(r.labels),
                        (e: Error) => setNote(e.message),
                      )
                    }
                    onError={setNote}
                  />
                );
              })()}
            </div>
          </div>
        </>
      )}
    </section>
  );
}
