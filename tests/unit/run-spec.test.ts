/**
 * One RunSpec (electron/run-spec.ts): the same settings given on the command line, in the app's
 * start-run request or as a sweep cell make the same options and the same run.json `config`;
 * the rules between settings live in one place and name the field the way each entry point
 * names it; one bound per setting everywhere; old run folders' config keys are still read.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRun, RunStore } from '../../electron/store/run-store.ts';
import { scanRuns } from '../../electron/store/run-library.ts';
import { runFrom } from '../../electron/cli/run-command.ts';
import { runFlags } from '../helpers/run-flags.ts';
import { parseParams } from '../../electron/api/contract.ts';
import { specFromRequest } from '../../electron/api/run-activity.ts';
import { frontDoor } from '../../electron/session/front-door.ts';
import { reflectionFromSpec } from '../../electron/reflection/setup.ts';
import { parseSweep, runArgs, SweepFileError } from '../../electron/sweep/spec.ts';
import { agentKind } from '../../electron/session/front-door.ts';
import { runSettings } from '../../electron/session/compose.ts';
import { runConfig } from '../../electron/session/run-config.ts';
import { DEFAULT_SESSION } from '../../electron/session/session-config.ts';
import { DEFAULT_VLM } from '../../electron/agents/vlm.ts';
import { DEFAULT_MEMORY } from '../../electron/agents/memory-agent.ts';
import { DEFAULT_LATENCY } from '../../electron/latency/clock-policy.ts';
import { DEFAULT_REFLECTION_SAMPLING } from '../../electron/reflection/sampling.ts';
import {
  flagOf,
  namedAsFlags,
  namedAsWords,
  parseRunSpec,
  readRunConfig,
  RUN_SPEC_FIELDS,
  RunSpecError,
  type RunSpec,
} from '../../electron/run-spec.ts';
import { isModelAgent } from '../../electron/domain.ts';
import { startSessionRequest } from '../../electron/mcp/play.ts';
import { getGame } from '../../games/index.ts';

const ctx = { model: () => ({ model: 'player-vlm' }), imageSize: 1280, runsDir: '/tmp/runs' };

/** run.json's config for a spec, as wireSession writes it for a built-in game without a profile. */
function configOf(s: RunSpec): Record<string, unknown> {
  const r = runSettings(s, undefined, getGame(s.game!));
  return runConfig(s, r, { modelSettings: isModelAgent(agentKind(s)) });
}

