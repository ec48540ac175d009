/**
 * The contract is not a file-system API: exports go only into the exports folder (or where the
 * app's save dialog says) under a validated name and never overwrite; tutorials are "solver" or
 * a run id; run files cannot point outside their folder; the stored API key goes only to the
 * saved base URL. Real core, real files, real ffmpeg; the model endpoint is the test server.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GamepilotCore, type CoreDeps } from '../../electron/api/core.ts';
import { JsonFileSettingsStore, MemorySecretStore } from '../../electron/api/settings-store.ts';
import { RunStore } from '../../electron/store/run-store.ts';
import { DEFAULT_REFLECTION_SAMPLING, reflectionSample } from '../../electron/reflection/sampling.ts';
import { loadTutorial } from '../../electron/scoring/trajectory.ts';
import { createWindowManager } from '../../native/index.ts';
import { FakeOpenAI } from '../helpers/fake-openai.ts';

const LATENCY = { locate: 1, capture: 1, encode: 1, model: 1, act: 1, total: 5 };
const tmp = mkdtempSync(path.join(tmpdir(), 'gp-contract-fs-'));
const runsDir = path.join(tmp, 'runs');
const exportDir = path.join(tmp, 'exports');
let jpeg: Buffer;

function makeCore(extra: Partial<CoreDeps> = {}, configDir = path.join(tmp, 'config')) {
  return new GamepilotCore({
    wm: createWindowManager(),
    settings: new JsonFileSettingsStore(path.join(configDir, 'settings.json')),
    secrets: new MemorySecretStore(),
    runsDir,
    exportDir,
    shell: 'web',
    version: '0.0.0-test',
    ...extra,
  });
}

/** A finished run with real frames; `framePaths` overrides what steps.jsonl says (a crafted run). */
function seedRun(opts: { framePaths?: string[]; kind?: 'agent' | 'human'; agent?: string } = {}): RunStore {
  const store = RunStore.create(runsDir, {
    kind: opts.kind ?? 'agent',
    game: '2048',
    target: { kind: 'builtin', label: '2048' },
    agent: opts.agent ?? 'solver',
    model: null,
    action_space: 'gui',
    config: {},
  });
  const t0 = Date.now();
  for (let i = 0; i < 3; i++) {
    const frame = store.writeFrame(0, i, jpeg, 'jpg');
    store.appendStep({
      step: i,
      episode: 0,
      t_capture: t0 + i * 500,
      frame: opts.framePaths?.[i] ?? frame,
      reasoning: '',
      raw: null,
      actions: [],
      errors: [],
      latency_ms: LATENCY,
    });
  }
  store.close('completed', undefined, {
    episodes: [{ episode: 0, seed: 0, score: 10, steps: 3, end: 'game_over' }],
    mean: 10,
    std: 0,
  });
  return store;
}

let core: GamepilotCore;
let run: RunStore;
beforeAll(async () => {
  jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c33' } })
    .jpeg()
    .toBuffer();
  run = seedRun();
  core = makeCore();
});

