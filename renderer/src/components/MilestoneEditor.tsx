/**
 * The milestone list of a profile, edited in the profile form: rename, describe, reorder,
 * delete, add — each milestone shown with its evidence frame when extraction saved one. The
 * list is saved with the rest of the form (saveProfile), where the core checks it whole.
 */
import { useEffect, useState } from 'react';
import type { ApiClient, MilestoneEditItem, MilestonesEdit } from '../../../electron/api/contract.ts';
import { Checkbox } from './Checkbox.tsx';

export function MilestoneEditor({
  client,
  profileId,
  value,
  onChange,
}: {
  client: ApiClient;
  profileId: string;
  /** Undefined: the profile has no list yet (scored `none`); adding the first milestone starts one. */
  value: MilestonesEdit | undefined;
  onChange: (v: MilestonesEdit) => void;
}) {
  const items = value?.items ?? [];
  const levels = [...new Set(items.flatMap((m) => (m.level ? [m.level] : [])))];
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [level, setLevel] = useState(levels.at(-1) ?? '');
  const set = (next: MilestoneEditItem[]) => onChange({ linear: value?.linear ?? true, items: next });
  const patch = (i: number, p: Partial<MilestoneEditItem>) => set(items.map((m, k) => (k === i ? { ...m, ...p } : m)));
  const move = (i: number, by: number) => {
    const j = i + by;
    if (j < 0 || j >= items.length) return;
    const next = [...items];
    [next[i], next[j]] = [next[j]!, next[i]!];
    set(next);
  };
  const add = () => {
    set([...items, { name, description, ...(levels.length ? { level: level || levels[0]! } : {}) }]);
    setName('');
    setDescription('');
  };
  return (
    <fieldset className="milestone-editor" aria-label="milestones" data-testid="ms-editor">
      <legend>Milestones {items.length ? `(${items.length})` : ''}</legend>
      <Checkbox checked={value?.linear ?? true} onChange={(linear) => onChange({ linear, items })} testId="ms-linear">
        reached in this order (a linear title)
      </Checkbox>
      <ol>
        {items.map((m, i) => (
          <li key={i} data-testid="ms-item">
            <div className="ms-row">
              {m.evidence ? (
                <EvidenceFrame client={client} profileId={profileId} evidence={m.evidence} />
              ) : (
                <span className="ms-no-evidence muted">no frame</span>
              )}
              <div className="ms-fields">
                <input
                  value={m.name}
                  onChange={(e) => patch(i, { name: e.target.value })}
                  aria-label={`milestone ${i + 1} name`}
                  data-testid="ms-name"
                />
                <textarea
                  rows={2}
                  value={m.description}
                  onChange={(e) => patch(i, { description: e.target.value })}
                  aria-label={`milestone ${i + 1} description`}
                  placeholder="what a single frame shows when it is reached"
                  data-testid="ms-description"
                />
                <small className="muted">
                  {m.level ? `${m.level}` : ''}
                  {m.t !== undefined ? `${m.level ? ' · ' : ''}at ${m.t} s in the walkthrough` : ''}
                </small>
              </div>
              <div className="ms-buttons">
                <button
                  type="button"
                  onClick={() => move(i, -1)}
                  disabled={i === 0}
                  aria-label="move up"
                  data-testid="ms-up"
                >
                  ↑
                </button>
                <button
                  type="button"
                  onClick={() => move(i, 1)}
                  disabled={i === items.length - 1}
                  aria-label="move down"
                  data-testid="ms-down"
                >
                  ↓
                </button>
                <button
                  type="button"
                  onClick={() => set(items.filter((_, k) => k !== i))}
                  aria-label="delete"
                  data-testid="ms-delete"
                >
                  ✕
                </button>
              </div>
            </div>
          </li>
        ))}
      </ol>
      <div className="ms-add">
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="new milestone"
          aria-label="new milestone name"
          data-testid="ms-add-name"
        />
        <input
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          placeholder="what a frame shows when it is reached"
          aria-label="new milestone description"
          data-testid="ms-add-description"
        />
        {levels.length > 0 && (
          <select value={level || levels[0]} onChange={(e) => setLevel(e.target.value)} aria-label="level">
            {levels.map((l) => (
              <option key={l}>{l}</option>
            ))}
          </select>
        )}
        <button type="button" onClick={add} data-testid="ms-add">
          Add milestone
        </button>
      </div>
    </fieldset>
  );
}

function EvidenceFrame({ client, profileId, evidence }: { client: ApiClient; profileId: string; evidence: string }) {
  const [src, setSrc] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setSrc(null);
    setError(null);
    client.request('profileEvidence', { id: profileId, evidence }).then(
      (r) => live && setSrc(r.dataUrl),
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [client, profileId, evidence]);
  if (error)
    return (
      <span className="ms-no-evidence bad" title={error} data-testid="ms-evidence-missing">
        frame unreadable
      </span>
    );
  return src ? (
    <img className="ms-evidence" src={src} alt={`evidence: ${evidence}`} title={evidence} data-testid="ms-evidence" />
  ) : (
    <span className="ms-no-evidence muted">…</span>
  );
}