describe('one spec, three entry points, one run.json config', () => {
  it('turns the pre-flight off under one name: --no-preflight, a sweep file, the app, MCP', async () => {
    const spec = async (args: string[]) => {
      const r = await runFlags(['--game', '2048', '--agent', 'vlm', '--model', 'm', ...args]);
      expect(r.code, r.stderr).toBe(0);
      return runFrom(r.flags!).spec;
    };
    expect((await spec([])).preflight).toBe(true);
    expect((await spec(['--no-preflight'])).preflight).toBe(false);
    const src = 'games: [2048]\nagents: [vlm]\nmodels: [m]\n';
    const on = parseSweep(src, 's.yaml');
    const off = parseSweep(`${src}preflight: false\n`, 's.yaml');
    expect(off.jobs.map((j) => j.id)).toEqual(on.jobs.map((j) => j.id)); // how a run is checked does not change it
    const args = runArgs(off.jobs[0]!.cell, off.spec);
    expect(args).toContain('--no-preflight');
    expect(runArgs(on.jobs[0]!.cell, on.spec)).not.toContain('--no-preflight');
    expect((await spec(args.filter((a) => a === '--no-preflight'))).preflight).toBe(false);
    const app = parseParams('startRun', { target: { game: '2048' }, agent: 'vlm', preflight: false });
    expect(specFromRequest(app, ctx).preflight).toBe(false);
    expect(
      startSessionRequest({ game: '2048', action_space: 'gui', episodes: 1, seed: 0, preflight: false }, false)
        .preflight,
    ).toBe(false);
    expect(startSessionRequest({ game: '2048', action_space: 'gui', episodes: 1, seed: 0 }, false).preflight).toBe(
      true,
    );
  });

  it('the CLI, the app and a sweep cell with the same settings write the same config', async () => {
    const fromCli = await runFlags([
      '--game',
      '2048',
      '--agent',
      'random',
      '--action-space',
      'gui',
      '--episodes',
      '2',
      '--max-steps',
      '7',
      '--seed',
      '5',
      '--latency',
      'stop',
    ]);
    expect(fromCli.code, fromCli.stderr).toBe(0);
    const cliOptions = runFrom(fromCli.flags!).spec;

    const req = parseParams('startRun', {
      target: { game: '2048' },
      agent: 'random',
      actionSpace: 'gui',
      episodes: 2,
      maxSteps: 7,
      seed: 5,
      latency: 'stop',
    });
    const appOptions = frontDoor(specFromRequest(req, ctx)).spec;

    const sweep = parseSweep(
      'games: [2048]\nagents: [random]\naction_space: gui\nepisodes: 2\nmax_steps: 7\nseed: 5\nlatency: stop\n',
      's.yaml',
    );
    expect(sweep.jobs).toHaveLength(1);
    const job = sweep.jobs[0]!;
    const fromSweep = await runFlags(['--game', job.cell.game, ...runArgs(job.cell, sweep.spec)]);
    expect(fromSweep.code, fromSweep.stderr).toBe(0);
    const sweepOptions = runFrom(fromSweep.flags!).spec;

    const config = configOf(cliOptions);
    expect(configOf(appOptions)).toEqual(config);
    expect(configOf(sweepOptions)).toEqual(config);
    expect(config).toEqual({
      episodes: 2,
      max_steps: 7,
      seed: 5,
      latency: 'stop',
      stop_interval_ms: DEFAULT_LATENCY.stopIntervalMs,
      capture: 'auto',
      image_size: 1280,
      format: 'jpeg',
      quality: 80,
      settle_ms: 150,
      max_errors: 5,
      effect_warn_after: 5,
      pace_ms: 0,
      take_over_on_input: false,
      accept_anticheat_risk: false,
      keep_frames: 'all',
      min_free_mb: 500,
      max_run_mb: null,
    });
  });

  it('settings a sweep has no axis for: the CLI and the app agree, and a model run records its settings flat', async () => {
    const fromCli = await runFlags([
      '--game',
      'snake',
      '--agent',
      'vlm',
      '--model',
      'player-vlm',
      '--pace-ms',
      '250',
      '--keep-frames',
      'every:3',
      '--max-run-mb',
      '40',
      '--history',
      '3',
    ]);
    expect(fromCli.code, fromCli.stderr).toBe(0);
    const req = parseParams('startRun', {
      target: { game: 'snake' },
      agent: 'vlm',
      episodes: 10,
      paceMs: 250,
      keepFrames: 'every:3',
      maxRunMb: 40,
    });
    const app = frontDoor(specFromRequest(req, { ...ctx, model: () => ({ model: 'player-vlm', history: 3 }) })).spec;
    const config = configOf(runFrom(fromCli.flags!).spec);
    expect(configOf(app)).toEqual(config);
    expect(config).toMatchObject({ pace_ms: 250, keep_frames: 'every:3', max_run_mb: 40, history: 3 });
    expect(config).toMatchObject({
      detail: 'auto',
      repairs: 1,
      timeout_ms: 120_000,
      max_answer_bytes: 16 * 1024 * 1024,
    });
    expect(config).not.toHaveProperty('vlm');
    expect(config).not.toHaveProperty('encode');
    expect(JSON.stringify(config)).not.toMatch(/api_?key/i);
  });
});

describe('the rules between settings, once', () => {
  const refusal = (input: Record<string, unknown>): RunSpecError => {
    try {
      parseRunSpec(input);
    } catch (err) {
      if (err instanceof RunSpecError) return err;
      throw err;
    }
    throw new Error(`accepted: ${JSON.stringify(input)}`);
  };

  it('each rule names its fields: flags on the command line, words in the app', () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{}, 'game', /give a target: --game <id>, --window <title regex> or --window-id <id>/],
      [{ game: '2048', window: 'x' }, 'window', /give one of --game, --window or --window-id/],
      [
        { window: 'x', actionSpace: 'semantic', profile: false },
        'actionSpace',
        /--action-space semantic on a window plays its profile's moves: do not turn --profile off/,
      ],
      [{ game: 'sokoban', level: 3, seed: 2 }, 'level', /give --level or --seed, not both/],
      [{ game: '2048', memoryScope: 'p1' }, 'memoryScope', /--memory-scope needs --agent memory \(or model\)/],
      [{ game: '2048', reflection: 'self-f' }, 'reflection', /--reflection needs a model agent \(--agent vlm/],
      [{ game: '2048', agent: 'vlm', reflection: 'self-t' }, 'tutorial', /--reflection self-t needs --tutorial/],
      [{ game: '2048', reflectorModel: 'r' }, 'reflectorModel', /--reflector-model needs --reflection/],
      [{ game: '2048', paceMs: 60_001 }, 'paceMs', /--pace-ms Too big/i],
      [{ game: '2048', bogus: 1 }, 'bogus', /unknown setting --bogus/],
    ];
    for (const [input, field, message] of cases) {
      const e = refusal(input);
      expect(e.field, JSON.stringify(input)).toBe(field);
      expect(e.as(namedAsFlags), JSON.stringify(input)).toMatch(message);
    }
    expect(refusal({ window: 'x', actionSpace: 'semantic', profile: false }).as(namedAsWords)).toBe(
      "action space semantic on a window plays its profile's moves: do not turn profile off",
    );
  });

  it('the checks that need more than the spec, at the run’s front door and in reflection’s setup', () => {
    const saved = process.env.GAMEPILOT_MODEL;
    delete process.env.GAMEPILOT_MODEL;
    try {
      const spec = parseRunSpec({ game: '2048', agent: 'vlm' });
      expect(() => frontDoor(spec)).toThrow(/needs a model/);
      try {
        frontDoor(spec);
      } catch (e) {
        expect((e as RunSpecError).as(namedAsFlags)).toMatch(/--agent vlm needs a model: --model NAME/);
      }
    } finally {
      if (saved !== undefined) process.env.GAMEPILOT_MODEL = saved;
    }
    const starved = parseRunSpec({ game: '2048', agent: 'vlm', model: 'm', reflection: 'self-f', keepFrames: 'none' });
    expect(() => reflectionFromSpec(starved, 'm')).toThrow(RunSpecError);
    const level = parseRunSpec({ game: '2048', level: 3 });
    expect(() => frontDoor(level)).toThrow(/level needs an ING-VP game/);
  });
});