describe('exports stay in the exports folder', () => {
  it('exportRun takes a name, never a path, and never overwrites', async () => {
    await expect(core.handle('exportRun', { id: run.meta.id, dest: path.join(tmp, 'anywhere') })).rejects.toThrow(
      /exportRun: .*dest/i,
    );
    for (const name of ['../escape', '/etc/cron.d/x', 'a/b', '.hidden', '-rf']) {
      await expect(core.handle('exportRun', { id: run.meta.id, name }), name).rejects.toThrow(/exportRun: name/);
    }
    expect(existsSync(path.join(tmp, 'escape'))).toBe(false);

    const { path: out } = (await core.handle('exportRun', { id: run.meta.id, name: 'copy-1' })) as { path: string };
    expect(out).toBe(path.join(exportDir, 'copy-1'));
    expect(readdirSync(path.join(out, 'frames'))).toHaveLength(3);
    expect(((await core.handle('exportRun', { id: run.meta.id })) as { path: string }).path).toBe(
      path.join(exportDir, run.meta.id),
    );

    writeFileSync(path.join(exportDir, 'taken'), 'keep me');
    await expect(core.handle('exportRun', { id: run.meta.id, name: 'taken' })).rejects.toThrow(/already exists/);
    await expect(core.handle('exportRun', { id: run.meta.id, name: 'copy-1' })).rejects.toThrow(/already exists/);
    expect(readFileSync(path.join(exportDir, 'taken'), 'utf8')).toBe('keep me');
  });

  it('exportRun leaves a symlink planted in the run behind', async () => {
    const s = seedRun();
    writeFileSync(path.join(tmp, 'private.txt'), 'private');
    symlinkSync(path.join(tmp, 'private.txt'), path.join(s.dir, 'notes.txt'));
    const { path: out } = (await core.handle('exportRun', { id: s.meta.id, name: 'no-links' })) as { path: string };
    expect(existsSync(path.join(out, 'run.json'))).toBe(true);
    expect(existsSync(path.join(out, 'notes.txt'))).toBe(false);
  });

  it('exportVideo never takes an ffmpeg option or an existing file; writes an MP4 into the exports folder', async () => {
    await expect(core.handle('exportVideo', { id: run.meta.id, dest: '-version' })).rejects.toThrow(
      /exportVideo: .*dest/i,
    );
    for (const name of ['-version.mp4', '-y', '../x.mp4', 'clip.sh', '/tmp/x.mp4']) {
      await expect(core.handle('exportVideo', { id: run.meta.id, name }), name).rejects.toThrow(/exportVideo: name/);
    }
    // On a fresh install the exports folder does not exist yet: the first export (a video) makes it.
    const fresh = path.join(tmp, 'fresh-exports');
    const first = (await makeCore({ exportDir: fresh }).handle('exportVideo', { id: run.meta.id })) as { path: string };
    expect(path.dirname(first.path)).toBe(fresh);
    expect(statSync(first.path).size).toBeGreaterThan(500);
    const { path: out } = (await core.handle('exportVideo', { id: run.meta.id, name: 'clip.mp4' })) as { path: string };
    expect(out).toBe(path.join(exportDir, 'clip.mp4'));
    expect(statSync(out).size).toBeGreaterThan(500);
    expect(readFileSync(out).subarray(4, 8).toString('latin1')).toBe('ftyp');

    writeFileSync(path.join(exportDir, 'victim.mp4'), 'keep me');
    await expect(core.handle('exportVideo', { id: run.meta.id, name: 'victim.mp4' })).rejects.toThrow(/already exists/);
    expect(readFileSync(path.join(exportDir, 'victim.mp4'), 'utf8')).toBe('keep me');
    // Nothing was written into the run folder either (the frame list goes to a private temp folder).
    expect(readdirSync(run.dir).sort()).toEqual(['frames', 'run.json', 'steps.jsonl']);
  });

  it('asks the app’s save dialog hook where to put an export, when there is one', async () => {
    const asked: [string, string][] = [];
    let answer: string | undefined = path.join(tmp, 'chosen', 'by-dialog');
    const withDialog = makeCore({
      chooseExportPath: async (name, kind) => {
        asked.push([name, kind]);
        return answer;
      },
    });
    const { path: out } = (await withDialog.handle('exportRun', { id: run.meta.id })) as { path: string };
    expect(out).toBe(path.join(tmp, 'chosen', 'by-dialog'));
    expect(existsSync(path.join(out, 'run.json'))).toBe(true);
    expect(asked).toEqual([[run.meta.id, 'run']]);
    answer = undefined;
    await expect(withDialog.handle('exportVideo', { id: run.meta.id })).rejects.toThrow(/cancelled/);
    expect(asked.at(-1)).toEqual([`${run.meta.id}.mp4`, 'video']);
    answer = 'relative.mp4';
    await expect(withDialog.handle('exportVideo', { id: run.meta.id })).rejects.toThrow(/not absolute/);
  });
});

