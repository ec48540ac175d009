/** The report's pieces that need no display: escaping into the page and into CSV, and what a runs folder counts. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { escapeHtml, scriptJson } from '../../electron/report/html.ts';
import { reportCsv } from '../../electron/report/csv.ts';
import { buildReport } from '../../electron/report/build.ts';
import { reportTables } from '../../electron/report/view.ts';

function run(root: string, id: string, extra: Record<string, unknown>) {
  mkdirSync(path.join(root, id));
  writeFileSync(
    path.join(root, id, 'run.json'),
    JSON.stringify({
      id,
      created: '2026-11-30T00:00:00.000Z',
      status: 'completed',
      kind: 'agent',
      game: 'tictactoe',
      target: { kind: 'builtin', label: 'Tic-Tac-Toe' },
      agent: 'vlm',
      model: 'm',
      action_space: 'gui',
      config: { latency: 'normal' },
      episodes: [],
      mean: null,
      std: null,
      totals: { steps: 0, tokens_in: 0, tokens_out: 0, cost_usd: null },
      ...extra,
    }),
  );
}

describe('the report', () => {
  it('inlines JSON that cannot end its script element and reads back the same', () => {
    const value = { model: '</script><script>alert(1)</script> & <!-- \u2028\u2029', n: [1, -2.5] };
    const text = scriptJson(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
    expect(escapeHtml(`<b a="x">'&`)).not.toMatch(/[<>"'&](?!#)/);
  });

  it('writes CSV cells a spreadsheet reads as text: quoted, formulas defused, numbers as they are', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-report-unit-'));
    run(root, 'a', {
      model: '=HYPERLINK("http://x","y"), z',
      episodes: [
        { episode: 0, seed: 0, score: 40, steps: 1, end: 'game_over' },
        { episode: 1, seed: 1, score: 60, steps: 1, end: 'game_over' },
      ],
    });
    const csv = reportCsv(buildReport(root))['gameverse.csv']!.split('\r\n');
    expect(csv[1]).toBe(
      `tictactoe,Tic-Tac-Toe,markov-grid,easy,vlm,"'=HYPERLINK(""http://x"",""y""), z","'=HYPERLINK(""http://x"",""y""), z",No,,gui,normal,50,14.14,2,1`,
    );
  });

  it('counts completed runs only, skips damaged files and ING-VP runs without metrics, each with a warning', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-report-unit-'));
    const ep = [{ episode: 0, seed: 0, score: 10, steps: 1, end: 'game_over' }];
    run(root, 'done', { episodes: ep });
    run(root, 'stopped', { status: 'stopped', episodes: ep });
    run(root, 'ingvp-bad', { suite: 'ingvp', setting: 'one-step-text' });
    mkdirSync(path.join(root, 'broken'));
    writeFileSync(path.join(root, 'broken', 'run.json'), '{');
    const data = buildReport(root);
    expect(data.runs).toEqual({ counted: 1, left_out: 2, damaged: 1 });
    expect(data.warnings).toEqual([
      expect.stringMatching(/broken/),
      expect.stringMatching(/skipped ING-VP run ingvp-bad: it names no game, setting or metrics/),
    ]);
    expect(data.gameverse.rows.map((r) => [r.label, r.cells.tictactoe?.n])).toEqual([['m', 1]]);
    const empty = reportTables(data)
      .filter((t) => !t.rows.length)
      .map((t) => t.id);
    expect(empty).toEqual(['gains', 'ingvp', 'idc', 'latency', 'cost']);
  });
});
