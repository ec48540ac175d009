/**
 * ING-VP §4.3 end to end: the real CLI on the built dist, the maze's real window under Xvfb, and a
 * model that is the local test server answering from the text state it is shown (it rebuilds the
 * maze from the text and asks the engine for the solution, or for a move into a wall).
 * - Best of 10: each step's ten answers are real calls; the server logs what it sent, and each
 *   step's record must hold those ten answers, the move read from each, whether it changes the
 *   state, and the majority move played. Forced Planning: the plan sent is the plan recorded,
 *   with whether the move followed it and whether it solves. Cost: every call priced. Ctrl+C
 *   while the ten calls are held at the server ends them all: the CLI exits at once.
 * - The maze-length study: the levels the model is shown are the suite's mazes with the start
 *   the asked number of moves from the destination, and a model that sees only 8 moves ahead
 *   solves the short ones, not the long ones; the Fig. 4 table says so.
 * - The solver plays both settings to 100 %.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, type ScriptedReply } from '../helpers/fake-openai.ts';
import { json, runCli, spawnCli, testModelArgs } from '../helpers/cli.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { IngvpMazePuzzle, ingvpMazeSpec } from '../../games/ingvp-maze/index.ts';
import { lengthStudyLevel } from '../../games/ingvp-maze/length-study.ts';
import { distancesFrom, parseMaze } from '../../games/maze/engine.ts';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-ingvp-43-'));
const env = () => ({ GAMEPILOT_CONFIG_DIR: tmp() });
const PRICE = { in: 2, out: 8 };
const LIMIT = 50;
const round2 = (x: number) => Math.round(x * 100) / 100;
const mean = (xs: number[]) => round2(xs.reduce((a, b) => a + b, 0) / xs.length);

const userText = (body: any): string => {
  const last = [...body.messages].reverse().find((m: any) => m.role === 'user');
  return Array.isArray(last.content) ? last.content.find((p: any) => p.type === 'text').text : last.content;
};

/** The maze as the text setting shows it ('+' wall, ' ' floor, 'S' you, 'X' destination) → the engine's puzzle. */
function mazeFromText(user: string): IngvpMazePuzzle {
  const text = /```\n([\s\S]*?)\n```/.exec(user)![1]!;
  const rows = text.split('\n').map((r) => r.replace(/\+/g, '#').replace(/ /g, '.').replace(/X/g, 'T'));
  return new IngvpMazePuzzle(parseMaze(rows));
}

/** A move that changes nothing from this state (into a wall or off the grid). */
function blockedMove(p: IngvpMazePuzzle): string {
  const m = ['L', 'R', 'U', 'D'].find((d) => !new IngvpMazePuzzle(p.maze).apply(d));
  if (!m) throw new Error('no blocked move from this cell: the script needs one');
  return m;
}

type Kind = 'solution' | 'blocked' | 'unreadable';
interface Sent {
  level: number;
  step: number;
  forced: boolean;
  kind: Kind;
  move: string | null;
  plan: string | null;
}

/**
 * With `mixed`, Best of 10 (the k-th call for one prompt): level 1 six solution moves, three
 * blocked, one unreadable; level 2 the same on even steps and five blocked, three solution, two
 * unreadable on odd ones. Forced Planning: level 1 the whole solution as plan, its first move as
 * the answer; level 2 at step 0 the whole plan but a blocked move, then a one-move plan and that
 * move. Without: the solution (and its plan) every time. `sighted`: a state farther than that
 * from the destination gets blocked moves only (and no plan).
 */
function scriptedModel(log: Sent[], { mixed = false, sighted = Number.POSITIVE_INFINITY } = {}) {
  const calls = new Map<string, number>();
  return (body: any): ScriptedReply => {
    const system: string = body.messages[0].content;
    const user = userText(body);
    const key = `${system}\n${user}`;
    const k = calls.get(key) ?? 0;
    calls.set(key, k + 1);
    const level = Number(/level (\d+) of/.exec(system)![1]);
    const step = Number(/after step (\d+)/.exec(user)![1]);
    const forced = user.includes('{"plan":');
    const p = mazeFromText(user);
    const solution = p.solution();
    const far = solution.length > sighted;
    let kind: Kind;
    let plan: string | null = null;
    const twist = mixed && level === 2;
    if (far) kind = 'blocked';
    else if (forced) {
      kind = twist && step === 0 ? 'blocked' : 'solution';
      plan = twist && step > 0 ? solution[0]! : solution.join('');
    } else if (!mixed) kind = 'solution';
    // The minority first, so the move played is not simply the first one drawn.
    else if (twist && step % 2 === 1) kind = k < 3 ? 'solution' : k < 5 ? 'unreadable' : 'blocked';
    else kind = k < 3 ? 'blocked' : k < 4 ? 'unreadable' : 'solution';
    const move = kind === 'solution' ? solution[0]! : kind === 'blocked' ? blockedMove(p) : null;
    log.push({ level, step, forced, kind, move, plan });
    if (move === null) return { text: 'I am not sure which way to go.' };
    const answer = `{"output": "${move}"}`;
    return { text: plan === null ? answer : `{"plan": "${plan}"}\n${answer}` };
  };
}

