/**
 * `gamepilot suite ingvp` end to end: real game windows under Xvfb, the real CLI, and a model
 * that is the local test server answering from a script. For every one of the six settings,
 * level 1 is answered with the solution, level 2 with part of it (plus moves that change
 * nothing; in Sokoban with history, an undo to step 1), level 3 with text no move can be read
 * from. Each level's metrics (from engine state) and the table's cells are checked exactly.
 * Then a solver suite is killed mid-way and started again: finished levels are not played again.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../helpers/fake-openai.ts';
import { json, runCli, spawnCli, testModelArgs } from '../helpers/cli.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { sokobanSpec } from '../../games/sokoban/index.ts';
import { hanoiSpec } from '../../games/hanoi/index.ts';
import type { Puzzle, PuzzleSpec } from '../../games/ingvp/puzzle.ts';
import { INGVP_SETTINGS } from '../../electron/ingvp/ingvp-settings.ts';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-ingvp-'));
const env = () => ({ GAMEPILOT_CONFIG_DIR: tmp() });
const SPECS: Record<string, PuzzleSpec<any>> = { Sokoban: sokobanSpec, 'Tower of Hanoi': hanoiSpec };
const LIMIT = 50;
const PARTIAL = 3;

/** The scripted model's own copy of each level, so it can answer with the solution without seeing text. */
interface Replica {
  spec: PuzzleSpec<any>;
  level: number;
  puzzle: Puzzle;
  /** Changing moves that lead to the state after each step. */
  paths: string[][];
}

const userText = (body: any) => {
  const last = [...body.messages].reverse().find((m: any) => m.role === 'user');
  return Array.isArray(last.content) ? last.content.find((p: any) => p.type === 'text').text : last.content;
};

function scriptedModel() {
  const replicas = new Map<string, Replica>();
  return (body: any) => {
    const system: string = body.messages[0].content;
    const user = userText(body);
    const [, level, title] = /level (\d+) of (.+?), a simple puzzle/.exec(system)!;
    const spec = SPECS[title!]!;
    const oneStep = user.includes('Plan the whole solution');
    const history = user.includes('conversation history');
    const image = FakeOpenAI.images(body).length > 0;
    const key = `${title}|${oneStep}|${history}|${image}|${level}`;
    const step = oneStep ? 0 : Number(/after step (\d+)/.exec(user)![1]);
    if (step === 0) {
      const puzzle = spec.load(spec.levels[Number(level) - 1]);
      replicas.set(key, { spec, level: Number(level), puzzle, paths: [[]] });
    }
    const r = replicas.get(key)!;
    const reply = (output: unknown) => ({ text: `Thinking it over.\n{"output": ${JSON.stringify(output)}}` });
    const record = (move: string | undefined) => {
      const prior = r.paths.at(-1)!;
      const changed = move !== undefined && r.puzzle.apply(move);
      r.paths.push(changed ? [...prior, move!] : prior);
    };
    if (r.level === 3) return { text: 'I cannot tell what to do here.' };
    if (oneStep) {
      const plan = r.puzzle.solution();
      if (r.level === 1) return reply(spec.formatPlan(plan));
      const part = plan.slice(0, PARTIAL);
      r.paths.push(part);
      const stuck = blocked(r);
      return reply(spec.formatPlan(stuck ? [...part, stuck, stuck] : part));
    }
    if (r.level === 1 || step < PARTIAL) {
      const move = r.puzzle.solution()[0]!;
      record(move);
      return reply(spec.formatStep(move));
    }
    if (history && spec.undo && step === PARTIAL) {
      r.puzzle = current(r, 1);
      r.paths.push(r.paths[1]!);
      return reply(1);
    }
    const move = blocked(r);
    record(undefined);
    return move === undefined ? { text: '{"output": "sideways"}' } : reply(spec.formatStep(move));
  };
}

/** The replica's state after step `at` (default: the latest), rebuilt from the level. */
function current(r: Replica, at = r.paths.length - 1): Puzzle {
  const p = r.spec.load(r.spec.levels[r.level - 1]);
  for (const m of r.paths[at]!) p.apply(m);
  return p;
}

/** A move of the answer format that changes nothing in the replica's latest state, if there is one. */
function blocked(r: Replica): string | undefined {
  return r.spec.actionSpace().find((m) => {
    const p = current(r);
    const before = p.key();
    p.apply(m);
    return p.key() === before;
  });
}

