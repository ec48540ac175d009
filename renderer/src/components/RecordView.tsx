/**
 * Human baselines, walked through step by step. Rookie: read the prompt the agent gets → play →
 * watch the tutorial → play again. Expert: read the prompt → play. Any target the New run tab
 * offers can be recorded: a built-in game or a window on the desktop (the same picker).
 * Recording runs only while the red indicator shows; the stop hotkey ends it; only the chosen
 * window is captured.
 */
import { useEffect, useState } from 'react';
import {
  UNPROFILED_PREFIX,
  type ApiClient,
  type CoreState,
  type RecordingResult,
  type Role,
} from '../../../electron/api/contract.ts';
import { Replay } from './RunsView.tsx';
import { TargetList, targetLabel, targetParam, type TargetChoice } from './TargetPicker.tsx';
import { CountInput } from './CountInput.tsx';
import { TutorialVideo } from './TutorialVideo.tsx';

type Stage = { kind: 'read' } | { kind: 'play'; round: number } | { kind: 'tutorial' } | { kind: 'done' };

const PLAN: Record<Role, Stage[]> = {
  rookie: [
    { kind: 'read' },
    { kind: 'play', round: 1 },
    { kind: 'tutorial' },
    { kind: 'play', round: 2 },
    { kind: 'done' },
  ],
  expert: [{ kind: 'read' }, { kind: 'play', round: 1 }, { kind: 'done' }],
};
const LABEL = (s: Stage) =>
  s.kind === 'read'
    ? 'Read the prompt'
    : s.kind === 'play'
      ? s.round === 1
        ? 'Play'
        : 'Play again'
      : s.kind === 'tutorial'
        ? 'Watch the tutorial'
        : 'Done';

