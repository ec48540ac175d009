/**
 * Game profiles: every shipped profile against the schema and the papers' facts, the scoring
 * arithmetic, prompt assembly, window matching, the key list, and bad input refused whole with
 * its file, line and field.
 */
import { profileRefusal } from '../helpers/profile-refusal.ts';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';
import { FakeOpenAI } from '../helpers/fake-openai.ts';
import { loadProfileFile, parseProfile, parseProfileSource } from '../../electron/profiles/load.ts';
import {
  AmbiguousProfileError,
  loadCatalog,
  matchWindow,
  pickForWindow,
  readyForRun,
  type ProfileEntry,
} from '../../electron/profiles/registry.ts';
import { profileJsonSchemaText } from '../../electron/profiles/json-schema.ts';
import { idFromTitle, starterProfile } from '../../electron/profiles/starter.ts';
import type { MilestoneScoring, Profile, ScreenScoring } from '../../electron/profiles/profile-schema.ts';
import { combineReadings, milestoneList, milestoneScore, normalise } from '../../electron/scoring/normalise.ts';
import { parseReading, ScreenScoreReader } from '../../electron/scoring/screen-reader.ts';
import { VlmAgent } from '../../electron/agents/vlm.ts';
import { RandomAgent } from '../../electron/agents/baselines.ts';
import type { Observation } from '../../electron/agents/agent-types.ts';
import { KeyPolicy } from '../../electron/input/key-policy.ts';
import { capMoves } from '../../electron/session/move-cap.ts';
import { BUILTIN_GAMES } from '../../games/index.ts';
import { fullSizeGeometry } from '../../electron/input/coordinates.ts';

const catalog = loadCatalog({ shippedDir: path.join(ROOT, 'games') });
const byId = (id: string): Profile => {
  const e = catalog.entries.find((x) => x.profile.id === id);
  if (!e) throw new Error(`no shipped profile ${id}`);
  return e.profile;
};
const screen = (id: string) => byId(id).scoring as ScreenScoring;
const milestones = (id: string) => byId(id).scoring as MilestoneScoring;
const round1 = (n: number) => Math.round(n * 10) / 10;

/** GameVerse §3.1, Tab. 2, Tab. 11, App. A.1 and App. D, per title: category, tier, trials, step limit, agent, scoring family. */
const PAPER: Record<string, [string, string, number, number, string, string]> = {
  tictactoe: ['markov-grid', 'easy', 20, 10, 'zero-shot', 'intrinsic'],
  'baba-is-you': ['markov-grid', 'medium', 5, 30, 'zero-shot', 'milestones'],
  '2048': ['markov-grid', 'hard', 5, 1000, 'zero-shot', 'intrinsic'],
  maze: ['nonrealtime-linear', 'easy', 10, 20, 'zero-shot', 'intrinsic'],
  'angry-birds': ['nonrealtime-linear', 'medium', 5, 30, 'zero-shot', 'screen'],
  'slay-the-spire': ['nonrealtime-linear', 'hard', 3, 200, 'zero-shot', 'screen'],
  'ace-attorney': ['nonrealtime-nonlinear', 'easy', 5, 500, 'memory', 'milestones'],
  'civilization-vi': ['nonrealtime-nonlinear', 'medium', 3, 200, 'memory', 'milestones'],
  'scene-investigators': ['nonrealtime-nonlinear', 'hard', 3, 1000, 'memory', 'milestones'],
  snake: ['realtime-linear', 'easy', 10, 100, 'zero-shot', 'intrinsic'],
  'plants-vs-zombies': ['realtime-linear', 'medium', 5, 50, 'zero-shot', 'milestones'],
  'forza-horizon-5': ['realtime-linear', 'hard', 3, 600, 'zero-shot', 'screen'],
  'mini-metro': ['realtime-nonlinear', 'easy', 5, 100, 'zero-shot', 'screen'],
  'genshin-impact': ['realtime-nonlinear', 'medium', 3, 100, 'memory', 'milestones'],
  'red-dead-redemption-2': ['realtime-nonlinear', 'hard', 3, 200, 'memory', 'milestones'],
};

