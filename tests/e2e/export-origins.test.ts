/**
 * `gamepilot export` accounts for every run of a runs folder, whatever made it: a runs folder
 * made by the built CLI with an ING-VP suite (a model on the local test server; image and text
 * settings), an arena (solver against random on PvP Tic-Tac-Toe: two matches), a plain run, and
 * the broken folders a real one collects (a level folder cut short before its run.json, a match
 * whose run.json is torn, a link to a folder). Every run-like folder found on disk is either in
 * the rows or in export.json's `skipped` with its reason; suite rows carry their level, a match
 * gives a row per seat with that seat's player, opponent and score; the card counts each origin.
 */
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../helpers/fake-openai.ts';
import { json, runCli, testModelArgs } from '../helpers/cli.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { COLUMNS } from '../../electron/dataset/card.ts';

const root = mkdtempSync(path.join(tmpdir(), 'gp-export-origins-'));
const runs = path.join(root, 'runs');
const env = { GAMEPILOT_CONFIG_DIR: mkdtempSync(path.join(tmpdir(), 'gp-export-origins-config-')) };
let server: FakeOpenAI;

interface Row {
  file_name: string;
  run_id: string;
  origin: string;
  episode: number;
  step: number;
  player: string;
  seat: number | null;
  seat_name: string | null;
  other_player: string | null;
  level: number | null;
  action_space: string;
  actions: string;
  reasoning: string;
  step_score: number | null;
  episode_score: number | null;
}

const readSplit = (out: string, split: string): Row[] =>
  readFileSync(path.join(out, split, 'metadata.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);

/** Every folder under `dir` that holds a run's files, as a path under `dir` (links not followed, runs not entered). */
function runFoldersOnDisk(dir: string, rel = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (!e.isDirectory()) return [];
    const id = rel ? `${rel}/${e.name}` : e.name;
    const full = path.join(dir, e.name);
    return existsSync(path.join(full, 'run.json')) || existsSync(path.join(full, 'steps.jsonl'))
      ? [id]
      : runFoldersOnDisk(full, id);
  });
}

beforeAll(async () => {
  server = await new FakeOpenAI(() => ({ text: 'Move the small disk first.\n{"output": "AC"}' })).start();
  const suite = await runCli(
    [
      'suite',
      'ingvp',
      ...testModelArgs(server.baseURL),
      '--api-key',
      'k',
      '--games',
      'hanoi',
      '--settings',
      'one-step-image,one-step-text',
      '--levels',
      '1-2',
      '--out',
      path.join(runs, 'suite-hanoi'),
      '--json',
    ],
    { env },
  );
  expect(suite.code, suite.stderr).toBe(0);
  const arena = await runCli(
    [
      'arena',
      '--game',
      'tictactoe-pvp',
      '--agents',
      'solver,random',
      '--episodes',
      '1',
      '--name',
      'duel',
      '--runs-dir',
      runs,
    ],
    { env },
  );
  expect(arena.code, arena.stderr).toBe(0);
  const plain = await runCli(
    ['run', '--game', '2048', '--agent', 'random', '--episodes', '1', '--max-steps', '3', '--runs-dir', runs, '--json'],
    { env },
  );
  expect(plain.code, plain.stderr).toBe(0);

  // What a real runs folder collects: a level folder cut short before its run.json, a match
  // whose run.json was torn, and a link to a folder elsewhere.
  const levels = path.join(runs, 'suite-hanoi', 'runs');
  const level = readdirSync(levels)[0]!;
  cpSync(path.join(levels, level), path.join(levels, `${level}-cut`), { recursive: true });
  rmSync(path.join(levels, `${level}-cut`, 'run.json'));
  const matches = path.join(runs, 'arena-duel', 'runs');
  const match = readdirSync(matches)[0]!;
  cpSync(path.join(matches, match), path.join(matches, `${match}-torn`), { recursive: true });
  writeFileSync(path.join(matches, `${match}-torn`, 'run.json'), '{"status": "comp');
  symlinkSync(path.join(levels, level), path.join(runs, 'linked-level'));
}, 110_000);

afterAll(async () => {
  await server?.close();
});

