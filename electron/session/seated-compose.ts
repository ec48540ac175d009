/**
 * The composition root of a two-seat run: the game's window, an agent and an executor per seat
 * (the seat's own keys only), a run folder that says who sat where, and the seated session.
 */
import { createWindowManager, type WindowManager } from '../../native/index.ts';
import { CodedError, isModelAgent } from '../domain.ts';
import { seatLabel, type RunSpec, type SeatSpec } from '../run-spec.ts';
import { ActionExecutor } from '../input/executor.ts';
import { createInputBackend } from '../input/input-backend.ts';
import { KeyLedger, notingKeys } from '../input/key-ledger.ts';
import type { Agent } from '../agents/agent-types.ts';
import { createCapturer } from '../capture/index.ts';
import { RunStore, type RunMeta, type RunSeat } from '../store/run-store.ts';
import { TWO_SEAT_GAMES } from '../../games/index.ts';
import type { GameDefinition } from '../../games/types.ts';
import { makeAgent, recordSpend, runSettings, sessionConfig, vlmSettingsOf, type RunPlace } from './compose.ts';
import { meterFor } from './run-meter.ts';
import { runSeed } from './front-door.ts';
import { runConfig } from './run-config.ts';
import { SeatedSession } from './seated-session.ts';
import { BuiltinTarget, type ViewLauncher } from './targets.ts';

/** Where a two-seat run happens: a run's place, and what only a two-seat run has. */
export interface SeatedRunPlace extends Omit<RunPlace, 'profile' | 'configDir'> {
  /** Opens the view (the app's BrowserWindow launcher); default a browser process. */
  launch?: ViewLauncher;
  /** What else run.json says (the arena match it is). */
  meta?: Pick<RunMeta, 'arena'>;
  /** Makes the seat a person takes (`human`); without it, a human seat is refused. */
  humanSeat?: HumanSeatFactory;
}

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
  run: RunSpec,
  seats: readonly [SeatSpec, SeatSpec],
  place: SeatedRunPlace,
  wm: WindowManager = createWindowManager(),
): Promise<{ session: SeatedSession; target: BuiltinTarget; store: RunStore }> {
  const def = twoSeatGame(run.game!);
  const spec = def.seats!;
  const human = seats.findIndex((s) => s.agent === 'human');
  if (human >= 0 && (!place.humanSeat || !spec.keys))
    throw new CodedError(
      'bad-input',
      spec.keys
        ? 'a person takes a seat in `gamepilot run --seats` only (at this machine’s keyboard)'
        : `a person plays with the keyboard, and ${def.id} is played by clicking`,
    );
  // Agents first: a seat without its model fails before any window opens.
  const meter = place.meter ?? meterFor(run, ...seats.map((s) => s.model));
  const vlm = { ...vlmSettingsOf(run), meter };
  const agents: (Agent | undefined)[] = seats.map((s, i) =>
    s.agent === 'human'
      ? undefined
      : makeAgent({ agent: s.agent, seed: runSeed(run) + i, vlm: { ...vlm, ...(s.model ? { model: s.model } : {}) } }),
  );
  const target = await BuiltinTarget.open(def, wm, place.launch ? { launch: place.launch } : {});
  try {
    return await wireSeatedSession(run, seats, { ...place, meter }, target, agents, wm);
  } catch (err) {
    await target.close();
    throw err;
  }
}

/** A two-seat session for the game's open window: the seats' executors, the run folder, the loop. */
export async function wireSeatedSession(
  run: RunSpec,
  seatSpecs: readonly [SeatSpec, SeatSpec],
  place: SeatedRunPlace,
  target: BuiltinTarget,
  agents: (Agent | undefined)[],
  wm: WindowManager,
): Promise<{ session: SeatedSession; target: BuiltinTarget; store: RunStore }> {
  const def = twoSeatGame(run.game!);
  const spec = def.seats!;
  const human = seatSpecs.findIndex((s) => s.agent === 'human');
  const { maxSteps, episodes, latency, latencySettings, allowedKeys } = runSettings(run, undefined, def);
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
        hotkeys: place.hotkeys,
        ...(input ? { input } : {}),
      }),
  );
  if (echoes) {
    target.game.keyGate = (key) => echoes.view.take(key);
    agents[human] = await place.humanSeat!({
      seat: human,
      name: spec.names[human]!,
      keys: spec.keys![human]!,
      otherKeys: spec.keys![1 - human]!,
      windowId: (await target.locate()).id,
      echoes: echoes.hook,
    });
  }
  const seats: RunSeat[] = seatSpecs.map((s, i) => ({
    seat: i,
    name: spec.names[i]!,
    agent: seatLabel(s),
    model: isModelAgent(s.agent) ? (s.model ?? null) : null,
  }));
  const anyModel = seatSpecs.some((s) => isModelAgent(s.agent));
  const store = RunStore.create(place.outDir, {
    kind: 'agent',
    game: def.id,
    target: { kind: 'builtin', label: target.label },
    agent: seats.map((s) => s.agent).join(' vs '),
    model: null,
    action_space: run.actionSpace,
    // A built-in game never freezes by a pause key: a two-seat run does not record one.
    config: runConfig(
      { ...run, pauseKey: undefined },
      { episodes, maxSteps, latency, latencySettings },
      { modelSettings: anyModel },
    ),
    seats,
    ...(place.meta ?? {}),
    ...(place.job ? { job: place.job } : {}),
    ...(place.worker ? { worker: place.worker } : {}),
  });
  store.recordBytesWritten();
  const session = new SeatedSession(
    {
      target,
      capturer: place.capturer ?? createCapturer(run.capture),
      wm,
      store,
      seats: [
        { agent: agents[0]!, executor: executors[0]! },
        { agent: agents[1]!, executor: executors[1]! },
      ],
      ...(place.meter ? { meter: place.meter } : {}),
    },
    sessionConfig(run, { episodes, maxSteps, latency, latencySettings }),
  );
  if (place.meter) recordSpend(session, place.meter);
  return { session, target, store };
}
