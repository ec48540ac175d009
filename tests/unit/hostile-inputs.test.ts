/**
 * Hostile inputs beyond sweep files and profiles (tests/unit/hostile-files.test.ts): milestone
 * lists (a profile given with --profile, run.json's own list, a judged run's record and labels),
 * IDC folders, ING-VP suite folders when resuming, run folders reached by id or by path, and a
 * profile's `launch` written as a shell command. Each is refused with an error naming the file
 * (and line and field where there is one), and nothing else happens: nothing written, nothing
 * read from outside the folder, nothing sent to a model, nothing run through a shell.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GamepilotCore } from '../../electron/api/core.ts';
import { JsonFileSettingsStore, MemorySecretStore } from '../../electron/api/settings-store.ts';
import { suiteHandlers } from '../../electron/api/suite-activity.ts';
import type { ScreenCapturer } from '../../electron/capture/capturer.ts';
import { SolverPlayer } from '../../electron/ingvp/players.ts';
import { readSuiteFile, runSuite } from '../../electron/ingvp/suite.ts';
import { loadCatalog } from '../../electron/profiles/registry.ts';
import { readIdc } from '../../electron/reflection/idc-files.ts';
import { buildReport } from '../../electron/report/build.ts';
import { readLabels, setLabel } from '../../electron/scoring/milestone-labels.ts';
import { runJobAttempt } from '../../electron/sweep/job-run.ts';
import { parseSweep } from '../../electron/sweep/spec.ts';
import { tutorialSourcePath } from '../../electron/store/tutorials.ts';
import { readRun, RunStore } from '../../electron/store/run-store.ts';
import { createWindowManager } from '../../native/index.ts';
import { runCli } from '../helpers/cli.ts';
import { FakeOpenAI } from '../helpers/fake-openai.ts';
import { writeLaunchProfile, YAML_ALIAS_BOMB } from '../helpers/hostile.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-hostile-in-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const dirIn = (name: string) => {
  const d = path.join(tmp, name);
  mkdirSync(d, { recursive: true });
  return d;
};
/** Just above the 16 MiB a state file may have. */
const HUGE = 16 * 1024 * 1024 + 1024;
const LATENCY = { locate: 0, capture: 0, encode: 0, model: 0, act: 0, total: 0 };
const jpeg = (rgb: [number, number, number]) =>
  sharp({ create: { width: 32, height: 24, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } })
    .jpeg()
    .toBuffer();
const bytesOf = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => {
        const f = path.join(d.parentPath, d.name);
        return [path.relative(dir, f), readFileSync(f, 'utf8')];
      }),
  );

/** A finished human session of `frames` red frames that recorded a milestone list of its own in run.json. */
async function session(root: string, profile: Record<string, unknown>, frames = 3): Promise<RunStore> {
  const store = RunStore.create(root, {
    kind: 'human',
    game: null,
    target: { kind: 'window', label: 'Hostile Quest' },
    agent: 'human:p01',
    model: null,
    action_space: 'gui',
    config: {},
    profile,
  });
  const red = await jpeg([220, 20, 20]);
  for (let s = 0; s < frames; s++)
    store.appendStep({
      step: s,
      episode: 0,
      t_capture: Date.now() + s * 500,
      frame: store.writeFrame(0, s, red, 'jpg'),
      reasoning: '',
      raw: null,
      actions: [],
      errors: [],
      latency_ms: LATENCY,
    });
  store.close('completed', undefined, {
    episodes: [{ episode: 0, seed: 0, score: null, steps: frames, end: 'duration' }],
  });
  return store;
}

const recorded = (milestones: unknown) => ({
  id: 'hostile-quest',
  title: 'Hostile Quest',
  scoring: { kind: 'milestones', linear: true, milestones },
});

let judge: FakeOpenAI;
beforeAll(async () => {
  judge = await new FakeOpenAI(() => ({ text: '{"reached": []}' })).start();
});
afterAll(() => judge.close());
const judgeArgs = () => ['--model', 'judge-x', '--base-url', judge.baseURL];

