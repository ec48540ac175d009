/**
 * Sweeps: pick a sweep file by name (from the sweeps folders) or build a matrix in the form,
 * run it on this machine's pool (a private display per worker), and follow it: jobs done /
 * total, failures, cost so far and ETA, a row per job (its worker's display, status, score and
 * run), the failures with their errors. Stop ends it at once; starting the same sweep resumes.
 */
import { useCallback, useEffect, useState } from 'react';
import { SWEEP_MATRIX_MAX, type Results, type SweepFolder, type SweepJobWire } from '../../../electron/api/contract.ts';
import type { CoreTabProps } from '../useCore.ts';
import { CheckList, GameCheckList, toggle } from './CheckList.tsx';
import { CountInput } from './CountInput.tsx';

type SweepList = Results['listSweeps'];
type Agent = SweepList['agents'][number];

const NEW = 'new';

const duration = (s: number | null) =>
  s === null ? '?' : s < 60 ? `${s} s` : s < 3600 ? `${(s / 60).toFixed(1)} min` : `${(s / 3600).toFixed(1)} h`;

const STATUS_LABEL: Record<SweepJobWire['status'], string> = {
  pending: 'waiting',
  running: 'running',
  completed: 'completed',
  retry: 'failed, will retry',
  failed: 'failed',
  skipped: 'not run',
  interrupted: 'stopped',
  'done-before': 'done before',
};