describe('shipped profiles', () => {
  it('load whole, without a refused file: the fifteen GameVerse titles and the Debian examples', () => {
    expect(catalog.errors.map((e) => e.message)).toEqual([]);
    const ids = catalog.entries.map((e) => e.profile.id);
    expect(ids).toEqual(expect.arrayContaining([...Object.keys(PAPER), 'sgt-fifteen', 'sgt-mines']));
    expect(ids.length).toBeGreaterThanOrEqual(17);
  });

  it.each(Object.entries(PAPER))('%s carries the paper’s taxonomy, trials, step limit, agent and scoring', (id, f) => {
    const p = byId(id);
    expect([p.category, p.tier, p.episode.trials, p.episode.maxSteps, p.episode.agent, p.scoring.kind]).toEqual(f);
    expect(p.setup?.start.length).toBeGreaterThan(10);
    expect(p.prompt.rules.length).toBeGreaterThan(100);
    expect(p.notes?.join(' ')).toMatch(/GameVerse|paper/);
  });

  it('lists the seven milestone titles’ milestones as the paper’s appendix gives them', () => {
    const counts = Object.fromEntries(
      [
        'baba-is-you',
        'ace-attorney',
        'civilization-vi',
        'scene-investigators',
        'plants-vs-zombies',
        'genshin-impact',
        'red-dead-redemption-2',
      ].map((id) => [id, milestoneList(milestones(id)).length]),
    );
    expect(counts).toEqual({
      'baba-is-you': 9,
      'ace-attorney': 9,
      'civilization-vi': 12,
      'scene-investigators': 12,
      'plants-vs-zombies': 19,
      'genshin-impact': 7,
      'red-dead-redemption-2': 10,
    });
    expect(milestones('plants-vs-zombies').levels?.map((l) => l.milestones.length)).toEqual([7, 6, 6]);
    expect(milestones('baba-is-you').levels?.map((l) => l.milestones.length)).toEqual([4, 5]);
    expect(milestoneList(milestones('ace-attorney')).at(-1)).toEqual({ title: 'Not Guilty Verdict' });
    expect(milestoneList(milestones('plants-vs-zombies'))[7]).toEqual({
      title: 'First Economic Setup',
      level: 'Level 1-2',
    });
    expect(milestones('scene-investigators').linear).toBe(false);
    // Where the paper contradicts itself, the profile says so.
    expect(byId('baba-is-you').notes?.join(' ')).toMatch(/Tab\. 8.*8/);
    expect(byId('scene-investigators').notes?.join(' ')).toMatch(/17/);
  });

  it('normalise as the paper does: Angry Birds, Mini Metro, Forza, Slay the Spire, milestones', () => {
    expect(round1(normalise(43491, screen('angry-birds').normaliser))).toBe(32.7); // Gemini-2.5-Pro, Tab. 3
    expect(round1(normalise(26068, screen('angry-birds').normaliser))).toBe(19.6); // Qwen3-VL-8B
    expect(normalise(250, screen('mini-metro').normaliser)).toBe(50);
    expect(round1(normalise(74.5, screen('mini-metro').normaliser))).toBe(14.9);
    expect(normalise(30, screen('forza-horizon-5').normaliser)).toBe(100);
    expect(round1(normalise(1, screen('forza-horizon-5').normaliser))).toBe(3.3);
    expect(round1(normalise(20.5, screen('slay-the-spire').normaliser))).toBe(40.2);
    expect(normalise(51, screen('slay-the-spire').normaliser)).toBe(100);
    expect(normalise(900, screen('mini-metro').normaliser)).toBe(100); // clipped to 0–100
    expect(normalise(-5, screen('slay-the-spire').normaliser)).toBe(0);
    expect(round1(milestoneScore(milestones('ace-attorney'), 3))).toBe(33.3); // Seed-1.8, Tab. 3
    expect(round1(milestoneScore(milestones('genshin-impact'), 1))).toBe(14.3); // every model, Tab. 26
    expect(milestoneScore(milestones('plants-vs-zombies'), 19)).toBe(100);
    expect(() => milestoneScore(milestones('baba-is-you'), 10)).toThrow(/0 to 9/);
  });

  it('combine readings over an episode: last, highest, or each level’s highest summed (Angry Birds)', () => {
    const r = [
      { value: 20000, level: '1-1' },
      { value: 31000, level: '1-1' },
      { value: 12000, level: '1-2' },
      { value: 500, level: '1-3' },
    ];
    expect(combineReadings(r, 'last')).toBe(500);
    expect(combineReadings(r, 'max')).toBe(31000);
    expect(combineReadings(r, 'sum-levels')).toBe(43500);
    expect(combineReadings([], 'max')).toBeNull();
  });

  it('built-in profiles agree with their engines (each built-in that exists here)', () => {
    const builtins = catalog.entries.filter((e) => e.profile.builtin && BUILTIN_GAMES[e.profile.builtin]);
    expect(builtins.map((e) => e.profile.id)).toEqual(expect.arrayContaining(['2048', 'snake', 'tictactoe']));
    for (const { profile: p } of builtins) {
      const def = BUILTIN_GAMES[p.builtin!]!;
      expect({
        id: p.id,
        title: p.title,
        maxSteps: p.episode.maxSteps,
        trials: p.episode.trials,
        cap: p.actions.maxActionsPerStep,
        hotkeys: p.actions.allowedHotkeys ?? [],
        semantic: p.actions.semantic,
        scoring: p.scoring,
        freeze: p.latency.freeze,
      }).toEqual({
        id: def.id,
        title: def.title,
        maxSteps: def.defaultMaxSteps,
        trials: def.trials,
        cap: def.maxActionsPerStep,
        hotkeys: def.allowedHotkeys ?? [],
        semantic: true,
        scoring: expect.objectContaining({ kind: 'intrinsic', engine: def.id }),
        freeze: 'engine',
      });
    }
  });

  it('docs/profile.schema.json is the schema as it is now (npm run profile-schema)', () => {
    expect(readFileSync(path.join(ROOT, 'docs', 'profile.schema.json'), 'utf8')).toBe(profileJsonSchemaText());
    const schema = JSON.parse(profileJsonSchemaText());
    expect(schema.required).toEqual(
      expect.arrayContaining(['id', 'title', 'category', 'tier', 'prompt', 'episode', 'scoring']),
    );
  });
});

