/** The Runs tab's report: the same tables and charts as `gamepilot report`'s page, from the contract. */
import { useEffect, useRef, useState } from 'react';
import { Chart } from 'chart.js/auto';
import type { ApiClient, ReportChart, ReportTable, Results } from '../../../electron/api/contract.ts';
import { HeatTable, TableEmpty } from './ArenaTable.tsx';

function ChartCanvas({ chart, whisker }: { chart: ReportChart; whisker: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const config = structuredClone(chart.config) as { type: string; data: unknown; options?: Record<string, unknown> };
    const options = config.options ?? {};
    const plugins = (options.plugins as Record<string, unknown> | undefined) ?? {};
    options.plugins = {
      ...plugins,
      legend: { labels: { filter: (item: { text: string }) => !item.text.endsWith(whisker) } },
    };
    config.options = options;
    const drawn = new Chart(canvas.current, config as ConstructorParameters<typeof Chart>[1]);
    return () => drawn.destroy();
  }, [chart, whisker]);
  return (
    <div className="report-chart">
      <canvas ref={canvas} data-testid={`report-chart-${chart.id}`} role="img" aria-label={chart.title} />
    </div>
  );
}

function Table({ table }: { table: ReportTable }) {
  if (table.heat) return <HeatTable table={table} />;
  if (!table.rows.length) return <TableEmpty table={table} />;
  return (
    <div className="report-wide">
      <table className="run-table report-table" data-testid={`report-table-${table.id}`}>
        <thead>
          {table.groups && (
            <tr>
              {table.groups.map((g, i) => (
                <th key={i} colSpan={g.span}>
                  {g.label}
                </th>
              ))}
            </tr>
          )}
          <tr>
            {table.columns.map((c) => (
              <th key={c.key}>{c.label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((r, i) => (
            <tr key={i}>
              {table.columns.map((c) => (
                <td key={c.key} data-key={c.key}>
                  {r[c.key] ?? '–'}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ReportPanel({ client, refreshKey }: { client: ApiClient; refreshKey: number }) {
  const [report, setReport] = useState<Results['report'] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey is the parent's signal to load the report again
  useEffect(() => {
    client.request('report').then(
      (r) => {
        setReport(r);
        setError(null);
      },
      (e: Error) => setError(`cannot make the report: ${e.message}`),
    );
  }, [client, refreshKey]);
  if (error)
    return (
      <div className="errors" role="alert">
        {error}
      </div>
    );
  if (!report) return <p className="muted">Making the report…</p>;
  return (
    <div className="report" data-testid="report">
      <p className="muted">
        {report.runs.counted} run(s) counted, {report.runs.left_out} left out, {report.runs.damaged} damaged — the same
        report as <code>gamepilot report</code>.
      </p>
      {report.tables.map((t) => (
        <section key={t.id} aria-label={t.title}>
          <h3>{t.title}</h3>
          <p className="muted">{t.note}</p>
          <Table table={t} />
          {report.charts
            .filter((c) => c.section === t.id)
            .map((c) => (
              <ChartCanvas key={c.id} chart={c} whisker={report.whisker} />
            ))}
        </section>
      ))}
    </div>
  );
}
