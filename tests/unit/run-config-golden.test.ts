/**
 * run.json's `config` (and the run's top-level record of target, agent, model, space and
 * profile) for a representative set of runs, from every way in — the CLI's flags, the app's
 * request, a sweep job, an MCP client's start_session — through the real composition root,
 * compared with tests/fixtures/run-config-golden.json, written from main 16bf952 before the
 * composition root took the spec itself (issue 36: the same flags must keep making the same
 * config, byte for byte). The windows and built-in views are stand-ins (no window opens): what is
 * recorded is decided before the session's first step.
 *
 * GAMEPILOT_WRITE_GOLDEN=1 rewrites the fixture (only for a change meant to change run.json).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { WindowInfo, WindowManager } from '../../native/types.ts';
import { BUILTIN_GAMES, TWO_SEAT_GAMES } from '../../games/index.ts';
import { seededRng } from '../../games/shared/rng.ts';
import { runFrom } from '../../electron/cli/run-command.ts';
import { profileChoiceFrom } from '../../electron/cli/profile-command.ts';
import { parseParams, type StartRun } from '../../electron/api/contract.ts';
import { runFromRequest, type RunContext } from '../../electron/api/run-activity.ts';
import { DEFAULT_HOTKEYS } from '../../electron/domain.ts';
import { parseSweep, runArgs } from '../../electron/sweep/spec.ts';
import { agentFor, makeAgent, wireSession } from '../../electron/session/compose.ts';
import type { ReadyRun } from '../../electron/reflection/setup.ts';
import { WindowTarget, type Target } from '../../electron/session/targets.ts';
import type { RunMeta } from '../../electron/store/run-store.ts';
import type { BuiltinGame } from '../../electron/games/builtin-game.ts';
import type { ScreenCapturer } from '../../electron/capture/capturer.ts';
import { matchRun } from '../../electron/arena/arena.ts';
import { wireSeatedSession } from '../../electron/session/seated-compose.ts';
import { idcPlaySpec } from '../../electron/reflection/idc.ts';
import type { BuiltinTarget } from '../../electron/session/targets.ts';
import { ROOT } from '../helpers/cli.ts';
import { playerName, startSessionRequest } from '../../electron/mcp/play.ts';
import { RemoteAgent } from '../../electron/agents/remote-agent.ts';
import type { Agent } from '../../electron/agents/agent-types.ts';
import { runFlags } from '../helpers/run-flags.ts';

const GOLDEN = path.join(ROOT, 'tests/fixtures/run-config-golden.json');
const WINDOW: WindowInfo = {
  id: '0x00c00003',
  title: 'Mines',
  pid: 0,
  bounds: { x: 0, y: 0, width: 240, height: 300 },
  scaleFactor: 1,
};
const wm: WindowManager = {
  platform: 'linux',
  list: async () => [WINDOW],
  get: async (id) => (id === WINDOW.id ? WINDOW : undefined),
  focus: async () => {},
  activeId: async () => undefined,
};
const capturer = { grab: async () => ({}) } as unknown as ScreenCapturer;
const outDir = mkdtempSync(path.join(tmpdir(), 'gp-golden-'));

/** A built-in game's target with no view behind it: the composition root reads only its definition. */
function builtin(id: string): Target {
  const def = BUILTIN_GAMES[id] ?? TWO_SEAT_GAMES[id]!;
  return {
    kind: 'builtin',
    label: id,
    game: { def, instance: def.create({ seed: 0, episode: 0, rng: seededRng(0) }) } as BuiltinGame,
    locate: async () => WINDOW,
    hits: () => [],
    close: async () => {},
  };
}

async function targetOf(t: { game?: string; windowId?: string }): Promise<Target> {
  return t.game ? builtin(t.game) : WindowTarget.byId(wm, t.windowId!);
}

/** What the run records, through the composition root, for the run an entry point made. */
async function recorded(run: ReadyRun, player?: Agent) {
  const place = { ...run.place, outDir, capturer };
  const agent = player ?? agentFor(run.spec, place);
  const { store } = wireSession(run.spec, place, await targetOf(run.spec), agent, wm);
  return record(store.meta);
}

function record(m: RunMeta) {
  return {
    config: m.config,
    target: m.target,
    agent: m.agent,
    model: m.model,
    action_space: m.action_space,
    profile: m.profile ? { id: m.profile.id } : null,
    // The store's folder is the test's own config folder: kept as memory/<scope>.json.
    memory: m.memory
      ? { ...m.memory, file: path.relative(path.dirname(path.dirname(m.memory.file)), m.memory.file) }
      : null,
    seats: m.seats ?? null,
    arena: m.arena ?? null,
  };
}

async function fromCli(argv: string[]) {
  const { flags: o, stderr } = await runFlags(argv);
  if (!o) throw new Error(`gamepilot run ${argv.join(' ')}: ${stderr}`);
  return recorded(runFrom(o, { profile: profileChoiceFrom(o.profile) }));
}

const appCtx: RunContext = {
  wm,
  emit: () => {},
  phase: () => {},
  hotkeys: DEFAULT_HOTKEYS,
  model: () => ({ model: 'player-vlm', baseUrl: 'http://127.0.0.1:9/v1', history: 3 }),
  imageSize: 1024,
  runsDir: outDir,
  capturer,
  configDir: outDir,
};

async function fromApp(params: unknown) {
  const req = parseParams('startRun', params) as StartRun;
  return recorded(runFromRequest(req, appCtx));
}

