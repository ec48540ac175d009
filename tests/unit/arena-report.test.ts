/**
 * Arenas in the report and the Runs tab, over run folders written by the project's RunStore: the
 * player-1 win-rate matrix (each cell "rate (W–D–L, n)", shaded by its rate, naming its run), the
 * standings, co-op team scores; two-seat runs listed apart from the single-agent tables; an arena
 * run opened by the id a cell names.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore, type EpisodeSummary } from '../../electron/store/run-store.ts';
import { buildReport } from '../../electron/report/build.ts';
import { reportTables } from '../../electron/report/view.ts';
import { reportHtml } from '../../electron/report/html.ts';
import { reportCsv } from '../../electron/report/csv.ts';
import { readArenaSpec } from '../../electron/arena/tables.ts';
import { reportView } from '../../electron/report/view.ts';
import { leaderboard } from '../../electron/store/leaderboard.ts';
import { libraryHandlers } from '../../electron/api/library.ts';

const AGENTS = ['solver', 'random', 'vlm:m'];

/** An arena folder as `gamepilot arena` starts it: arena.json with its spec. */
function arenaFolder(root: string, name: string, spec: Record<string, unknown>): string {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'arena.json'),
    JSON.stringify({
      spec: { trials: 2, mixed: false, latency: 'stop', action_space: 'semantic', max_steps: null, seed: 0, ...spec },
    }),
  );
  return dir;
}

/** A match run written by the RunStore, as a seated session leaves it. */
function matchRun(
  runsDir: string,
  game: string,
  p1: string,
  p2: string,
  episodes: { winner?: number | null; score: number; end?: string }[],
  status: 'completed' | 'failed' = 'completed',
  inArena = true,
): string {
  const store = RunStore.create(runsDir, {
    kind: 'agent',
    game,
    target: { kind: 'builtin', label: game },
    agent: `${p1} vs ${p2}`,
    model: null,
    action_space: 'semantic',
    config: { latency: 'stop' },
    seats: [
      { seat: 0, name: 'X', agent: p1, model: null },
      { seat: 1, name: 'O', agent: p2, model: null },
    ],
    ...(inArena ? { arena: { match: `${p1}__${p2}`.replace(/[^\w.-]+/g, '_'), p1, p2 } } : {}),
  });
  const eps: EpisodeSummary[] = episodes.map((e, i) => ({
    episode: i,
    seed: i,
    score: e.score,
    steps: 3,
    end: e.end ?? 'game_over',
    ...(e.winner !== undefined ? { winner: e.winner, seat_scores: [e.score, 100 - e.score] } : {}),
  }));
  store.close(status, undefined, { episodes: eps, mean: eps.reduce((a, e) => a + (e.score ?? 0), 0) / eps.length });
  return path.basename(store.dir);
}

type Outcome = { winner?: number | null; score: number; end?: string };
const win: Outcome = { winner: 0, score: 100 };
const loss: Outcome = { winner: 1, score: 0 };
const draw: Outcome = { winner: null, score: 50 };
/** The step limit ended the game before it was decided: no winner, counted as a draw, and said so. */
const limitDraw: Outcome = { score: 50, end: 'max_steps' };

