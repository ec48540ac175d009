/**
 * A profile's episode end detectors in the profile form: a list, each of one kind with its fields
 * (a region drawn over the window's live thumbnail, the text or colour it looks for…) and "Try it
 * on the current frame", which runs that detector, as the form has it, on the window now and
 * says whether it fires and what it saw. An image detector's template is cut from the window's
 * current frame at its region ("Use this frame as the template").
 */
import { useState } from 'react';
import type { ApiClient, DetectorEdit, Results, WindowThumbnail } from '../../../electron/api/contract.ts';
import { type Region, RegionDraw } from './RegionPicker.tsx';

const KINDS = ['pixels', 'ocr', 'image', 'title', 'exit', 'judge'] as const;
type Kind = (typeof KINDS)[number];

const KIND_HELP: Record<Kind, string> = {
  pixels: 'a colour fills a share of a region (cheap: every step)',
  ocr: 'OCR of a region matches a text or regular expression',
  image: 'a region looks like a template cut from a frame where the game had ended',
  title: 'the window title matches a regular expression',
  exit: "the game's process ends or its window closes",
  judge: 'a model looks at the frame and answers a question (costs a call each check)',
};

const MIDDLE: Region = { x: 0.25, y: 0.4, width: 0.5, height: 0.2 };
const NEW: Record<Kind, () => DetectorEdit> = {
  pixels: () => ({ pixels: { region: MIDDLE, colour: '#000000', tolerance: 24, share: 0.9 } }),
  ocr: () => ({ ocr: { region: MIDDLE, text: 'game over' }, checkEvery: 5 }),
  image: () => ({ image: { region: MIDDLE, template: '', threshold: 0.9 } }),
  title: () => ({ title: 'game over' }),
  exit: () => ({ exit: true }),
  judge: () => ({ judge: 'The game is over: its game-over or results screen is shown.', checkEvery: 10 }),
};

export function detectorKind(d: DetectorEdit): Kind {
  return KINDS.find((k) => d[k] !== undefined) ?? 'exit';
}

type TryNote =
  | { state: 'fired' | 'quiet'; detail: string; seen: string | null }
  | { state: 'error'; detail: string; seen: string | null };

/** The two lists of detectors a profile has, as the form titles and explains them. */
const LISTS = {
  end: {
    legend: 'Episode end',
    about:
      'After each step the detectors look at the window; the first that fires ends the episode, and the frame it fired on is kept and scored.',
    none: 'None yet: an episode ends only at its step or time limit.',
  },
  ready: {
    legend: 'Ready when (optional)',
    about: 'After the reset steps, the new game is ready once one of these fires (and no end detector does).',
    none: 'None: ready once no end detector fires and the window differs from the end frame.',
  },
} as const;

export function EndDetectorEditor({
  list = 'end',
  client,
  profileId,
  windowId,
  thumb,
  value,
  onChange,
}: {
  /** `end` (episode.end) or `ready` (episode.reset.ready): the titles and the test ids. */
  list?: keyof typeof LISTS;
  client: ApiClient;
  profileId: string;
  windowId: string | undefined;
  thumb: WindowThumbnail | null;
  value: DetectorEdit[];
  onChange: (v: DetectorEdit[]) => void;
}) {
  const [adding, setAdding] = useState<Kind>('pixels');
  // Rows are keyed by place; a removal renews them, so no row keeps another detector's result.
  const [generation, setGeneration] = useState(0);
  const set = (i: number, d: DetectorEdit) => onChange(value.map((x, j) => (j === i ? d : x)));
  return (
    <fieldset className="episode-edit" data-testid={`episode-${list}`}>
      <legend>{LISTS[list].legend}</legend>
      <p className="muted">
        {LISTS[list].about} {value.length === 0 && LISTS[list].none}
      </p>
      <ol>
        {value.map((d, i) => (
          <DetectorRow
            key={`${generation}-${i}`}
            id={`${list}-${i}`}
            client={client}
            profileId={profileId}
            windowId={windowId}
            thumb={thumb}
            value={d}
            onChange={(v) => set(i, v)}
            onRemove={() => {
              setGeneration((g) => g + 1);
              onChange(value.filter((_, j) => j !== i));
            }}
          />
        ))}
      </ol>
      <div className="row">
        <select value={adding} onChange={(e) => setAdding(e.target.value as Kind)} data-testid={`${list}-add-kind`}>
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {k}: {KIND_HELP[k]}
            </option>
          ))}
        </select>
        <button
          type="button"
          onClick={() => onChange([...value, NEW[adding]()])}
          disabled={value.length >= 20}
          data-testid={`${list}-add`}
        >
          Add detector
        </button>
        {value.length >= 20 && <span className="muted">at most 20 detectors</span>}
      </div>
    </fieldset>
  );
}

