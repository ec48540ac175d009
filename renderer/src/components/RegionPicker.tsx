/**
 * A region of a window set on its live thumbnail: drag a rectangle over the picture, or type the
 * four fractions of the window (0–1). `RegionPicker` is a screen-scored profile's reader and the
 * region it reads; `RegionDraw` the drawing surface alone (the episode end detectors' regions and
 * the reset's click points use it too), over a thumbnail `useWindowThumbnail` keeps fresh.
 */
import { useEffect, useRef, useState, type PointerEvent } from 'react';
import type { ApiClient, ScreenScoreEdit, WindowThumbnail } from '../../../electron/api/contract.ts';

export type Region = NonNullable<ScreenScoreEdit['region']>;
export type Point = { x: number; y: number };

const SIDES = ['x', 'y', 'width', 'height'] as const;
/** Below this (a fraction of the picture) a drag is taken for a click. */
const MIN_DRAG = 0.005;
const clamp01 = (n: number) => Math.min(1, Math.max(0, n));
const round = (n: number) => Math.round(n * 10000) / 10000;

/** The rectangle spanned by two corners, each already inside the picture, so it stays inside. */
function spanned(a: Point, b: Point): Region {
  const [x0, x1] = [round(Math.min(a.x, b.x)), round(Math.max(a.x, b.x))];
  const [y0, y1] = [round(Math.min(a.y, b.y)), round(Math.max(a.y, b.y))];
  return { x: x0, y: y0, width: round(x1 - x0), height: round(y1 - y0) };
}

/** Why there is no picture to draw on (the capture would show something else, or nothing). */
export function thumbnailMissing(t: WindowThumbnail | null): string | undefined {
  if (!t) return 'loading the window…';
  if (t.minimized) return 'the window is minimized';
  if (t.offScreen) return 'the window is off the screen';
  if (t.covered) return 'another window covers it';
  // The picture would be the on-screen part only, and the region is in fractions of the whole window.
  if (t.clipped) return 'the window is partly off the screen';
  if (!t.dataUrl) return 'no picture';
  return undefined;
}

/** The window's thumbnail, fetched again every 3 s; null while loading or when it failed. */
export function useWindowThumbnail(client: ApiClient, windowId: string | undefined): WindowThumbnail | null {
  const [thumb, setThumb] = useState<WindowThumbnail | null>(null);
  useEffect(() => {
    if (!windowId) return;
    let alive = true;
    const refresh = () =>
      client.request('thumbnail', { windowId, maxSide: 480 }).then(
        (t) => alive && setThumb(t),
        () => alive && setThumb(null),
      );
    refresh();
    const timer = setInterval(refresh, 3000);
    return () => {
      alive = false;
      clearInterval(timer);
    };
  }, [client, windowId]);
  return thumb;
}

/**
 * The thumbnail to draw on: a drag sets `region` (when `onRegion` is given), a click sets a point
 * (when `onPoint` is given); the four fields type the region. `testId` prefixes the parts' test ids.
 */
export function RegionDraw({
  thumb,
  windowId,
  region,
  onRegion,
  point,
  onPoint,
  testId = 'region',
}: {
  thumb: WindowThumbnail | null;
  /** The target window; without one (a built-in game) only the fields are shown. */
  windowId: string | undefined;
  region?: Region | undefined;
  onRegion?: (r: Region) => void;
  point?: Point | undefined;
  onPoint?: (p: Point) => void;
  testId?: string;
}) {
  const [start, setStart] = useState<Point | null>(null);
  const [draft, setDraft] = useState<Region | null>(null);
  const img = useRef<HTMLImageElement>(null);

  /** Where the pointer is, in fractions of the picture (clamped to it). */
  const at = (e: PointerEvent): Point => {
    const r = img.current!.getBoundingClientRect();
    return { x: clamp01((e.clientX - r.left) / r.width), y: clamp01((e.clientY - r.top) / r.height) };
  };
  const down = (e: PointerEvent<HTMLDivElement>) => {
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    setStart(at(e));
    setDraft(null);
  };
  const move = (e: PointerEvent) => start && onRegion && setDraft(spanned(start, at(e)));
  const up = (e: PointerEvent) => {
    if (!start) return;
    const r = spanned(start, at(e));
    setStart(null);
    setDraft(null);
    if (onRegion && r.width > MIN_DRAG && r.height > MIN_DRAG) onRegion(r);
    else if (onPoint) onPoint({ x: round(start.x), y: round(start.y) });
  };

  const shown = draft ?? region;
  const note = windowId ? thumbnailMissing(thumb) : undefined;
  const setSide = (k: (typeof SIDES)[number], text: string) =>
    onRegion?.({ ...(region ?? { x: 0, y: 0, width: 1, height: 1 }), [k]: clamp01(Number(text) || 0) });

  return (
    <>
      {windowId && note && (
        <p className="muted" data-testid={`${testId}-note`}>
          {note}: {onRegion ? 'type the region below' : 'type the point'}, or make the window visible to draw it.
        </p>
      )}
      {windowId && !note && thumb?.dataUrl && (
        <div
          className="region-frame"
          onPointerDown={down}
          onPointerMove={move}
          onPointerUp={up}
          onPointerCancel={() => {
            setStart(null);
            setDraft(null);
          }}
          data-testid={`${testId}-frame`}
        >
          <img ref={img} src={thumb.dataUrl} alt="the window now" draggable={false} data-testid={`${testId}-thumb`} />
          {shown && (
            <div
              className={`region-box${draft ? ' drawing' : ''}`}
              style={{
                left: `${shown.x * 100}%`,
                top: `${shown.y * 100}%`,
                width: `${shown.width * 100}%`,
                height: `${shown.height * 100}%`,
              }}
              data-testid={`${testId}-box`}
            />
          )}
          {point && (
            <div
              className="region-point"
              style={{ left: `${point.x * 100}%`, top: `${point.y * 100}%` }}
              data-testid={`${testId}-point`}
            />
          )}
        </div>
      )}
      {onRegion && (
        <div className="region-fields">
          {SIDES.map((k) => (
            <label key={k}>
              {k}{' '}
              <input
                type="number"
                min={0}
                max={1}
                step={0.01}
                value={region ? region[k] : ''}
                placeholder="–"
                onChange={(e) => setSide(k, e.target.value)}
                data-testid={`${testId}-${k}`}
              />
            </label>
          ))}
        </div>
      )}
    </>
  );
}

export function RegionPicker({
  client,
  windowId,
  value,
  onChange,
}: {
  client: ApiClient;
  /** The target window; without one (a built-in game) only the fields are shown. */
  windowId: string | undefined;
  value: ScreenScoreEdit;
  onChange: (v: ScreenScoreEdit) => void;
}) {
  const thumb = useWindowThumbnail(client, windowId);
  return (
    <fieldset className="region-picker" data-testid="region-picker">
      <legend>Score on the screen</legend>
      <label>
        Read by{' '}
        <select
          value={value.reader}
          onChange={(e) => onChange({ ...value, reader: e.target.value as ScreenScoreEdit['reader'] })}
          data-testid="score-reader"
        >
          <option value="model">the model</option>
          <option value="ocr">OCR of the region</option>
        </select>
      </label>
      <RegionDraw
        thumb={thumb}
        windowId={windowId}
        region={value.region}
        onRegion={(region) => onChange({ ...value, region })}
      />
      {value.region && (
        <button type="button" onClick={() => onChange({ reader: value.reader })} data-testid="region-clear">
          No region
        </button>
      )}
      <p className="muted">Fractions of the window (0–1) from its top left; OCR reads only this part.</p>
    </fieldset>
  );
}