describe('arenas in the report', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'gp-arena-report-'));
  const pvp = arenaFolder(root, 'arena-ttt', { game: 'tictactoe-pvp', mode: 'pvp', agents: AGENTS });
  const runs = path.join(pvp, 'runs');
  // Row = player 1: what player 1 did in each of its two games.
  const played: Record<string, Outcome[]> = {
    'solver|random': [win, win],
    'solver|vlm:m': [win, draw],
    'random|solver': [loss, draw],
    'random|vlm:m': [win, loss],
    'vlm:m|solver': [draw, limitDraw],
  };
  const ids = new Map<string, string>();
  for (const [pair, eps] of Object.entries(played)) {
    const [p1, p2] = pair.split('|') as [string, string];
    ids.set(pair, matchRun(runs, 'tictactoe-pvp', p1, p2, eps));
  }
  // vlm:m as player 1 against random failed part-way: its cell is empty, the match missing.
  matchRun(runs, 'tictactoe-pvp', 'vlm:m', 'random', [win], 'failed');
  const coop = arenaFolder(root, 'arena-switches', { game: 'switches', mode: 'coop', agents: ['solver'], trials: 1 });
  const coopRun = matchRun(path.join(coop, 'runs'), 'switches', 'solver', 'solver', [{ score: 100 }, { score: 60 }]);
  // A two-seat run among ordinary ones, and an ordinary run.
  const loose = matchRun(root, 'tictactoe-pvp', 'solver', 'random', [win], 'completed', false);
  const single = RunStore.create(root, {
    kind: 'agent',
    game: 'tictactoe',
    target: { kind: 'builtin', label: 'Tic-Tac-Toe' },
    agent: 'solver',
    model: null,
    action_space: 'gui',
    config: { latency: 'normal' },
  });
  single.close('completed', undefined, {
    episodes: [{ episode: 0, seed: 0, score: 100, steps: 5, end: 'game_over' }],
    mean: 100,
  });

  const data = buildReport(root);

  it('computes the matrix and standings from the run folders, each cell naming its run', () => {
    expect(data.arenas.map((a) => a.id)).toEqual(['arena-switches', 'arena-ttt']);
    const a = data.arenas[1]!;
    expect(a.agents).toEqual(AGENTS);
    expect(a.missing).toEqual(['vlm_m__random']);
    const expected = AGENTS.map((p1) =>
      AGENTS.map((p2) => {
        if (p1 === p2) return null;
        const eps = played[`${p1}|${p2}`];
        if (!eps) return { games: 0, p1_wins: 0, p2_wins: 0, draws: 0, limit_draws: 0, p1_win_rate: null, run: null };
        const w = eps.filter((e) => e === win).length;
        const l = eps.filter((e) => e === loss).length;
        return {
          games: eps.length,
          p1_wins: w,
          p2_wins: l,
          draws: eps.length - w - l,
          limit_draws: eps.filter((e) => e === limitDraw).length,
          p1_win_rate: w / eps.length,
          run: `arena-ttt/runs/${ids.get(`${p1}|${p2}`)}`,
        };
      }),
    );
    expect(a.matrix).toEqual(expected);
    // solver: W W W D as player 1; W D D D as player 2 → 4 wins of 8 games, no loss.
    expect(a.standings!.find((s) => s.agent === 'solver')).toEqual({
      agent: 'solver',
      games: 8,
      wins: 4,
      losses: 0,
      draws: 4,
      limit_draws: 1,
      win_rate: 0.5,
    });
    expect(data.arenas[0]!.teams).toEqual([
      { p1: 'solver', p2: 'solver', episodes: 2, unreadable: 0, mean: 80, run: `arena-switches/runs/${coopRun}` },
    ]);
  });

  it('draws the matrix as "rate (W–D–L, n)" with a heat map; the diagonal not played', () => {
    const tables = new Map(reportTables(data).map((t) => [t.id, t]));
    const m = tables.get('arena-matrix-arena-ttt')!;
    expect(m.columns.map((c) => c.label)).toEqual(['Player 1 \\ Player 2', ...AGENTS]);
    expect(m.rows).toEqual([
      { p1: 'solver', 'p2:0': 'not played (no self-play)', 'p2:1': '100% (2–0–0, 2)', 'p2:2': '50% (1–1–0, 2)' },
      { p1: 'random', 'p2:0': '0% (0–1–1, 2)', 'p2:1': 'not played (no self-play)', 'p2:2': '50% (1–0–1, 2)' },
      {
        p1: 'vlm:m',
        'p2:0': '0% (0–2–0, 2; 1 by step limit)',
        'p2:1': 'no games yet',
        'p2:2': 'not played (no self-play)',
      },
    ]);
    expect(m.heat![0]!['p2:1']).toEqual({ value: 1, run: `arena-ttt/runs/${ids.get('solver|random')}` });
    expect(m.heat![0]!['p2:0']).toEqual({ value: null, run: null });
    expect(
      tables.get('arena-standings-arena-ttt')!.rows.map((r) => [r.agent, r.win_rate, r.draws, r.limit_draws]),
    ).toEqual([
      ['solver', '50%', 4, 1],
      ['random', '17%', 1, 0],
      ['vlm:m', '17%', 3, 1],
    ]);
    expect(tables.get('arena-teams-arena-switches')!.rows).toEqual([
      {
        p1: 'solver',
        p2: 'solver',
        episodes: 2,
        unreadable: 0,
        mean: '80.0',
        run: `arena-switches/runs/${coopRun}`,
      },
    ]);

    const html = reportHtml(reportView(data));
    const cell = (key: string, row: number) =>
      [...html.matchAll(/<table id="table-arena-matrix-arena-ttt">[\s\S]*?<\/table>/g)][0]![0]
        .split('<tr>')
        .slice(2 + row, 3 + row)[0]!
        .match(new RegExp(`<td data-key="${key}"[^>]*>[^<]*</td>`))![0];
    expect(cell('p2:1', 0)).toBe(
      `<td data-key="p2:1" class="heat h10" data-value="1" data-run="arena-ttt/runs/${ids.get('solver|random')}" title="run arena-ttt/runs/${ids.get('solver|random')}">100% (2–0–0, 2)</td>`,
    );
    expect(cell('p2:2', 1)).toMatch(/class="heat h5" data-value="0.5"/);
    expect(cell('p2:0', 0)).toBe('<td data-key="p2:0" class="heat not-played">not played (no self-play)</td>');

    const csv = reportCsv(data)['arena-matrix.csv']!.trim().split('\r\n');
    expect(csv[0]).toBe('arena,game,p1,p2,games,p1_wins,p2_wins,draws,limit_draws,p1_win_rate,run');
    expect(csv).toContain(
      `arena-ttt,tictactoe-pvp,solver,vlm:m,2,1,0,1,0,0.5,arena-ttt/runs/${ids.get('solver|vlm:m')}`,
    );
    expect(csv).toContain(`arena-ttt,tictactoe-pvp,vlm:m,solver,2,0,0,2,1,0,arena-ttt/runs/${ids.get('vlm:m|solver')}`);
    expect(csv).toHaveLength(1 + 6);
  });

  it('keeps two-seat runs out of the single-agent tables and lists them apart', () => {
    expect(data.gameverse.rows.map((r) => [r.player, Object.keys(r.cells)])).toEqual([['solver', ['tictactoe']]]);
    expect(leaderboard(root).rows.map((r) => r.player)).toEqual(['solver']);
    expect(data.two_seat).toEqual([
      {
        run: loose,
        game: 'tictactoe-pvp',
        status: 'completed',
        seats: ['X: solver', 'O: random'],
        episodes: 1,
        p1_wins: 1,
        p2_wins: 0,
        draws: 0,
        mean: 100,
        unreadable: 0,
      },
    ]);
    expect(data.runs).toMatchObject({ counted: 1, left_out: 1 });
  });

  it('reads an arena.json written when the action space was saved as `space`', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gp-arena-former-'));
    const dir = path.join(root, 'arena-old');
    mkdirSync(dir);
    const old = { game: 'tictactoe-pvp', mode: 'pvp', agents: AGENTS, trials: 2, mixed: false, latency: 'stop' };
    writeFileSync(
      path.join(dir, 'arena.json'),
      JSON.stringify({ spec: { ...old, space: 'gui', max_steps: 9, seed: 1 } }),
    );
    expect(readArenaSpec(dir)).toEqual({ ...old, action_space: 'gui', max_steps: 9, seed: 1 });
    expect(buildReport(root).arenas).toEqual([expect.objectContaining({ id: 'arena-old', actionSpace: 'gui' })]);
  });

  it('skips a damaged arena.json and an arena folder reached through a symbolic link, saying which', async () => {
    const other = mkdtempSync(path.join(tmpdir(), 'gp-arena-hostile-'));
    mkdirSync(path.join(other, 'arena-broken'));
    writeFileSync(path.join(other, 'arena-broken', 'arena.json'), '{"spec": {"game": 1}}');
    symlinkSync(pvp, path.join(other, 'arena-linked'));
    const d = buildReport(other);
    expect(d.arenas).toEqual([]);
    expect(d.warnings).toEqual([
      expect.stringMatching(/skipped arena folder .*arena-linked: a symbolic link/),
      expect.stringMatching(/skipped arena folder .*arena-broken: .*arena.json has no valid arena spec/),
    ]);
    // Nor does the Runs tab open a run through the link.
    const lib = libraryHandlers({ runsDir: other, exportDir: path.join(other, 'exports') });
    expect((await lib.arenas({})).warnings).toEqual(d.warnings);
    await expect(lib.getRun({ id: `arena-linked/runs/${ids.get('solver|random')}` })).rejects.toThrow(/symbolic link/);
  });

  it('the Runs tab lists the arenas and opens a cell’s run by the id it names', async () => {
    const lib = libraryHandlers({ runsDir: root, exportDir: path.join(root, 'exports') });
    const { arenas, warnings } = await lib.arenas({});
    expect(warnings).toEqual([]);
    expect(arenas.map(({ tables: _t, ...a }) => a)).toEqual(data.arenas);
    expect(arenas[1]!.tables.map((t) => t.id)).toEqual(['arena-matrix-arena-ttt', 'arena-standings-arena-ttt']);
    const id = arenas[1]!.matrix![0]![1]!.run!;
    const opened = await lib.getRun({ id });
    expect(opened.meta).toMatchObject({ arena: { p1: 'solver', p2: 'random' }, status: 'completed' });
    await expect(lib.getRun({ id: '../x/runs/y' })).rejects.toThrow(/bad run id/);
    await expect(lib.getRun({ id: 'nope/runs/y' })).rejects.toThrow(/no run/);
  });
});
