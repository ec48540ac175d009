/**
 * ING-VP: pick games, settings, levels and a player, start the suite, watch the level in play
 * (the screenshot the model answered, or the text state) and the paper-style table fill in. The
 * suite folder is a name in the runs folder; the same name again plays only unfinished levels.
 */
import { useCallback, useEffect, useState } from 'react';
import type { IngvpSetting, Results, SuiteAgent, SuiteTableWire } from '../../../electron/api/contract.ts';
import type { CoreTabProps, SuiteLive } from '../useCore.ts';
import { CheckList, GameCheckList } from './CheckList.tsx';
import { AmountInput } from './CountInput.tsx';

type SuiteList = Results['listSuites'];

const SETTING_LABEL: Record<IngvpSetting, string> = {
  'one-step-image': 'one-step · image',
  'one-step-text': 'one-step · text',
  'multi-step-image': 'multi-step · image',
  'multi-step-text': 'multi-step · text',
  'multi-step-image-history': 'multi-step · image · history',
  'multi-step-text-history': 'multi-step · text · history',
};

const METRICS = [
  ['Acc.', 'accuracy'],
  ['Comp.', 'completion'],
  ['Eff.', 'efficiency'],
] as const;

const duration = (ms: number) => (ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 60_000).toFixed(1)} min`);

/** Game × setting, a row per metric (accuracy, completion degree, action efficiency, %), as in the paper. */
function SuiteTable({ table, titles }: { table: SuiteTableWire; titles: Map<string, string> }) {
  return (
    <table className="ingvp-table" data-testid="ingvp-table">
      <thead>
        <tr>
          <th>Game</th>
          <th>Metric</th>
          {table.settings.map((s) => (
            <th key={s} className="num">
              {SETTING_LABEL[s]}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {[...table.games, 'all'].flatMap((game) =>
          METRICS.map(([label, key], i) => (
            <tr key={`${game}-${key}`} className={i === 0 ? 'first' : ''}>
              <td>{i === 0 ? (game === 'all' ? 'All games' : (titles.get(game) ?? game)) : ''}</td>
              <td className="muted">{label}</td>
              {table.settings.map((s) => {
                const c = table.rows[game]?.[s];
                return (
                  <td
                    key={s}
                    className="num"
                    data-testid={`cell-${game}-${s}-${key}`}
                    title={c ? `${c.levels} level${c.levels === 1 ? '' : 's'}` : 'no level finished yet'}
                  >
                    {c ? c[key].toFixed(2) : '–'}
                  </td>
                );
              })}
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}

/** The level in play: where the suite is, and what the player last saw or left. */
function CurrentLevel({ suite, titles }: { suite: SuiteLive; titles: Map<string, string> }) {
  const c = suite.current;
  const step = suite.step;
  return (
    <div className="ingvp-current">
      <h3 data-testid="ingvp-current">
        {c ? `${titles.get(c.game) ?? c.game} · ${SETTING_LABEL[c.setting]} · level ${c.level}` : 'no level yet'}
      </h3>
      {step && (
        <p className="muted" data-testid="ingvp-step">
          answer {step.step}
          {step.frame ? ' (to the screenshot below)' : ''}: {step.actions.filter(Boolean).join(' ') || '(no move)'} —{' '}
          {step.changed} changed the state
          {step.solved ? ' — solved' : ''}
          {step.errors.length ? ` — ${step.errors.join('; ')}` : ''}
        </p>
      )}
      {step?.frame ? (
        <div className="frame">
          <img
            src={step.frame.dataUrl}
            width={step.frame.width}
            height={step.frame.height}
            alt="the screenshot the model answered"
            data-testid="ingvp-frame"
          />
        </div>
      ) : step?.text !== undefined ? (
        <pre className="ingvp-state" data-testid="ingvp-text">
          {step.text}
        </pre>
      ) : (
        <div className="frame placeholder">waiting for the first answer…</div>
      )}
    </div>
  );
}

export function IngvpView({ client, core, live, onError }: CoreTabProps) {
  const [list, setList] = useState<SuiteList | null>(null);
  const [games, setGames] = useState<string[]>([]);
  const [settings, setSettings] = useState<IngvpSetting[]>([]);
  const [levels, setLevels] = useState('1-50');
  const [agent, setAgent] = useState<SuiteAgent>('solver');
  const [paceMs, setPaceMs] = useState(0);
  const [name, setName] = useState('ingvp');
  const suite = live.suite;
  const running = !!core?.suite;
  const refresh = useCallback(
    () =>
      client.request('listSuites').then(
        (l) => {
          setList(l);
          setGames((g) => (g.length ? g : l.games.map((x) => x.id)));
          setSettings((s) => (s.length ? s : [...l.settings]));
        },
        (e: Error) => onError(e.message),
      ),
    [client, onError],
  );
  useEffect(() => {
    void refresh();
  }, [refresh]);
  useEffect(() => {
    if (suite?.done) void refresh();
  }, [suite?.done, refresh]);
  const titles = new Map(list?.games.map((g) => [g.id, g.title]) ?? []);
  const existing = list?.suites.find((s) => s.name === name);
  const start = () =>
    client
      .request('startSuite', { games, settings, levels, agent, paceMs, name })
      .catch((e: Error) => onError(e.message));
  const stop = () => client.request('stopSuite').catch((e: Error) => onError(e.message));
  const p = suite?.progress;
  const table = suite?.table;
  return (
    <section className="ingvp" aria-label="ING-VP suite">
      <h2>ING-VP</h2>
      <p className="muted">
        Six grid puzzles, 50 levels each, in the paper’s six settings: one-step (the whole plan) or multi-step (one move
        a round), a screenshot of the game’s window or its text rendering, with or without the player’s earlier answers.
        Each level is one run in the suite folder; starting the same folder again plays only the levels it has not
        finished.
      </p>
      <fieldset disabled={running || core?.status !== 'idle'}>
        <legend>Games</legend>
        {list && <GameCheckList games={list.games} checked={games} onChange={setGames} testIdPrefix="ingvp-game-" />}
      </fieldset>
      <fieldset disabled={running || core?.status !== 'idle'}>
        <legend>Settings</legend>
        {list && (
          <CheckList
            items={list.settings}
            checked={settings}
            onToggle={(s, on) => setSettings(list.settings.filter((x) => (x === s ? on : settings.includes(x))))}
            label={(s) => SETTING_LABEL[s]}
            testId={(s) => `ingvp-setting-${s}`}
          />
        )}
      </fieldset>
      <div className="form">
        <label>
          Levels (e.g. 1-50, 7, 1-5,9)
          <input value={levels} onChange={(e) => setLevels(e.target.value)} data-testid="ingvp-levels" />
        </label>
        <label>
          Player
          <select value={agent} onChange={(e) => setAgent(e.target.value as SuiteAgent)} data-testid="ingvp-agent">
            <option value="vlm" disabled={!core?.modelConfigured}>
              the model in Settings{core?.modelConfigured ? '' : ' (none configured)'}
            </option>
            <option value="solver">solver</option>
            <option value="random">random moves</option>
          </select>
        </label>
        <AmountInput
          label="Least time per answer (ms)"
          min={0}
          max={10000}
          value={paceMs}
          onChange={setPaceMs}
          testId="ingvp-pace"
        />
        <label>
          Suite folder (a name in the runs folder)
          <input value={name} list="ingvp-suites" onChange={(e) => setName(e.target.value)} data-testid="ingvp-name" />
          <datalist id="ingvp-suites">
            {list?.suites.map((s) => (
              <option key={s.name} value={s.name}>
                {`${s.agent}${s.model ? ` (${s.model})` : ''}, ${s.finished} levels`}
              </option>
            ))}
          </datalist>
        </label>
        <button
          type="button"
          className="primary"
          disabled={running || core?.status !== 'idle' || !games.length || !settings.length}
          onClick={start}
          data-testid="ingvp-start"
        >
          ▶ {existing ? 'Resume' : 'Start'}
        </button>
        <button type="button" className="stop" disabled={!running} onClick={stop} data-testid="ingvp-stop">
          ■ Stop
        </button>
      </div>
      {existing && (
        <p className="muted" data-testid="ingvp-resume">
          “{existing.name}” holds {existing.finished} finished level{existing.finished === 1 ? '' : 's'} of{' '}
          {existing.agent}
          {existing.model ? ` (${existing.model})` : ''}: those are not played again.
        </p>
      )}
      {list?.warnings.map((w) => (
        <p key={w} className="bad">
          {w}
        </p>
      ))}
      {suite && (
        <>
          <div className="ingvp-progress" data-testid="ingvp-progress">
            <div className="progress-bar">
              <div style={{ width: `${p?.total ? (100 * p.done) / p.total : 0}%` }} />
            </div>
            <span>
              {p
                ? `${p.done} / ${p.total} levels${p.resumed ? ` (${p.resumed} from before)` : ''} · accuracy ${p.accuracy.toFixed(1)} %${p.etaMs !== null && !suite.done ? ` · about ${duration(p.etaMs)} left` : ''}`
                : 'starting…'}
            </span>
            {suite.done && (
              <span data-testid="ingvp-done" className={suite.done.error ? 'bad' : ''}>
                {' '}
                ·{' '}
                {suite.done.error
                  ? `failed: ${suite.done.error}`
                  : `${suite.done.stopped ? 'stopped' : 'finished'}: ${suite.done.played} played, ${suite.done.resumed} from before`}
              </span>
            )}
          </div>
          <div className="ingvp-live">
            <CurrentLevel suite={suite} titles={titles} />
            {table && <SuiteTable table={table} titles={titles} />}
          </div>
          {suite.results.length > 0 && (
            <ol className="ingvp-results muted" data-testid="ingvp-results" reversed start={suite.results.length}>
              {suite.results
                .slice(-8)
                .reverse()
                .map((r) => (
                  <li key={r.run}>
                    {titles.get(r.game) ?? r.game} · {SETTING_LABEL[r.setting]} · level {r.level}:{' '}
                    <span className={r.solved ? 'ok' : 'bad'}>{r.solved ? 'solved' : 'not solved'}</span>, completion{' '}
                    {r.completion}, efficiency {r.efficiency} ({r.changed}/{r.actions}), {r.ms} ms — {suite.name}/runs/
                    {r.run}
                  </li>
                ))}
            </ol>
          )}
        </>
      )}
    </section>
  );
}
