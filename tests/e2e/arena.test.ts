/**
 * Two seats in one world, through the built CLI and real windows: two scripted models play PvP
 * Tic-Tac-Toe by clicking the window in turn; `gamepilot arena` with three agents writes a 3 × 3
 * player-1 win-rate matrix whose cells are the runs it made, and a SIGKILLed arena resumes with
 * only the missing matches (and `gamepilot report` over it writes the same matrix); the light-cycles duel in stop and normal modes (a seat with a 2 s
 * model loses ticks only when the world runs); the co-op game reaching its team score.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, runCli, spawnCli } from '../helpers/cli.ts';
import { readRun, type RunMeta } from '../../electron/store/run-store.ts';
import { endListedWindowGroups } from '../../electron/games/window-groups.ts';

let server: FakeOpenAI;
/** Cell → click point in the frame, learned from a solver match (the view's own layout). */
const cellAt = new Map<string, { x: number; y: number }>();
/** Each scripted model's turn within its episode (reset on an episode's first request). */
const turns = new Map<string, number>();

/** The scripted models: as X they play A1, A2, A3; as O, B1, B2, B3 — by clicking the cells. */
function ticTacToe(body: { model: string; messages: { role: string; content: unknown }[] }) {
  const system = String(body.messages[0]!.content);
  const side = /You play X/.test(system) ? 'X' : 'O';
  const key = `${body.model}:${side}`;
  const first = !body.messages.some((m) => m.role === 'assistant');
  const n = first ? 0 : (turns.get(key) ?? 0);
  turns.set(key, n + 1);
  const cell = (side === 'X' ? ['A1', 'A2', 'A3'] : ['B1', 'B2', 'B3'])[Math.min(n, 2)]!;
  if (system.includes('named game moves')) return { text: answer(`${side} takes ${cell}`, [{ action: cell }]) };
  const at = cellAt.get(cell);
  if (!at) return { text: answer('no map', []) };
  return { text: answer(`${side} takes ${cell}`, [{ action_type: 'CLICK', parameters: at }]) };
}

beforeAll(async () => {
  server = await new FakeOpenAI((body) => {
    if (String(body.model).startsWith('slow')) return { text: answer('turn', [{ action: 'up' }]), delayMs: 2000 };
    if (String(body.model).startsWith('fast')) return { text: answer('turn', [{ action: 'down' }]) };
    return ticTacToe(body);
  }).start();
});

afterAll(async () => {
  await server.close();
});

const arena = (args: string[], out: string, timeoutMs = 240_000) =>
  runCli(['arena', ...args, '--base-url', server.baseURL, '--runs-dir', out, '--json'], { timeoutMs });

/** Every step's clicks in a run, with the cell the view says each hit. */
function learnCells(runDir: string) {
  for (const s of readRun(runDir).steps) {
    const hits = (s.view_inputs as { type: string; hit?: string }[] | undefined) ?? [];
    const clicks = s.actions as { action_type: string; parameters: { x: number; y: number } }[];
    clicks.forEach((c, i) => {
      if (c.action_type === 'CLICK' && hits[i]?.hit) cellAt.set(hits[i]!.hit!, c.parameters);
    });
  }
}

/** The matrix cell a match's run.json makes: games, player-1 wins, player-2 wins, draws. */
function tally(meta: RunMeta) {
  const e = meta.episodes;
  const p1 = e.filter((x) => x.winner === 0).length;
  const p2 = e.filter((x) => x.winner === 1).length;
  return { games: e.length, p1_wins: p1, p2_wins: p2, draws: e.length - p1 - p2 };
}