describe('gamepilot export of a runs folder with a suite, an arena and plain runs', () => {
  it('puts every run in the rows or in skipped with its reason; suite rows say their level, a match a row per seat', async () => {
    const out = path.join(root, 'dataset');
    const r = await runCli(['export', runs, '--out', out, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const summary = json(r);
    const rows = [...readSplit(out, 'train'), ...readSplit(out, 'validation')];
    for (const split of ['train', 'validation'])
      for (const row of readSplit(out, split))
        expect(existsSync(path.join(out, split, row.file_name)), row.file_name).toBe(true);
    // A row holds exactly the card's columns, in its order.
    for (const row of rows) expect(Object.keys(row)).toEqual(COLUMNS.map((c) => c.name));

    // No run unaccounted for: each folder on disk is in the rows or in skipped, never both.
    const onDisk = runFoldersOnDisk(runs);
    expect(onDisk).toHaveLength(4 + 1 + 2 + 1 + 1);
    const exported = new Set(rows.map((x) => x.run_id));
    const skippedIds = new Map(summary.skipped.map((s: string) => [s.slice(0, s.indexOf(': ')), s] as const));
    for (const id of onDisk)
      expect([exported.has(id), skippedIds.has(id)], id).toEqual(expect.arrayContaining([true, false]));
    expect(new Set([...exported, ...skippedIds.keys()])).toEqual(new Set([...onDisk, 'linked-level']));
    expect(summary.skipped).toHaveLength(onDisk.length - exported.size + 1);

    // Why each is left out.
    const suiteJson = JSON.parse(readFileSync(path.join(runs, 'suite-hanoi', 'suite.json'), 'utf8'));
    const levelRun = (setting: string, level: number) =>
      `suite-hanoi/runs/${suiteJson.results[`hanoi/${setting}/${level}`].run}`;
    for (const level of [1, 2])
      expect(skippedIds.get(levelRun('one-step-text', level))).toMatch(
        /an ING-VP level in the one-step-text setting: its player was shown the puzzle as text, not a frame/,
      );
    expect([...skippedIds.values()]).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^suite-hanoi\/runs\/[^/]+-cut: no run\.json \(it holds steps\.jsonl, frames\)/),
        expect.stringMatching(/^arena-duel\/runs\/[^/]+-torn: run\.json is not valid JSON/),
        'linked-level: a symbolic link to a folder; links are not followed',
      ]),
    );
    for (const s of summary.skipped) expect(s).not.toContain(root);
    expect(summary.origins).toEqual({ run: 1, session: 0, suite: 2, arena: 2 });
    expect(summary.runs).toBe(5);

    // Suite rows: a row per step with a frame, the level and setting said.
    for (const level of [1, 2]) {
      const id = levelRun('one-step-image', level);
      const mine = rows.filter((x) => x.run_id === id);
      const steps = readRun(path.join(runs, id)).steps;
      expect(mine).toHaveLength(steps.length);
      expect(mine.length).toBeGreaterThan(0);
      for (const x of mine)
        expect(x).toMatchObject({ origin: 'suite', level, action_space: 'ingvp:one-step-image', seat: null });
    }

    // Match rows: one per seat that acted, with that seat's player, opponent, actions and scores.
    const arenaRows = rows.filter((x) => x.origin === 'arena');
    const matchIds = [...new Set(arenaRows.map((x) => x.run_id))];
    expect(matchIds).toHaveLength(2);
    for (const id of matchIds) {
      const { meta, steps } = readRun(path.join(runs, id));
      const turns = steps.flatMap((s) =>
        (s.seats as { seat: number; agent: string; reasoning: string; actions: unknown[] }[]).map((t) => ({ s, t })),
      );
      const mine = arenaRows.filter((x) => x.run_id === id);
      expect(mine).toHaveLength(turns.length);
      for (const { s, t } of turns) {
        const row = mine.find((x) => x.step === s.step && x.seat === t.seat)!;
        expect(row).toMatchObject({
          player: t.agent,
          other_player: meta.seats!.find((x) => x.seat !== t.seat)!.agent,
          seat_name: meta.seats![t.seat]!.name,
          reasoning: t.reasoning,
          step_score: (s.seat_scores as number[])[t.seat],
          episode_score: meta.episodes[s.episode]!.seat_scores![t.seat],
        });
        expect(JSON.parse(row.actions)).toEqual(t.actions);
      }
      // The same frame shown to both seats is one image per seat row, each present.
      expect(new Set(mine.map((x) => x.file_name)).size).toBe(mine.length);
    }
    expect(new Set(arenaRows.map((x) => x.player))).toEqual(new Set(['solver', 'random']));
    expect(rows.filter((x) => x.origin === 'run').every((x) => x.player === 'random' && x.seat === null)).toBe(true);

    // The card counts each origin, and export.json keeps the reasons.
    const card = readFileSync(path.join(out, 'README.md'), 'utf8');
    expect(card).toContain('from 5 run(s): 1 plain run, 0 people’s sessions, 2 ING-VP suite levels, 2 arena matches.');
    expect(JSON.parse(readFileSync(path.join(out, 'export.json'), 'utf8')).skipped).toEqual(summary.skipped);
  });

  it('--player keeps that player’s seat of each match, and says why the rest are out', async () => {
    const out = path.join(root, 'solver');
    const summary = json(
      await runCli(['export', runs, '--out', out, '--player', 'solver', '--validation', '0', '--json']),
    );
    const rows = readSplit(out, 'train');
    expect(summary.origins).toEqual({ run: 0, session: 0, suite: 0, arena: 2 });
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((x) => x.origin === 'arena' && x.player === 'solver' && x.other_player === 'random')).toBe(true);
    expect(summary.skipped).toEqual(expect.arrayContaining([expect.stringMatching(/: another player \(random\)$/)]));
  });
});