const obs: Observation = {
  step: 0,
  episode: 0,
  frame: { data: Buffer.from([1, 2, 3]), mime: 'image/jpeg', width: 640, height: 360, scale: 1 },
  geometry: fullSizeGeometry({ x: 0, y: 0, width: 640, height: 360 }),
  tCapture: 0,
};

describe('prompt assembly', () => {
  const agent = new VlmAgent({ model: 'm', baseUrl: 'http://127.0.0.1:9/v1' });

  it.each(catalog.entries.map((e) => [e.profile.id, e.profile] as const))(
    '%s: its parts reach the prompt',
    (_id, p) => {
      const system = agent.systemPrompt(obs, 'gui', p.builtin ? BUILTIN_GAMES[p.builtin] : undefined, p);
      expect(system).toContain(`You are playing ${p.title}`);
      expect(system).toContain(p.prompt.rules);
      expect(system).toContain(p.prompt.controls);
      if (p.prompt.screen) expect(system).toContain(p.prompt.screen);
      for (const e of p.prompt.examples ?? []) expect(system).toContain(e);
      if (p.actions.allowedKeys) expect(system).toContain(p.actions.allowedKeys.join(', '));
      expect(system).not.toMatch(/\{\{|\n{3}/);
      const user = agent.userText(obs, undefined, p);
      expect(user).toContain(p.prompt.task ?? `Play ${p.title}`);
    },
  );

  it('a built-in’s profile gives the same prompt as its engine’s own text (no drift for existing runs)', () => {
    const ids = catalog.entries.flatMap((e) =>
      e.profile.builtin && BUILTIN_GAMES[e.profile.builtin] ? [e.profile.id] : [],
    );
    expect(ids).toEqual(expect.arrayContaining(['2048', 'tictactoe', 'snake']));
    for (const id of ids) {
      const def = BUILTIN_GAMES[id]!;
      for (const space of ['gui', 'semantic'] as const)
        expect(agent.systemPrompt(obs, space, def, byId(id))).toBe(agent.systemPrompt(obs, space, def));
    }
  });

  it('without a profile a window still gets the generic prompt', () => {
    expect(agent.systemPrompt(obs, 'gui')).toContain('You are playing a game');
  });
});

describe('bad profiles are refused whole, with file, line and field', () => {
  const good = readFileSync(path.join(ROOT, 'games', 'sgt-fifteen', 'profile.yaml'), 'utf8');
  const refusal = profileRefusal;
  const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

  it('a wrong value names its line and field', () => {
    const text = good.replace('  maxSteps: 200', '  maxSteps: many');
    const e = refusal(text);
    expect([e.line, e.field]).toEqual([lineOf(text, 'maxSteps: many'), 'episode.maxSteps']);
    expect(e.message).toMatch(/^profile x\.yaml:\d+: episode\.maxSteps: .*not loaded/);
  });

  it('an unknown field, a bad key name, a bad regex, a bad category', () => {
    let text = good.replace('  trials: 1\n', '  trials: 1\n  trails: 3\n');
    expect([refusal(text).line, refusal(text).field]).toEqual([lineOf(text, 'trails: 3'), 'episode.trails']);
    text = good.replace('allowedKeys: [up, down, left, right]', 'allowedKeys: [up, dwon, left, right]');
    expect(refusal(text).field).toBe('actions.allowedKeys.1');
    expect(refusal(text).reason).toMatch(/not a key name/);
    text = good.replace('title: ^Fifteen$', 'title: "^Fif(teen$"');
    expect([refusal(text).field, refusal(text).line]).toEqual(['match.title', lineOf(text, '^Fif(teen')]);
    // Lookaround has no linear-time meaning: refused at the field, with why.
    text = good.replace('title: ^Fifteen$', 'title: "^(?=F)Fifteen$"');
    expect([refusal(text).field, refusal(text).line]).toEqual(['match.title', lineOf(text, '(?=F)')]);
    expect(refusal(text).reason).toMatch(
      /lookaround .* and backreferences .* are not supported: patterns run in linear time/,
    );
    text = good.replace('category: markov-grid', 'category: puzzle');
    expect(refusal(text).field).toBe('category');
    text = good.replace('allowedKeys: [up, down, left, right]', 'allowedHotkeys: [alt+flurb]');
    expect(refusal(text).reason).toMatch(/unknown key name "flurb"/);
  });

  it('a missing field points at its parent; a rule across fields at the field it names', () => {
    let text = good.replace(/ {2}rules: >-\n( {4}.*\n)+/, '');
    let e = refusal(text);
    expect([e.field, e.line]).toEqual(['prompt.rules', lineOf(text, 'prompt:')]);
    text = good.replace('  freeze: process', '  freeze: pause-key');
    e = refusal(text);
    expect(e.field).toBe('latency.pauseKey');
    text = good.replace(/match:\n {2}title: .*\n {2}executable: .*\n/, '');
    expect(refusal(text).field).toBe('match');
    text = good.replace('kind: screen', 'kind: intrinsic\n  engine: fifteen\n  # was screen');
    expect(refusal(text).message).toMatch(/scoring\.(kind|read)/);
  });

  it('broken YAML and JSON name their line', () => {
    expect(refusal('id: a\ntitle: [unclosed\ncategory: x\n').line).toBeGreaterThanOrEqual(2);
    expect(refusal('id: a\nid: b\n').message).toMatch(/x\.yaml:2: not valid YAML\/JSON/);
    const json = JSON.stringify(parseProfile(good, 'g.yaml'), null, 2).replace('"maxSteps": 200', '"maxSteps": -1');
    const e = refusal(json, 'p.json');
    expect([e.field, e.line]).toEqual(['episode.maxSteps', lineOf(json, '"maxSteps": -1')]);
    expect(refusal('- a\n- b\n').reason).toMatch(/mapping/);
  });

  it('a user folder with a broken profile still loads the others, and lists the broken one', () => {
    const config = mkdtempSync(path.join(tmpdir(), 'gp-prof-'));
    mkdirSync(path.join(config, 'profiles'));
    writeFileSync(path.join(config, 'profiles', 'mine.yaml'), good.replace('id: sgt-fifteen', 'id: my-fifteen'));
    writeFileSync(path.join(config, 'profiles', 'broken.yaml'), good.replace('tier: medium', 'tier: impossible'));
    writeFileSync(path.join(config, 'profiles', 'twin.yaml'), good.replace('id: sgt-fifteen', 'id: my-fifteen'));
    const c = loadCatalog({ shippedDir: path.join(ROOT, 'games'), configDir: config });
    expect(c.entries.find((e) => e.profile.id === 'my-fifteen')?.source).toBe('user');
    expect(c.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/broken\.yaml:\d+: tier: /),
      expect.stringMatching(/twin\.yaml: id: "my-fifteen" is already the id of .*mine\.yaml/),
    ]);
    // A user profile with a shipped id replaces the shipped one.
    writeFileSync(path.join(config, 'profiles', 'fifteen.yaml'), good.replace('maxSteps: 200', 'maxSteps: 7'));
    const again = loadCatalog({ shippedDir: path.join(ROOT, 'games'), configDir: config });
    const fifteen = again.entries.filter((e) => e.profile.id === 'sgt-fifteen');
    expect(fifteen.map((e) => [e.source, e.profile.episode.maxSteps])).toEqual([['user', 7]]);
  });

  it('a profile file that is not there says so', () => {
    expect(() => loadProfileFile('/nonexistent/p.yaml')).toThrow(/cannot read profile \/nonexistent\/p\.yaml/);
  });
});

