/**
 * The New run tab's profile: which profile fits the chosen target (one, several to choose from,
 * or none), what it expects before a run, and a form to edit its main fields, its milestone
 * list, a screen score's region, and how an episode ends and the next game starts, in place — saved
 * as the user's own profile in the config folder — with its semantic actions, end detectors and
 * reset tried on the window.
 */
import { useEffect, useState } from 'react';
import type { ApiClient, LatencyMode, ProfileEdit, ProfileSummary } from '../../../electron/api/contract.ts';
import { MilestoneEditor } from './MilestoneEditor.tsx';
import { CountInput } from './CountInput.tsx';
import { RegionPicker, useWindowThumbnail } from './RegionPicker.tsx';
import { EndDetectorEditor } from './EndDetectorEditor.tsx';
import { ResetEditor } from './ResetEditor.tsx';
import { SemanticLayout } from './SemanticLayout.tsx';

type Target = { game: string } | { windowId: string };

/** `selected`: the id to follow, null for none; undefined while nothing is known yet. */
export function ProfilePanel({
  client,
  target,
  onSelect,
  onError,
}: {
  client: ApiClient;
  target: Target | null;
  onSelect: (p: ProfileSummary | null) => void;
  onError: (e: string) => void;
}) {
  const [candidates, setCandidates] = useState<ProfileSummary[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const key = target ? JSON.stringify(target) : '';

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for the target
  useEffect(() => {
    setCandidates([]);
    setSelected(null);
    setEditing(false);
    onSelect(null);
    if (!target) return;
    let live = true;
    client.request('matchProfile', { target }).then(
      (r) => {
        if (!live) return;
        setCandidates(r.candidates);
        // One that fits is used; several are for the person to choose between.
        if (r.candidates.length === 1) {
          setSelected(r.candidates[0]!.id);
          onSelect(r.candidates[0]!);
        }
      },
      (e: Error) => live && onError(e.message),
    );
    return () => {
      live = false;
    };
  }, [key]);

  if (!target) return null;
  const current = candidates.find((c) => c.id === selected) ?? null;
  const choose = (id: string | null) => {
    setSelected(id);
    setEditing(false);
    onSelect(candidates.find((c) => c.id === id) ?? null);
  };
  const saved = (p: ProfileSummary) => {
    setCandidates((cs) => cs.map((c) => (c.id === p.id ? p : c)));
    setEditing(false);
    onSelect(p);
  };

  return (
    <fieldset className="profile-panel" aria-label="game profile" data-testid="profile-panel">
      <legend>Profile</legend>
      {candidates.length === 0 && (
        <p className="muted" data-testid="profile-none">
          No profile fits this target: the model gets a generic prompt and no title limits. (`gamepilot profile new`
          writes a starter.)
        </p>
      )}
      {candidates.length > 1 && (
        <div role="radiogroup" aria-label="profiles that fit" data-testid="profile-choice">
          <p>{candidates.length} profiles fit this window — choose one:</p>
          {candidates.map((c) => (
            <label key={c.id} className="inline">
              <input type="radio" name="profile" checked={selected === c.id} onChange={() => choose(c.id)} /> {c.title}{' '}
              <span className="muted">
                ({c.id}, {c.source})
              </span>
            </label>
          ))}
          <label className="inline">
            <input type="radio" name="profile" checked={selected === null} onChange={() => choose(null)} /> none
          </label>
        </div>
      )}
      {current && (
        <div data-testid="profile-current">
          <p>
            <strong>{current.title}</strong>{' '}
            <span className="muted">
              {current.category} · {current.tier} · scoring {current.scoring} · {current.agent} agent · {current.source}
              : {current.file}
            </span>
          </p>
          {current.setup && (
            <p data-testid="profile-setup">
              Before you start: {current.setup.start}
              {current.setup.display ? `; ${current.setup.display}` : ''}
              {current.setup.resolution ? `; ${current.setup.resolution}` : ''}
            </p>
          )}
          {!editing && (
            <button type="button" onClick={() => setEditing(true)} data-testid="profile-edit">
              Edit profile
            </button>
          )}
          {editing && (
            <ProfileForm
              client={client}
              profile={current}
              windowId={'windowId' in target ? target.windowId : undefined}
              onSaved={saved}
              onCancel={() => setEditing(false)}
              onError={onError}
            />
          )}
        </div>
      )}
    </fieldset>
  );
}

function ProfileForm({
  client,
  profile,
  windowId,
  onSaved,
  onCancel,
  onError,
}: {
  client: ApiClient;
  profile: ProfileSummary;
  /** The target window, whose thumbnail a screen score's region is drawn on. */
  windowId: string | undefined;
  onSaved: (p: ProfileSummary) => void;
  onCancel: () => void;
  onError: (e: string) => void;
}) {
  const [edit, setEdit] = useState<ProfileEdit>(profile.edit);
  const [keys, setKeys] = useState(profile.edit.allowedKeys.join(', '));
  const thumb = useWindowThumbnail(client, windowId);
  const episode = edit.episodeEnd ?? { end: [], reset: null, startWithReset: false };
  const set = <K extends keyof ProfileEdit>(k: K, v: ProfileEdit[K]) => setEdit((e) => ({ ...e, [k]: v }));
  const save = async () => {
    try {
      const allowedKeys = keys
        .split(',')
        .map((k) => k.trim())
        .filter(Boolean);
      // A title scored `none` keeps no empty list: it becomes milestone-scored with its first milestone.
      const { milestones, ...rest } = edit;
      const keep = milestones && (milestones.items.length > 0 || profile.scoring === 'milestones');
      const r = await client.request('saveProfile', {
        id: profile.id,
        edit: { ...rest, allowedKeys, ...(keep ? { milestones } : {}) },
      });
      onSaved(r.profile);
    } catch (e) {
      onError((e as Error).message);
    }
  };
  const text = (k: 'rules' | 'screen' | 'controls', label: string) => (
    <label>
      {label}
      <textarea rows={4} value={edit[k]} onChange={(e) => set(k, e.target.value)} data-testid={`profile-${k}`} />
    </label>
  );
  return (
    <div className="profile-form" data-testid="profile-form">
      {text('rules', 'Rules (goal, how it is won or lost)')}
      {text('screen', 'Screen (where things are)')}
      {text('controls', 'Controls (keys and mouse)')}
      <label>
        Allowed keys (comma-separated; empty: any)
        <input value={keys} onChange={(e) => setKeys(e.target.value)} data-testid="profile-keys" />
      </label>
      <CountInput
        label="Max steps"
        value={edit.maxSteps}
        onChange={(n) => set('maxSteps', n)}
        testId="profile-max-steps"
      />
      <CountInput label="Trials" value={edit.trials} onChange={(n) => set('trials', n)} />
      <label>
        Latency{' '}
        <select value={edit.latency} onChange={(e) => set('latency', e.target.value as LatencyMode)}>
          {['normal', 'stop', 'slow', 'lcrt'].map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
      </label>
      <label>
        Freeze{' '}
        <select value={edit.freeze} onChange={(e) => set('freeze', e.target.value as ProfileEdit['freeze'])}>
          {['process', 'pause-key', 'none', 'engine'].map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
      </label>
      {edit.freeze === 'pause-key' && (
        <label>
          Pause key <input value={edit.pauseKey} onChange={(e) => set('pauseKey', e.target.value.trim())} />
        </label>
      )}
      {edit.screenScore && (
        <RegionPicker
          client={client}
          windowId={windowId}
          value={edit.screenScore}
          onChange={(v) => set('screenScore', v)}
        />
      )}
      {profile.semantic && (
        <SemanticLayout client={client} profileId={profile.id} windowId={windowId} layout={profile.semantic} />
      )}
      {(profile.scoring === 'milestones' || profile.scoring === 'none') && (
        <MilestoneEditor
          client={client}
          profileId={profile.id}
          value={edit.milestones}
          onChange={(m) => set('milestones', m)}
        />
      )}
      <EndDetectorEditor
        client={client}
        profileId={profile.id}
        windowId={windowId}
        thumb={thumb}
        value={episode.end}
        onChange={(end) => set('episodeEnd', { ...episode, end })}
      />
      <ResetEditor
        client={client}
        profileId={profile.id}
        windowId={windowId}
        thumb={thumb}
        value={episode}
        end={episode.end}
        onChange={(v) => set('episodeEnd', v)}
      />
      <button type="button" className="primary" onClick={save} data-testid="profile-save">
        Save as my profile
      </button>{' '}
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
