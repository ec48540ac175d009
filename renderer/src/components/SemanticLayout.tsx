/**
 * A profile's semantic actions in the profile form: where its points, regions and grids lie on
 * the window's live thumbnail, the actions with their parameters, and a Try button per action
 * that performs one call on the real window (the saved profile's) and shows what happened.
 */
import { useCallback, useEffect, useRef, useState, type ReactElement } from 'react';
import type {
  ApiClient,
  GuiActionWire,
  Results,
  SemanticLayoutView,
  SemanticParamView,
  WindowThumbnail,
} from '../../../electron/api/contract.ts';

/** How often the picture of the window is taken again (ms). */
const REFRESH_MS = 3000;
/** After a Try, the picture is taken again this soon, so the person sees what the action did. */
const AFTER_TRY_MS = 400;

/** The window's live thumbnail (the contract's `thumbnail`, as the region picker takes it), and a way to take it now. */
export function useWindowThumbnail(
  client: ApiClient,
  windowId: string | undefined,
  maxSide = 480,
): { thumb: WindowThumbnail | null; refresh: () => void } {
  const [thumb, setThumb] = useState<WindowThumbnail | null>(null);
  const refreshRef = useRef<() => void>(() => {});
  useEffect(() => {
    if (!windowId) return;
    let alive = true;
    const refresh = () =>
      void client.request('thumbnail', { windowId, maxSide }).then(
        (t) => alive && setThumb(t),
        () => alive && setThumb(null),
      );
    refreshRef.current = refresh;
    refresh();
    const timer = setInterval(refresh, REFRESH_MS);
    return () => {
      alive = false;
      refreshRef.current = () => {};
      clearInterval(timer);
    };
  }, [client, windowId, maxSide]);
  const refresh = useCallback(() => refreshRef.current(), []);
  return { thumb, refresh };
}

/** Why there is no picture of the window to draw on. */
function missing(t: WindowThumbnail): string | undefined {
  if (t.minimized) return 'the window is minimized';
  if (t.offScreen) return 'the window is off the screen';
  if (t.covered) return `another window covers it${t.coveredBy?.length ? ` (${t.coveredBy.join(', ')})` : ''}`;
  if (t.clipped) return 'the window is partly off the screen';
  if (!t.dataUrl) return 'no picture';
  return undefined;
}

/** The shape to draw on without a picture: the profile's measured resolution, else 16:10. */
function placeholderSize(resolution: string | null): { width: number; height: number } {
  const m = resolution ? /(\d{2,5})\s*[x×]\s*(\d{2,5})/.exec(resolution) : null;
  const [w, h] = m ? [Number(m[1]), Number(m[2])] : [16, 10];
  return { width: 480, height: Math.round((480 * h) / w) };
}

function describeParam(p: SemanticParamView): string {
  const range = p.type === 'choice' ? `one of ${p.values.join(', ')}` : `${p.type} ${p.min}–${p.max}`;
  return `${range}${p.default !== undefined ? ` (default ${p.default})` : ''}`;
}

function describeGui(a: GuiActionWire): string {
  const args = Object.entries(a.parameters)
    .map(([k, v]) => `${k}=${typeof v === 'number' ? Math.round(v) : JSON.stringify(v)}`)
    .join(', ');
  return args ? `${a.action_type}(${args})` : a.action_type;
}