describe('milestone lists', () => {
  it('a --profile file that is an alias bomb, huge, or has a malformed milestone: refused with file:line and field; run.json untouched, no judge call', async () => {
    const run = await session(dirIn('ms-given'), recorded([{ title: 'Leave the house' }]));
    const before = bytesOf(run.dir);
    const head = [
      'id: hostile-quest',
      'title: Hostile Quest',
      'match: {title: ^Hostile Quest$}',
      'category: nonrealtime-linear',
      'tier: easy',
      'prompt: {rules: r, controls: c}',
      'episode: {maxSteps: 5, trials: 1}',
    ].join('\n');
    const files = {
      bomb: `${YAML_ALIAS_BOMB}\n${head}\nscoring:\n  kind: milestones\n  linear: true\n  milestones: *e\n`,
      huge: `${head}\nscoring: {kind: milestones, linear: true, milestones: [A]}\n# ${'m'.repeat(2 * 1024 * 1024)}\n`,
      evidence: `${head}\nscoring:\n  kind: milestones\n  linear: true\n  milestones:\n    - Leave the house\n    - title: Cross the bridge\n      evidence: ../../../etc/passwd\n`,
      empty: `${head}\nscoring:\n  kind: milestones\n  linear: true\n  milestones:\n    - Leave the house\n    - title: "  "\n`,
    };
    const expected = {
      bomb: /bomb\.yaml:2: aliases that expand too far/,
      huge: /huge\.yaml: \d+ bytes, above the 1024 KiB a profile file may have \(not read\)/,
      evidence:
        /evidence\.yaml:14: scoring\.milestones\.1\.evidence: must be a path relative to the profile file, without \.\./,
      empty: /empty\.yaml:13: scoring\.milestones\.1\.title: Too small/,
    };
    for (const [name, text] of Object.entries(files)) {
      const file = path.join(tmp, `${name}.yaml`);
      writeFileSync(file, text);
      const r = await runCli(['milestones', 'judge', run.dir, '--profile', file, ...judgeArgs()]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`--profile: profile ${file}`);
      expect(r.stderr).toMatch(expected[name as keyof typeof expected]);
      expect(r.stderr).not.toMatch(/\n\s+at /); // a message, not a stack
    }
    expect(judge.requests).toHaveLength(0);
    expect(bytesOf(run.dir)).toEqual(before);
  });

  it("run.json's own milestone list of the wrong shape: refused naming run.json, its line and the field; nothing judged", async () => {
    const root = dirIn('ms-recorded');
    const cases: [unknown, RegExp][] = [
      [[{ title: 'Leave the house' }, { title: 5 }], /profile\.scoring\.milestones\.1\.title: expected string/],
      ['Leave the house', /profile\.scoring\.milestones: expected array, received string/],
      [[null], /profile\.scoring\.milestones\.0: expected object, received null/],
      [[], /profile\.scoring\.milestones: a milestone list needs a milestone/],
      [
        Array.from({ length: 201 }, (_, i) => ({ title: `M${i}` })),
        /profile\.scoring\.milestones: Too big: expected array to have <=200 items \(a profile holds at most 200 milestones a level/,
      ],
    ];
    for (const [list, why] of cases) {
      const run = await session(root, recorded(list));
      const file = path.join(run.dir, 'run.json');
      const before = bytesOf(run.dir);
      const r = await runCli(['milestones', 'judge', run.dir, ...judgeArgs()]);
      expect(r.code, r.stderr).toBe(1);
      // `run <dir>/run.json:<line>: <field>: <why> (nothing was judged)`, the line that of the field.
      const m = new RegExp(
        `run ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:(\\d+): (.*) \\(nothing was judged\\)`,
      ).exec(r.stderr);
      expect(m, r.stderr).not.toBeNull();
      expect(m![2]).toMatch(why);
      const line = readFileSync(file, 'utf8').split('\n')[Number(m![1]) - 1]!;
      expect(line).toMatch(/"milestones"|"title"|null/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(bytesOf(run.dir)).toEqual(before);
    }
    expect(judge.requests).toHaveLength(0);
  });

  it("a judged run's milestones record or labels file of the wrong shape: label and agreement refuse, naming the file; nothing written", async () => {
    const root = dirIn('ms-judged');
    const run = await session(root, recorded([{ title: 'Leave the house' }]));
    const file = path.join(run.dir, 'run.json');
    const meta = JSON.parse(readFileSync(file, 'utf8'));
    meta.milestones = { episodes: [{ episode: 0, items: 'Leave the house' }] };
    writeFileSync(file, JSON.stringify(meta, null, 2));
    // A person's label already there: agreement reads the judged checklist only for labelled runs.
    writeFileSync(
      path.join(run.dir, 'milestone-labels.json'),
      '{"labels": [{"episode": 0, "milestone": "Leave the house", "reached": true, "at": "x"}]}',
    );
    const before = bytesOf(run.dir);
    const label = await runCli(['milestones', 'label', run.dir, '--milestone', 'Leave the house', '--reached', 'yes']);
    expect(label.code, label.stderr).toBe(1);
    expect(label.stderr).toMatch(
      new RegExp(
        `run ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+: milestones\\.episodes\\.0\\.items: expected array, received string \\(no label was saved\\)`,
      ),
    );
    const agree = await runCli(['milestones', 'agreement', run.dir]);
    expect(agree.code, agree.stderr).toBe(1);
    expect(agree.stderr).toContain(`${file}`);
    expect(agree.stderr).toContain('(its labels were not counted)');
    expect(bytesOf(run.dir)).toEqual(before);
    // The same check over the contract's path (setLabel), with no crash on a null episode.
    meta.milestones = { episodes: [null] };
    writeFileSync(file, JSON.stringify(meta, null, 2));
    expect(() =>
      setLabel(run.dir, readRun(run.dir).meta, { episode: 0, milestone: 'Leave the house', reached: true }),
    ).toThrow(/run .*run\.json:\d+: milestones\.episodes\.0: expected object, received null \(no label was saved\)/);

    // A labels file: not JSON, the wrong shape, huge, or a link to a file outside — each named, none followed.
    const labels = path.join(run.dir, 'milestone-labels.json');
    writeFileSync(labels, '{"labels": [');
    expect(() => readLabels(run.dir)).toThrow(`${labels} is not valid JSON`);
    writeFileSync(labels, '{"labels": [{"episode": -1, "milestone": "x", "reached": true, "at": ""}]}');
    expect(() => readLabels(run.dir)).toThrow(`${labels} is not a valid milestone labels: labels.0.episode`);
    writeFileSync(labels, `{"labels": []}${' '.repeat(HUGE)}`);
    expect(() => readLabels(run.dir)).toThrow(
      /milestone labels .*milestone-labels\.json: \d+ bytes, above the 16384 KiB a milestone labels file may have \(not read\)/,
    );
    rmSync(labels);
    const outside = path.join(tmp, 'outside-labels.json');
    writeFileSync(outside, '{"labels": [{"episode": 0, "milestone": "Leave the house", "reached": true, "at": "x"}]}');
    symlinkSync(outside, labels);
    expect(() => readLabels(run.dir)).toThrow(/milestone-labels\.json in .* is a symbolic link/);
  });
});

describe('IDC folders', () => {
  const idc = (curve: number[], extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      run_dir: 'x',
      curve,
      best_round: 0,
      best_skill: '',
      transfer: { episodes: 1, splits: [] },
      rounds: curve.map((mean, round) => ({ round, run_dir: 'r', skill: '', scores: [mean], mean })),
      ...extra,
    });

  it('a corrupt, wrong-shaped, huge or symlinked idc.json is left out with a warning naming it; the others are charted', () => {
    const root = dirIn('idc-runs');
    const put = (name: string, text: string) => writeFileSync(path.join(dirIn(`idc-runs/${name}`), 'idc.json'), text);
    put('good', idc([10, 20]));
    const OUTSIDE_CURVE = [12.345, 67.891];
    put('corrupt', '{"curve": [1, 2');
    put('shape', idc([10, 20], { best_round: -1 }));
    put('huge', idc([10, 20]) + ' '.repeat(HUGE));
    // A link to a valid curve outside: were it followed, that curve would be charted.
    const outside = path.join(dirIn('idc-outside'), 'idc.json');
    writeFileSync(outside, idc(OUTSIDE_CURVE));
    symlinkSync(outside, path.join(dirIn('idc-runs/linked'), 'idc.json'));
    const data = buildReport(root);
    expect(data.idc.map((c) => [c.id, c.curve])).toEqual([['good', [10, 20]]]);
    const w = data.warnings.join('\n');
    expect(w).toContain(`${path.join(root, 'corrupt', 'idc.json')} is not valid JSON`);
    expect(w).toContain(`${path.join(root, 'shape', 'idc.json')} is not a valid IDC result: best_round`);
    expect(w).toMatch(/IDC result .*huge\/idc\.json: \d+ bytes, above the 16384 KiB an IDC result file may have/);
    expect(w).toMatch(/idc\.json in .*linked is a symbolic link; files must be plain files inside the IDC folder/);
    expect(JSON.stringify(data)).not.toContain('67.891');
  });

  it('skills.jsonl huge or symlinked is refused naming it; the paths idc.json holds are never followed', async () => {
    const dir = dirIn('idc-skills');
    writeFileSync(path.join(dir, 'idc.json'), idc([10, 20]));
    writeFileSync(path.join(dir, 'skills.jsonl'), `{"after_round": 0, "skill": "x"}\n${' '.repeat(HUGE)}\n`);
    expect(() => readIdc(dir)).toThrow(/IDC skills .*skills\.jsonl: \d+ bytes, above the 16384 KiB/);
    rmSync(path.join(dir, 'skills.jsonl'));
    const secret = path.join(tmp, 'secret-skills.jsonl');
    writeFileSync(secret, '{"after_round": 0, "skill": "SECRET-SKILL"}\n');
    symlinkSync(secret, path.join(dir, 'skills.jsonl'));
    expect(() => readIdc(dir)).toThrow(/skills\.jsonl in .* is a symbolic link/);

    // run_dir fields pointing at a run elsewhere (absolute and through ..): a record, never read.
    const root = dirIn('idc-paths');
    const elsewhere = RunStore.create(dirIn('idc-elsewhere'), {
      kind: 'agent',
      game: '2048',
      target: { kind: 'builtin', label: '2048' },
      agent: 'vlm',
      model: 'model-from-elsewhere',
      action_space: 'gui',
      config: {},
    });
    elsewhere.close('completed');
    const rel = path.relative(path.join(root, 'curve'), elsewhere.dir);
    writeFileSync(
      path.join(dirIn('idc-paths/curve'), 'idc.json'),
      idc([5, 6], {
        run_dir: elsewhere.dir,
        rounds: [
          { round: 0, run_dir: rel, skill: '', scores: [5], mean: 5 },
          { round: 1, run_dir: '/etc/passwd', skill: '', scores: [6], mean: 6 },
        ],
      }),
    );
    const data = buildReport(root);
    expect(data.idc).toMatchObject([{ id: 'curve', curve: [5, 6], game: null, model: null }]);
    expect(JSON.stringify(data)).not.toContain('model-from-elsewhere');
  });
});

describe('ING-VP suite folders when resuming', () => {
  const entry = (over: Record<string, unknown> = {}) => ({
    game: 'sokoban',
    setting: 'one-step-text',
    level: 1,
    run: '20250101T000000-sokoban-solver',
    ms: 10,
    solved: true,
    completion: 100,
    efficiency: 100,
    actions: 4,
    changed: 4,
    steps: 4,
    unparsable: 0,
    dropped: 0,
    ...over,
  });
  const suite = (results: Record<string, unknown>, over: Record<string, unknown> = {}) =>
    JSON.stringify({
      suite: 'ingvp',
      agent: 'solver',
      model: null,
      step_limit: 50,
      created: '2025-01-01T00:00:00.000Z',
      updated: '2025-01-01T00:00:00.000Z',
      results,
      ...over,
    });
  const key = 'sokoban/one-step-text/1';

  it('a suite.json that cannot be resumed is refused naming the file and field, before anything is made or opened', async () => {
    const outsideFile = path.join(tmp, 'outside-suite.json');
    writeFileSync(outsideFile, suite({}, { agent: 'solver' }));
    const cases: [string, string | (() => void), RegExp][] = [
      ['corrupt', '{"suite": "ingvp", "agent": ', /suite\.json is not valid JSON \(.*\); move it away/],
      [
        'results-array',
        suite({}, { results: [] }),
        /not an ING-VP suite file: results: expected record, received array/,
      ],
      [
        'run-path',
        suite({ [key]: entry({ run: '../../etc/passwd' }) }),
        /results\.sokoban\/one-step-text\/1\.run: must be a run id \(a folder name\), not a path/,
      ],
      [
        'run-absolute',
        suite({ [key]: entry({ run: '/etc/passwd' }) }),
        /results\.sokoban\/one-step-text\/1\.run: must be a run id/,
      ],
      [
        'wrong-key',
        suite({ [key]: entry({ level: 2 }) }),
        /results\.sokoban\/one-step-text\/1: holds the result of sokoban\/one-step-text\/2/,
      ],
      [
        'score',
        suite({ [key]: entry({ completion: 1e308 }) }),
        /results\.sokoban\/one-step-text\/1\.completion: Too big/,
      ],
      ['setting', suite({ [key]: entry({ setting: 'x' }) }), /results\.sokoban\/one-step-text\/1\.setting/],
      ['updated', suite({}, { updated: 5 }), /updated: expected string, received number/],
      [
        'huge',
        suite({}) + ' '.repeat(HUGE),
        /ING-VP suite .*suite\.json: \d+ bytes, above the 16384 KiB an ING-VP suite file may have \(not read\)/,
      ],
      ['linked', () => {}, /suite\.json in .* is a symbolic link; files must be plain files inside the suite folder/],
    ];
    const opened: string[] = [];
    for (const [name, text, why] of cases) {
      const out = dirIn(`suites/${name}`);
      if (typeof text === 'string') writeFileSync(path.join(out, 'suite.json'), text);
      else symlinkSync(outsideFile, path.join(out, 'suite.json'));
      const before = bytesOf(out);
      await expect(
        runSuite({
          games: ['sokoban'],
          settings: ['one-step-text'],
          levels: [1, 2],
          out,
          player: new SolverPlayer(),
          capturer: {} as ScreenCapturer,
          openView: async (g) => {
            opened.push(g.def.id);
            throw new Error('no window in this test');
          },
          signal: new AbortController().signal,
        }),
        name,
      ).rejects.toThrow(why);
      expect(readdirSync(out), name).toEqual(['suite.json']); // no runs/, no table.json
      expect(bytesOf(out), name).toEqual(before);
    }
    expect(opened).toEqual([]);
    expect(readFileSync(outsideFile, 'utf8')).toBe(suite({}, { agent: 'solver' }));
    // A good file still resumes.
    const good = dirIn('suites/good');
    writeFileSync(path.join(good, 'suite.json'), suite({ [key]: entry() }));
    expect(Object.keys(readSuiteFile(good)!.results)).toEqual([key]);
  });

  it('listSuites names each damaged suite.json in its warnings and lists the others, old ones without dates too', async () => {
    const runsDir = dirIn('suite-list');
    const put = (name: string, text: string) =>
      writeFileSync(path.join(dirIn(`suite-list/${name}`), 'suite.json'), text);
    put('ok', suite({ [key]: entry() }));
    // Two suites from before `updated` was written: listed (once, sorting them crashed the listing).
    put('old-1', '{"suite": "ingvp", "agent": "vlm", "model": "m", "results": {}}');
    put('old-2', '{"suite": "ingvp", "agent": "vlm", "model": "m", "results": {}}');
    put('bad', suite({ [key]: entry({ run: '../../../etc/passwd' }) }));
    put('torn', '{"suite": "ing');
    const { suites, warnings } = await suiteHandlers({ runsDir }).listSuites({});
    expect(suites.map((s) => s.name).sort()).toEqual(['ok', 'old-1', 'old-2']);
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).toContain(path.join(runsDir, 'bad', 'suite.json'));
    expect(warnings.join('\n')).toContain(path.join(runsDir, 'torn', 'suite.json'));
  });

  it('gamepilot suite ingvp on a folder whose suite.json links outside: exit 1 naming it, nothing made', async () => {
    const out = dirIn('suite-cli');
    const outsideFile = path.join(tmp, 'outside-cli-suite.json');
    writeFileSync(outsideFile, suite({}));
    symlinkSync(outsideFile, path.join(out, 'suite.json'));
    const r = await runCli([
      'suite',
      'ingvp',
      '--agent',
      'solver',
      '--games',
      'sokoban',
      '--levels',
      '1',
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`suite.json in ${out} is a symbolic link`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(out)).toEqual(['suite.json']);
    expect(readFileSync(outsideFile, 'utf8')).toBe(suite({}));
  });
});

describe('run folders reached by id or by path', () => {
  it('a run folder that is a symlink in the runs folder is refused by id and left out of listings', async () => {
    const runsDir = dirIn('id-runs');
    const red = await jpeg([200, 0, 0]);
    const make = (root: string, model: string) => {
      const s = RunStore.create(root, {
        kind: 'agent',
        game: '2048',
        target: { kind: 'builtin', label: '2048' },
        agent: 'vlm',
        model,
        action_space: 'gui',
        config: {},
      });
      s.appendStep({
        step: 0,
        episode: 0,
        t_capture: Date.now(),
        frame: s.writeFrame(0, 0, red, 'jpg'),
        reasoning: '',
        raw: null,
        actions: [],
        errors: [],
        latency_ms: LATENCY,
      });
      s.close('completed', undefined, {
        episodes: [{ episode: 0, seed: 0, score: 10, steps: 1, end: 'game_over' }],
        mean: 10,
        std: 0,
        milestones: { episodes: [{ episode: 0, items: [{ name: 'Leave the house', reached: true }] }] },
      });
      return s;
    };
    const mine = make(runsDir, 'model-inside');
    const elsewhere = make(dirIn('id-elsewhere'), 'model-outside');
    const linked = path.join(runsDir, 'linked-run');
    symlinkSync(elsewhere.dir, linked);
    const before = bytesOf(elsewhere.dir);
    const core = new GamepilotCore({
      wm: createWindowManager(),
      settings: new JsonFileSettingsStore(path.join(dirIn('id-config'), 'settings.json')),
      secrets: new MemorySecretStore(),
      runsDir,
      exportDir: path.join(tmp, 'id-exports'),
      shell: 'web',
      version: '0.0.0-test',
    });
    const listed = (await core.handle('listRuns', {})) as { runs: { id: string }[]; warnings: string[] };
    expect(listed.runs.map((r) => r.id)).toEqual([mine.meta.id]);
    expect(listed.warnings.join('\n')).toContain(`${linked} is a symbolic link; a run folder must be a plain folder`);
    const refused = /linked-run is a symbolic link; a run folder must be a plain folder in/;
    await expect(core.handle('getRun', { id: 'linked-run' })).rejects.toThrow(refused);
    await expect(core.handle('getFrame', { id: 'linked-run', frame: 'frames/e000-s00000.jpg' })).rejects.toThrow(
      refused,
    );
    await expect(core.handle('exportRun', { id: 'linked-run', name: 'copy' })).rejects.toThrow(refused);
    await expect(core.handle('milestoneLabels', { id: 'linked-run' })).rejects.toThrow(refused);
    await expect(
      core.handle('labelMilestone', { id: 'linked-run', episode: 0, milestone: 'Leave the house', reached: false }),
    ).rejects.toThrow(refused);
    expect(() => tutorialSourcePath(runsDir, 'linked-run')).toThrow(refused);
    const lb = (await core.handle('leaderboard', {})) as { rows: { model: string | null }[] };
    expect(JSON.stringify(lb.rows)).not.toContain('model-outside');
    // An id with dots stays a folder name: looked up inside the runs folder, and not found there.
    await expect(core.handle('getRun', { id: 'a..b' })).rejects.toThrow(/no run "a\.\.b" in/);
    expect(bytesOf(elsewhere.dir)).toEqual(before);
    expect(existsSync(path.join(tmp, 'id-exports', 'copy'))).toBe(false);
    // The plain run next to it still opens (a folder given by path on the command line may be a link: next test).
    expect(((await core.handle('getRun', { id: mine.meta.id })) as { meta: { model: string } }).meta.model).toBe(
      'model-inside',
    );
  });

  it('milestones judge of a run folder given by path: frames named ../ or symlinked are left out with a warning, never shown to the judge', async () => {
    const root = dirIn('path-runs');
    const run = await session(root, recorded([{ title: 'Leave the house' }]), 3);
    const secret = path.join(tmp, 'secret-frame.jpg');
    writeFileSync(secret, await jpeg([0, 0, 230])); // blue: the judge would see it
    // steps.jsonl: step 1 names a file outside through ..; step 2's frame is a link to it.
    const stepsFile = path.join(run.dir, 'steps.jsonl');
    const rows = readFileSync(stepsFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    rows[1].frame = `../../${path.relative(path.dirname(root), secret)}`;
    writeFileSync(stepsFile, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
    rmSync(path.join(run.dir, rows[2].frame));
    symlinkSync(secret, path.join(run.dir, rows[2].frame));
    // Given through a symlink of its own: a user may name a run folder any way they like.
    const alias = path.join(tmp, 'alias-to-run');
    symlinkSync(run.dir, alias);
    judge.requests.length = 0;
    const r = await runCli(['milestones', 'judge', alias, ...judgeArgs(), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: step 1 of episode 0: .* points outside its run folder/);
    expect(r.stderr).toMatch(/warning: step 2 of episode 0: .* is a symbolic link/);
    const images = judge.requests.flatMap((q) =>
      (q.body.messages[0].content as { type: string; image_url?: { url: string } }[]).filter(
        (p) => p.type === 'image_url',
      ),
    );
    expect(images).toHaveLength(1); // step 0 only
    for (const img of images) {
      const { channels } = await sharp(Buffer.from(img.image_url!.url.split(',')[1]!, 'base64')).stats();
      expect(channels[2]!.mean).toBeLessThan(100); // not the blue secret
    }
    expect(readFileSync(secret).length).toBeGreaterThan(0);
    expect(readRun(run.dir).meta.milestones).toMatchObject({ judge_model: 'judge-x' });
  });
});

describe('a profile launch is an argv, never a shell command', () => {
  const config = dirIn('launch-config');
  const work = dirIn('launch-work');
  const marker = path.join(work, 'pwned');
  const profile = (id: string, launch: string[]) => writeLaunchProfile(dirIn('launch-config/profiles'), id, launch);
  const attempt = async (id: string, signal?: AbortSignal) => {
    const catalog = loadCatalog({ configDir: config });
    expect(catalog.errors.map((e) => e.message)).toEqual([]);
    const sweep = parseSweep(`games: [${id}]\nagents: [random]\nretries: 0\n`, 'launch.yaml', catalog);
    const t0 = performance.now();
    const r = await runJobAttempt(sweep.jobs[0]!, {
      spec: sweep.spec,
      display: ':4242',
      stagingDir: dirIn(`launch-staging/${id}`),
      attempt: 1,
      env: { GAMEPILOT_CONFIG_DIR: config },
      ...(signal ? { signal } : {}),
    });
    return { ...r, ms: performance.now() - t0 };
  };

  it('shell syntax in the command fails "not found" at once, and nothing runs', async () => {
    const cases: Record<string, string[]> = {
      'shell-sh-c': [`sh -c 'touch ${marker}'`],
      'shell-semicolon': [`true; touch ${marker}`],
      'shell-subst': [`$(touch ${marker})`],
      'shell-backtick': [`\`touch ${marker}\``],
      'shell-and': [`true && touch ${marker}`],
      'no-such-command': ['gamepilot-no-such-game-binary', '--windowed'],
    };
    for (const [id, launch] of Object.entries(cases)) profile(id, launch);
    for (const [id, launch] of Object.entries(cases)) {
      const r = await attempt(id);
      expect(r.outcome.status, id).toBe('failed');
      expect(r.outcome.error, id).toBe(`profile "${id}": launch command ${launch[0]} not found on this worker`);
      expect(r.ms, id).toBeLessThan(10_000); // at once, not the 20 s wait for a window
      expect(r.runDir, id).toBeUndefined();
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('shell syntax in an argument reaches the program verbatim', async () => {
    // touch is run with one argument; a shell would have split it and touched the marker.
    const literal = path.join(work, `made by touch; touch ${marker}`);
    mkdirSync(path.dirname(literal), { recursive: true });
    profile('shell-in-arg', ['touch', literal]);
    const stop = new AbortController();
    const poll = setInterval(() => existsSync(literal) && stop.abort(), 50);
    try {
      const r = await attempt('shell-in-arg', stop.signal);
      expect(r.outcome.status).toBe('failed'); // no window came
    } finally {
      clearInterval(poll);
    }
    expect(existsSync(literal)).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });
});
