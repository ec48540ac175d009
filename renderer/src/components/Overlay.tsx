/**
 * Where the model acted, drawn over the frame it saw: clicks, drags, pointer moves, keys. A
 * semantic call that became GUI actions (its outcome's `expanded`) is drawn as those actions,
 * labelled with the call's text by its first mark.
 */
import type { ReactElement } from 'react';
interface WireAction {
  action_type?: string;
  action?: string;
  parameters?: Record<string, unknown>;
}

/** The part of an action's outcome the overlay reads (a step record's `outcomes[i]`). */
interface WireOutcome {
  action?: string;
  ok?: boolean;
  expanded?: unknown[];
}

const CYAN = '#00e0ff';
const RED = '#ff3b30';

/** One GUI action to draw: the model's own, or one a semantic call became (`call` set). */
interface Drawn {
  wire: WireAction;
  /** The step's action it belongs to (0-based). */
  index: number;
  color: string;
  /** For an expanded action: the call's text, and its place in the expansion. */
  call?: { text: string; part: number };
}

function expandedOf(o: unknown): { call: string | undefined; ok: boolean; actions: WireAction[] } | null {
  const out = o as WireOutcome | null | undefined;
  if (!out || typeof out !== 'object' || !Array.isArray(out.expanded)) return null;
  return {
    call: typeof out.action === 'string' ? out.action : undefined,
    ok: out.ok !== false,
    actions: out.expanded.filter((e): e is WireAction => !!e && typeof e === 'object'),
  };
}