const CASES: Record<string, () => Promise<unknown>> = {
  'cli: random on a built-in, stop latency, pace and frames': () =>
    fromCli([
      '--game',
      '2048',
      '--agent',
      'random',
      '--episodes',
      '2',
      '--max-steps',
      '7',
      '--seed',
      '5',
      '--latency',
      'stop',
      '--stop-interval-ms',
      '900',
      '--pace-ms',
      '40',
      '--keep-frames',
      'every:2',
      '--max-errors',
      '9',
      '--settle-ms',
      '60',
    ]),
  'cli: a model on a built-in, every model setting': () =>
    fromCli([
      '--game',
      'snake',
      '--agent',
      'vlm',
      '--model',
      'player-vlm',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--history',
      '3',
      '--temperature',
      '0.2',
      '--max-tokens',
      '512',
      '--repairs',
      '2',
      '--timeout-ms',
      '5000',
      '--idle-timeout-ms',
      '2000',
      '--max-retries',
      '1',
      '--price-in',
      '1.5',
      '--price-out',
      '2',
      '--game-text',
      '--image-size',
      '768',
      '--format',
      'png',
      '--max-run-mb',
      '40',
      '--min-free-mb',
      '100',
      '--allow-keys',
      'alt+f4',
    ]),
  'cli: the memory agent with its settings': () =>
    fromCli([
      '--game',
      'maze',
      '--agent',
      'memory',
      '--model',
      'player-vlm',
      '--memory-scope',
      'golden',
      '--embedding-model',
      'none',
      '--memory-top-k',
      '4',
      '--short-term',
      '2',
    ]),
  'cli: a window with its profile, slow latency': () =>
    fromCli([
      '--window-id',
      WINDOW.id,
      '--agent',
      'vlm',
      '--model',
      'player-vlm',
      '--profile',
      'games/sgt-mines/profile.yaml',
      '--latency',
      'slow',
      '--take-over-on-input',
    ]),
  'cli: a window without a profile, its pause key': () =>
    fromCli(['--window-id', WINDOW.id, '--agent', 'random', '--no-profile', '--pause-key', 'p', '--max-steps', '3']),
  'app: a model run in Settings, paced, frames every 3': () =>
    fromApp({
      target: { game: 'snake' },
      agent: 'vlm',
      episodes: 10,
      paceMs: 250,
      keepFrames: 'every:3',
      maxRunMb: 40,
    }),
  'app: a baseline on a window with its profile': () =>
    fromApp({ target: { windowId: WINDOW.id }, agent: 'random', profile: 'sgt-mines', maxSteps: 20 }),
  'sweep: a model job with latency, seed and model settings': async () => {
    const sweep = parseSweep(
      'games: [tictactoe]\nagents: [vlm]\nmodels: [player-vlm]\naction_space: semantic\nepisodes: 3\nmax_steps: 9\nseed: 11\nlatency: slow\nhistory: 1\nmax_tokens: 300\n',
      's.yaml',
    );
    const job = sweep.jobs[0]!;
    return fromCli(['--game', job.cell.game, ...runArgs(job.cell, sweep.spec)]);
  },
  // Through start_session's own request, with the client as the player (as McpPlay.start gives it).
  'mcp: start_session on a window with a profile': () => {
    const req = startSessionRequest(
      {
        window_id: WINDOW.id,
        action_space: 'gui',
        episodes: 1,
        max_steps: 12,
        seed: 0,
        latency: 'stop',
        profile: 'sgt-mines',
      },
      false,
    );
    return recorded(runFromRequest(req, appCtx), new RemoteAgent(playerName('golden')));
  },
  'arena: a PvP match of a model against the solver': async () => {
    const arena = {
      game: 'tictactoe-pvp',
      agents: ['vlm:player-vlm', 'solver'],
      latency: 'stop' as const,
      actionSpace: 'semantic' as const,
      seed: 3,
      maxSteps: 12,
      dir: outDir,
      baseUrl: 'http://127.0.0.1:9/v1',
      capture: 'auto' as const,
      imageSize: 1024,
      format: 'jpeg' as const,
      quality: 70,
      log: () => {},
    };
    const match = matchRun(
      arena,
      { game: 'tictactoe-pvp', trials: 4 },
      { id: 'm1', p1: 'vlm:player-vlm', p2: 'solver' },
      outDir,
    );
    const agents = match.seats.map((seat) =>
      makeAgent({ agent: seat.agent as 'vlm' | 'solver', seed: 0, vlm: { model: seat.model ?? 'x' } }),
    );
    const target = builtin('tictactoe-pvp') as BuiltinTarget;
    const { store } = await wireSeatedSession(
      match.spec,
      match.seats,
      { ...match.place, capturer },
      target,
      agents,
      wm,
    );
    return record(store.meta);
  },
  'idc: a round of the player on its game': async () => {
    const spec = idcPlaySpec(
      {
        game: '2048',
        player: { model: 'player-vlm', baseUrl: 'http://127.0.0.1:9/v1', temperature: 0.7 },
        maxSteps: 30,
      },
      { episodes: 5, seed: 17 },
    );
    const { store } = wireSession(spec, { outDir, capturer }, builtin('2048'), agentFor(spec, {}), wm);
    return record(store.meta);
  },
};

describe('run.json config, the same as before for the same settings', () => {
  const seen: Record<string, unknown> = {};
  afterAll(() => {
    if (process.env.GAMEPILOT_WRITE_GOLDEN === '1') writeFileSync(GOLDEN, `${JSON.stringify(seen, null, 2)}\n`);
  });
  const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, unknown>;
  for (const [name, make] of Object.entries(CASES))
    it(name, async () => {
      const got = JSON.parse(JSON.stringify(await make()));
      seen[name] = got;
      // Byte for byte: the same keys in the same order as run.json writes them.
      if (process.env.GAMEPILOT_WRITE_GOLDEN !== '1')
        expect(JSON.stringify(got, null, 1)).toBe(JSON.stringify(golden[name], null, 1));
    });
});
