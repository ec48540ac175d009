/** The Improvement Dynamics Curve: start it, watch the curve grow, read each round's skill and what changed. */
import { useEffect, useState } from 'react';
import type { GameSummary } from '../../../electron/api/contract.ts';
import type { CoreTabProps } from '../useCore.ts';
import { CountInput, OptionalCountInput } from './CountInput.tsx';

/** Word-level diff (LCS) between two skills, for people to see what a round changed. */
export function diffWords(a: string, b: string): { text: string; op: '=' | '+' | '-' }[] {
  const x = a.split(/\s+/).filter(Boolean);
  const y = b.split(/\s+/).filter(Boolean);
  const dp = Array.from({ length: x.length + 1 }, () => new Array<number>(y.length + 1).fill(0));
  for (let i = x.length - 1; i >= 0; i--)
    for (let j = y.length - 1; j >= 0; j--)
      dp[i]![j] = x[i] === y[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
  const out: { text: string; op: '=' | '+' | '-' }[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      out.push({ text: x[i++]!, op: '=' });
      j++;
    } else if (j < y.length && (i >= x.length || dp[i]![j + 1]! >= dp[i + 1]![j]!))
      out.push({ text: y[j++]!, op: '+' });
    else out.push({ text: x[i++]!, op: '-' });
  }
  return out;
}

function Curve({ curve, rollbacks }: { curve: number[]; rollbacks: Set<number> }) {
  const W = 560;
  const H = 220;
  const pad = 36;
  const max = Math.max(1e-9, ...curve);
  const px = (i: number) => pad + (curve.length > 1 ? (i * (W - 2 * pad)) / (curve.length - 1) : (W - 2 * pad) / 2);
  const py = (v: number) => H - pad - (v / max) * (H - 2 * pad);
  return (
    <svg
      width={W}
      height={H}
      className="curve"
      role="img"
      aria-label={`improvement curve: ${curve.join(', ')}`}
      data-testid="idc-curve"
    >
      <line x1={pad} y1={H - pad} x2={W - pad} y2={H - pad} stroke="#555" />
      <line x1={pad} y1={pad} x2={pad} y2={H - pad} stroke="#555" />
      <text x={4} y={pad} fill="#9aa0a6" fontSize={11}>
        {max.toFixed(2)}
      </text>
      <text x={4} y={H - pad} fill="#9aa0a6" fontSize={11}>
        0
      </text>
      <polyline
        fill="none"
        stroke="#00c2e0"
        strokeWidth={2.5}
        points={curve.map((v, i) => `${px(i)},${py(v)}`).join(' ')}
      />
      {curve.map((v, i) => (
        <g key={i} data-testid="idc-point">
          <circle cx={px(i)} cy={py(v)} r={5} fill={rollbacks.has(i) ? '#ff453a' : '#00c2e0'} />
          <text x={px(i)} y={H - pad + 16} fill="#9aa0a6" fontSize={11} textAnchor="middle">
            round {i}
          </text>
          <text x={px(i)} y={py(v) - 9} fill="#e8eaed" fontSize={11} textAnchor="middle">
            {v}
          </text>
        </g>
      ))}
    </svg>
  );
}

export function IdcView({ client, core, live, onError }: CoreTabProps) {
  const [games, setGames] = useState<GameSummary[]>([]);
  const [game, setGame] = useState('2048');
  const [rounds, setRounds] = useState(10); // OmniGameArena: 10 rounds × 5 episodes
  const [episodes, setEpisodes] = useState(5);
  const [maxSteps, setMaxSteps] = useState<number | ''>(30);
  useEffect(() => {
    client.request('listTargets').then(
      (t) => setGames(t.games.filter((g) => !g.seats)),
      () => {},
    );
  }, [client]);
  const idc = live.idc;
  const running = !!core?.idc;
  const sorted = [...(idc?.rounds ?? [])].sort((a, b) => a.round - b.round);
  const start = () =>
    client
      .request('startIdc', { game, rounds, episodes, ...(maxSteps ? { maxSteps } : {}) })
      .catch((e: Error) => onError(e.message));
  return (
    <section className="idc" aria-label="improvement dynamics curve">
      <h2>Improvement Dynamics Curve</h2>
      <p className="muted">
        Round 0 plays without a skill. After each round the model explores that round’s recordings with tools,
        diagnoses, proposes a skill that an independent judge must accept, and the next round plays with it. A round
        that falls sharply below the best rolls back to the best skill; the best skill is finally played on unseen
        variants.
      </p>
      <div className="form">
        <label>
          Game{' '}
          <select value={game} onChange={(e) => setGame(e.target.value)}>
            {games.map((g) => (
              <option key={g.id} value={g.id}>
                {g.title}
              </option>
            ))}
          </select>
        </label>
        <CountInput label="Rounds" value={rounds} onChange={setRounds} testId="idc-rounds" />
        <CountInput label="Episodes per round" value={episodes} onChange={setEpisodes} testId="idc-episodes" />
        <OptionalCountInput label="Max steps" value={maxSteps} onChange={setMaxSteps} testId="idc-max-steps" />
        <button
          type="button"
          className="primary"
          disabled={running || !core?.modelConfigured || core?.status !== 'idle'}
          onClick={start}
          data-testid="idc-start"
        >
          ▶ Start
        </button>
        {!core?.modelConfigured && <span className="muted">Configure a model in Settings first.</span>}
        {running && (
          <span className="muted" data-testid="idc-progress">
            round {core!.idc!.done} of {core!.idc!.rounds + 1} done…
          </span>
        )}
      </div>
      {idc && idc.curve.length > 0 && (
        <Curve curve={idc.curve} rollbacks={new Set(sorted.filter((r) => r.rollback).map((r) => r.round))} />
      )}
      {idc?.done && (
        <p data-testid="idc-done">
          {idc.done.error
            ? `Failed: ${idc.done.error}`
            : `Best round ${idc.done.bestRound}. Held-out, no skill → best skill: ${
                idc.done.transfer?.length
                  ? idc.done.transfer
                      .map((t) => `${t.variant} ${t.baseline} → ${t.best} (${t.gain >= 0 ? '+' : ''}${t.gain})`)
                      .join('; ')
                  : 'n/a'
              }.`}
        </p>
      )}
      {sorted.map((r, k) => (
        <div key={r.round} className="idc-round" data-testid="idc-round">
          <h3>
            Round {r.round}: mean {r.mean}
            {r.rollback ? ' — fell sharply, rolled back to the best skill' : ''}
          </h3>
          {r.note && <p className="muted">{r.note}</p>}
          {r.diagnosis && (
            <p>
              <b>Diagnosis</b> ({r.reflector_mode}): {r.diagnosis}
            </p>
          )}
          {r.judge && (
            <p className="muted">
              judge:{' '}
              {r.judge.accepted
                ? `accepted after ${r.judge.tries} tr${r.judge.tries === 1 ? 'y' : 'ies'}`
                : `rejected ${r.judge.tries} times`}
              {r.judge.reasons.length ? ` — ${r.judge.reasons.join('; ')}` : ''}
            </p>
          )}
          {r.error && <div className="errors">{r.error}</div>}
          <div className="skill" data-testid="skill-diff">
            <b>Skill played:</b>{' '}
            {r.skill ? (
              diffWords(sorted[k - 1]?.skill ?? '', r.skill).map((w, i) => (
                <span key={i} className={w.op === '+' ? 'add' : w.op === '-' ? 'del' : ''}>
                  {w.text}{' '}
                </span>
              ))
            ) : (
              <i>none</i>
            )}
          </div>
        </div>
      ))}
    </section>
  );
}
