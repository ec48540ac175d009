/**
 * Human baselines, walked through step by step. Rookie: read the prompt the agent gets → play →
 * watch the tutorial → play again. Expert: read the prompt → play. Recording runs only while
 * the red indicator shows; the stop hotkey ends it; only the game window is captured.
 */
import { useEffect, useState } from 'react';
import type { ApiClient, CoreState, GameSummary, RecordingResult } from '../../../electron/api/contract.ts';
import { Replay } from './RunsView.tsx';

type Role = 'rookie' | 'expert';
type Stage = { kind: 'read' } | { kind: 'play'; round: number } | { kind: 'tutorial' } | { kind: 'done' };

const PLAN: Record<Role, Stage[]> = {
  rookie: [{ kind: 'read' }, { kind: 'play', round: 1 }, { kind: 'tutorial' }, { kind: 'play', round: 2 }, { kind: 'done' }],
  expert: [{ kind: 'read' }, { kind: 'play', round: 1 }, { kind: 'done' }],
};
const LABEL = (s: Stage) => (s.kind === 'read' ? 'Read the prompt' : s.kind === 'play' ? (s.round === 1 ? 'Play' : 'Play again') : s.kind === 'tutorial' ? 'Watch the tutorial' : 'Done');

export function RecordView({ client, core, recorded, onError }: { client: ApiClient; core: CoreState | null; recorded: RecordingResult[]; onError: (e: string) => void }) {
  const [games, setGames] = useState<GameSummary[]>([]);
  const [game, setGame] = useState('2048');
  const [participant, setParticipant] = useState('');
  const [role, setRole] = useState<Role>('rookie');
  const [consent, setConsent] = useState(false);
  const [trials, setTrials] = useState(1);
  const [begun, setBegun] = useState(false);
  const [stageIndex, setStageIndex] = useState(0);
  const [trial, setTrial] = useState(1);
  const [prompt, setPrompt] = useState('');
  const [tutorial, setTutorial] = useState<string | null | undefined>(undefined);
  const [mine, setMine] = useState<RecordingResult[]>([]);
  const [trialRecorded, setTrialRecorded] = useState(false);
  const rec = core?.recording ?? null;

  useEffect(() => {
    client.request('listTargets').then((t) => setGames(t.games), () => {});
  }, [client]);
  useEffect(() => {
    client.request('gamePrompt', { game }).then((p) => {
      setPrompt(p.prompt);
      setTrials(p.trials);
    }, () => {});
  }, [client, game]);
  // A recording that just finished belongs to this protocol run.
  useEffect(() => {
    const last = recorded.at(-1);
    if (begun && last && !mine.some((m) => m.id === last.id)) {
      setMine((m) => [...m, last]);
      setTrialRecorded(true);
    }
  }, [recorded]);

  const stage = PLAN[role][stageIndex]!;
  const next = () => {
    setStageIndex((i) => Math.min(i + 1, PLAN[role].length - 1));
    setTrial(1);
    setTrialRecorded(false);
  };
  useEffect(() => {
    if (begun && stage.kind === 'tutorial') client.request('findTutorial', { game }).then((t) => setTutorial(t.id), () => setTutorial(null));
  }, [begun, stage.kind]);

  const record = async () => {
    try {
      await client.request('startRecording', { target: { game }, role, participant, consent: true, trial, stage: stage.kind === 'play' ? `play-${stage.round}` : 'play' });
    } catch (e) {
      onError((e as Error).message);
    }
  };
  const stopRec = () => client.request('stopRecording').catch((e: Error) => onError(e.message));

  if (!begun) {
    const valid = /^[\w.-]{1,64}$/.test(participant) && consent;
    return (
      <section className="record" aria-label="record a human baseline">
        <h2>Record a human baseline</h2>
        <div className="form">
          <label>Participant (pseudonym) <input value={participant} onChange={(e) => setParticipant(e.target.value)} placeholder="e.g. p07" data-testid="participant" /></label>
          <label>Role
            <select value={role} onChange={(e) => setRole(e.target.value as Role)} data-testid="role">
              <option value="rookie">rookie — play, watch the tutorial, play again</option>
              <option value="expert">expert — play once</option>
            </select>
          </label>
          <label>Game
            <select value={game} onChange={(e) => setGame(e.target.value)} data-testid="record-game">
              {games.map((g) => <option key={g.id} value={g.id}>{g.title}</option>)}
            </select>
          </label>
          <label>Trials per round <input type="number" min={1} value={trials} onChange={(e) => setTrials(Math.max(1, Number(e.target.value) || 1))} data-testid="trials" /></label>
        </div>
        <label className="consent">
          <input type="checkbox" checked={consent} onChange={(e) => setConsent(e.target.checked)} data-testid="consent" />
          The participant agrees to be recorded: frames of the game window and the keys and clicks made inside it, stored under the pseudonym only. Nothing outside the game window is captured.
        </label>
        <div className="form-actions"><button className="primary" disabled={!valid} onClick={() => setBegun(true)} data-testid="begin">Begin</button></div>
      </section>
    );
  }

  return (
    <section className="record" aria-label="recording protocol">
      <ol className="stages">
        {PLAN[role].map((s, i) => <li key={i} className={i === stageIndex ? 'current' : i < stageIndex ? 'past' : ''}>{LABEL(s)}</li>)}
      </ol>
      {rec && <div className="rec-indicator" role="status" data-testid="rec-indicator">● REC {rec.seconds.toFixed(1)} s · {rec.frames} frames · {rec.fps} fps · {rec.dropped} dropped · {rec.events} inputs</div>}
      {stage.kind === 'read' && (
        <>
          <h3>This is what the AI agent is told about the game</h3>
          <pre className="reasoning prompt" data-testid="prompt">{prompt}</pre>
          <button className="primary" onClick={next} data-testid="read-done">I have read it</button>
        </>
      )}
      {stage.kind === 'play' && (
        <>
          <h3>{LABEL(stage)} — trial {trial} of {trials}</h3>
          <p className="muted">The game opens in its own window. Play with the keyboard and mouse as usual; recording stops when the game ends or you press Stop ({core?.stopHotkey}).</p>
          {rec ? <button className="stop" onClick={stopRec} data-testid="stop-recording">■ Stop recording</button> : (
            <div className="form-actions">
              <button className="primary" onClick={record} disabled={core?.status !== 'idle'} data-testid="start-recording">● Start recording</button>
              {trialRecorded && (trial < trials
                ? <button onClick={() => { setTrial((t) => t + 1); setTrialRecorded(false); }} data-testid="next-trial">Next trial</button>
                : <button onClick={next} data-testid="play-done">Continue</button>)}
            </div>
          )}
        </>
      )}
      {stage.kind === 'tutorial' && (
        <>
          <h3>Watch how an expert plays</h3>
          {tutorial === undefined && <p className="muted">Looking for a tutorial…</p>}
          {tutorial === null && <p className="muted" data-testid="no-tutorial">No expert session of this game is recorded yet. Record one with the expert role; it becomes the tutorial here.</p>}
          {tutorial && <Replay client={client} id={tutorial} onClose={next} closeLabel="Done watching" />}
          <button className="primary" onClick={next} data-testid="tutorial-done">Continue</button>
        </>
      )}
      {stage.kind === 'done' && <p data-testid="protocol-done">All stages recorded. The sessions are in Runs, beside the agent runs.</p>}
      {mine.length > 0 && (
        <table className="episodes" data-testid="recorded-sessions">
          <tbody>
            {mine.map((m) => <tr key={m.id}><td>{m.id}</td><td>score {m.score ?? 'n/a'}</td><td>{m.frames} frames · {m.fps} fps · {m.dropped} dropped</td><td>{m.events} inputs · {m.duration_s} s</td></tr>)}
          </tbody>
        </table>
      )}
    </section>
  );
}
