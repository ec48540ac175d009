/** Where the model acted, drawn over the frame it saw: clicks, drags, pointer moves, keys. */
import type { ReactElement } from 'react';
interface WireAction {
  action_type?: string;
  action?: string;
  parameters?: Record<string, unknown>;
}

export function Overlay({
  width,
  height,
  actions,
  refused,
}: {
  width: number;
  height: number;
  actions: unknown[];
  refused: boolean;
}) {
  const marks: ReactElement[] = [];
  const keys: string[] = [];
  let last: { x: number; y: number } | null = null;
  (actions as WireAction[]).forEach((a, i) => {
    const p = a.parameters ?? {};
    const type = a.action_type ?? '';
    const x = typeof p.x === 'number' ? p.x : null;
    const y = typeof p.y === 'number' ? p.y : null;
    const color = refused && i === actions.length - 1 ? '#ff3b30' : '#00e0ff';
    if (a.action) keys.push(a.action);
    if (type === 'PRESS' || type === 'KEY_DOWN' || type === 'KEY_UP')
      keys.push(`${type === 'PRESS' ? '' : type === 'KEY_DOWN' ? '↓' : '↑'}${String(p.key)}`);
    if (type === 'HOTKEY' && Array.isArray(p.keys)) keys.push((p.keys as string[]).join('+'));
    if (type === 'TYPING') keys.push(`“${String(p.text).slice(0, 20)}”`);
    if (x === null || y === null) return;
    if (type === 'DRAG_TO' && last) {
      marks.push(
        <line
          key={`d${i}`}
          x1={last.x}
          y1={last.y}
          x2={x}
          y2={y}
          stroke={color}
          strokeWidth={4}
          strokeDasharray="10 6"
          markerEnd="url(#arrow)"
        />,
      );
    }
    if (type === 'CLICK' || type === 'DOUBLE_CLICK' || type === 'RIGHT_CLICK') {
      marks.push(
        <g key={`c${i}`}>
          <circle cx={x} cy={y} r={22} fill="none" stroke={color} strokeWidth={4} />
          <circle cx={x} cy={y} r={5} fill={color} />
          <text x={x + 26} y={y - 10} fill={color} fontSize={20} fontWeight="bold" stroke="#000" strokeWidth={0.6}>
            {i + 1}
          </text>
        </g>,
      );
    }
    if (type === 'MOVE_TO')
      marks.push(<path key={`m${i}`} d={`M${x} ${y} l12 30 l6 -12 l12 -4 z`} fill={color} stroke="#000" />);
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
          <path d="M 0 0 L 10 5 L 0 10 z" fill="#00e0ff" />
        </marker>
      </defs>
      {marks}
      {keys.length > 0 && (
        <g>
          {keys.map((k, i) => (
            <g key={`k${i}`} transform={`translate(${12 + i * 120}, ${height - 52})`}>
              <rect width={110} height={40} rx={8} fill="rgba(0,0,0,0.72)" stroke="#00e0ff" />
              <text x={55} y={27} fill="#fff" fontSize={20} textAnchor="middle">
                {k.slice(0, 10)}
              </text>
            </g>
          ))}
        </g>
      )}
    </svg>
  );
}