describe('a two-seat game in the one spec: --seats', () => {
  it('carries two agent specs to the seated run; the command line reads them', async () => {
    const { code, flags } = await runFlags(['--game', 'light-cycles', '--seats', 'vlm:m1, solver']);
    expect(code).toBe(0);
    expect(flags!.seats).toEqual(['vlm:m1', 'solver']);
    const { spec, seats } = runFrom(flags!);
    expect(seats).toEqual([{ agent: 'vlm', model: 'm1' }, { agent: 'solver' }]);
    expect(spec).toMatchObject({ game: 'light-cycles', agent: 'random' });
  });

  it('refuses a two-seat game without seats and seats on a one-seat game, naming the flag', async () => {
    const refused = async (argv: string[], message: RegExp) => {
      const r = await runFlags(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(message);
    };
    await refused(['--game', 'switches'], /--game switches has two seats: give --seats <player 1>,<player 2>/);
    await refused(
      ['--game', '2048', '--seats', 'solver,random'],
      /--seats needs a two-seat --game .*2048 has one seat/,
    );
    await refused(['--window', 'x', '--seats', 'solver,random'], /--seats needs a two-seat --game/);
    await refused(['--game', 'switches', '--seats', 'solver'], /--seats takes two agents/);
    await refused(['--game', 'switches', '--seats', 'solver,memory:m'], /--seats: .*memory agent does not play/);
    await refused(['--game', 'switches', '--seats', 'solver,random', '--agent', 'vlm'], /give --agent or --seats/);
    await refused(
      ['--game', 'switches', '--seats', 'solver,random', '--reflection', 'self-f'],
      /--reflection does not apply to a two-seat run/,
    );
    await refused(['--game', 'switches', '--seats', 'human,human'], /a person takes one seat at most/);
    await refused(
      ['--game', 'tictactoe-pvp', '--seats', 'human,solver'],
      /human plays with the keyboard, and tictactoe-pvp/,
    );
    expect((await runFlags(['--game', 'light-cycles', '--seats', 'solver,human'])).code).toBe(0);
  });
});

describe('one bound per setting, everywhere', () => {
  it('the pace is 0–60 000 ms on the command line, in the app, and in a suite', async () => {
    const bad = await runFlags(['--game', '2048', '--pace-ms', '60001']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /option '--pace-ms <ms>' argument '60001' is invalid\. Allowed: a number from 0 to 60000\./,
    );
    expect((await runFlags(['--game', '2048', '--pace-ms', '60000'])).code).toBe(0);
    expect(() => parseParams('startRun', { target: { game: '2048' }, agent: 'random', paceMs: 60_001 })).toThrow(
      /startRun: paceMs/,
    );
    expect(parseParams('startRun', { target: { game: '2048' }, agent: 'random', paceMs: 60_000 }).paceMs).toBe(60_000);
    const suite = { games: ['hanoi'], settings: ['one-step-text'], agent: 'solver' };
    expect(parseParams('startSuite', { ...suite, paceMs: 30_000 }).paceMs).toBe(30_000);
    expect(() => parseParams('startSuite', { ...suite, paceMs: 60_001 })).toThrow(/startSuite: paceMs/);
  });

  it('steps per episode: the same limit refused by the CLI, the app and a sweep file, each naming its field', async () => {
    const bad = await runFlags(['--game', '2048', '--max-steps', '100001']);
    expect(bad.stderr).toMatch(
      /'--max-steps <n>' argument '100001' is invalid\. Allowed: a whole number from 1 to 100000\./,
    );
    expect(() => parseParams('startRun', { target: { game: '2048' }, agent: 'random', maxSteps: 100_001 })).toThrow(
      /maxSteps/,
    );
    let refused: SweepFileError | undefined;
    try {
      parseSweep('games: [2048]\nmax_steps: [10, 100001]\n', 'big.yaml');
    } catch (e) {
      refused = e as SweepFileError;
    }
    expect(refused).toBeInstanceOf(SweepFileError);
    expect(refused!.field).toBe('max_steps.1');
    expect(refused!.message).toMatch(/big\.yaml:2/);
  });

  it("the schema's defaults are the ones the parts use", () => {
    const d = parseRunSpec({ game: '2048' });
    expect(d).toMatchObject({
      detail: DEFAULT_VLM.detail,
      repairs: DEFAULT_VLM.repairs,
      timeoutMs: DEFAULT_VLM.timeoutMs,
      idleTimeoutMs: DEFAULT_VLM.idleTimeoutMs,
      maxRetries: DEFAULT_VLM.maxRetries,
      retryAfterCapMs: DEFAULT_VLM.retryAfterCapMs,
      maxAnswerBytes: DEFAULT_VLM.maxAnswerBytes,
      embeddingModel: DEFAULT_MEMORY.embeddingModel,
      memoryTopK: DEFAULT_MEMORY.topK,
      memoryThreshold: DEFAULT_MEMORY.threshold,
      memoryDedupe: DEFAULT_MEMORY.dedupe,
      shortTerm: DEFAULT_MEMORY.shortTerm,
      summaryWords: DEFAULT_MEMORY.summaryWords,
      settleMs: DEFAULT_SESSION.settleMs,
      maxErrors: DEFAULT_SESSION.maxErrors,
      paceMs: DEFAULT_SESSION.paceMs,
      keepFrames: DEFAULT_SESSION.keepFrames,
      minFreeMb: DEFAULT_SESSION.minFreeMb,
      imageSize: DEFAULT_SESSION.imageSize,
      reflectFps: DEFAULT_REFLECTION_SAMPLING.fps,
      reflectMaxSide: DEFAULT_REFLECTION_SAMPLING.maxSide,
    });
    expect(RUN_SPEC_FIELDS.stopIntervalMs.description).toBeTruthy();
    expect(flagOf('maxRunMb')).toBe('--max-run-mb');
  });
});

describe("old run folders' config", () => {
  it('reads encode{} and vlm{} under today’s names; today’s keys win', () => {
    const old = {
      episodes: 1,
      max_steps: 9,
      encode: { longSide: 1024, format: 'png', quality: 70 },
      vlm: {
        model: 'x',
        baseURL: 'http://h/v1',
        detail: 'low',
        history: 1,
        systemPrompt: 'p.md',
        includeGameText: true,
        timeoutMs: 5,
        price: { inputPerM: 1, outputPerM: 2 },
      },
      keep_frames: 'all',
    };
    expect(readRunConfig(old)).toEqual({
      episodes: 1,
      max_steps: 9,
      image_size: 1024,
      format: 'png',
      quality: 70,
      base_url: 'http://h/v1',
      detail: 'low',
      history: 1,
      prompt: 'p.md',
      game_text: true,
      timeout_ms: 5,
      price_in: 1,
      price_out: 2,
      keep_frames: 'all',
    });
    expect(readRunConfig({ image_size: 640, encode: { longSide: 1024 } })).toEqual({ image_size: 640 });
  });

  it('reach every reader under today’s names: an old run folder listed by the run library', () => {
    const runs = mkdtempSync(path.join(tmpdir(), 'gp-old-config-'));
    const store = RunStore.create(runs, {
      kind: 'agent',
      game: '2048',
      target: { kind: 'builtin', label: '2048' },
      agent: 'vlm',
      model: 'x',
      action_space: 'gui',
      config: { encode: { longSide: 1024, format: 'jpeg', quality: 80 }, vlm: { model: 'x', history: 2 } },
    });
    store.close('completed');
    const [listed] = scanRuns(runs).runs;
    expect(listed!.meta.config).toMatchObject({ image_size: 1024, format: 'jpeg', quality: 80, history: 2 });
    expect(listed!.meta.config).not.toHaveProperty('encode');
    expect(readRun(store.dir).meta.config).toMatchObject({ image_size: 1024, history: 2 });
  });
});
