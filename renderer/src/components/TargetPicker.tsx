/**
 * Pick what to play: a built-in game or any real window (live thumbnails), then how.
 * `TargetList` (the choice alone) is shared with the Record tab.
 */
import { useEffect, useState } from 'react';
import { ProfilePanel } from './ProfilePanel.tsx';
import type {
  ApiClient,
  GameSummary,
  KeepFrames,
  ProfileSummary,
  ReflectionMode,
  ReflectVideo,
  StartRun,
  WindowSummary,
  WindowThumbnail,
} from '../../../electron/api/contract.ts';
import { AmountInput, CountInput, OptionalAmountInput, OptionalCountInput } from './CountInput.tsx';
import { SeatPicker, seatSpecOf, type SeatForm } from './SeatPicker.tsx';
import { Checkbox } from './Checkbox.tsx';

export type TargetChoice = { kind: 'game'; game: GameSummary } | { kind: 'window'; window: WindowSummary };

/** The contract's target parameter for a choice. */
export const targetParam = (c: TargetChoice) => (c.kind === 'game' ? { game: c.game.id } : { windowId: c.window.id });
export const targetLabel = (c: TargetChoice) =>
  c.kind === 'game' ? c.game.title : c.window.title || '(untitled window)';

/** Why a window has no picture: the capture would show something else, or nothing. */
function thumbNote(t: WindowThumbnail): string | undefined {
  if (t.minimized) return 'minimized · a run restores it';
  if (t.offScreen) return 'off the screen';
  if (t.covered) return 'covered by another window';
  return undefined;
}

function Thumb({ thumb }: { thumb: WindowThumbnail | undefined }) {
  if (!thumb) return <div className="thumb-placeholder" />;
  const note = thumbNote(thumb);
  if (note || !thumb.dataUrl) {
    return (
      <div
        className="thumb-placeholder"
        data-testid="thumb-note"
        title={thumb.coveredBy?.length ? `under ${thumb.coveredBy.join(', ')}` : undefined}
      >
        <span className="muted">{note ?? 'no picture'}</span>
      </div>
    );
  }
  return (
    <img
      src={thumb.dataUrl}
      alt={thumb.clipped ? 'the part of the window on the screen' : ''}
      title={thumb.clipped ? 'partly off the screen: the on-screen part' : undefined}
    />
  );
}

/** Built-in games and every window on the desktop, refreshed every 3 s, one of them chosen. */
export function TargetList({
  client,
  choice,
  onChoose,
  onError,
  defaultGame,
  twoSeat = false,
}: {
  client: ApiClient;
  choice: TargetChoice | null;
  onChoose: (c: TargetChoice) => void;
  onError: (e: string) => void;
  /** Chosen once the list first loads, while nothing is chosen yet. */
  defaultGame?: string;
  /** Offer the two-seat games too (a run; not a recording). */
  twoSeat?: boolean;
}) {
  const [games, setGames] = useState<GameSummary[]>([]);
  const [windows, setWindows] = useState<WindowSummary[]>([]);
  const [thumbs, setThumbs] = useState<Record<string, WindowThumbnail>>({});

  // biome-ignore lint/correctness/useExhaustiveDependencies: one polling loop per client; `choice` only matters for the first load, and the callbacks are state setters
  useEffect(() => {
    let alive = true;
    let first = true;
    const refresh = async () => {
      try {
        const t = await client.request('listTargets');
        if (!alive) return;
        setGames(twoSeat ? t.games : t.games.filter((g) => !g.seats));
        setWindows(t.windows);
        const preset = first && defaultGame && !choice ? t.games.find((g) => g.id === defaultGame) : undefined;
        if (preset) onChoose({ kind: 'game', game: preset });
        first = false;
        for (const w of t.windows.slice(0, 12)) {
          client.request('thumbnail', { windowId: w.id, maxSide: 200 }).then(
            (th) => alive && setThumbs((m) => ({ ...m, [w.id]: th })),
            () => {},
          );
        }
      } catch (e) {
        onError((e as Error).message);
      }
    };
    refresh();
    const timer = setInterval(refresh, 3000);
    return () => {
      alive = false;
      clearInterval(timer);
    };
  }, [client]);

  const selected = (c: TargetChoice) =>
    choice?.kind === c.kind &&
    (c.kind === 'game'
      ? choice.kind === 'game' && choice.game.id === c.game.id
      : choice.kind === 'window' && choice.window.id === c.window.id);

  return (
    <>
      <h2>Built-in games</h2>
      <div className="cards">
        {games.map((g) => (
          <button
            type="button"
            key={g.id}
            className={`card ${selected({ kind: 'game', game: g }) ? 'selected' : ''}`}
            onClick={() => onChoose({ kind: 'game', game: g })}
            data-testid={`game-${g.id}`}
            aria-pressed={selected({ kind: 'game', game: g })}
          >
            <div className="card-title">{g.title}</div>
            <div className="card-meta">
              {g.seats ? `two seats (${g.seats.mode === 'pvp' ? 'PvP' : 'co-op'}): ${g.seats.names.join(', ')} · ` : ''}
              {g.viewSize.width}×{g.viewSize.height} · max {g.maxSteps} steps · opens its own window
            </div>
          </button>
        ))}
      </div>
      <h2>Windows on this desktop</h2>
      {windows.length === 0 && <p className="muted">No other windows found. Start a game, it will show up here.</p>}
      <div className="cards">
        {windows.map((w) => (
          <button
            type="button"
            key={w.id}
            className={`card window ${selected({ kind: 'window', window: w }) ? 'selected' : ''}`}
            onClick={() => onChoose({ kind: 'window', window: w })}
            data-testid="window-card"
            aria-pressed={selected({ kind: 'window', window: w })}
          >
            <Thumb thumb={thumbs[w.id]} />
            <div className="card-title">{w.title || '(untitled)'}</div>
            <div className="card-meta">
              {w.bounds.width}×{w.bounds.height} at {w.bounds.x},{w.bounds.y} · scale {w.scaleFactor} · pid {w.pid}
              {w.minimized ? ' · minimized' : ''}
              {thumbs[w.id]?.clipped ? ' · partly off the screen' : ''}
            </div>
          </button>
        ))}
      </div>
    </>
  );
}