describe('two seats in one world', () => {
  it('two scripted models play PvP Tic-Tac-Toe through the window, clicking in turn', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'gp-arena-ttt-'));
    // A solver match first: its clicks and the cells the view reports map the board.
    const calib = await arena(
      ['--game', 'tictactoe-pvp', '--agents', 'solver,random', '--episodes', '1', '--name', 'calib'],
      out,
    );
    expect(calib.code, calib.stderr).toBe(0);
    for (const m of json(calib).matrix.flat()) if (m?.run) learnCells(m.run);
    expect(cellAt.size).toBeGreaterThanOrEqual(3);
    // Enough to play: if a cell the script needs was never clicked, derive it from the grid's spacing.
    const xs = [...cellAt.entries()];
    const col = (c: string) => Number(c[1]) - 1;
    const row = (c: string) => 'ABC'.indexOf(c[0]!);
    const [a, b] = [xs[0]!, xs.find(([c]) => col(c) !== col(xs[0]![0]) && row(c) !== row(xs[0]![0]))!];
    const dx = (b[1].x - a[1].x) / (col(b[0]) - col(a[0]));
    const dy = (b[1].y - a[1].y) / (row(b[0]) - row(a[0]));
    for (const r of 'ABC')
      for (const c of [1, 2, 3]) {
        const id = `${r}${c}`;
        if (!cellAt.has(id))
          cellAt.set(id, {
            x: Math.round(a[1].x + (c - 1 - col(a[0])) * dx),
            y: Math.round(a[1].y + ('ABC'.indexOf(r) - row(a[0])) * dy),
          });
      }

    const r = await arena(['--game', 'tictactoe-pvp', '--agents', 'vlm:model-a,vlm:model-b', '--episodes', '1'], out);
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res.played).toHaveLength(2); // a as X against b, and b as X against a
    // X (A1, A2, A3) beats O (B1, B2) on its third move, whoever sits there.
    expect(res.matrix[0][1]).toMatchObject({ games: 1, p1_wins: 1, p1_win_rate: 1 });
    expect(res.matrix[1][0]).toMatchObject({ games: 1, p1_wins: 1, p1_win_rate: 1 });
    const { meta, steps } = readRun(res.matrix[0][1].run);
    expect(meta.seats).toEqual([
      { seat: 0, name: 'X', agent: 'vlm:model-a', model: 'model-a' },
      { seat: 1, name: 'O', agent: 'vlm:model-b', model: 'model-b' },
    ]);
    // The seats took turns: X, O, X, O, X — each a click the view received and gave to that seat.
    expect(steps.map((s) => (s.seats as { name: string }[]).map((x) => x.name))).toEqual([
      ['X'],
      ['O'],
      ['X'],
      ['O'],
      ['X'],
    ]);
    expect(steps.map((s) => (s.view_inputs as unknown[]).length)).toEqual([1, 1, 1, 1, 1]);
    expect(steps.at(-1)!.game_state).toMatchObject({ board: ['X', 'X', 'X', 'O', 'O', null, null, null, null] });
    expect(meta.episodes[0]).toMatchObject({ winner: 0, seat_scores: [100, 0] });
    // Each seat's prompt: its own side, and what the other did last.
    const o = server.requests.filter(
      (q) => q.body.model === 'model-b' && /You play O/.test(q.body.messages[0].content),
    );
    expect(JSON.stringify(o[0]!.body.messages.at(-1))).toContain('X (the other player) last did: CLICK');
  });

  it('arena: a 3 × 3 matrix whose cells are its runs, resumed after SIGKILL with only the missing matches', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'gp-arena-3-'));
    // In the semantic space (cells by name): the clicking was the test above's.
    const args = [
      '--game',
      'tictactoe-pvp',
      '--agents',
      'solver,random,vlm:model-c',
      '--episodes',
      '2',
      '--action-space',
      'semantic',
      '--name',
      'three',
    ];
    const dir = path.join(out, 'arena-three');
    const runsDir = path.join(dir, 'runs');
    // A process killed outright cannot close its game windows: as a supervisor would
    // (electron/games/window-groups.ts), the test has them listed and ends them after the kill.
    const windowGroups = path.join(out, 'window-groups');
    const child = spawnCli(['arena', ...args, '--base-url', server.baseURL, '--runs-dir', out], {
      GAMEPILOT_WINDOW_GROUPS: windowGroups,
    });
    const completed = () =>
      existsSync(runsDir)
        ? readdirSync(runsDir).filter((d) => {
            try {
              return JSON.parse(readFileSync(path.join(runsDir, d, 'run.json'), 'utf8')).status === 'completed';
            } catch {
              return false;
            }
          })
        : [];
    const deadline = Date.now() + 120_000;
    while (completed().length < 2 && Date.now() < deadline && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 200));
    expect(completed().length).toBeGreaterThanOrEqual(2);
    process.kill(child.pid!, 'SIGKILL');
    await new Promise((r) => child.once('exit', r));
    await endListedWindowGroups(windowGroups);
    const before = completed();

    const r = await arena(args, out);
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res.skipped, r.stderr).toHaveLength(before.length);
    expect(res.played, r.stderr).toHaveLength(6 - before.length);
    expect(r.stderr).toContain(`resuming: ${before.length} of 6 matches already played`);
    expect(res.agents).toEqual(['solver', 'random', 'vlm:model-c']);
    expect(res.matrix).toHaveLength(3);
    for (const [i, row] of res.matrix.entries())
      for (const [j, cell] of row.entries()) {
        if (i === j) {
          expect(cell).toBeNull();
          continue;
        }
        const { meta } = readRun(cell.run);
        expect(meta.arena).toEqual({ match: expect.any(String), p1: res.agents[i], p2: res.agents[j] });
        expect(cell).toMatchObject({ ...tally(meta), p1_win_rate: tally(meta).p1_wins / 2 });
        expect(cell.games).toBe(2);
      }
    // Every match once: the killed one's partial run is not counted, the completed ones not replayed.
    const done = completed().map(
      (d) => JSON.parse(readFileSync(path.join(runsDir, d, 'run.json'), 'utf8')).arena.match,
    );
    expect(new Set(done).size).toBe(6);
    expect(done).toHaveLength(6);
    // The solver never loses at Tic-Tac-Toe.
    const solver = res.standings.find((s: { agent: string }) => s.agent === 'solver');
    expect(solver.losses).toBe(0);

    // `gamepilot report` over the folder holding the arena: arena.json's matrix, each cell the same run.
    const reportJson = path.join(out, 'report.json');
    const rep = await runCli([
      'report',
      '--runs-dir',
      out,
      '--out',
      path.join(out, 'report.html'),
      '--json',
      reportJson,
    ]);
    expect(rep.code, rep.stderr).toBe(0);
    const saved = JSON.parse(readFileSync(path.join(dir, 'arena.json'), 'utf8')).result;
    const [reported] = JSON.parse(readFileSync(reportJson, 'utf8')).arenas;
    expect(reported.id).toBe('arena-three');
    const relative = (c: { run: string } | null) => c && { ...c, run: path.relative(out, c.run) };
    expect(reported.matrix).toEqual(saved.matrix.map((row: ({ run: string } | null)[]) => row.map(relative)));
    expect(reported.matrix).toEqual(res.matrix.map((row: ({ run: string } | null)[]) => row.map(relative)));
    expect(reported.standings).toEqual(saved.standings);
  });

  it('light cycles: in stop mode neither seat loses ticks to thinking; in normal mode the 2 s seat does', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'gp-arena-lc-'));
    const drift = async (latency: string) => {
      const r = await arena(
        [
          '--game',
          'light-cycles',
          '--agents',
          'vlm:fast,vlm:slow',
          '--episodes',
          '1',
          '--max-steps',
          '2',
          '--action-space',
          'semantic',
          '--latency',
          latency,
          '--name',
          latency,
        ],
        out,
      );
      expect(r.code, r.stderr).toBe(0);
      const { steps } = readRun(json(r).matrix[0][1].run); // fast as Blue, slow as Orange
      const seats = steps.flatMap((s) => s.seats as { name: string; drift_ticks?: number; model_ms: number }[]);
      return {
        fast: seats.filter((x) => x.name === 'Blue').map((x) => x.drift_ticks ?? 0),
        slow: seats.filter((x) => x.name === 'Orange').map((x) => x.drift_ticks ?? 0),
        slowMs: Math.min(...seats.filter((x) => x.name === 'Orange').map((x) => x.model_ms)),
      };
    };
    const stop = await drift('stop');
    expect(stop.slowMs).toBeGreaterThanOrEqual(1900);
    expect([...stop.fast, ...stop.slow].every((d) => d === 0)).toBe(true);
    const normal = await drift('normal');
    // 2 s at 250 ms a tick: the slow seat's turn lands about 8 ticks after the frame it saw.
    expect(Math.min(...normal.slow)).toBeGreaterThanOrEqual(6);
    // The fast seat acts within a tick or two of its frame; whatever the load, 2 s is ticks more.
    expect(Math.max(...normal.fast) + 4).toBeLessThanOrEqual(Math.min(...normal.slow));
  });

  it('co-op: two copies of the solver open the gate and both get out — team score 100', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'gp-arena-coop-'));
    const r = await arena(['--game', 'switches', '--agents', 'solver', '--episodes', '1'], out);
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res.mode).toBe('coop');
    expect(res.teams).toEqual([
      { p1: 'solver', p2: 'solver', episodes: 1, unreadable: 0, mean: 100, run: expect.any(String) },
    ]);
    const { meta } = readRun(res.teams[0].run);
    expect(meta.episodes[0]).toMatchObject({ score: 100, seat_scores: [100, 100] });
  });
});
