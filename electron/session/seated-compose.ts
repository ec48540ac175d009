/**
 * The composition root of a two-seat run: the game's window, an agent and an executor per seat
 * (the seat's own keys only), a run folder that says who sat where, and the seated session.
 */
import { createWindowManager, type WindowManager } from '../../native/index.ts';
import { CodedError, DEFAULT_MIN_FREE_MB, isModelAgent } from '../domain.ts';
import { seatLabel, type SeatSpec } from '../run-spec.ts';
import { ActionExecutor } from '../input/executor.ts';
import { createInputBackend } from '../input/input-backend.ts';
import { KeyLedger, notingKeys } from '../input/key-ledger.ts';
import type { Agent } from '../agents/agent-types.ts';
import { createCapturer } from '../capture/index.ts';
import { RunStore, type RunMeta, type RunSeat } from '../store/run-store.ts';
import { TWO_SEAT_GAMES } from '../../games/index.ts';
import type { GameDefinition } from '../../games/types.ts';
import { makeAgent, runSettings, type RunOptions } from './compose.ts';
import { runConfig } from './run-config.ts';
import { SeatedSession } from './seated-session.ts';
import { BuiltinTarget, type ViewLauncher } from './targets.ts';

export type SeatedRunOptions = Omit<
  RunOptions,
  'agent' | 'game' | 'window' | 'windowId' | 'profile' | 'judge' | 'agentFromProfile' | 'memory' | 'pauseKey'
> & {
  game: string;
  seats: readonly [SeatSpec, SeatSpec];
  /** Opens the view (the app's BrowserWindow launcher); default a browser process. */
  launch?: ViewLauncher;
  /** What else run.json says (the arena match it is). */
  meta?: Pick<RunMeta, 'arena'>;
  /** Makes the seat a person takes (`human`); without it, a human seat is refused. */
  humanSeat?: HumanSeatFactory;
};

/**
 * A person's seat: its agent reads the person's keys (recording/human-seat.ts, the recorder's input
 * path, which lives above session/). `echoes` holds the keys the executors pressed.
 */
export type HumanSeatFactory = (seat: {
  seat: number;
  name: string;
  keys: readonly string[];
  otherKeys: readonly string[];
  windowId: string;
  echoes: KeyLedger;
}) => Promise<Agent>;

export function twoSeatGame(id: string): GameDefinition {
  const def = TWO_SEAT_GAMES[id];
  if (!def)
    throw new CodedError(
      'not-found',
      `unknown two-seat game "${id}" (two-seat games: ${Object.keys(TWO_SEAT_GAMES).join(', ')})`,
    );
  return def;
}

/** Opens the game's window and wires a two-seat session to a fresh run folder. The caller closes the target. */
export async function prepareSeatedRun(
  opts: SeatedRunOptions,
  wm: WindowManager = createWindowManager(),
): Promise<{ session: SeatedSession; target: BuiltinTarget; store: RunStore }> {
  const def = twoSeatGame(opts.game);
  const spec = def.seats!;
  const human = opts.seats.findIndex((s) => s.agent === 'human');
  if (human >= 0 && (!opts.humanSeat || !spec.keys))
    throw new CodedError(
      'bad-input',
      spec.keys
        ? 'a person takes a seat in `gamepilot run --seats` only (at this machine’s keyboard)'
        : `a person plays with the keyboard, and ${def.id} is played by clicking`,
    );
  // Agents first: a seat without its model fails before any window opens.
  const agents: (Agent | undefined)[] = opts.seats.map((s, i) =>
    s.agent === 'human'
      ? undefined
      : makeAgent({
          agent: s.agent,
          seed: opts.seed + i,
          ...(opts.vlm || s.model ? { vlm: { ...opts.vlm, ...(s.model ? { model: s.model } : {}) } } : {}),
        }),
  );
  const target = await BuiltinTarget.open(def, wm, opts.launch ? { launch: opts.launch } : {});
  try {
    return await wireSeatedSession(opts, target, agents, wm);
  } catch (err) {
    await target.close();
    throw err;
  }
}