describe('run files cannot point outside their run folder', () => {
  it('a run whose steps name ../ or a symlinked frame is refused as a tutorial, a video and a replay frame', async () => {
    const secret = path.join(tmp, 'secret.jpg');
    writeFileSync(secret, jpeg);
    const dotdot = seedRun({ framePaths: ['frames/e000-s00000.jpg', '../../secret.jpg', 'frames/e000-s00002.jpg'] });
    await expect(loadTutorial(dotdot.dir, reflectionSample(DEFAULT_REFLECTION_SAMPLING))).rejects.toThrow(
      /outside its run folder/,
    );
    await expect(core.handle('exportVideo', { id: dotdot.meta.id, name: 'dotdot.mp4' })).rejects.toThrow(
      /outside its run folder/,
    );

    const linked = seedRun();
    const frame = path.join(linked.framesDir, 'e000-s00001.jpg');
    rmSync(frame); // replaced by a link to a file outside the run
    symlinkSync(secret, frame);
    await expect(loadTutorial(linked.dir, reflectionSample(DEFAULT_REFLECTION_SAMPLING))).rejects.toThrow(
      /symbolic link/,
    );
    await expect(core.handle('exportVideo', { id: linked.meta.id, name: 'linked.mp4' })).rejects.toThrow(
      /symbolic link/,
    );
    await expect(core.handle('getFrame', { id: linked.meta.id, frame: 'frames/e000-s00001.jpg' })).rejects.toThrow(
      /symbolic link/,
    );
    expect(existsSync(path.join(exportDir, 'dotdot.mp4'))).toBe(false);
    expect(existsSync(path.join(exportDir, 'linked.mp4'))).toBe(false);
  });
});

describe('tutorials over the contract', () => {
  it('are "solver", "title", a run id or a tutorial video id of the runs folder; a file path is refused before anything opens', async () => {
    const c = makeCore({}, path.join(tmp, 'config-tutorial'));
    await c.handle('saveSettings', {
      settings: { provider: 'custom', baseUrl: 'http://127.0.0.1:9/v1', model: 'test-vlm' },
    });
    const before = readdirSync(runsDir).length;
    const start = (tutorial: string) =>
      c.handle('startRun', { target: { game: '2048' }, agent: 'vlm', reflection: 'self-t', tutorial });
    for (const tutorial of ['/etc/passwd', '/home/user/secret.mp4', '../runs', 'runs/x', '-version']) {
      await expect(start(tutorial), tutorial).rejects.toThrow(
        /startRun: tutorial must be "solver", "title", the id of a run or session in the runs folder, or of a video in its tutorials folder/,
      );
    }
    await expect(start('no-such-run')).rejects.toThrow(/no run "no-such-run"/);
    await expect(start('tutorials/2048/none.mp4')).rejects.toThrow(/no tutorial video "tutorials\/2048\/none.mp4"/);
    expect(readdirSync(runsDir).length).toBe(before); // no run folder, no window
    expect(((await c.handle('state', {})) as { status: string }).status).toBe('idle');
  });

  it('findTutorial finds the expert session next to a malformed run.json', async () => {
    const expert = seedRun({ kind: 'human', agent: 'human-expert' });
    mkdirSync(path.join(runsDir, 'broken-run'));
    writeFileSync(path.join(runsDir, 'broken-run', 'run.json'), '{"id": "broken-run", "created": null}');
    const found = (await core.handle('findTutorial', { title: '2048' })) as {
      id: string;
      candidates: { id: string }[];
    };
    expect(found.id).toBe(expert.meta.id);
    expect(found.candidates[0]!.id).toBe(expert.meta.id); // experts first, then other runs of the title
    // A window's sessions are found by the title the tables key them by: here an unprofiled one.
    const windowExpert = RunStore.create(runsDir, {
      kind: 'human',
      game: null,
      target: { kind: 'window', label: 'Some Game' },
      agent: 'human-expert',
      model: null,
      action_space: 'gui',
      config: {},
    });
    windowExpert.close('completed');
    expect(await core.handle('findTutorial', { title: 'window:Some Game' })).toMatchObject({
      id: windowExpert.meta.id,
    });
    expect(await core.handle('findTutorial', { title: 'window:Other' })).toEqual({
      id: null,
      folder: 'tutorials/window-other',
      candidates: [],
    });
    const listed = (await core.handle('listRuns', {})) as { runs: { id: string }[]; warnings: string[] };
    expect(listed.runs.some((r) => r.id === expert.meta.id)).toBe(true);
    expect(listed.warnings.join('\n')).toContain(path.join(runsDir, 'broken-run', 'run.json'));
    expect(((await core.handle('leaderboard', {})) as { warnings: string[] }).warnings.join('\n')).toContain(
      'broken-run',
    );
  });
});