describe('gamepilot suite ingvp against the test server', () => {
  let server: FakeOpenAI;
  beforeAll(async () => {
    server = await new FakeOpenAI(scriptedModel()).start();
  });
  afterAll(() => server.close());

  it('all six settings: solved, partly solved and unchanged levels give exactly the expected metrics', async () => {
    const out = tmp();
    const r = await runCli(
      [
        'suite',
        'ingvp',
        ...testModelArgs(server.baseURL),
        '--api-key',
        'k',
        '--games',
        'sokoban,hanoi',
        '--levels',
        '1-3',
        '--out',
        out,
        '--json',
      ],
      { env: env(), timeoutMs: 600_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res).toMatchObject({ played: 36, resumed: 0, stopped: false, agent: 'vlm', model: 'test-vlm' });
    const suite = JSON.parse(readFileSync(path.join(out, 'suite.json'), 'utf8'));
    const table = JSON.parse(readFileSync(path.join(out, 'table.json'), 'utf8'));
    expect(table).toEqual(res.table);

    for (const spec of [sokobanSpec, hanoiSpec] as PuzzleSpec<any>[]) {
      const opt = [1, 2, 3].map((l) => spec.optimal(spec.levels[l - 1]));
      for (const setting of INGVP_SETTINGS) {
        const oneStep = setting.startsWith('one-step');
        const undo = setting.endsWith('history') && spec.undo;
        const got = (level: number) => suite.results[`${spec.id}/${setting}/${level}`];
        const where = `${spec.id} ${setting}`;
        // Level 1: the solution.
        expect(got(1), where).toMatchObject({
          solved: true,
          completion: 100,
          efficiency: 100,
          actions: opt[0],
          changed: opt[0],
          steps: oneStep ? 1 : opt[0],
          unparsable: 0,
        });
        // Level 2: three moves of the solution, then moves that change nothing (after an undo to step 1 with history in Sokoban).
        const l2 = got(2);
        const left = undo ? opt[1]! - 1 : opt[1]! - PARTIAL;
        expect(l2.solved, where).toBe(false);
        expect(l2.completion, where).toBe(Math.max(0, 100 - 12.5 * left));
        if (oneStep) {
          expect(l2.steps).toBe(1);
          expect(l2.changed).toBe(PARTIAL);
          expect(l2.efficiency).toBe(Math.round((PARTIAL / l2.actions) * 10000) / 100);
        } else {
          expect(l2).toMatchObject({ steps: LIMIT, actions: LIMIT, changed: undo ? PARTIAL + 1 : PARTIAL });
          expect(l2.efficiency, where).toBe(((undo ? PARTIAL + 1 : PARTIAL) / LIMIT) * 100);
        }
        // Level 3: nothing readable; each answer is an action that changed nothing.
        expect(got(3), where).toMatchObject({
          solved: false,
          completion: Math.max(0, 100 - 12.5 * opt[2]!),
          efficiency: 0,
          changed: 0,
          actions: oneStep ? 1 : LIMIT,
          steps: oneStep ? 1 : LIMIT,
          unparsable: oneStep ? 1 : LIMIT,
        });
        // The table's cell: accuracy, mean completion, mean efficiency over the three levels.
        const mean = (xs: number[]) => Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100;
        expect(table.rows[spec.id][setting], where).toEqual({
          levels: 3,
          accuracy: 33.33,
          completion: mean([1, 2, 3].map((l) => got(l).completion)),
          efficiency: mean([1, 2, 3].map((l) => got(l).efficiency)),
          efficiency_pooled:
            Math.round(
              ([1, 2, 3].reduce((n, l) => n + got(l).changed, 0) / [1, 2, 3].reduce((n, l) => n + got(l).actions, 0)) *
                100 *
                100,
            ) / 100,
        });
        // One run per level, with what it was and its metrics; image settings sent the window's screenshot.
        const run = readRun(path.join(out, 'runs', got(1).run));
        expect(run.meta).toMatchObject({
          game: spec.id,
          status: 'completed',
          config: { suite: 'ingvp', setting, level: 1 },
          ingvp: { level: 1, setting, solved: true },
        });
        expect(run.steps.every((s) => (s.frame !== null) === setting.includes('image'))).toBe(true);
      }
    }
    // Text settings carry the paper's text rendering; image ones carry an image and no state text.
    const texts = server.requests.map((q) => ({ user: userText(q.body), images: FakeOpenAI.images(q.body).length }));
    expect(texts.some((t) => t.images === 0 && t.user.includes('"D":['))).toBe(true);
    expect(texts.filter((t) => t.images === 1).every((t) => !t.user.includes('```'))).toBe(true);
    // With history the model sees its own earlier outputs, the undo among them (Sokoban only).
    expect(texts.some((t) => t.user.includes('Step 4: 1 (changed the state)'))).toBe(true);
    expect(texts.some((t) => t.user.includes('Step 3: "AD"') || /Step 3: "[A-D]{2}"/.test(t.user))).toBe(true);
  });

  it('a suite killed mid-way resumes without playing finished levels again', async () => {
    const out = tmp();
    const args = [
      'suite',
      'ingvp',
      '--agent',
      'solver',
      '--games',
      'queens,fifteen',
      '--settings',
      'multi-step-image',
      '--levels',
      '1-30',
      '--out',
      out,
      '--json',
    ];
    const e = env();
    const child = spawnCli(args, e);
    const file = path.join(out, 'suite.json');
    const finishedNow = () =>
      existsSync(file) ? Object.keys(JSON.parse(readFileSync(file, 'utf8')).results).length : 0;
    const deadline = Date.now() + 120_000;
    while (finishedNow() < 5 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
    child.kill('SIGKILL');
    await new Promise((res) => child.once('exit', res));
    const before = JSON.parse(readFileSync(file, 'utf8')).results as Record<string, { run: string }>;
    const done = Object.keys(before).length;
    expect(done).toBeGreaterThanOrEqual(5);
    expect(done).toBeLessThan(60);
    const foldersBefore = readdirSync(path.join(out, 'runs')).length;

    const r = await runCli(args, { env: e, timeoutMs: 300_000 });
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res).toMatchObject({ resumed: done, played: 60 - done, stopped: false });
    const after = JSON.parse(readFileSync(file, 'utf8')).results as Record<string, { run: string }>;
    expect(Object.keys(after)).toHaveLength(60);
    // The finished levels keep their runs; only the others got new run folders.
    for (const [k, v] of Object.entries(before)) expect(after[k]!.run).toBe(v.run);
    expect(readdirSync(path.join(out, 'runs')).length).toBe(foldersBefore + 60 - done);
    expect(res.table.rows.all['multi-step-image']).toEqual({
      levels: 60,
      accuracy: 100,
      completion: 100,
      efficiency: 100,
      efficiency_pooled: 100,
    });
  });
});