function DetectorRow({
  id,
  client,
  profileId,
  windowId,
  thumb,
  value,
  onChange: change,
  onRemove,
}: {
  /** The row's test id prefix: `end-0`, `ready-1`. */
  id: string;
  client: ApiClient;
  profileId: string;
  windowId: string | undefined;
  thumb: WindowThumbnail | null;
  value: DetectorEdit;
  onChange: (v: DetectorEdit) => void;
  onRemove: () => void;
}) {
  const kind = detectorKind(value);
  const [note, setNote] = useState<TryNote | null>(null);
  // A result is of the detector as it was tried: a change clears it.
  const onChange = (v: DetectorEdit) => {
    setNote(null);
    change(v);
  };
  const [busy, setBusy] = useState(false);
  const [cut, setCut] = useState<Results['cutEndTemplate'] | null>(null);
  const [cutError, setCutError] = useState<string | null>(null);
  const region = value.pixels?.region ?? value.ocr?.region ?? value.image?.region;
  const setRegion = (r: Region) => {
    if (value.pixels) onChange({ ...value, pixels: { ...value.pixels, region: r } });
    if (value.ocr) onChange({ ...value, ocr: { ...value.ocr, region: r } });
    if (value.image) onChange({ ...value, image: { ...value.image, region: r } });
  };
  // Why "try it" cannot run now, said beside the button.
  const cannot = !windowId
    ? 'needs a window target (a built-in game knows its own end)'
    : value.image && !value.image.template
      ? 'cut a template first'
      : undefined;

  const tryIt = async () => {
    setBusy(true);
    setNote(null);
    try {
      const r = await client.request('checkEndDetectors', { id: profileId, windowId: windowId!, detectors: [value] });
      const res = r.results[0]!;
      setNote(
        res.error
          ? { state: 'error', detail: res.error, seen: r.seen }
          : { state: res.fired ? 'fired' : 'quiet', detail: res.detail, seen: r.seen },
      );
    } catch (e) {
      setNote({ state: 'error', detail: (e as Error).message, seen: null });
    } finally {
      setBusy(false);
    }
  };
  const cutTemplate = async () => {
    if (!value.image) return;
    setCutError(null);
    try {
      const name = `end-${Date.now().toString(36)}`;
      const r = await client.request('cutEndTemplate', {
        id: profileId,
        windowId: windowId!,
        region: value.image.region,
        name,
      });
      setCut(r);
      onChange({ ...value, image: { ...value.image, template: r.template } });
    } catch (e) {
      setCutError((e as Error).message);
    }
  };
  const num = (text: string) => (text.trim() === '' ? undefined : Number(text));

  return (
    <li data-testid="detector" data-list={id.split('-')[0]} data-kind={kind}>
      <div className="row">
        <strong>{kind}</strong> <span className="muted">{KIND_HELP[kind]}</span>
        <button type="button" onClick={onRemove} data-testid={`${id}-remove`}>
          Remove
        </button>
      </div>
      {region && (
        <RegionDraw thumb={thumb} windowId={windowId} region={region} onRegion={setRegion} testId={`${id}-region`} />
      )}
      {value.pixels && (
        <div className="row">
          <label>
            Colour{' '}
            <input
              type="color"
              value={/^#[0-9a-f]{6}$/i.test(value.pixels.colour) ? value.pixels.colour : '#000000'}
              onChange={(e) => onChange({ ...value, pixels: { ...value.pixels!, colour: e.target.value } })}
            />{' '}
            <input
              value={value.pixels.colour}
              size={8}
              onChange={(e) => onChange({ ...value, pixels: { ...value.pixels!, colour: e.target.value.trim() } })}
              data-testid={`${id}-colour`}
            />
          </label>
          <label title="how far (0–255, per channel) a pixel may be from the colour">
            Tolerance{' '}
            <input
              type="number"
              min={0}
              max={255}
              value={value.pixels.tolerance}
              onChange={(e) => onChange({ ...value, pixels: { ...value.pixels!, tolerance: Number(e.target.value) } })}
              data-testid={`${id}-tolerance`}
            />
          </label>
          <label title="the share (0–1) of the region's pixels that must be that colour">
            Share{' '}
            <input
              type="number"
              min={0}
              max={1}
              step={0.05}
              value={value.pixels.share}
              onChange={(e) => onChange({ ...value, pixels: { ...value.pixels!, share: Number(e.target.value) } })}
              data-testid={`${id}-share`}
            />
          </label>
        </div>
      )}
      {value.ocr && (
        <label>
          Text (a regular expression, any case){' '}
          <input
            value={value.ocr.text}
            onChange={(e) => onChange({ ...value, ocr: { ...value.ocr!, text: e.target.value } })}
            data-testid={`${id}-text`}
          />
        </label>
      )}
      {value.image && (
        <div className="row template">
          <button
            type="button"
            onClick={cutTemplate}
            disabled={!windowId}
            title={windowId ? 'Cut the region of the window as it is now' : 'needs a window target'}
            data-testid={`${id}-cut`}
          >
            Use this frame as the template
          </button>
          {cut && <img src={cut.dataUrl} alt="the template" data-testid={`${id}-template`} />}
          <span className="muted" data-testid={`${id}-template-name`}>
            {value.image.template
              ? `${value.image.template}${cut ? ` (${cut.width}×${cut.height}, saved beside your profile)` : ''}`
              : 'no template yet: show the end screen in the window, draw its region, then cut it'}
          </span>
          <label title="how alike (0–1) the region must be to the template">
            Threshold{' '}
            <input
              type="number"
              min={0}
              max={1}
              step={0.01}
              value={value.image.threshold}
              onChange={(e) => onChange({ ...value, image: { ...value.image!, threshold: Number(e.target.value) } })}
              data-testid={`${id}-threshold`}
            />
          </label>
          {cutError && (
            <span className="errors" role="alert">
              {cutError}
            </span>
          )}
        </div>
      )}
      {value.title !== undefined && (
        <label>
          Title (a regular expression, any case){' '}
          <input value={value.title} onChange={(e) => onChange({ ...value, title: e.target.value })} />
        </label>
      )}
      {value.judge !== undefined && (
        <label>
          Question for the model (yes means the game is over){' '}
          <textarea rows={2} value={value.judge} onChange={(e) => onChange({ ...value, judge: e.target.value })} />
        </label>
      )}
      <div className="row">
        {kind !== 'exit' && (
          <label title="the costly ones (OCR, judge) need not look after every step">
            Check every{' '}
            <input
              type="number"
              min={1}
              placeholder="1"
              value={value.checkEvery ?? ''}
              onChange={(e) => {
                const { checkEvery: _, ...rest } = value;
                const n = num(e.target.value);
                onChange(n ? { ...rest, checkEvery: n } : rest);
              }}
              data-testid={`${id}-every`}
            />{' '}
            steps
          </label>
        )}
        <button type="button" onClick={tryIt} disabled={busy || !!cannot} data-testid={`${id}-try`}>
          Try it on the current frame
        </button>
        {cannot && <span className="muted">{cannot}</span>}
        {busy && <span className="muted">looking at the window…</span>}
      </div>
      {note && (
        <p
          className="try-result"
          data-state={note.state}
          role={note.state === 'error' ? 'alert' : 'status'}
          data-testid={`${id}-result`}
        >
          {note.state === 'fired' && `fires: ${note.detail}`}
          {note.state === 'quiet' && `does not fire: ${note.detail}`}
          {note.state === 'error' && `could not look: ${note.detail}`}
          {note.seen && ` (the window could not be seen: ${note.seen})`}
        </p>
      )}
    </li>
  );
}