export function TargetPicker({
  client,
  modelConfigured,
  busy,
  onStarted,
  onError,
}: {
  client: ApiClient;
  modelConfigured: boolean;
  busy: boolean;
  onStarted: () => void;
  onError: (e: string) => void;
}) {
  const [choice, setChoice] = useState<TargetChoice | null>(null);
  const [agent, setAgent] = useState<StartRun['agent']>(modelConfigured ? 'vlm' : 'solver');
  const [space, setSpace] = useState<StartRun['actionSpace']>('gui');
  const [episodes, setEpisodes] = useState(1);
  const [maxSteps, setMaxSteps] = useState<number | ''>('');
  const [paceMs, setPaceMs] = useState(0);
  const [takeOverOnInput, setTakeOverOnInput] = useState(false);
  const [acceptAnticheatRisk, setAcceptAnticheatRisk] = useState(false);
  const [keepFrames, setKeepFrames] = useState<KeepFrames>('all');
  const [maxRunMb, setMaxRunMb] = useState<number | ''>('');
  const [budgetUsd, setBudgetUsd] = useState<number | ''>('');
  const [latency, setLatency] = useState<StartRun['latency']>('normal');
  const [reflection, setReflection] = useState<ReflectionMode>('none');
  const [tutorial, setTutorial] = useState('');
  const [reflectorModel, setReflectorModel] = useState('');
  const [review, setReview] = useState(false);
  /** '': as the reflector model takes it (video for the models known to, else frames; run-spec's default). */
  const [reflectVideo, setReflectVideo] = useState<ReflectVideo | ''>('');
  const [memoryScope, setMemoryScope] = useState('');
  const [embeddingModel, setEmbeddingModel] = useState('');
  const [profile, setProfile] = useState<ProfileSummary | null>(null);
  const seatNames = choice?.kind === 'game' ? choice.game.seats?.names : undefined;
  const [seats, setSeats] = useState<[SeatForm, SeatForm]>(() =>
    modelConfigured
      ? [
          { agent: 'vlm', model: '' },
          { agent: 'vlm', model: '' },
        ]
      : [
          { agent: 'solver', model: '' },
          { agent: 'random', model: '' },
        ],
  );
  const [settingsModel, setSettingsModel] = useState('');
  useEffect(() => {
    if (seatNames && modelConfigured)
      client.request('getSettings').then(
        (r) => setSettingsModel(r.settings.model),
        () => {},
      );
  }, [client, seatNames, modelConfigured]);
  const modelAgent = !seatNames && (agent === 'vlm' || agent === 'memory');
  /** Takes the chosen profile's trials and latency into the form (a person's own entries are never overwritten unasked). */
  const adoptProfile = () => {
    if (!profile) return;
    setEpisodes(profile.edit.trials);
    setLatency(profile.edit.latency);
    if (modelConfigured) setAgent(profile.agent === 'memory' ? 'memory' : 'vlm');
  };

  const start = async () => {
    if (!choice) return;
    try {
      await client.request('startRun', {
        target: targetParam(choice),
        ...(seatNames
          ? { seats: seats.map((s) => seatSpecOf(s, settingsModel)) }
          : { agent, profile: profile?.id ?? null }),
        actionSpace: choice.kind === 'window' ? 'gui' : space,
        latency,
        episodes,
        ...(!seatNames && agent === 'memory'
          ? { ...(memoryScope ? { memoryScope } : {}), ...(embeddingModel ? { embeddingModel } : {}) }
          : {}),
        ...(modelAgent && reflection !== 'none'
          ? {
              reflection,
              review,
              ...(reflectVideo ? { reflectVideo } : {}),
              ...(tutorial ? { tutorial } : {}),
              ...(reflection === 'other' && reflectorModel ? { reflectorModel } : {}),
            }
          : {}),
        ...(maxSteps ? { maxSteps } : {}),
        paceMs,
        ...(seatNames ? {} : { takeOverOnInput }),
        ...(choice.kind === 'window' && acceptAnticheatRisk ? { acceptAnticheatRisk } : {}),
        keepFrames,
        ...(maxRunMb ? { maxRunMb } : {}),
        ...(budgetUsd ? { budgetUsd } : {}),
        seed: Math.floor(Math.random() * 1e6),
      });
      onStarted();
    } catch (e) {
      onError((e as Error).message);
    }
  };

  return (
    <section className="picker" aria-label="choose a target">
      <TargetList client={client} choice={choice} onChoose={setChoice} onError={onError} twoSeat />
      <ProfilePanel
        client={client}
        target={choice ? targetParam(choice) : null}
        onSelect={setProfile}
        onError={onError}
      />
      <fieldset className="start-form" aria-label="run options">
        {seatNames?.map((name, i) => (
          <SeatPicker
            key={name}
            seat={i}
            name={name}
            value={seats[i]!}
            onChange={(s) => setSeats((was) => (i === 0 ? [s, was[1]] : [was[0], s]))}
            modelConfigured={modelConfigured}
            settingsModel={settingsModel}
          />
        ))}
        <label hidden={!!seatNames}>
          Agent
          <select
            value={agent}
            onChange={(e) => setAgent(e.target.value as StartRun['agent'])}
            data-testid="agent-select"
          >
            <option value="vlm" disabled={!modelConfigured}>
              model{modelConfigured ? '' : ' (configure in Settings)'}
            </option>
            <option value="memory" disabled={!modelConfigured}>
              model with memory (story titles)
            </option>
            <option value="solver">solver baseline</option>
            <option value="random">random baseline</option>
          </select>
        </label>
        <label>
          Actions
          <select
            value={space}
            onChange={(e) => setSpace(e.target.value as StartRun['actionSpace'])}
            disabled={choice?.kind === 'window'}
          >
            <option value="gui">GUI (mouse, keys)</option>
            <option value="semantic">semantic (game moves)</option>
          </select>
        </label>
        <label>
          World clock
          <select
            value={latency}
            onChange={(e) => setLatency(e.target.value as StartRun['latency'])}
            data-testid="latency-select"
          >
            <option value="normal">normal (never waits)</option>
            <option value="stop">stop (frozen while thinking)</option>
            <option value="slow">slow (frozen buffer)</option>
            <option value="lcrt">lcrt (charged compute time)</option>
          </select>
        </label>
        <label>
          Reflection
          <select
            value={reflection}
            onChange={(e) => setReflection(e.target.value as typeof reflection)}
            disabled={!modelAgent}
            data-testid="reflection-select"
          >
            <option value="none">off</option>
            <option value="self-f">own failure</option>
            <option value="self-t">tutorial</option>
            <option value="self">failure + tutorial</option>
            <option value="other">another model</option>
          </select>
        </label>
        {!seatNames && agent === 'memory' && (
          <>
            <label>
              Memory scope (default: the game's id){' '}
              <input
                value={memoryScope}
                onChange={(e) => setMemoryScope(e.target.value.trim())}
                placeholder="e.g. ace-attorney.p07"
                data-testid="memory-scope"
              />
            </label>
            <label>
              Embedding model (none: lexical){' '}
              <input
                value={embeddingModel}
                onChange={(e) => setEmbeddingModel(e.target.value.trim())}
                placeholder="text-embedding-3-small"
                data-testid="embedding-model"
              />
            </label>
          </>
        )}
        {reflection !== 'none' && modelAgent && (
          <>
            <label>
              Tutorial (solver, or a run or session id from Runs){' '}
              <input
                value={tutorial}
                onChange={(e) => setTutorial(e.target.value.trim())}
                placeholder="solver, or a run id"
              />
            </label>
            {reflection === 'other' && (
              <label>
                Reflector model (not the player's){' '}
                <input
                  value={reflectorModel}
                  onChange={(e) => setReflectorModel(e.target.value.trim())}
                  placeholder="another model at the same endpoint"
                  data-testid="reflector-model"
                />
              </label>
            )}
            <label>
              Reflector input{' '}
              <select
                value={reflectVideo}
                onChange={(e) => setReflectVideo(e.target.value as ReflectVideo | '')}
                data-testid="reflect-video"
              >
                <option value="">as the reflector model takes it (video for Qwen-VL, Gemini)</option>
                <option value="off">frames</option>
                <option value="auto">video where the provider takes it, else frames</option>
                <option value="on">video (video_url)</option>
              </select>
            </label>
            <Checkbox checked={review} onChange={setReview} testId="review-select">
              review lessons
            </Checkbox>
          </>
        )}
        <CountInput label="Episodes" value={episodes} onChange={setEpisodes} />
        <OptionalCountInput
          label="Max steps"
          value={maxSteps}
          onChange={setMaxSteps}
          placeholder={profile ? `profile: ${profile.edit.maxSteps}` : 'game default'}
        />
        <AmountInput label="Pace (ms/step)" min={0} step={100} value={paceMs} onChange={setPaceMs} />
        {!seatNames && (
          <Checkbox
            checked={takeOverOnInput}
            onChange={setTakeOverOnInput}
            testId="take-over-on-input"
            className=""
            title="Your key or pointer input in the game window takes the controls from the agent; the take-over hotkey or Hand back gives them back"
          >
            take over on input
          </Checkbox>
        )}
        {choice?.kind === 'window' && (
          <Checkbox
            checked={acceptAnticheatRisk}
            onChange={setAcceptAnticheatRisk}
            testId="accept-anticheat-risk"
            className=""
            title="Anti-cheat systems (Easy Anti-Cheat, BattlEye, Vanguard, …) treat injected input as cheating and may ban the account that plays. Gamepilot refuses a window where one runs unless you accept that risk."
          >
            I accept the anti-cheat risk (the account may be banned)
          </Checkbox>
        )}
        <label>
          Keep frames
          <select
            value={keepFrames}
            onChange={(e) => setKeepFrames(e.target.value as KeepFrames)}
            data-testid="keep-frames"
          >
            <option value="all">all</option>
            <option value="changed">only when the screen changed</option>
            <option value="every:5">every 5th step</option>
            <option value="every:10">every 10th step</option>
            <option value="none">none (no replay pictures)</option>
          </select>
        </label>
        <OptionalCountInput
          label="Max run size (MB)"
          value={maxRunMb}
          onChange={setMaxRunMb}
          placeholder="no limit"
          testId="max-run-mb"
        />
        <OptionalAmountInput
          label="Cost cap (USD)"
          step={0.01}
          value={budgetUsd}
          onChange={setBudgetUsd}
          placeholder="no cap"
          testId="budget-usd"
        />
        {profile && (
          <button type="button" onClick={adoptProfile} data-testid="profile-adopt">
            Use the profile's {profile.edit.trials} trial{profile.edit.trials === 1 ? '' : 's'}, {profile.edit.latency}{' '}
            latency{modelConfigured ? ` and ${profile.agent} agent` : ''}
          </button>
        )}
        <button type="button" className="primary" disabled={!choice || busy} onClick={start} data-testid="start">
          ▶ Start
        </button>
        {busy && <span className="muted">A run is going; stop it first.</span>}
      </fieldset>
    </section>
  );
}