describe('testConnection and the stored API key', () => {
  let saved: FakeOpenAI;
  let other: FakeOpenAI;
  beforeAll(async () => {
    saved = await new FakeOpenAI(() => ({ text: '' })).start();
    other = await new FakeOpenAI(() => ({ text: '' })).start();
  });
  afterAll(async () => {
    await saved.close();
    await other.close();
  });

  it('sends the stored key only to the saved base URL', async () => {
    const c = makeCore({}, path.join(tmp, 'config-key'));
    await c.handle('saveSettings', {
      settings: { provider: 'custom', baseUrl: saved.baseURL, model: 'test-vlm' },
      apiKey: 'sk-stored-secret',
    });
    const auth = (s: FakeOpenAI) => s.modelListings.at(-1)?.headers.authorization;

    expect(await c.handle('testConnection', {})).toMatchObject({ ok: true, models: ['test-vlm'] });
    expect(auth(saved)).toBe('Bearer sk-stored-secret');
    await c.handle('testConnection', { settings: { baseUrl: `${saved.baseURL}/` } });
    expect(auth(saved)).toBe('Bearer sk-stored-secret');

    expect(await c.handle('testConnection', { settings: { baseUrl: other.baseURL } })).toMatchObject({ ok: true });
    expect(other.modelListings).toHaveLength(1);
    expect(auth(other)).not.toContain('sk-stored-secret');
    await c.handle('testConnection', {
      settings: { provider: 'custom', baseUrl: other.baseURL },
      apiKey: 'sk-typed-for-other',
    });
    expect(auth(other)).toBe('Bearer sk-typed-for-other');
    for (const r of other.modelListings) expect(JSON.stringify(r.headers)).not.toContain('sk-stored-secret');
  });

  it('drops the stored key when saved settings move to another endpoint without a new key', async () => {
    const c = makeCore({}, path.join(tmp, 'config-move'));
    await c.handle('saveSettings', {
      settings: { provider: 'custom', baseUrl: saved.baseURL, model: 'test-vlm' },
      apiKey: 'sk-stored-secret',
    });
    expect(await c.handle('saveSettings', { settings: { temperature: 0.5 } })).toMatchObject({ apiKeySet: true });
    expect(await c.handle('saveSettings', { settings: { baseUrl: `${saved.baseURL}/` } })).toMatchObject({
      apiKeySet: true,
    });
    const moved = (await c.handle('saveSettings', { settings: { baseUrl: other.baseURL } })) as {
      apiKeySet: boolean;
      keyCleared?: boolean;
    };
    expect(moved).toMatchObject({ apiKeySet: false, keyCleared: true });
    await c.handle('testConnection', {});
    for (const r of other.modelListings) expect(JSON.stringify(r.headers)).not.toContain('sk-stored-secret');
    const withKey = await c.handle('saveSettings', { settings: { baseUrl: saved.baseURL }, apiKey: 'sk-new' });
    expect(withKey).toMatchObject({ apiKeySet: true });
    expect(withKey).not.toHaveProperty('keyCleared');
  });
});
