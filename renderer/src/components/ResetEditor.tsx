/**
 * A profile's reset in the profile form: the steps that start the next game (a verb and its value
 * each; a click's point drawn on the window's live thumbnail), how long the new game may take, and
 * whether the first episode starts with them too, and optionally the detectors that show the new
 * game is ready. "Try reset" sends the steps once to the window,
 * as a run does between episodes, and says whether a new game was ready (in how long, and how
 * that was known) or why not, with the window before and after.
 */
import { useState } from 'react';
import type {
  ApiClient,
  DetectorEdit,
  EpisodeEndEdit,
  ResetEdit,
  ResetStepEdit,
  Results,
  WindowThumbnail,
} from '../../../electron/api/contract.ts';
import { Checkbox } from './Checkbox.tsx';
import { EndDetectorEditor } from './EndDetectorEditor.tsx';
import { RegionDraw } from './RegionPicker.tsx';
import { OFFERED_VERBS, POINT_VERBS, stepPoint, stepText, stepVerb, withPoint, withStepText } from './reset-steps.ts';

const PLACEHOLDER: Record<string, string> = {
  press: 'a key: n, f2, space',
  hotkey: 'keys joined by +: ctrl+n',
  click: 'x, y (fractions of the window) or a point’s name: draw it',
  doubleClick: 'x, y or a point’s name',
  rightClick: 'x, y or a point’s name',
  type: 'text to type',
  wait: 'seconds',
};

type Outcome = Results['tryReset'] | { error: string; refused: true };

export function ResetEditor({
  client,
  profileId,
  windowId,
  thumb,
  value,
  end,
  onChange,
}: {
  client: ApiClient;
  profileId: string;
  windowId: string | undefined;
  thumb: WindowThumbnail | null;
  value: EpisodeEndEdit;
  /** The form's end detectors: the new game is ready once none fires. */
  end: DetectorEdit[];
  onChange: (v: EpisodeEndEdit) => void;
}) {
  const reset = value.reset;
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);
  const setReset = (r: ResetEdit | null) =>
    onChange({ ...value, reset: r, startWithReset: r ? value.startWithReset : false });
  const setStep = (j: number, s: ResetStepEdit) =>
    reset && setReset({ ...reset, do: reset.do.map((x, k) => (k === j ? s : x)) });

  const cannot = !windowId ? 'needs a window target' : !reset?.do.length ? 'add a step first' : undefined;
  const tryReset = async () => {
    setBusy(true);
    setOutcome(null);
    try {
      setOutcome(await client.request('tryReset', { id: profileId, windowId: windowId!, reset: reset!, end }));
    } catch (e) {
      setOutcome({ error: (e as Error).message, refused: true });
    } finally {
      setBusy(false);
    }
  };

  return (
    <fieldset className="episode-edit" data-testid="episode-reset">
      <legend>Reset</legend>
      <p className="muted">
        The steps that start the next game, sent between episodes; the new game counts as started once no end detector
        fires and the window differs from the end frame, within the timeout — otherwise the run fails there.
        {!reset && ' None yet: every episode goes on from where the last one left the game.'}
      </p>
      {!reset && (
        <button type="button" onClick={() => setReset({ do: [{ press: '' }], timeout: 20 })} data-testid="reset-add">
          Add reset steps
        </button>
      )}
      {reset && (
        <>
          <ol>
            {reset.do.map((s, j) => {
              const verb = stepVerb(s);
              return (
                <li key={j} data-testid="reset-step">
                  <div className="row">
                    <select
                      value={verb}
                      onChange={(e) => setStep(j, withStepText(s, e.target.value, stepText(s)))}
                      data-testid={`reset-${j}-verb`}
                    >
                      {[...new Set([...OFFERED_VERBS, verb])].map((v) => (
                        <option key={v}>{v}</option>
                      ))}
                    </select>
                    <input
                      value={stepText(s)}
                      placeholder={PLACEHOLDER[verb] ?? 'the value as JSON'}
                      onChange={(e) => setStep(j, withStepText(s, verb, e.target.value))}
                      spellCheck={false}
                      data-testid={`reset-${j}-value`}
                    />
                    <button
                      type="button"
                      onClick={() => setReset({ ...reset, do: reset.do.filter((_, k) => k !== j) })}
                      data-testid={`reset-${j}-remove`}
                    >
                      Remove
                    </button>
                  </div>
                  {POINT_VERBS.includes(verb) && (
                    <RegionDraw
                      thumb={thumb}
                      windowId={windowId}
                      point={stepPoint(s)}
                      onPoint={(p) => setStep(j, withPoint(s, p))}
                      testId={`reset-${j}-point`}
                    />
                  )}
                </li>
              );
            })}
          </ol>
          <div className="row">
            <button
              type="button"
              onClick={() => setReset({ ...reset, do: [...reset.do, { press: '' }] })}
              disabled={reset.do.length >= 50}
              data-testid="reset-add-step"
            >
              Add step
            </button>
            <label>
              Timeout{' '}
              <input
                type="number"
                min={1}
                max={600}
                value={reset.timeout}
                onChange={(e) => setReset({ ...reset, timeout: Number(e.target.value) })}
                data-testid="reset-timeout"
              />{' '}
              s
            </label>
            <Checkbox
              checked={value.startWithReset}
              onChange={(c) => onChange({ ...value, startWithReset: c })}
              testId="reset-start"
              title="every episode, the first too, starts from a known state"
            >
              Reset before the first episode too
            </Checkbox>
            <button type="button" onClick={() => setReset(null)} data-testid="reset-none">
              No reset
            </button>
          </div>
          <EndDetectorEditor
            list="ready"
            client={client}
            profileId={profileId}
            windowId={windowId}
            thumb={thumb}
            value={reset.ready ?? []}
            onChange={(ready) => {
              const { ready: _old, ...rest } = reset;
              setReset(ready.length ? { ...rest, ready } : rest);
            }}
          />
          <div className="row">
            <button type="button" onClick={tryReset} disabled={busy || !!cannot} data-testid="reset-try">
              Try reset
            </button>
            {cannot && <span className="muted">{cannot}</span>}
            {busy && (
              <span className="muted">sending the steps and waiting for a new game (at most {reset.timeout} s)…</span>
            )}
          </div>
          {outcome && <ResetOutcome outcome={outcome} />}
        </>
      )}
    </fieldset>
  );
}

function ResetOutcome({ outcome }: { outcome: Outcome }) {
  if ('refused' in outcome)
    return (
      <p className="try-result errors" data-state="error" role="alert" data-testid="reset-outcome">
        not sent: {outcome.error}
      </p>
    );
  return (
    <div data-testid="reset-outcome-frames">
      <p
        className="try-result"
        data-state={outcome.ok ? 'ready' : 'failed'}
        role={outcome.ok ? 'status' : 'alert'}
        data-testid="reset-outcome"
      >
        {outcome.ok ? `ready in ${outcome.ms} ms: ${outcome.detail}` : `no new game: ${outcome.error}`}
      </p>
      <div className="frames">
        {outcome.before && (
          <figure>
            <img src={outcome.before} alt="the window before the steps" data-testid="reset-before" />
            <figcaption className="muted">before the steps</figcaption>
          </figure>
        )}
        {outcome.frame && (
          <figure>
            <img src={outcome.frame} alt="the window after the steps" data-testid="reset-after" />
            <figcaption className="muted">{outcome.ok ? 'the new game' : 'as it was last seen'}</figcaption>
          </figure>
        )}
      </div>
    </div>
  );
}
