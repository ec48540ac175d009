/**
 * The report as one self-contained HTML page: tables written out as HTML, charts drawn by
 * chart.js (its UMD bundle inlined), the data inlined as JSON. Nothing is fetched: a strict
 * CSP allows only the page's own scripts and style by hash. Every text from run files is
 * escaped — as HTML in the tables, and against `</script>` in the inlined JSON.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ReportTable } from '../domain.ts';
import { escapeHtml } from '../util/escape-html.ts';
import type { ReportView } from './model.ts';
import { WHISKER_SUFFIX } from './view.ts';

let chartBundle: string | undefined;
/** chart.js's UMD bundle, without its source-map comment (the page fetches nothing). */
function chartJs(): string {
  if (chartBundle === undefined) {
    const dist = path.dirname(createRequire(import.meta.url).resolve('chart.js'));
    chartBundle = readFileSync(path.join(dist, 'chart.umd.min.js'), 'utf8').replace(
      /\n?\/\/# sourceMappingURL=\S*\s*$/,
      '\n',
    );
  }
  return chartBundle;
}

/** JSON safe inside a <script> element: no `<`, `>` or `&` (so no `</script>` or `<!--`), no line separators. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A heat-map cell's class for a 0–1 value: h0 … h10, the background darker as the value grows. */
export const heatClass = (value: number) => `h${Math.round(Math.min(1, Math.max(0, value)) * 10)}`;
const HEAT_STYLE = Array.from(
  { length: 11 },
  (_, k) =>
    `td.h${k} { background: rgba(33, 102, 172, ${((k / 10) * 0.85).toFixed(3)});${k >= 6 ? ' color: #fff;' : ''} }`,
).join('\n');

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #1d1d1f; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 4px; }
.meta, .note { color: #555; margin: 2px 0 8px; } .empty { color: #8a5a00; font-style: italic; }
.warnings { color: #8a1f11; }
table { border-collapse: collapse; margin: 6px 0 12px; font-variant-numeric: tabular-nums; }
.wide { overflow-x: auto; max-width: 100%; }
th, td { border: 1px solid #d0d0d7; padding: 3px 8px; text-align: left; white-space: nowrap; }
thead th { background: #f2f2f6; } thead tr.groups th { background: #e4e7f0; text-align: center; }
.chart { position: relative; height: 340px; max-width: 1100px; margin: 8px 0 20px; }
td.heat { text-align: center; }
td.not-played { color: #777; background: repeating-linear-gradient(45deg, #f4f4f4 0 6px, #e6e6e6 6px 12px); }
${HEAT_STYLE}`;

const PAGE_SCRIPT = `(function () {
  var view = JSON.parse(document.getElementById('report-data').textContent);
  view.charts.forEach(function (c) {
    var config = c.config;
    config.options = config.options || {};
    config.options.plugins = config.options.plugins || {};
    config.options.plugins.legend = {
      labels: { filter: function (item) { return item.text.slice(-view.whisker.length) !== view.whisker; } },
    };
    new Chart(document.getElementById('chart-' + c.id), config);
  });
  document.body.setAttribute('data-charts-drawn', String(view.charts.length));
})();`;

const sha256 = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

function tableHtml(t: ReportTable): string {
  if (!t.rows.length) return `<p class="empty" data-empty="${escapeHtml(t.id)}">${escapeHtml(t.empty)}</p>`;
  const text = (v: string | number | null | undefined) => escapeHtml(v === null || v === undefined ? '–' : String(v));
  const groups = t.groups
    ? `<tr class="groups">${t.groups.map((g) => `<th colspan="${g.span}">${escapeHtml(g.label)}</th>`).join('')}</tr>`
    : '';
  const head = `<tr>${t.columns.map((c) => `<th data-key="${escapeHtml(c.key)}">${escapeHtml(c.label)}</th>`).join('')}</tr>`;
  const heatAttrs = (i: number, key: string) => {
    const h = t.heat?.[i]?.[key];
    if (!h) return '';
    const run = h.run === null ? '' : ` data-run="${escapeHtml(h.run)}" title="run ${escapeHtml(h.run)}"`;
    return h.value === null
      ? ` class="heat not-played"${run}`
      : ` class="heat ${heatClass(h.value)}" data-value="${h.value}"${run}`;
  };
  const body = t.rows
    .map(
      (r, i) =>
        `<tr>${t.columns.map((c) => `<td data-key="${escapeHtml(c.key)}"${heatAttrs(i, c.key)}>${text(r[c.key])}</td>`).join('')}</tr>`,
    )
    .join('\n');
  // A wide table (Table 3 has a column per title) scrolls inside its box; the page keeps its width.
  return `<div class="wide"><table id="table-${escapeHtml(t.id)}"><thead>${groups}${head}</thead><tbody>\n${body}\n</tbody></table></div>`;
}

export function reportHtml(view: ReportView): string {
  const { data } = view;
  const sections = view.tables
    .map((t) => {
      const charts = view.charts
        .filter((c) => c.section === t.id)
        .map(
          (c) =>
            `<div class="chart"><canvas id="chart-${escapeHtml(c.id)}" role="img" aria-label="${escapeHtml(c.title)}"></canvas></div>`,
        )
        .join('\n');
      return `<section id="${escapeHtml(t.id)}">
<h2>${escapeHtml(t.title)}</h2>
<p class="note">${escapeHtml(t.note)}</p>
${tableHtml(t)}
${charts}
</section>`;
    })
    .join('\n');
  const warnings = data.warnings.length
    ? `<details class="warnings"><summary>${data.warnings.length} warning(s)</summary><ul>${data.warnings
        .map((w) => `<li>${escapeHtml(w)}</li>`)
        .join('')}</ul></details>`
    : '';
  const bundle = chartJs();
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(bundle)} ${sha256(PAGE_SCRIPT)}`,
    `style-src ${sha256(STYLE)}`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gamepilot report</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Gamepilot report</h1>
<p class="meta">Generated ${escapeHtml(data.generated)} from ${escapeHtml(data.runs_dir)}: ${data.runs.counted} run(s) counted, ${data.runs.left_out} left out (not completed, demos, IDC rounds, two-seat matches), ${data.runs.damaged} damaged; ${data.arenas.length} arena(s).</p>
${warnings}
${sections}
<script type="application/json" id="report-data">${scriptJson({ whisker: WHISKER_SUFFIX, data, charts: view.charts })}</script>
<script>${bundle}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
