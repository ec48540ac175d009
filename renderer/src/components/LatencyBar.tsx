/** One step's time, split into its stages. */
const STAGES: [string, string][] = [
  ['locate', '#8e8e93'],
  ['capture', '#34c759'],
  ['encode', '#30b0c7'],
  ['model', '#af52de'],
  ['act', '#ff9f0a'],
];

export function LatencyBar({ latency }: { latency: Record<string, number> | undefined }) {
  if (!latency) return <div className="latency empty">latency appears after the first step</div>;
  const total = STAGES.reduce((n, [k]) => n + (latency[k] ?? 0), 0) || 1;
  return (
    <div className="latency" role="img" aria-label={`step took ${Math.round(latency.total ?? total)} ms`}>
      <div className="bar">
        {STAGES.map(([k, c]) => (
          <span
            key={k}
            style={{ width: `${((latency[k] ?? 0) / total) * 100}%`, background: c }}
            title={`${k} ${latency[k]} ms`}
          />
        ))}
      </div>
      <div className="legend">
        {STAGES.map(([k, c]) => (
          <span key={k}>
            <i style={{ background: c }} /> {k} {Math.round(latency[k] ?? 0)} ms
          </span>
        ))}
        <b>total {Math.round(latency.total ?? total)} ms</b>
      </div>
    </div>
  );
}
