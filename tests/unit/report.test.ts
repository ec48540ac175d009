/** The report's pieces that need no display: escaping into the page and into CSV, and what a runs folder counts. */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptJson } from '../../electron/report/html.ts';
import { escapeHtml } from '../../electron/util/escape-html.ts';
import { reportCsv } from '../../electron/report/csv.ts';
import { buildReport } from '../../electron/report/build.ts';
import { reportTables } from '../../electron/report/view.ts';

function run(root: string, id: string, extra: Record<string, unknown>) {
  mkdirSync(path.join(root, id), { recursive: true });
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

/** An ING-VP level run as `gamepilot suite ingvp` writes it: its metrics `m` in the `ingvp` block. */
const ingvpLevel = (dir: string, id: string, agent: string, model: string | null, m: Record<string, unknown>) =>
  run(dir, id, {
    game: m.game,
    agent,
    model,
    target: { kind: 'builtin', label: String(m.game) },
    action_space: `ingvp:${m.setting}`,
    config: { suite: 'ingvp', setting: m.setting, level: m.level, step_limit: 50 },
    episodes: [{ episode: 0, seed: 0, score: m.completion, steps: 1, end: m.solved ? 'solved' : 'step_limit' }],
    mean: m.completion,
    std: 0,
    ingvp: { suite: 'ingvp', steps: 1, unparsable: 0, dropped: 0, ...m },
  });

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
      `tictactoe,Tic-Tac-Toe,builtin,markov-grid,easy,vlm,"'=HYPERLINK(""http://x"",""y""), z","'=HYPERLINK(""http://x"",""y""), z",No,,gui,normal,50,14.14,2,1,1,,0,,,0,normal,0,`,
    );
  });

  it('keeps an assisted run (a person took over) in rows of its own, never pooled with the agent’s', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-report-assisted-'));
    const episodes = (score: number) => [{ episode: 0, seed: 0, score, steps: 1, end: 'game_over' }];
    run(root, 'own', { episodes: episodes(20) });
    run(root, 'helped', { episodes: episodes(90), assisted: true, takeovers: [], human_steps: 3, human_ms: 900 });
    const { gameverse } = buildReport(root);
    const cells = (rows: typeof gameverse.rows) => rows.map((r) => [r.label, r.assisted, r.cells.tictactoe?.mean]);
    // Table 3 and its rank pool hold the agent's own play; the assisted row is in its own table only.
    expect(cells(gameverse.rows)).toEqual([['m', false, 20]]);
    expect(gameverse.rows[0]!.avg_rank).toBe(1);
    expect(cells(gameverse.assisted)).toEqual([['m (assisted)', true, 90]]);
    expect(gameverse.assisted[0]).toMatchObject({ avg_rank: null, not_ranked: 'assisted: a person took the controls' });
    const csv = reportCsv(buildReport(root));
    expect(csv['gameverse.csv']).not.toMatch(/assisted/);
    expect(csv['assisted.csv']).toMatch(/m \(assisted\)/);
  });

  it('keys a window title by its action space: Table 4 pairs its GUI and semantic cells, Table 5 lists the semantic one', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-report-sem-'));
    const birds = {
      game: null,
      target: { kind: 'window', label: 'Angry Birds' },
      profile: {
        id: 'angry-birds',
        title: 'Angry Birds',
        category: 'nonrealtime-linear',
        tier: 'medium',
        scoring: { kind: 'screen' },
        hash: 'h1',
      },
      reflection: { mode: 'none', reflector_model: null, lessons: [] },
    };
    const episodes = (a: number, b: number) => [
      { episode: 0, seed: 0, score: a, steps: 1, end: 'max_steps' },
      { episode: 1, seed: 1, score: b, steps: 1, end: 'max_steps' },
    ];
    run(root, 'gui', { ...birds, episodes: episodes(20, 40) });
    run(root, 'sem', { ...birds, action_space: 'semantic', episodes: episodes(50, 70) });
    const { paired, reflection } = buildReport(root).gameverse;
    expect(paired.games).toEqual(['angry-birds']);
    expect(paired.rows).toHaveLength(1);
    expect(paired.rows[0]!.cells['angry-birds']).toMatchObject({ gui: { mean: 30 }, semantic: { mean: 60 } });
    expect(reflection.rows).toEqual([
      expect.objectContaining({ mode: 'No', cells: { 'angry-birds': expect.objectContaining({ mean: 60 }) } }),
    ]);
  });

  it('counts completed runs only, skips damaged files and ING-VP runs without metrics, each with a warning', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-report-unit-'));
    const ep = [{ episode: 0, seed: 0, score: 10, steps: 1, end: 'game_over' }];
    run(root, 'done', { episodes: ep });
    run(root, 'stopped', { status: 'stopped', episodes: ep });
    run(root, 'ingvp-bad', {
      game: 'sokoban',
      action_space: 'ingvp:one-step-text',
      config: { suite: 'ingvp', setting: 'one-step-text', level: 1, step_limit: 50 },
      episodes: ep,
      ingvp: { suite: 'ingvp', game: 'sokoban', level: 1, setting: 'one-step-text', solved: 'yes' },
    });
    mkdirSync(path.join(root, 'broken'));
    writeFileSync(path.join(root, 'broken', 'run.json'), '{');
    const data = buildReport(root);
    expect(data.runs).toEqual({ counted: 1, left_out: 2, damaged: 1 });
    expect(data.warnings).toEqual([
      expect.stringMatching(/broken/),
      expect.stringMatching(/skipped ING-VP run ingvp-bad: its run.json has no valid "ingvp" metrics \(solved: /),
    ]);
    expect(data.gameverse.rows.map((r) => [r.label, r.cells.tictactoe?.n])).toEqual([['m', 1]]);
    const empty = reportTables(data)
      .filter((t) => !t.rows.length)
      .map((t) => t.id);
    expect(empty).toEqual([
      'assisted',
      'paired',
      'reflection',
      'gains',
      'ingvp-main',
      'ingvp-maze-study',
      'ingvp',
      'idc',
      'idc-transfer',
      'latency',
      'latency-kinds',
      'cost',
      'failed',
      'invalid',
      'arenas',
      'errors-ingvp',
      'error-agreement',
    ]);
  });

  it('reads ING-VP level runs from the suite folders in the runs folder, one level deep, and none through a symlink', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-report-unit-'));
    const level = ingvpLevel;
    const suite = (dir: string) => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'suite.json'), '{"suite": "ingvp", "agent": "vlm", "model": "m", "results": {}}');
    };
    const setting = 'multi-step-text';
    // A suite folder as `gamepilot suite ingvp --out <root>/ingvp` leaves it: two Sokoban levels, one of Hanoi.
    suite(path.join(root, 'ingvp'));
    const sokoban = { game: 'sokoban', setting };
    const solved = { ...sokoban, level: 1, solved: true, completion: 100, efficiency: 100, actions: 4, changed: 4 };
    level(path.join(root, 'ingvp', 'runs'), 'l1', 'vlm', 'm', solved);
    level(path.join(root, 'ingvp', 'runs'), 'l2', 'vlm', 'm', {
      ...sokoban,
      level: 2,
      solved: false,
      completion: 62.5,
      efficiency: 10,
      actions: 50,
      changed: 5,
    });
    level(path.join(root, 'ingvp', 'runs'), 'l3', 'vlm', 'm', {
      game: 'hanoi',
      setting,
      level: 1,
      solved: false,
      completion: 25,
      efficiency: 0,
      actions: 50,
      changed: 0,
    });
    // Not read: a folder without suite.json, a suite two levels down, a suite reached through a symlink.
    const unsolved = { ...sokoban, level: 3, solved: false, completion: 0, efficiency: 0, actions: 50, changed: 0 };
    level(path.join(root, 'other', 'runs'), 'x1', 'vlm', 'm', unsolved);
    suite(path.join(root, 'other', 'deep'));
    level(path.join(root, 'other', 'deep', 'runs'), 'x2', 'vlm', 'm', unsolved);
    const outside = mkdtempSync(path.join(tmpdir(), 'gp-report-outside-'));
    suite(outside);
    level(path.join(outside, 'runs'), 'x3', 'vlm', 'm', unsolved);
    symlinkSync(outside, path.join(root, 'linked'));
    // A level run straight in the runs folder counts too (another player: the solver).
    level(root, 's1', 'solver', null, solved);

    const data = buildReport(root);
    expect(data.warnings).toEqual([expect.stringMatching(/linked is a symbolic link/)]);
    expect(data.runs).toEqual({ counted: 4, left_out: 0, damaged: 1 }); // refused: the symlinked suite
    expect(data.gameverse.rows).toEqual([]);
    const cells = data.ingvp.map((r) => [
      r.game,
      r.label,
      r.levels,
      r.accuracy,
      r.completion,
      r.efficiency,
      r.efficiency_pooled,
    ]);
    // Efficiency is the mean over levels of changed / all actions; pooled is all changed / all actions.
    expect(cells).toEqual([
      ['sokoban', 'Solver', 1, 100, 100, 100, 100],
      ['sokoban', 'm', 2, 50, 81.25, 55, 16.67],
      ['hanoi', 'm', 1, 0, 25, 0, 0],
      ['all', 'Solver', 1, 100, 100, 100, 100],
      ['all', 'm', 3, 33.33, 62.5, 36.67, 8.65],
    ]);
    expect(data.ingvp.every((r) => r.setting === setting)).toBe(true);
    const csv = reportCsv(data)['ingvp.csv']!.split('\r\n');
    expect(csv[0]).toBe('game,setting,player,label,model,levels,accuracy,completion,efficiency,efficiency_pooled');
    expect(csv).toContain('sokoban,multi-step-text,vlm,m,m,2,50,81.25,55,16.67');
    // The suite folder itself as the runs folder (`gamepilot report --runs-dir runs/ingvp`).
    const own = buildReport(path.join(root, 'ingvp'));
    expect(own.warnings).toEqual([]);
    expect(own.ingvp.map((r) => [r.game, r.label, r.levels])).toEqual([
      ['sokoban', 'm', 2],
      ['hanoi', 'm', 1],
      ['all', 'm', 3],
    ]);
  });

  it("shows ING-VP §4.3's settings beside the six, out of Overall, and the maze-length study apart", () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-report-ingvp43-'));
    const level = (id: string, m: Record<string, unknown>) => ingvpLevel(root, id, 'vlm', 'm', m);
    const maze = (setting: string, solved: boolean, extra: Record<string, unknown> = {}) => ({
      game: 'ingvp-maze',
      setting,
      level: 1,
      solved,
      completion: solved ? 100 : 0,
      efficiency: solved ? 100 : 0,
      actions: 8,
      changed: solved ? 8 : 0,
      ...extra,
    });
    level('a', maze('multi-step-text', true));
    level('b', maze('best-of-10', false));
    level('c', maze('forced-planning', true));
    // Fig. 4's study levels: 4 moves solved, 12 not, each in multi-step text.
    level('d', maze('multi-step-text', true, { game: 'ingvp-maze-4', maze_steps: 4 }));
    level('e', maze('multi-step-text', false, { game: 'ingvp-maze-12', maze_steps: 12 }));

    const data = buildReport(root);
    expect(data.warnings).toEqual([]);
    // The study levels are not game rows; §4.3's settings are cells like the six.
    expect(data.ingvp.map((r) => [r.game, r.setting, r.levels, r.accuracy])).toEqual([
      ['ingvp-maze', 'multi-step-text', 1, 100],
      ['ingvp-maze', 'best-of-10', 1, 0],
      ['ingvp-maze', 'forced-planning', 1, 100],
      ['all', 'multi-step-text', 1, 100],
      ['all', 'best-of-10', 1, 0],
      ['all', 'forced-planning', 1, 100],
    ]);
    // Overall is over the six only: multi-step text alone here, whatever Best of 10 scored.
    const acc = data.ingvp_main.find((r) => r.metric === 'accuracy')!;
    expect(acc).toMatchObject({ overall: 100, settings: 1 });
    expect(acc.cells).toEqual({ 'multi-step-text': 100, 'best-of-10': 0, 'forced-planning': 100 });
    const tables = new Map(reportTables(data).map((t) => [t.id, t]));
    const main = tables.get('ingvp-main')!;
    expect(main.groups!.map((g) => g.label)).toEqual(['', 'Image-text', 'Text-only', '§4.3 (not in Overall)', '']);
    expect(main.columns.slice(-3).map((c) => c.label)).toEqual(['Best of 10', 'Forced Planning', 'Overall']);
    // "original": the suite's own maze levels, in every setting they were played in.
    expect(data.ingvp_maze_study.map((r) => [r.moves, r.setting, r.levels, r.accuracy])).toEqual([
      ['original', 'multi-step-text', 1, 100],
      ['original', 'best-of-10', 1, 0],
      ['original', 'forced-planning', 1, 100],
      ['4', 'multi-step-text', 1, 100],
      ['12', 'multi-step-text', 1, 0],
    ]);
    expect(tables.get('ingvp-maze-study')!.rows.map((r) => [r.moves, r.accuracy])).toEqual([
      ['original', '100.00'],
      ['original', '0.00'],
      ['original', '100.00'],
      ['4', '100.00'],
      ['12', '0.00'],
    ]);
    expect(reportCsv(data)['ingvp-maze-study.csv']!.split('\r\n')[4]).toBe('4,multi-step-text,vlm,m,m,1,100,100,100');
  });
});
