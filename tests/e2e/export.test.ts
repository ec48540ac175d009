/**
 * `gamepilot export` on a runs folder made as users make one: two baseline runs, a run a person
 * took over, and a person's session, the person's input real key presses (xdotool into the
 * built-in 2048's window). The
 * dataset is read back as its readers read it — each split's metadata.jsonl line by line, every
 * image present — with a row per step (a person's: per input event), whole episodes per split,
 * the card listing every column, nothing of the settings or the person beyond the pseudonym;
 * filters choose runs, a second call resumes, other options into the same folder are refused.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { json, runCli, watchCli } from '../helpers/cli.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { readSession } from '../../electron/store/session-files.ts';
import { COLUMNS } from '../../electron/dataset/card.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const root = mkdtempSync(path.join(tmpdir(), 'gp-export-'));
const runs = path.join(root, 'runs');

/** Records a person's 2048 session while xdotool presses arrow keys in its window. */
async function recordSession(): Promise<string> {
  const rec = watchCli([
    'record',
    '--game',
    '2048',
    '--role',
    'expert',
    '--participant',
    'e9',
    '--consent',
    '--duration',
    '5',
    '--fps',
    '5',
    '--runs-dir',
    runs,
    '--json',
  ]);
  // Said once input is heard: the first key is kept.
  await rec.waitFor(/● recording/);
  for (const k of ['Left', 'Up', 'Right', 'Down', 'Left', 'Up']) {
    execFileSync('xdotool', ['key', k]);
    await sleep(300);
  }
  expect(await rec.exited, rec.stderr()).toBe(0);
  return JSON.parse(rec.stdout()).session_dir as string;
}

/** A solver run a person takes over (keys typed into its window), then hands back with the hotkey. */
async function assistedRun(): Promise<string> {
  const run = watchCli([
    'run',
    '--game',
    '2048',
    '--agent',
    'solver',
    '--episodes',
    '1',
    '--max-steps',
    '4',
    '--pace-ms',
    '700',
    '--take-over-on-input',
    '--runs-dir',
    runs,
    '--json',
  ]);
  await run.waitFor(/ep 1 step 1:/);
  const win = execFileSync('xdotool', ['search', '--name', '^Gamepilot · 2048 · '], { encoding: 'utf8' }).split(
    '\n',
  )[0]!;
  execFileSync('xdotool', ['windowactivate', '--sync', win]);
  for (const k of ['Up', 'Left']) {
    execFileSync('xdotool', ['key', k]);
    await sleep(300);
  }
  await run.waitFor(/a person has the controls/);
  await sleep(500);
  execFileSync('xdotool', ['key', 'ctrl+shift+F11']);
  expect(await run.exited, run.stderr()).toBe(0);
  return JSON.parse(run.stdout()).run_dir as string;
}

interface Row {
  file_name: string;
  run_id: string;
  episode: number;
  step: number;
  actor: string;
  assisted: boolean;
  player: string;
  actions: string;
  participant: string | null;
  consent: boolean | null;
}