export function Overlay({
  width,
  height,
  actions,
  outcomes,
  refused,
  colors,
  labels,
}: {
  width: number;
  height: number;
  actions: unknown[];
  /** The step's outcomes, one per action; a semantic call's carries the GUI actions it became (`expanded`). */
  outcomes?: unknown[];
  refused: boolean;
  /** Each action's colour (a two-seat step: its seat's); default cyan. */
  colors?: readonly string[];
  /** Each click's label (a two-seat step: its seat's name); default its number in the step. */
  labels?: readonly string[];
}) {
  const marks: ReactElement[] = [];
  const keys: { text: string; color: string }[] = [];
  /** Calls with no mark on the frame (keys only): captioned above the key badges. */
  const captions: { text: string; color: string }[] = [];
  const labelled = new Set<number>();
  const many = actions.length > 1;
  const drawn: Drawn[] = [];
  (actions as WireAction[]).forEach((a, i) => {
    const exp = expandedOf(outcomes?.[i]);
    const own = colors?.[i] ?? CYAN;
    if (!exp) {
      drawn.push({ wire: a, index: i, color: refused && i === actions.length - 1 ? RED : own });
      return;
    }
    const text = `${many ? `${i + 1}. ` : ''}${a?.action ?? exp.call ?? 'call'}`;
    const color = exp.ok ? own : RED;
    exp.actions.forEach((e, part) => {
      drawn.push({ wire: e, index: i, color, call: { text, part } });
    });
    const pointed = exp.actions.some((e) => typeof e.parameters?.x === 'number' && typeof e.parameters?.y === 'number');
    if (!pointed) captions.push({ text, color });
  });

  // A call's label: small enough for a small frame, kept inside it.
  const fs = Math.max(10, Math.min(20, Math.round(Math.min(width, height) / 24)));
  const label = (text: string, x: number, y: number, color: string, key: string) => {
    const w = Math.min(width, Math.round(text.length * fs * 0.62 + fs));
    const h = Math.round(fs * 1.5);
    const gap = Math.round(fs * 0.9);
    let lx = x + gap;
    if (lx + w > width) lx = x - gap - w;
    lx = Math.max(0, Math.min(width - w, lx));
    let ly = y - gap - h;
    if (ly < 0) ly = y + gap;
    ly = Math.max(0, Math.min(height - h, ly));
    return (
      <g key={key} data-testid="overlay-call" data-call={text}>
        <rect x={lx} y={ly} width={w} height={h} rx={fs * 0.3} fill="rgba(0,0,0,0.72)" stroke={color} />
        <text x={lx + fs / 2} y={ly + h * 0.72} fill="#fff" fontSize={fs} fontFamily="monospace">
          {text}
        </text>
      </g>
    );
  };

  let last: { x: number; y: number } | null = null;
  drawn.forEach(({ wire: a, index: i, color, call }, n) => {
    const p = a.parameters ?? {};
    const type = a.action_type ?? '';
    const x = typeof p.x === 'number' ? p.x : null;
    const y = typeof p.y === 'number' ? p.y : null;
    const key = (text: string) => keys.push({ text, color: colors?.[i] ?? CYAN });
    if (a.action && !call) key(a.action);
    if (type === 'PRESS' || type === 'KEY_DOWN' || type === 'KEY_UP')
      key(`${type === 'PRESS' ? '' : type === 'KEY_DOWN' ? '↓' : '↑'}${String(p.key)}`);
    if (type === 'HOTKEY' && Array.isArray(p.keys)) key((p.keys as string[]).join('+'));
    if (type === 'TYPING') key(`“${String(p.text).slice(0, 20)}”`);
    if (x === null || y === null) return;
    const k = call ? `${i}-${call.part}` : `${i}`;
    if (type === 'DRAG_TO' && last) {
      marks.push(
        <line
          key={`d${k}`}
          x1={last.x}
          y1={last.y}
          x2={x}
          y2={y}
          stroke={color}
          strokeWidth={4}
          strokeDasharray="10 6"
          markerEnd="url(#arrow)"
          data-testid="overlay-drag"
        />,
      );
    }
    if (type === 'CLICK' || type === 'DOUBLE_CLICK' || type === 'RIGHT_CLICK') {
      marks.push(
        <g key={`c${k}`} data-testid="overlay-click" data-x={x} data-y={y}>
          <circle cx={x} cy={y} r={22} fill="none" stroke={color} strokeWidth={4} />
          <circle cx={x} cy={y} r={5} fill={color} />
          {!call && (
            <text x={x + 26} y={y - 10} fill={color} fontSize={20} fontWeight="bold" stroke="#000" strokeWidth={0.6}>
              {labels?.[i] ?? i + 1}
            </text>
          )}
        </g>,
      );
    }
    if (type === 'MOVE_TO')
      marks.push(
        <path
          key={`m${k}`}
          d={`M${x} ${y} l12 30 l6 -12 l12 -4 z`}
          fill={color}
          stroke="#000"
          data-testid="overlay-move"
        />,
      );
    // The call's text by its first mark on the frame; later marks of the call are drawn unlabelled.
    if (call && !labelled.has(i)) {
      labelled.add(i);
      marks.push(label(call.text, x, y, color, `l${n}`));
    }
    last = { x, y };
  });
  return (
    <svg
      className="overlay"
      viewBox={`0 0 ${width} ${height}`}
      preserveAspectRatio="xMidYMid meet"
      aria-label="actions overlay"
    >
      <defs>
        <marker
          id="arrow"
          viewBox="0 0 10 10"
          refX="8"
          refY="5"
          markerWidth="6"
          markerHeight="6"
          orient="auto-start-reverse"
        >
          <path d="M 0 0 L 10 5 L 0 10 z" fill={CYAN} />
        </marker>
      </defs>
      {marks}
      {captions.map((c, j) =>
        label(c.text, 0, height - (keys.length ? 60 : 8) - j * Math.round(fs * 1.8), c.color, `cap${j}`),
      )}
      {keys.length > 0 && (
        <g>
          {keys.map((k, i) => (
            <g key={`k${i}`} transform={`translate(${12 + i * 120}, ${height - 52})`} data-testid="overlay-key">
              <rect width={110} height={40} rx={8} fill="rgba(0,0,0,0.72)" stroke={k.color} />
              <text x={55} y={27} fill="#fff" fontSize={20} textAnchor="middle">
                {k.text.slice(0, 10)}
              </text>
            </g>
          ))}
        </g>
      )}
    </svg>
  );
}