describe('matching a window', () => {
  const entries = catalog.entries;
  it('by title and executable; built-in profiles never match a window', () => {
    expect(matchWindow(entries, { title: 'Fifteen', executable: 'sgt-fifteen' }).map((e) => e.profile.id)).toEqual([
      'sgt-fifteen',
    ]);
    expect(matchWindow(entries, { title: 'Fifteen', executable: 'xterm' })).toEqual([]);
    expect(matchWindow(entries, { title: 'Fifteen' }).map((e) => e.profile.id)).toEqual(['sgt-fifteen']);
    expect(
      matchWindow(entries, { title: 'Red Dead Redemption 2', executable: 'C:\\Games\\RDR2.exe' }).map(
        (e) => e.profile.id,
      ),
    ).toEqual(['red-dead-redemption-2']);
    expect(matchWindow(entries, { title: 'Snake' })).toEqual([]);
    expect(pickForWindow(entries, { title: 'Terminal' })).toBeUndefined();
  });

  it('two profiles that fit one window are refused with the list and --profile', () => {
    const twin: ProfileEntry = { ...entries.find((e) => e.profile.id === 'sgt-mines')!, file: '/u/mines2.yaml' };
    twin.profile = { ...twin.profile, id: 'my-mines' };
    const all = [...entries, twin];
    expect(() => pickForWindow(all, { title: 'Mines', executable: 'sgt-mines' })).toThrow(AmbiguousProfileError);
    try {
      pickForWindow(all, { title: 'Mines', executable: 'sgt-mines' });
    } catch (err) {
      expect((err as AmbiguousProfileError).candidates.map((c) => c.profile.id).sort()).toEqual([
        'my-mines',
        'sgt-mines',
      ]);
      expect((err as Error).message).toMatch(/2 profiles match the window "Mines"[\s\S]*my-mines[\s\S]*--profile ID/);
    }
  });
});

