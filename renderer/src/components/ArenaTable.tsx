/**
 * The Runs tab's arenas: each arena folder in the runs folder (where `gamepilot arena --out`
 * puts `arena-<name>/`), and the chosen one's tables as the report draws them — the player-1
 * win-rate matrix as a heat map whose cells open the run they were counted from, the standings,
 * or co-op's team scores.
 */
import { useEffect, useState } from 'react';
import type { ApiClient, ReportTable, Results } from '../../../electron/api/contract.ts';
import { ErrorList } from './StepLists.tsx';

/** A cell's background for a 0–1 value: the accent colour, stronger as the value grows. */
const heatBackground = (value: number) => `rgba(0, 194, 224, ${(0.08 + value * 0.72).toFixed(3)})`;

function RunLink({ run, text, onOpenRun }: { run: string; text: string; onOpenRun?: (id: string) => void }) {
  if (!onOpenRun) return <span title={`run ${run}`}>{text}</span>;
  return (
    <button type="button" className="link-button" title={`open run ${run}`} onClick={() => onOpenRun(run)}>
      {text}
    </button>
  );
}

/** What a report table without rows says instead. */
export function TableEmpty({ table }: { table: ReportTable }) {
  return (
    <p className="muted" data-testid={`report-empty-${table.id}`}>
      {table.empty}
    </p>
  );
}

/** A report table whose `heat` cells are shaded by their value and name (or open) their run; a `run` column opens its run. */
export function HeatTable({ table, onOpenRun }: { table: ReportTable; onOpenRun?: (id: string) => void }) {
  if (!table.rows.length) return <TableEmpty table={table} />;
  return (
    <div className="report-wide">
      <table className="report-table heat-table" data-testid={`report-table-${table.id}`}>
        <thead>
          <tr>
            {table.columns.map((c) => (
              <th key={c.key}>{c.label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((r, i) => (
            <tr key={i}>
              {table.columns.map((c) => {
                const text = String(r[c.key] ?? '–');
                const heat = table.heat?.[i]?.[c.key];
                const run = heat ? heat.run : c.key === 'run' && typeof r[c.key] === 'string' ? String(r[c.key]) : null;
                return (
                  <td
                    key={c.key}
                    data-key={c.key}
                    {...(heat ? { 'data-value': heat.value ?? 'none' } : {})}
                    {...(run ? { 'data-run': run } : {})}
                    className={heat ? (heat.value === null ? 'heat heat-off' : 'heat') : undefined}
                    style={heat && heat.value !== null ? { background: heatBackground(heat.value) } : undefined}
                  >
                    {run ? <RunLink run={run} text={text} {...(onOpenRun ? { onOpenRun } : {})} /> : text}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

type Arena = Results['arenas']['arenas'][number];

/** The arenas of the runs folder; nothing when there are none. */
export function ArenaPanel({
  client,
  refreshKey,
  onOpenRun,
}: {
  client: ApiClient;
  refreshKey: number;
  onOpenRun: (id: string) => void;
}) {
  const [arenas, setArenas] = useState<Arena[]>([]);
  const [warnings, setWarnings] = useState<string[]>([]);
  const [chosen, setChosen] = useState<string | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey is the parent's signal to load the arenas again
  useEffect(() => {
    client.request('arenas').then(
      (r) => {
        setArenas(r.arenas);
        setWarnings(r.warnings);
      },
      (e: Error) => setWarnings([`cannot read the arenas: ${e.message}`]),
    );
  }, [client, refreshKey]);
  if (!arenas.length && !warnings.length) return null;
  const shown = arenas.find((a) => a.id === chosen) ?? arenas[0];
  return (
    <section className="arenas" aria-label="arenas" data-testid="arenas">
      <h2>Arenas</h2>
      <ErrorList items={warnings} />
      <table className="run-table">
        <thead>
          <tr>
            <th>Arena</th>
            <th>Game</th>
            <th>Setting</th>
            <th>Agents</th>
            <th>Trials</th>
            <th>Latency</th>
            <th>Not completed</th>
          </tr>
        </thead>
        <tbody>
          {arenas.map((a) => (
            <tr
              key={a.id}
              tabIndex={0}
              aria-selected={a === shown}
              className={a === shown ? 'chosen' : undefined}
              onClick={() => setChosen(a.id)}
              onKeyDown={(e) => e.key === 'Enter' && setChosen(a.id)}
              data-testid="arena-row"
            >
              <td>{a.id}</td>
              <td>{a.game}</td>
              <td>{a.mode === 'pvp' ? 'PvP' : 'co-op'}</td>
              <td>{a.agents.join(', ')}</td>
              <td>{a.trials}</td>
              <td>{a.latency}</td>
              <td>{a.missing.length ? a.missing.length : '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown?.tables.map((t) => (
        <section key={t.id} aria-label={t.title}>
          <h3>{t.title}</h3>
          <p className="muted">{t.note}</p>
          <HeatTable table={t} onOpenRun={onOpenRun} />
        </section>
      ))}
    </section>
  );
}
