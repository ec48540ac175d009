/** Reflection for the live model run: mode (next attempt), the lessons, editable before the retry. */
import { useEffect, useState } from 'react';
import type { ApiClient, CoreEvent, LiveRun, ReflectionMode } from '../../../electron/api/contract.ts';
import { Checkbox } from './Checkbox.tsx';

const MODES: [ReflectionMode, string][] = [
  ['none', 'off'],
  ['self-f', 'own failure'],
  ['self-t', 'tutorial'],
  ['self', 'failure + tutorial'],
  ['other', 'another model'],
];

export function ReflectionPanel({
  client,
  run,
  lessons,
  paused,
  onError,
}: {
  client: ApiClient;
  run: LiveRun;
  lessons: Extract<CoreEvent, { type: 'lessons' }> | null;
  paused: boolean;
  onError: (e: string) => void;
}) {
  const r = run.reflection;
  const [draft, setDraft] = useState(r?.lessons ?? '');
  useEffect(() => setDraft(r?.lessons ?? ''), [r?.lessons]);
  if (!r) return null;
  const call = (p: Promise<unknown>) => p.catch((e: Error) => onError(e.message));
  return (
    <section className="reflection" aria-label="reflection">
      <h3>Reflection</h3>
      <div className="row">
        <select
          value={r.mode}
          onChange={(e) =>
            call(
              client.request('setReflection', {
                mode: e.target.value as ReflectionMode,
                ...(e.target.value === 'other' && r.reflectorModel ? { reflectorModel: r.reflectorModel } : {}),
              }),
            )
          }
          data-testid="reflection-mode"
          aria-label="reflection mode"
        >
          {MODES.map(([m, label]) => (
            <option key={m} value={m}>
              {label}
            </option>
          ))}
        </select>
        <Checkbox
          checked={r.review}
          onChange={(review) => call(client.request('setReflection', { mode: r.mode, review }))}
          testId="reflection-review"
        >
          review lessons before each retry
        </Checkbox>
      </div>
      {lessons?.error && (
        <div className="errors" role="alert">
          {lessons.error}
        </div>
      )}
      {lessons?.note && <div className="muted">{lessons.note}</div>}
      <textarea
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        rows={6}
        placeholder="Lessons appear here after a reflection; you can also write your own."
        data-testid="lessons"
      />
      <div className="row">
        <button
          type="button"
          onClick={() => call(client.request('setLessons', { text: draft }))}
          disabled={draft === r.lessons}
          data-testid="use-lessons"
        >
          Use these lessons
        </button>
        {paused && r.review && (
          <button
            type="button"
            className="primary"
            onClick={() => call(client.request('control', { action: 'resume' }))}
            data-testid="retry"
          >
            ▶ Retry with these lessons
          </button>
        )}
        <span className="muted">
          {r.lessons ? `${r.lessons.split(/\s+/).length} words in the next attempt's prompt` : 'no lessons yet'}
        </span>
      </div>
    </section>
  );
}