describe('the key list', () => {
  const policy = new KeyPolicy(['alt+enter'], ['up', 'down', 'left', 'right']);
  it('refuses any key outside it, like a system combination, and lets releases and allowed combinations through', () => {
    expect(policy.refusalFor({ kind: 'gui', type: 'PRESS', params: { key: 'up' } }, [])).toBeUndefined();
    expect(policy.refusalFor({ kind: 'gui', type: 'PRESS', params: { key: 'q' } }, [])).toMatch(
      /Q is not a key this title's profile allows \(allowedKeys: up, down, left, right\)/,
    );
    expect(policy.refusalFor({ kind: 'gui', type: 'TYPING', params: { text: 'uuq' } }, [])).toMatch(/not a key/);
    expect(policy.refusalFor({ kind: 'gui', type: 'HOTKEY', params: { keys: ['ctrl', 'up'] } }, [])).toMatch(
      /LeftControl is not/,
    );
    expect(policy.refusalFor({ kind: 'gui', type: 'HOTKEY', params: { keys: ['alt', 'enter'] } }, [])).toBeUndefined();
    expect(policy.refusalFor({ kind: 'gui', type: 'KEY_UP', params: { key: 'q' } }, [])).toBeUndefined();
    expect(policy.refusalFor({ kind: 'gui', type: 'CLICK', params: { x: 1, y: 1 } }, [])).toBeUndefined();
    // System combinations are still refused by name, key list or not.
    expect(
      new KeyPolicy([], ['alt', 'f4']).refusalFor({ kind: 'gui', type: 'HOTKEY', params: { keys: ['alt', 'f4'] } }, []),
    ).toMatch(/system combination/);
  });

  it('a window profile’s per-step cap counts every input action, never releases or waits', () => {
    const a = (type: string, params: Record<string, unknown> = {}) => ({ kind: 'gui', type, params }) as never;
    const { kept, dropped } = capMoves(
      [
        a('PRESS', { key: 'up' }),
        a('WAIT', { duration: 0.1 }),
        a('CLICK', { x: 1, y: 1 }),
        a('KEY_UP', { key: 'a' }),
        a('PRESS', { key: 'left' }),
      ],
      { maxActionsPerStep: 2, moveInputs: 'any-input' },
    );
    expect(kept.map((x) => (x.kind === 'gui' ? x.type : x.move))).toEqual(['PRESS', 'WAIT', 'CLICK', 'KEY_UP']);
    expect(dropped).toHaveLength(1);
  });
});