/** The layout drawn over a picture of `width`×`height` pixels (the picture's own). */
function LayoutMarks({
  layout,
  width,
  height,
  tried,
}: {
  layout: SemanticLayoutView;
  width: number;
  height: number;
  /** The last Try's GUI actions, and the window size they are in. */
  tried: Results['trySemanticAction'] | null;
}) {
  const fs = Math.max(9, Math.min(14, Math.round(Math.min(width, height) / 26)));
  const sw = Math.max(1, Math.round(Math.min(width, height) / 240));
  const fx = (f: number) => f * width;
  const fy = (f: number) => f * height;
  const name = (text: string, x: number, y: number, color: string, anchor: 'start' | 'end' = 'start') => (
    <text
      x={x}
      y={y}
      fill={color}
      fontSize={fs}
      fontFamily="sans-serif"
      fontWeight="bold"
      stroke="#000"
      strokeWidth={fs / 6}
      paintOrder="stroke"
      textAnchor={anchor}
    >
      {text}
    </text>
  );
  const grids = layout.grids.map((g) => {
    const lines: ReactElement[] = [];
    const [x, y, w, h] = [fx(g.x), fy(g.y), fx(g.width), fy(g.height)];
    for (let r = 1; r < g.rows; r++) {
      const ly = y + (r * h) / g.rows;
      lines.push(
        <line
          key={`r${r}`}
          x1={x}
          y1={ly}
          x2={x + w}
          y2={ly}
          stroke="#ffcc00"
          strokeWidth={sw}
          data-testid="semantic-grid-row"
        />,
      );
    }
    for (let c = 1; c < g.columns; c++) {
      const lx = x + (c * w) / g.columns;
      lines.push(
        <line
          key={`c${c}`}
          x1={lx}
          y1={y}
          x2={lx}
          y2={y + h}
          stroke="#ffcc00"
          strokeWidth={sw}
          data-testid="semantic-grid-column"
        />,
      );
    }
    // Each cell's row,column in its top left corner (clear of what the cell shows) where there is
    // room for it; else the numbers along the edges.
    const cw = w / g.columns;
    const ch = h / g.rows;
    const cellFs = Math.max(8, Math.min(fs - 2, Math.round(Math.min(cw / 3.2, ch / 2.2))));
    const cells: ReactElement[] = [];
    if (cw >= cellFs * 2.5 && ch >= cellFs * 1.4)
      for (let r = 1; r <= g.rows; r++)
        for (let c = 1; c <= g.columns; c++)
          cells.push(
            <text
              key={`${r},${c}`}
              x={x + (c - 1) * cw + cellFs * 0.35}
              y={y + (r - 1) * ch + cellFs * 1.05}
              fill="#ffcc00"
              fontSize={cellFs}
              fontFamily="sans-serif"
              stroke="#000"
              strokeWidth={cellFs / 6}
              paintOrder="stroke"
              data-testid="semantic-cell"
              data-row={r}
              data-column={c}
            >
              {r},{c}
            </text>,
          );
    else {
      for (let r = 1; r <= g.rows; r++)
        cells.push(
          <text key={`r${r}`} x={x - 2} y={y + (r - 0.5) * ch + 3} fill="#ffcc00" fontSize={8} textAnchor="end">
            {r}
          </text>,
        );
      for (let c = 1; c <= g.columns; c++)
        cells.push(
          <text key={`c${c}`} x={x + (c - 0.5) * cw} y={y - 2} fill="#ffcc00" fontSize={8} textAnchor="middle">
            {c}
          </text>,
        );
    }
    return (
      <g key={`g-${g.name}`} data-testid="semantic-grid" data-name={g.name} data-rows={g.rows} data-columns={g.columns}>
        <rect x={x} y={y} width={w} height={h} fill="none" stroke="#ffcc00" strokeWidth={sw * 2} />
        {lines}
        {cells}
        {name(`${g.name} ${g.rows}×${g.columns}`, x + w, y + h + fs + 1, '#ffcc00', 'end')}
      </g>
    );
  });
  const scale = tried ? { x: width / tried.window.width, y: height / tried.window.height } : null;
  return (
    <svg
      viewBox={`0 0 ${width} ${height}`}
      preserveAspectRatio="none"
      style={{ position: 'absolute', inset: 0, width: '100%', height: '100%', pointerEvents: 'none' }}
      aria-label="semantic layout"
      data-testid="semantic-svg"
    >
      {layout.regions.map((r) => (
        <g key={`r-${r.name}`} data-testid="semantic-region" data-name={r.name}>
          <rect
            x={fx(r.x)}
            y={fy(r.y)}
            width={fx(r.width)}
            height={fy(r.height)}
            fill="rgb(0 194 224 / 12%)"
            stroke="#00c2e0"
            strokeWidth={sw * 2}
            strokeDasharray={`${sw * 6} ${sw * 3}`}
          />
          {/* Above its top edge where there is room: inside, it would cover a grid's cell labels. */}
          {name(r.name, fx(r.x) + 2, fy(r.y) > fs * 1.6 ? fy(r.y) - sw * 2 - 2 : fy(r.y) + fs + 1, '#00e0ff')}
        </g>
      ))}
      {grids}
      {layout.points.map((p) => (
        <g key={`p-${p.name}`} data-testid="semantic-point" data-name={p.name}>
          <circle cx={fx(p.x)} cy={fy(p.y)} r={fs / 2.5} fill="#ff4fd8" stroke="#000" strokeWidth={sw} />
          {name(
            p.name,
            fx(p.x) + fs / 2,
            // Below the dot when there is no room above it.
            fy(p.y) < fs * 1.5 ? fy(p.y) + fs * 1.3 : fy(p.y) - fs / 2,
            '#ff4fd8',
            fx(p.x) > width * 0.7 ? 'end' : 'start',
          )}
        </g>
      ))}
      {scale &&
        tried!.actions.map((a, i) => {
          const { x, y } = a.parameters;
          if (typeof x !== 'number' || typeof y !== 'number') return null;
          const [cx, cy] = [x * scale.x, y * scale.y];
          const ok = tried!.outcomes[i]?.ok;
          return (
            <g key={`t${i}`} data-testid="semantic-try-mark" data-x={x} data-y={y}>
              <circle
                cx={cx}
                cy={cy}
                r={fs * 0.9}
                fill="none"
                stroke={ok ? '#34c759' : '#ff3b30'}
                strokeWidth={sw * 2}
              />
              <circle cx={cx} cy={cy} r={sw * 1.5} fill={ok ? '#34c759' : '#ff3b30'} />
            </g>
          );
        })}
    </svg>
  );
}