export function SweepView({
  client,
  core,
  live,
  onError,
  onOpenRun,
}: CoreTabProps & { onOpenRun: (id: string) => void }) {
  const [list, setList] = useState<SweepList | null>(null);
  const [source, setSource] = useState(NEW);
  const [name, setName] = useState('sweep');
  const [games, setGames] = useState<string[]>(['2048', 'tictactoe']);
  const [agents, setAgents] = useState<Agent[]>(['random', 'solver']);
  const [trials, setTrials] = useState(1);
  const [maxSteps, setMaxSteps] = useState(10);
  const [workers, setWorkers] = useState(2);
  const sweep = live.sweep;
  const running = !!core?.sweep;
  const idle = core?.status === 'idle';
  const refresh = useCallback(
    () => client.request('listSweeps').then(setList, (e: Error) => onError(e.message)),
    [client, onError],
  );
  useEffect(() => {
    void refresh();
  }, [refresh]);
  useEffect(() => {
    if (sweep?.done) void refresh();
  }, [sweep?.done, refresh]);
  const picked = source === NEW ? undefined : list?.sweeps.find((s) => `${s.folder}:${s.name}` === source);
  const existing = source === NEW ? list?.sweeps.find((s) => s.folder === 'config' && s.name === name) : picked;
  const start = () => {
    // A file naming its own endpoint gets the key saved in Settings only when the person says yes.
    const foreign = picked?.foreignEndpoint ? picked.baseUrl : null;
    if (
      foreign &&
      !window.confirm(
        `The sweep file “${picked!.name}” sends its model requests to ${foreign}, not to the endpoint in Settings.\n\nSend the API key saved in Settings to ${foreign}?`,
      )
    )
      return;
    const req = picked
      ? {
          name: picked.name,
          folder: picked.folder as SweepFolder,
          workers,
          ...(foreign ? { allowEndpoint: foreign } : {}),
        }
      : { name, folder: 'config' as const, workers, matrix: { games, agents, trials, maxSteps } };
    client.request('startSweep', req).then(
      () => void refresh(),
      (e: Error) => onError(e.message),
    );
  };
  const stop = () => client.request('stopSweep').catch((e: Error) => onError(e.message));
  const p = sweep?.progress;
  const failures = sweep?.jobs.filter((j) => j.error && (j.status === 'failed' || j.status === 'retry')) ?? [];
  const canStart = !running && idle && (picked ? !picked.error : !!name && games.length > 0 && agents.length > 0);
  return (
    <section className="sweeps" aria-label="sweeps">
      <h2>Sweeps</h2>
      <p className="muted">
        A matrix of runs — games × agents × trials — on a pool of workers on this machine, each with its own private
        display. Pick a sweep file from the sweeps folders (<code>sweeps/*.yaml</code> in the config or runs folder) or
        build one below (saved as <code>sweeps/&lt;name&gt;.yaml</code> in the config folder). Runs land in the runs
        folder; starting the same sweep again runs only the jobs it has not finished.
      </p>
      <fieldset disabled={running || !idle}>
        <div className="form">
          <label>
            Sweep
            <select value={source} onChange={(e) => setSource(e.target.value)} data-testid="sweep-source">
              <option value={NEW}>new, from the form below</option>
              {list?.sweeps.map((s) => (
                <option key={`${s.folder}:${s.name}`} value={`${s.folder}:${s.name}`}>
                  {`${s.name} (${s.folder} folder)${s.error ? ' — cannot be used' : `, ${s.finished}/${s.jobs} done`}`}
                </option>
              ))}
            </select>
          </label>
          <CountInput label="Workers" max={16} value={workers} onChange={setWorkers} testId="sweep-workers" />
        </div>
        {source === NEW && (
          <>
            <div className="form">
              <label>
                Name
                <input value={name} onChange={(e) => setName(e.target.value)} data-testid="sweep-name" />
              </label>
              <CountInput
                label="Trials per cell"
                max={SWEEP_MATRIX_MAX.trials}
                value={trials}
                onChange={setTrials}
                testId="sweep-trials"
              />
              <CountInput
                label="Max steps per episode"
                max={SWEEP_MATRIX_MAX.maxSteps}
                value={maxSteps}
                onChange={setMaxSteps}
                testId="sweep-max-steps"
              />
            </div>
            <div>
              <span className="muted">Games: </span>
              {list && (
                <GameCheckList games={list.games} checked={games} onChange={setGames} testIdPrefix="sweep-game-" />
              )}
            </div>
            <div>
              <span className="muted">Agents: </span>
              {list && (
                <CheckList
                  items={list.agents}
                  checked={agents}
                  onToggle={(a, on) => setAgents(toggle(agents, a, on))}
                  disabled={(a) => a === 'vlm' && !core?.modelConfigured}
                  label={(a) =>
                    a === 'vlm' ? `the model in Settings${core?.modelConfigured ? '' : ' (none configured)'}` : a
                  }
                  testId={(a) => `sweep-agent-${a}`}
                />
              )}
            </div>
          </>
        )}
      </fieldset>
      <div className="form">
        <button type="button" className="primary" disabled={!canStart} onClick={start} data-testid="sweep-start">
          ▶ {existing && existing.finished > 0 ? 'Resume' : 'Start'}
        </button>
        <button type="button" className="stop" disabled={!running} onClick={stop} data-testid="sweep-stop">
          ■ Stop
        </button>
      </div>
      {existing && (
        <p className={existing.error ? 'bad' : 'muted'} data-testid="sweep-resume">
          {existing.error
            ? existing.error
            : `“${existing.name}”: ${existing.jobs} jobs (${existing.games.join(', ')} × ${existing.agents.join(', ')}), ${existing.finished} finished in the runs folder: those are not run again.`}
        </p>
      )}
      {existing?.baseUrl && (
        <p className={existing.foreignEndpoint ? 'bad' : 'muted'} data-testid="sweep-endpoint">
          Model requests go to <code>{existing.baseUrl}</code>
          {existing.foreignEndpoint
            ? ' — not the endpoint in Settings: starting it asks before the saved API key is sent there.'
            : ' (the endpoint in Settings).'}
        </p>
      )}
      {sweep && (
        <>
          <div className="ingvp-progress" data-testid="sweep-progress">
            <div className="progress-bar">
              <div style={{ width: `${p?.total ? (100 * p.done) / p.total : 0}%` }} />
            </div>
            <span>
              {p
                ? `${p.done} / ${p.total} jobs${p.resumed ? ` (${p.resumed} from before)` : ''} · ${p.failed} failed · ${p.running} running · cost $${p.costUsd.toFixed(4)}${sweep.done ? '' : ` · ETA ${duration(p.etaS)}`}`
                : 'starting…'}
            </span>
            {sweep.done && (
              <span data-testid="sweep-done" className={sweep.done.error ? 'bad' : ''}>
                {' '}
                ·{' '}
                {sweep.done.error
                  ? `failed: ${sweep.done.error}`
                  : `${sweep.done.stopped ? 'stopped' : 'finished'}: ${sweep.done.completed}/${sweep.done.total} completed (${sweep.done.resumed} from before), ${sweep.done.failed} failed, ${sweep.done.skipped} not run, ${sweep.done.wallS} s`}
              </span>
            )}
          </div>
          <table className="run-table" data-testid="sweep-jobs">
            <thead>
              <tr>
                <th>Job</th>
                <th>Cell</th>
                <th>Worker</th>
                <th>Status</th>
                <th className="num">Score</th>
                <th>Run</th>
              </tr>
            </thead>
            <tbody>
              {sweep.jobs.map((j) => (
                <tr key={j.id} data-testid={`sweep-job-${j.id}`} data-status={j.status}>
                  <td>
                    <code className="sweep-job-id">{j.id}</code>
                  </td>
                  <td>{j.cell}</td>
                  <td>{j.worker !== null ? `${j.worker} (display ${j.display})` : '–'}</td>
                  <td className={j.status === 'failed' ? 'bad' : j.status === 'completed' ? 'ok' : ''}>
                    {STATUS_LABEL[j.status]}
                    {j.attempt > 1 ? ` (attempt ${j.attempt})` : ''}
                  </td>
                  <td className="num">{j.score !== null ? j.score.toFixed(1) : '–'}</td>
                  <td>
                    {j.runId ? (
                      <button type="button" className="link" onClick={() => onOpenRun(j.runId!)}>
                        {j.runId}
                      </button>
                    ) : (
                      '–'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {failures.length > 0 && (
            <>
              <h3>Failures</h3>
              <ul className="bad" data-testid="sweep-failures">
                {failures.map((j) => (
                  <li key={j.id}>
                    {j.id} ({j.cell}, attempt {j.attempt}): {j.error}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  );
}