/** A two-seat session for the game's open window: the seats' executors, the run folder, the loop. */
export async function wireSeatedSession(
  opts: SeatedRunOptions,
  target: BuiltinTarget,
  agents: (Agent | undefined)[],
  wm: WindowManager,
): Promise<{ session: SeatedSession; target: BuiltinTarget; store: RunStore }> {
  const def = twoSeatGame(opts.game);
  const spec = def.seats!;
  const human = opts.seats.findIndex((s) => s.agent === 'human');
  const { maxSteps, episodes, latency, latencySettings, allowedKeys } = runSettings(opts, undefined, def);
  const keepFrames = opts.keepFrames ?? 'all';
  const minFreeMb = opts.minFreeMb ?? DEFAULT_MIN_FREE_MB;
  // A person types into the window the executors press keys in: there only the executors' keys
  // count (the person's come through their seat), and the person's seat ignores the executors'.
  const echoes = human >= 0 ? { hook: new KeyLedger(), view: new KeyLedger() } : undefined;
  const input = echoes ? notingKeys(createInputBackend(), [echoes.hook, echoes.view]) : undefined;
  // Each seat presses only its own keys; a click game's seats press none.
  const executors = [0, 1].map(
    (i) =>
      new ActionExecutor({
        allowedKeys,
        onlyKeys: [...(spec.keys?.[i] ?? [])],
        hotkeys: opts.hotkeys,
        ...(input ? { input } : {}),
      }),
  );
  if (echoes) {
    target.game.keyGate = (key) => echoes.view.take(key);
    agents[human] = await opts.humanSeat!({
      seat: human,
      name: spec.names[human]!,
      keys: spec.keys![human]!,
      otherKeys: spec.keys![1 - human]!,
      windowId: (await target.locate()).id,
      echoes: echoes.hook,
    });
  }
  const seats: RunSeat[] = opts.seats.map((s, i) => ({
    seat: i,
    name: spec.names[i]!,
    agent: seatLabel(s),
    model: isModelAgent(s.agent) ? (s.model ?? null) : null,
  }));
  const anyModel = opts.seats.some((s) => isModelAgent(s.agent));
  const store = RunStore.create(opts.outDir, {
    kind: 'agent',
    game: def.id,
    target: { kind: 'builtin', label: target.label },
    agent: seats.map((s) => s.agent).join(' vs '),
    model: null,
    action_space: opts.space,
    config: runConfig(
      { ...opts, agent: anyModel ? 'vlm' : 'random' },
      { episodes, maxSteps, latency, latencySettings, keepFrames, minFreeMb },
    ),
    seats,
    ...(opts.meta ?? {}),
    ...(opts.job ? { job: opts.job } : {}),
    ...(opts.worker ? { worker: opts.worker } : {}),
  });
  store.recordBytesWritten();
  const session = new SeatedSession(
    {
      target,
      capturer: opts.capturer ?? createCapturer(opts.capture),
      wm,
      store,
      seats: [
        { agent: agents[0]!, executor: executors[0]! },
        { agent: agents[1]!, executor: executors[1]! },
      ],
    },
    {
      actionSpace: opts.space,
      episodes,
      maxSteps,
      seed: opts.seed,
      imageSize: opts.encode.longSide,
      format: opts.encode.format,
      quality: opts.encode.quality,
      latency,
      ...latencySettings,
      keepFrames,
      minFreeMb,
      ...(opts.settleMs !== undefined ? { settleMs: opts.settleMs } : {}),
      ...(opts.minStepMs !== undefined ? { paceMs: opts.minStepMs } : {}),
      ...(opts.maxConsecutiveErrors !== undefined ? { maxErrors: opts.maxConsecutiveErrors } : {}),
      ...(opts.maxRunMb !== undefined ? { maxRunMb: opts.maxRunMb } : {}),
    },
  );
  return { session, target, store };
}