type TryNote = { ok: true; result: Results['trySemanticAction'] } | { ok: false; text: string };

function ActionRow({
  client,
  profileId,
  windowId,
  action,
  busy,
  onTry,
}: {
  client: ApiClient;
  profileId: string;
  windowId: string | undefined;
  action: SemanticLayoutView['actions'][number];
  busy: boolean;
  onTry: (run: () => Promise<Results['trySemanticAction']>) => Promise<TryNote>;
}) {
  const [call, setCall] = useState(action.example);
  const [note, setNote] = useState<TryNote | null>(null);
  const sig = action.params.length ? `${action.name}(${action.params.map((p) => p.name).join(', ')})` : action.name;
  const run = async () => {
    setNote(null);
    setNote(await onTry(() => client.request('trySemanticAction', { id: profileId, windowId: windowId!, call })));
  };
  return (
    <li data-testid="semantic-action" data-name={action.name}>
      <code>{sig}</code> — {action.description}
      {action.params.length > 0 && (
        <ul className="muted">
          {action.params.map((p) => (
            <li key={p.name}>
              <code>{p.name}</code>: {describeParam(p)}
              {p.description ? ` — ${p.description}` : ''}
            </li>
          ))}
        </ul>
      )}
      <div style={{ display: 'flex', gap: '0.4rem', alignItems: 'center', flexWrap: 'wrap' }}>
        <input
          value={call}
          onChange={(e) => setCall(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && !busy && windowId && void run()}
          aria-label={`call of ${action.name}`}
          spellCheck={false}
          style={{ fontFamily: 'monospace', minWidth: '18rem' }}
          data-testid={`semantic-call-${action.name}`}
        />
        <button
          type="button"
          onClick={run}
          disabled={busy || !windowId || !call.trim()}
          title={windowId ? 'Perform this call on the window now' : 'Try needs a window target'}
          data-testid={`semantic-try-${action.name}`}
        >
          Try
        </button>
      </div>
      {note && (
        <p
          className={note.ok && note.result.ok ? '' : 'errors'}
          role={note.ok && note.result.ok ? 'status' : 'alert'}
          data-testid={`semantic-outcome-${action.name}`}
          data-ok={String(note.ok && note.result.ok)}
        >
          {note.ok ? (
            <>
              {note.result.ok ? 'ok' : 'refused'}: <code>{note.result.call}</code> →{' '}
              {note.result.actions.map((a, i) => {
                const o = note.result.outcomes[i];
                return (
                  <span key={i}>
                    {i > 0 ? ', ' : ''}
                    <code>{describeGui(a)}</code>
                    {!o ? ' (not sent)' : o.ok ? '' : ` — ${o.error}`}
                  </span>
                );
              })}
            </>
          ) : (
            <>refused: {note.text}</>
          )}
        </p>
      )}
    </li>
  );
}

export function SemanticLayout({
  client,
  profileId,
  windowId,
  layout,
}: {
  client: ApiClient;
  /** The saved profile a Try performs the actions of. */
  profileId: string;
  /** The target window; without one the layout is drawn on a blank and Try is off. */
  windowId: string | undefined;
  layout: SemanticLayoutView;
}) {
  const { thumb, refresh } = useWindowThumbnail(client, windowId);
  const [busy, setBusy] = useState(false);
  const [tried, setTried] = useState<Results['trySemanticAction'] | null>(null);
  const note = windowId ? (thumb ? missing(thumb) : 'loading the window…') : 'no window target';
  const picture = !note && thumb?.dataUrl ? thumb : null;
  const size = picture ?? placeholderSize(layout.resolution);

  const onTry = async (run: () => Promise<Results['trySemanticAction']>): Promise<TryNote> => {
    setBusy(true);
    try {
      const result = await run();
      setTried(result);
      return { ok: true, result };
    } catch (e) {
      setTried(null); // nothing was sent: no marks of an earlier Try left looking like this one's
      return { ok: false, text: (e as Error).message };
    } finally {
      setBusy(false);
      setTimeout(refresh, AFTER_TRY_MS);
    }
  };

  return (
    <fieldset className="semantic-layout" data-testid="semantic-layout">
      <legend>Semantic actions</legend>
      <p className="muted">
        Where the profile’s actions land on the window
        {layout.resolution ? ` (measured at ${layout.resolution})` : ''}: points, regions and grids in fractions of the
        window.
      </p>
      {note && (
        <p className="muted" data-testid="semantic-note">
          {note}: the layout is drawn on a blank of the window’s shape.
        </p>
      )}
      <div
        style={{ position: 'relative', display: 'inline-block', lineHeight: 0, maxWidth: '100%' }}
        data-testid="semantic-frame"
      >
        {picture ? (
          <img
            src={picture.dataUrl!}
            alt="the window now"
            draggable={false}
            style={{ display: 'block', maxWidth: '100%' }}
            data-testid="semantic-thumb"
          />
        ) : (
          <div
            style={{
              width: size.width,
              maxWidth: '100%',
              aspectRatio: `${size.width} / ${size.height}`,
              background: '#333',
            }}
          />
        )}
        <LayoutMarks layout={layout} width={size.width} height={size.height} tried={tried} />
      </div>
      <p className="muted">
        Try performs one call on the window now, as a run would (the saved profile’s actions and key limits).
      </p>
      <ol className="semantic-actions" data-testid="semantic-actions">
        {layout.actions.map((a) => (
          <ActionRow
            key={a.name}
            client={client}
            profileId={profileId}
            windowId={windowId}
            action={a}
            busy={busy}
            onTry={onTry}
          />
        ))}
      </ol>
    </fieldset>
  );
}