describe('the screen reader', () => {
  let server: FakeOpenAI;
  let reply = '';
  beforeAll(async () => {
    server = await new FakeOpenAI(() => ({ text: reply })).start();
  });
  afterAll(() => server.close());
  const frame = { data: Buffer.from([9, 9, 9]), mime: 'image/png' as const, width: 10, height: 10, scale: 1 };

  it('parses only strict JSON of the expected shape', () => {
    expect(parseReading('{"value": 43491, "level": "1-1"}')).toEqual({
      ok: true,
      reading: { value: 43491, level: '1-1' },
    });
    expect(parseReading('```json\n{"value": 7, "level": null}\n```')).toEqual({ ok: true, reading: { value: 7 } });
    expect(parseReading('{"value": null}')).toEqual({ ok: true, reading: null });
    expect(parseReading('The score is 43491.')).toMatchObject({ ok: false, error: /not one JSON object/ });
    expect(parseReading('{"value": "43491"}')).toMatchObject({ ok: false });
    expect(parseReading('{"value": 1, "extra": 2}')).toMatchObject({ ok: false });
  });

  it('asks the model about the frame and normalises what it reads (Angry Birds, three levels summed)', async () => {
    const p = byId('angry-birds');
    const reader = new ScreenScoreReader(p, screen('angry-birds'), {
      model: 'reader',
      baseUrl: server.baseURL,
      apiKey: 'k',
    });
    for (const [value, level] of [
      [20000, '1-1'],
      [23491, '1-2'],
      [0, '1-3'],
    ] as const) {
      reply = JSON.stringify({ value, level });
      await reader.read(frame, 0);
    }
    reply = 'no idea';
    expect(await reader.read(frame, 3)).toBeNull();
    expect(reader.result()).toEqual({ value: 43491, score: 32.7 });
    expect(reader.log.at(-1)?.error).toMatch(/not one JSON object/);
    const req = server.requests.at(-1)!.body;
    expect(req.model).toBe('reader');
    expect(JSON.stringify(req.messages)).toContain(screen('angry-birds').read.slice(0, 40));
    expect(FakeOpenAI.images(req)).toEqual([`data:image/png;base64,${frame.data.toString('base64')}`]);
    reader.resetEpisode();
    expect(reader.result()).toEqual({ value: null, score: null });
  });
});