export function RecordView({
  client,
  core,
  recorded,
  onError,
}: {
  client: ApiClient;
  core: CoreState | null;
  recorded: RecordingResult[];
  onError: (e: string) => void;
}) {
  const [choice, setChoice] = useState<TargetChoice | null>(null);
  const game = choice?.kind === 'game' ? choice.game.id : null;
  const [participant, setParticipant] = useState('');
  const [role, setRole] = useState<Role>('rookie');
  const [consent, setConsent] = useState(false);
  const [trials, setTrials] = useState(1);
  const [begun, setBegun] = useState(false);
  const [stageIndex, setStageIndex] = useState(0);
  const [trial, setTrial] = useState(1);
  /** The agent's prompt for a built-in game; null for a window (no built-in rules to show). */
  const [prompt, setPrompt] = useState<string | null>('');
  /** The run or session shown as the tutorial (undefined: still looking; null: none of this title). */
  const [tutorial, setTutorial] = useState<string | null | undefined>(undefined);
  const [tutorialChoices, setTutorialChoices] = useState<
    { id: string; kind: 'video' | 'run'; agent: string; created: string }[]
  >([]);
  /** Where this title's tutorial videos go in the runs folder, for the hint when there is none. */
  const [tutorialFolder, setTutorialFolder] = useState('');
  const [mine, setMine] = useState<RecordingResult[]>([]);
  const [trialRecorded, setTrialRecorded] = useState(false);
  const rec = core?.recording ?? null;

  useEffect(() => {
    if (!game) {
      setPrompt(null);
      setTrials(1);
      return;
    }
    client.request('gamePrompt', { game }).then(
      (p) => {
        setPrompt(p.prompt);
        setTrials(p.trials);
      },
      () => {},
    );
  }, [client, game]);
  // A recording that just finished belongs to this protocol run.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when a recording arrives, not when Begin is pressed (that would adopt a recording made before)
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
  // The tutorial is found by title, as the tables key sessions: a built-in game by its id, a
  // window by the one profile that fits it, else by its window title (unprofiled).
  useEffect(() => {
    if (!begun || stage.kind !== 'tutorial' || !choice) return;
    const titleOf = async () => {
      if (choice.kind === 'game') return choice.game.id;
      const { candidates } = await client.request('matchProfile', { target: { windowId: choice.window.id } });
      return candidates.length === 1 ? candidates[0]!.id : `${UNPROFILED_PREFIX}${choice.window.title}`;
    };
    titleOf()
      .then((title) => client.request('findTutorial', { title }))
      .then(
        (t) => {
          setTutorialChoices(t.candidates);
          setTutorialFolder(t.folder);
          setTutorial(t.id ?? t.candidates[0]?.id ?? null);
        },
        () => setTutorial(null),
      );
  }, [client, begun, stage.kind, choice]);

  const record = async () => {
    if (!choice) return;
    try {
      await client.request('startRecording', {
        target: targetParam(choice),
        role,
        participant,
        consent: true,
        trial,
        stage: role === 'expert' ? 'play' : stage.kind === 'play' ? `play-${stage.round}` : 'tutorial',
        // The second play records which tutorial the rookie watched.
        ...(role === 'rookie' && stage.kind === 'play' && stage.round === 2 && tutorial ? { tutorial } : {}),
      });
    } catch (e) {
      onError((e as Error).message);
    }
  };
  const stopRec = () => client.request('stopRecording').catch((e: Error) => onError(e.message));

  if (!begun) {
    const valid = /^[\w.-]{1,64}$/.test(participant) && consent && !!choice;
    return (
      <section className="record" aria-label="record a human baseline">
        <h2>Record a human baseline</h2>
        <div className="form">
          <label>
            Participant (pseudonym){' '}
            <input
              value={participant}
              onChange={(e) => setParticipant(e.target.value)}
              placeholder="e.g. p07"
              data-testid="participant"
            />
          </label>
          <label>
            Role
            <select value={role} onChange={(e) => setRole(e.target.value as Role)} data-testid="role">
              <option value="rookie">rookie — play, watch the tutorial, play again</option>
              <option value="expert">expert — play once</option>
            </select>
          </label>
          <CountInput label="Trials per round" value={trials} onChange={setTrials} testId="trials" />
        </div>
        <section className="record-target" aria-label="what to record" data-testid="record-target">
          <TargetList client={client} choice={choice} onChoose={setChoice} onError={onError} defaultGame="2048" />
        </section>
        <label className="consent">
          <input
            type="checkbox"
            checked={consent}
            onChange={(e) => setConsent(e.target.checked)}
            data-testid="consent"
          />
          The participant agrees to be recorded: frames of the chosen window{choice ? ` (${targetLabel(choice)})` : ''}{' '}
          and the keys and clicks made inside it, stored under the pseudonym only. Nothing outside that window is
          captured.
        </label>
        <div className="form-actions">
          <button
            type="button"
            className="primary"
            disabled={!valid}
            onClick={() => setBegun(true)}
            data-testid="begin"
          >
            Begin
          </button>
        </div>
      </section>
    );
  }

  return (
    <section className="record" aria-label="recording protocol">
      <p className="muted" data-testid="recording-target">
        Recording: {choice ? targetLabel(choice) : ''}
      </p>
      <ol className="stages">
        {PLAN[role].map((s, i) => (
          <li key={LABEL(s)} className={i === stageIndex ? 'current' : i < stageIndex ? 'past' : ''}>
            {LABEL(s)}
          </li>
        ))}
      </ol>
      {rec && (
        <div className="rec-indicator" role="status" data-testid="rec-indicator">
          ● REC {rec.seconds.toFixed(1)} s · {rec.frames} frames · {rec.fps} fps · {rec.dropped} dropped · {rec.events}{' '}
          inputs
        </div>
      )}
      {stage.kind === 'read' && (
        <>
          <h3>This is what the AI agent is told about the game</h3>
          {prompt !== null ? (
            <pre className="reasoning prompt" data-testid="prompt">
              {prompt}
            </pre>
          ) : (
            <p className="muted" data-testid="prompt">
              This window is not a built-in game, so there are no built-in rules to show: tell the participant the goal
              and controls in the words the agent's prompt uses for it.
            </p>
          )}
          <button type="button" className="primary" onClick={next} data-testid="read-done">
            I have read it
          </button>
        </>
      )}
      {stage.kind === 'play' && (
        <>
          <h3>
            {LABEL(stage)} — trial {trial} of {trials}
          </h3>
          <p className="muted">
            {game ? 'The game opens in its own window.' : 'Play in the chosen window.'} Play with the keyboard and mouse
            as usual; recording stops when the game ends or you press Stop ({core?.stopHotkey}).
          </p>
          {rec ? (
            <button type="button" className="stop" onClick={stopRec} data-testid="stop-recording">
              ■ Stop recording
            </button>
          ) : (
            <div className="form-actions">
              <button
                type="button"
                className="primary"
                onClick={record}
                disabled={core?.status !== 'idle'}
                data-testid="start-recording"
              >
                ● Start recording
              </button>
              {trialRecorded &&
                (trial < trials ? (
                  <button
                    type="button"
                    onClick={() => {
                      setTrial((t) => t + 1);
                      setTrialRecorded(false);
                    }}
                    data-testid="next-trial"
                  >
                    Next trial
                  </button>
                ) : (
                  <button type="button" onClick={next} data-testid="play-done">
                    Continue
                  </button>
                ))}
            </div>
          )}
        </>
      )}
      {stage.kind === 'tutorial' && (
        <>
          <h3>Watch how an expert plays</h3>
          {tutorial === undefined && <p className="muted">Looking for a tutorial…</p>}
          {tutorial === null && (
            <p className="muted" data-testid="no-tutorial">
              No tutorial of this title yet. Put a walkthrough video (mp4, webm) in <code>{tutorialFolder}</code> of the
              runs folder — the video the agents' <code>--tutorial</code> reflects on — or record a session with the
              expert role; either becomes the tutorial here.
            </p>
          )}
          {tutorialChoices.length > 1 && (
            <label>
              Tutorial{' '}
              <select
                value={tutorial ?? ''}
                onChange={(e) => setTutorial(e.target.value)}
                data-testid="tutorial-choice"
                aria-label="tutorial"
              >
                {tutorialChoices.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.kind === 'video' ? `video ${c.id.split('/').at(-1)}` : c.agent} ·{' '}
                    {new Date(c.created).toLocaleString()}
                  </option>
                ))}
              </select>
            </label>
          )}
          {tutorial && tutorialChoices.find((c) => c.id === tutorial)?.kind === 'video' && (
            <TutorialVideo key={tutorial} client={client} id={tutorial} />
          )}
          {tutorial && tutorialChoices.find((c) => c.id === tutorial)?.kind === 'run' && (
            <Replay key={tutorial} client={client} id={tutorial} onClose={next} closeLabel="Done watching" />
          )}
          <button type="button" className="primary" onClick={next} data-testid="tutorial-done">
            Continue
          </button>
        </>
      )}
      {stage.kind === 'done' && (
        <p data-testid="protocol-done">All stages recorded. The sessions are in Runs, beside the agent runs.</p>
      )}
      {mine.length > 0 && (
        <table className="episodes" data-testid="recorded-sessions">
          <tbody>
            {mine.map((m) => (
              <tr key={m.id}>
                <td>{m.id}</td>
                <td>score {m.score ?? 'n/a'}</td>
                <td>
                  {m.frames} frames · {m.fps} fps · {m.dropped} dropped
                </td>
                <td>
                  {m.events} inputs · {m.duration_s} s
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