const readSplit = (out: string, split: string): Row[] =>
  readFileSync(path.join(out, split, 'metadata.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);

let solverDir: string;
let randomDir: string;
let sessionDir: string;
let assistedDir: string;

beforeAll(async () => {
  const solver = await runCli([
    'run',
    '--game',
    '2048',
    '--agent',
    'solver',
    '--episodes',
    '3',
    '--max-steps',
    '6',
    '--runs-dir',
    runs,
    '--json',
  ]);
  expect(solver.code, solver.stderr).toBe(0);
  solverDir = json(solver).run_dir;
  const random = await runCli([
    'run',
    '--game',
    'snake',
    '--agent',
    'random',
    '--episodes',
    '1',
    '--max-steps',
    '5',
    '--runs-dir',
    runs,
    '--json',
  ]);
  expect(random.code, random.stderr).toBe(0);
  randomDir = json(random).run_dir;
  sessionDir = await recordSession();
  assistedDir = await assistedRun();
}, 240_000);

describe('gamepilot export', () => {
  it('writes the imagefolder layout: a row per step or input event, every image there, episodes whole per split, the card with the schema', async () => {
    const out = path.join(root, 'ds');
    const r = await runCli(['export', runs, '--out', out, '--validation', '0.5', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/export █+░* 4\/4/);
    const summary = json(r);
    expect(summary).toMatchObject({ runs: 4, resumed: 0, withoutFrame: 0, skipped: [] });

    const rows = [...readSplit(out, 'train'), ...readSplit(out, 'validation')];
    expect(readSplit(out, 'train')).toHaveLength(summary.rows.train);
    expect(readSplit(out, 'validation')).toHaveLength(summary.rows.validation);
    for (const split of ['train', 'validation'])
      for (const row of readSplit(out, split))
        expect(existsSync(path.join(out, split, row.file_name)), row.file_name).toBe(true);

    // Row counts equal the steps (a person's session: its input events).
    const count = (dir: string) => rows.filter((x) => x.run_id === path.basename(dir)).length;
    expect(count(solverDir)).toBe(readRun(solverDir).steps.length);
    expect(count(randomDir)).toBe(readRun(randomDir).steps.length);
    // The assisted run: a row per step, the person's marked human, every row marked assisted.
    const assisted = readRun(assistedDir);
    expect(count(assistedDir)).toBe(assisted.steps.length);
    const humanSteps = assisted.steps.filter((x) => x.actor === 'human').length;
    expect(humanSteps).toBeGreaterThan(0);
    const ofAssisted = rows.filter((x) => x.run_id === path.basename(assistedDir));
    expect(ofAssisted.filter((x) => x.actor === 'human')).toHaveLength(humanSteps);
    expect(ofAssisted.every((x) => x.assisted && x.participant === null)).toBe(true);
    expect(rows.filter((x) => x.run_id !== path.basename(assistedDir)).some((x) => x.assisted)).toBe(false);
    const { events } = readSession(sessionDir);
    expect(events.length).toBeGreaterThanOrEqual(6);
    expect(count(sessionDir)).toBe(events.length);
    const session = rows.filter((x) => x.run_id === path.basename(sessionDir));
    expect(session.every((x) => x.actor === 'human' && x.participant === 'e9' && x.consent === true)).toBe(true);
    expect(rows.filter((x) => x.actor === 'agent').every((x) => x.participant === null)).toBe(true);
    expect(JSON.parse(rows.find((x) => x.player === 'solver')!.actions)).toEqual([
      { action_type: 'PRESS', parameters: { key: expect.stringMatching(/^(up|down|left|right)$/) } },
    ]);

    // An episode is never split: each (run, episode) sits in one split only.
    const where = new Map<string, Set<string>>();
    for (const split of ['train', 'validation'])
      for (const row of readSplit(out, split)) {
        const k = `${row.run_id}:${row.episode}`;
        where.set(k, (where.get(k) ?? new Set()).add(split));
      }
    expect([...where.values()].every((s) => s.size === 1)).toBe(true);
    expect(where.size).toBe(3 + 1 + 1 + 1);

    // The card: Hugging Face's header, every column, the action schema.
    const card = readFileSync(path.join(out, 'README.md'), 'utf8');
    expect(card).toMatch(/^---\n[\s\S]*dataset_info:\n {2}features:\n {2}- name: image\n {4}dtype: image\n/);
    expect(card).toContain(`num_examples: ${summary.rows.train}`);
    for (const c of COLUMNS) expect(card).toContain(`| ${c.name === 'file_name' ? 'image (`file_name`)' : c.name} |`);
    expect(card).toMatch(/## The action schema/);
    // Nothing of the settings: no endpoint, no key, no config.
    const text = readdirSync(out, { recursive: true })
      .filter((f) => String(f).endsWith('.jsonl'))
      .map((f) => readFileSync(path.join(out, String(f)), 'utf8'))
      .join('');
    expect(text).not.toMatch(/base_url|api_key|baseUrl|apiKey|"config"/);
  });

  it('filters by player and score; resumes; refuses other options in the same folder; blurs text', {
    timeout: 240_000,
  }, async () => {
    const out = path.join(root, 'solver-only');
    const solverOnly = ['--player', 'solver', '--assisted', 'no'];
    const first = json(await runCli(['export', runs, '--out', out, ...solverOnly, '--json']));
    expect(first).toMatchObject({ runs: 1, resumed: 0 });
    expect(first.skipped).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/another player \(random\)/),
        expect.stringMatching(/another player \(human-expert\)/),
        expect.stringMatching(/assisted \(a person took over\)/),
      ]),
    );
    const onlyAssisted = json(
      await runCli(['export', runs, '--out', path.join(root, 'assisted'), '--assisted', 'yes', '--json']),
    );
    expect(onlyAssisted.runs).toBe(1);
    const again = json(await runCli(['export', runs, '--out', out, ...solverOnly, '--json']));
    expect(again).toMatchObject({ runs: 1, resumed: 1, rows: first.rows });

    const other = await runCli(['export', runs, '--out', out, '--player', 'random']);
    expect(other.code).not.toBe(0);
    expect(other.stderr).toMatch(/holds an export made with other options/);

    const none = json(await runCli(['export', runs, '--out', path.join(root, 'high'), '--min-score', '100', '--json']));
    expect(none.rows).toEqual({ train: 0, validation: 0 });

    // Text blurred where OCR reads it: the built-in 2048's "Score" line.
    const blurred = path.join(root, 'blurred');
    const red = json(
      await runCli(['export', solverDir, '--out', blurred, '--validation', '0', '--redact-text', '^score', '--json'], {
        timeoutMs: 170_000,
      }),
    );
    expect(red.redacted.frames).toBeGreaterThan(0);
    const row = readSplit(blurred, 'train')[0]!;
    const source = readRun(solverDir).steps.find((s) => s.episode === row.episode && s.step === row.step)!;
    expect(
      readFileSync(path.join(blurred, 'train', row.file_name)).equals(
        readFileSync(path.join(solverDir, source.frame!)),
      ),
    ).toBe(false);
    const bad = await runCli(['export', runs, '--out', path.join(root, 'bad'), '--redact-text', '(?<=x)y']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/redact text: /);
  });
});