describe('starter profiles', () => {
  it('are valid as written, with an id from the title', () => {
    expect(idFromTitle('GNOME 2048')).toBe('gnome-2048');
    expect(idFromTitle('---')).toBe('game-untitled');
    const text = starterProfile({
      title: 'Super (Tux) 2',
      width: 800,
      height: 600,
      executable: 'supertux2',
      screenshot: 's.png',
    });
    const p = parseProfile(text, 'starter.yaml');
    expect(p.match).toEqual({ title: '^Super \\(Tux\\) 2$', executable: 'supertux2' });
    expect(new RegExp(p.match!.title!, 'i').test('Super (Tux) 2')).toBe(true);
    expect(text).toContain('s.png');
    // Its commented episode end and reset are a working example once uncommented.
    const example = text.replace(/^ {2}# {1,3}(end:|reset:| {2}- ocr| {2}do:| {4}- press| {2}timeout)/gm, '  $1');
    const q = parseProfile(example, 'starter.yaml');
    expect(q.episode.end).toEqual([
      { ocr: { region: { x: 0.3, y: 0.4, width: 0.4, height: 0.1 }, text: 'game over' } },
    ]);
    expect(q.episode.reset).toEqual({ do: [{ press: 'enter' }], timeout: 20 });
  });

  it('name the fields still to fill in, with their lines; a run refuses the profile until none is left', () => {
    const text = starterProfile({ title: 'Mines', width: 240, height: 300 });
    const { placeholders } = parseProfileSource(text, 'starter.yaml');
    const lines = text.split('\n');
    expect(placeholders.map((p) => p.field)).toEqual([
      'setup.start',
      'prompt.task',
      'prompt.rules',
      'prompt.screen',
      'prompt.controls',
    ]);
    // Each line named is the field's own; the comment that says "Replace every TODO" is not a field.
    for (const p of placeholders) expect(lines[p.line! - 1]).toMatch(new RegExp(`${p.field.split('.').pop()}: "TODO`));
    const entry = { ...parseProfileSource(text, '/p/mines.yaml'), file: '/p/mines.yaml', source: 'user' as const };
    expect(() => readyForRun(entry)).toThrow(
      /the profile "mines" \(\/p\/mines\.yaml\) still has placeholders to fill in: setup\.start \(line \d+\), prompt\.task \(line \d+\),/,
    );
    const filled = text.replace(/"TODO:[^"]*"/g, '"filled in"');
    const done = { ...parseProfileSource(filled, '/p/mines.yaml'), file: '/p/mines.yaml', source: 'user' as const };
    expect(done.placeholders).toEqual([]);
    expect(readyForRun(done)).toBe(done);
  });
});

describe('the random baseline on a profiled window', () => {
  it("presses only the profile's keys and clicks only inside its pointer area", async () => {
    const { profile } = loadProfileFile(path.join(ROOT, 'games/sgt-mines/profile.yaml'));
    expect(profile.actions.allowedKeys).toEqual(['space', 'enter']);
    expect(profile.actions.pointerArea).toEqual({ x: 0, y: 0.1, width: 1, height: 0.9 });
    const agent = new RandomAgent(11);
    const frame = { data: Buffer.alloc(0), mime: 'image/png' as const, width: 240, height: 300, scale: 1 };
    const obs = { step: 0, episode: 0, frame } as unknown as Observation;
    const ctx = { actionSpace: 'gui' as const, profile, signal: new AbortController().signal };
    const kinds = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const a = (await agent.decide(obs, ctx)).actions[0]!;
      expect(a.kind).toBe('gui');
      if (a.kind !== 'gui') continue;
      kinds.add(a.type);
      if (a.type === 'PRESS') expect(profile.actions.allowedKeys).toContain((a.params as { key: string }).key);
      else {
        const { x, y } = a.params as { x: number; y: number };
        // Below the menu bar: inside the profile's pointer area (y from 0.1 of the height).
        expect(x >= 0 && x < frame.width && y >= 30 && y < frame.height, `${x},${y}`).toBe(true);
      }
    }
    expect([...kinds].sort()).toEqual(['CLICK', 'PRESS']);
  });
});