const priceArgs = ['--price-in', String(PRICE.in), '--price-out', String(PRICE.out)];
const costOf = (tokens: { input: number; output: number }) =>
  (tokens.input * PRICE.in + tokens.output * PRICE.out) / 1e6;

describe('gamepilot suite ingvp: §4.3 settings and the maze-length study', () => {
  let server: FakeOpenAI;
  const log: Sent[] = [];
  beforeAll(async () => {
    server = await new FakeOpenAI(scriptedModel(log, { mixed: true })).start();
  });
  afterAll(() => server.close());

  it('best-of-10 and forced-planning: every sample a recorded call, the majority move played, plans checked', async () => {
    const out = tmp();
    const r = await runCli(
      [
        'suite',
        'ingvp',
        ...testModelArgs(server.baseURL),
        '--api-key',
        'k',
        ...priceArgs,
        '--games',
        'maze',
        '--settings',
        'best-of-10,forced-planning',
        '--levels',
        '1-2',
        '--out',
        out,
        '--json',
      ],
      { env: env(), timeoutMs: 300_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res).toMatchObject({ played: 4, stopped: false });
    const suite = JSON.parse(readFileSync(path.join(out, 'suite.json'), 'utf8'));
    const got = (setting: string, level: number) => suite.results[`ingvp-maze/${setting}/${level}`];
    const opt = [1, 2].map((l) => ingvpMazeSpec.levels[l - 1]!.optimal);

    // Best of 10: level 1 plays the solution; level 2 the solution on even steps only.
    const bon1 = got('best-of-10', 1);
    const bon2 = got('best-of-10', 2);
    expect(bon1).toMatchObject({
      solved: true,
      steps: opt[0],
      actions: opt[0],
      changed: opt[0],
      samples: 10 * opt[0]!,
    });
    const steps2 = 2 * opt[1]! - 1;
    expect(bon2).toMatchObject({ solved: true, steps: steps2, changed: opt[1], samples: 10 * steps2 });
    expect(bon2.efficiency).toBe(round2((opt[1]! / steps2) * 100));
    const bonCalls = log.filter((s) => !s.forced);
    expect(bonCalls).toHaveLength(10 * (opt[0]! + steps2));
    expect(server.requests.filter((q) => !userText(q.body).includes('{"plan":'))).toHaveLength(bonCalls.length);

    for (const [level, res] of [
      [1, bon1],
      [2, bon2],
    ] as const) {
      const run = readRun(path.join(out, 'runs', res.run));
      expect(run.steps).toHaveLength(res.steps);
      for (const st of run.steps as any[]) {
        const sent = bonCalls.filter((s) => s.level === level && s.step === st.step);
        expect(st.samples, `level ${level} step ${st.step}`).toHaveLength(10);
        // Each sample as the harness read it: the move the server sent, and whether it would change the state.
        const tally = (kind: Kind) => sent.filter((s) => s.kind === kind).length;
        expect(st.samples.filter((s: any) => s.changes === true)).toHaveLength(tally('solution'));
        expect(st.samples.filter((s: any) => s.changes === false)).toHaveLength(tally('blocked'));
        expect(st.samples.filter((s: any) => s.move === null)).toHaveLength(tally('unreadable'));
        expect(st.samples.map((s: any) => s.move).sort()).toEqual(sent.map((s) => s.move).sort());
        // The majority move is the one played, and what it did is what the samples said it would.
        const majority = tally('solution') > tally('blocked') ? 'solution' : 'blocked';
        expect(st.actions).toEqual([sent.find((s) => s.kind === majority)!.move]);
        expect(st.outcomes[0].changed).toBe(majority === 'solution');
        // Tokens and cost of all ten calls.
        const input = st.samples.reduce((n: number, s: any) => n + s.tokens.input, 0);
        const output = st.samples.reduce((n: number, s: any) => n + s.tokens.output, 0);
        expect(st.tokens).toEqual({ input, output });
        expect(st.cost_usd).toBeCloseTo(costOf({ input, output }), 9);
      }
    }

    // Forced Planning: the plan recorded is the plan sent; followed and solving as the engine replays it.
    const fp1 = got('forced-planning', 1);
    const fp2 = got('forced-planning', 2);
    expect(fp1).toMatchObject({
      solved: true,
      steps: opt[0],
      plans: opt[0],
      plans_followed: opt[0],
      plans_solving: opt[0],
    });
    // Level 2: step 0's whole plan solves but its move is blocked; then one-move plans, the last of which solves.
    expect(fp2).toMatchObject({
      solved: true,
      steps: opt[1]! + 1,
      changed: opt[1],
      plans: opt[1]! + 1,
      plans_followed: opt[1],
      plans_solving: 2,
    });
    const fpSent = log.filter((s) => s.forced && s.level === 2);
    const run2 = readRun(path.join(out, 'runs', fp2.run));
    for (const st of run2.steps as any[]) {
      const sent = fpSent.find((s) => s.step === st.step)!;
      expect(st.plan.text).toBe(sent.plan);
      expect(st.plan.moves).toEqual([...sent.plan!]);
      expect(st.plan.followed).toBe(sent.kind === 'solution');
      expect(st.prompt.user).toContain('{"plan":');
    }

    // The whole suite's spend is every call's price: ten a Best-of-10 step.
    const usage = server.requests.length;
    expect(usage).toBe(log.length);
    const runs = Object.values(suite.results).map((x: any) => readRun(path.join(out, 'runs', x.run)));
    const spent = runs.flatMap((run) => run.steps as any[]).reduce((n, st) => n + st.cost_usd, 0);
    expect(res.spent_usd).toBeCloseTo(spent, 5);
    expect(spent).toBeGreaterThan(0);

    // The table: both settings as columns, each cell the paper's metrics over the levels.
    expect(res.table.settings).toEqual(['best-of-10', 'forced-planning']);
    for (const setting of ['best-of-10', 'forced-planning'])
      expect(res.table.rows['ingvp-maze'][setting]).toMatchObject({
        levels: 2,
        accuracy: 100,
        completion: 100,
        efficiency: mean([1, 2].map((l) => got(setting, l).efficiency)),
      });
    expect(JSON.parse(readFileSync(path.join(out, 'table.json'), 'utf8'))).toEqual(res.table);
  });

  it('the maze-length study: the mazes shown are the asked lengths, and a short-sighted model solves only the short ones', async () => {
    const out = tmp();
    const sent: Sent[] = [];
    server.setResponder(scriptedModel(sent, { sighted: 8 }));
    const seed = 7;
    const r = await runCli(
      [
        'suite',
        'ingvp',
        ...testModelArgs(server.baseURL),
        '--api-key',
        'k',
        '--games',
        'maze',
        '--settings',
        'multi-step-text,forced-planning',
        '--levels',
        '1-2',
        '--maze-steps',
        '4,12',
        '--seed',
        String(seed),
        '--out',
        out,
        '--json',
      ],
      { env: env(), timeoutMs: 300_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res).toMatchObject({ played: 12, stopped: false });
    const suite = JSON.parse(readFileSync(path.join(out, 'suite.json'), 'utf8'));
    for (const length of [4, 12])
      for (const setting of ['multi-step-text', 'forced-planning'])
        for (const level of [1, 2]) {
          const res = suite.results[`ingvp-maze-${length}/${setting}/${level}`];
          const run = readRun(path.join(out, 'runs', res.run));
          expect(run.meta.config).toMatchObject({ setting, level, maze_steps: length, maze_seed: seed });
          // What the model was shown first: the suite's maze (same walls, same destination), the start `length` moves away.
          const shown = mazeFromText((run.steps[0] as any).prompt.user).maze;
          const original = parseMaze(ingvpMazeSpec.levels[level - 1]!.rows);
          expect(shown.open).toEqual(original.open);
          expect(shown.target).toEqual(original.target);
          expect(distancesFrom(shown, shown.target)[shown.start.row]![shown.start.col]).toBe(length);
          expect(parseMaze(lengthStudyLevel(level, length, seed).rows).start).toEqual(shown.start);
          // Within sight: solved in `length` moves; beyond it: nothing moves in 50 answers, completion 0.
          expect(res, `${length} ${setting} ${level}`).toMatchObject(
            length <= 8
              ? { solved: true, steps: length, changed: length, completion: 100 }
              : { solved: false, steps: LIMIT, changed: 0, completion: 0 },
          );
        }
    // Fig. 4: accuracy and completion by length; the game table keeps the suite's own levels only.
    const study = res.table.maze_study;
    expect(study.lengths).toEqual(['original', 4, 12]);
    for (const setting of ['multi-step-text', 'forced-planning']) {
      const cells = (rows: any[]) => ({
        levels: rows.length,
        accuracy: mean(rows.map((x) => (x.solved ? 100 : 0))),
        completion: mean(rows.map((x) => x.completion)),
      });
      const of = (game: string) =>
        [1, 2].map((l) => suite.results[`${game}/${setting}/${l}`]).filter((x: unknown) => x !== undefined);
      expect(study.rows.original[setting]).toMatchObject(cells(of('ingvp-maze')));
      expect(study.rows['4'][setting]).toMatchObject({ ...cells(of('ingvp-maze-4')), accuracy: 100 });
      expect(study.rows['12'][setting]).toMatchObject({ ...cells(of('ingvp-maze-12')), accuracy: 0, completion: 0 });
      expect(res.table.rows['ingvp-maze'][setting].levels).toBe(2);
    }
    expect(Object.keys(res.table.rows)).toEqual(['ingvp-maze', 'all']);
  });

  it('Ctrl+C during a Best-of-10 step ends all ten calls at once: the level is dropped, nothing waits for the model', async () => {
    const out = tmp();
    const HOLD_MS = 120_000;
    server.setResponder(() => ({ text: '{"output": "L"}', delayMs: HOLD_MS }));
    const before = server.requests.length;
    const child = spawnCli(
      [
        'suite',
        'ingvp',
        ...testModelArgs(server.baseURL),
        '--api-key',
        'k',
        '--games',
        'maze',
        '--settings',
        'best-of-10',
        '--levels',
        '1',
        '--out',
        out,
        '--json',
      ],
      env(),
    );
    let stderr = '';
    child.stderr!.on('data', (d) => {
      stderr += String(d);
    });
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      child.once('exit', (code) => resolve({ code, at: Date.now() })),
    );
    // All ten of the first step's calls are at the server, held.
    const deadline = Date.now() + 60_000;
    while (server.requests.length - before < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(server.requests.length - before, stderr).toBe(10);
    const sent = Date.now();
    child.kill('SIGINT');
    const { code, at } = await exited;
    expect(code, stderr).toBe(1);
    expect(at - sent).toBeLessThan(HOLD_MS / 4);
    expect(server.requests.length - before).toBe(10);
    const [runId] = readdirSync(path.join(out, 'runs'));
    expect(readRun(path.join(out, 'runs', runId!)).meta.status).toBe('stopped');
    expect(JSON.parse(readFileSync(path.join(out, 'suite.json'), 'utf8')).results).toEqual({});
  });

  it('the solver plays both §4.3 settings to 100 %: ten samples a step, every plan followed and solving', async () => {
    const out = tmp();
    const r = await runCli(
      [
        'suite',
        'ingvp',
        '--agent',
        'solver',
        '--games',
        'hanoi',
        '--settings',
        'best-of-10,forced-planning',
        '--levels',
        '1-3',
        '--out',
        out,
        '--json',
      ],
      { env: env(), timeoutMs: 300_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    const suite = JSON.parse(readFileSync(path.join(out, 'suite.json'), 'utf8'));
    for (const level of [1, 2, 3]) {
      const bon = suite.results[`hanoi/best-of-10/${level}`];
      const fp = suite.results[`hanoi/forced-planning/${level}`];
      expect(bon).toMatchObject({ solved: true, samples: 10 * bon.steps });
      expect(fp).toMatchObject({ solved: true, plans: fp.steps, plans_followed: fp.steps, plans_solving: fp.steps });
    }
    for (const setting of ['best-of-10', 'forced-planning'])
      expect(res.table.rows.hanoi[setting]).toEqual({
        levels: 3,
        accuracy: 100,
        completion: 100,
        efficiency: 100,
        efficiency_pooled: 100,
      });
  });
});
