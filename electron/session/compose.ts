/**
 * The composition root: builds the parts of a run (agent, target, capturer, world, session)
 * from plain options, for every shell (CLI, web shell, app) and for the core's own runs (the
 * API, IDC rounds, solver demonstrations), so everything plays the same way. Messages name
 * options in words, never a shell's flags: each shell maps its own flags onto RunOptions.
 */
import { createWindowManager, type WindowManager } from '../../native/index.ts';
import { getGame } from '../../games/index.ts';
import { createCapturer, type CaptureBackend, type ScreenCapturer } from '../capture/index.ts';
import type { Agent } from '../agents/types.ts';
import { RandomAgent, SolverAgent } from '../agents/baselines.ts';
import { VlmAgent, type VlmSettings } from '../agents/vlm.ts';
import { RunStore } from '../store/run-store.ts';
import { BuiltinTarget, WindowTarget, type Target, type ViewLauncher } from './targets.ts';
import { Session, type SessionConfig } from './session.ts';
import type { EncodeOptions } from '../capture/encode.ts';
import { DEFAULT_LATENCY, type LatencySettings } from '../latency/clock-policy.ts';
import { PauseKeyWorld, ProcessWorld, UnfreezableWorld, type World } from '../latency/world.ts';
import { refusal } from '../../native/process.ts';
import { ProcessFreezer, suspendedRegistry } from '../safety/suspended.ts';
import { ActionExecutor } from '../input/executor.ts';
import { defaultConfigDir } from '../util/paths.ts';
import { CodedError, type ActionSpace, type AgentKind, type LatencyMode } from '../domain.ts';

export interface RunOptions {
  game?: string;
  window?: string;
  /** An exact window, by its id in the window list. */
  windowId?: string;
  agent: AgentKind;
  space: ActionSpace;
  episodes: number;
  maxSteps?: number;
  seed: number;
  outDir: string;
  capture: CaptureBackend;
  /** A ready capturer (the app's desktopCapturer) instead of `capture`. */
  capturer?: ScreenCapturer;
  encode: EncodeOptions;
  settleMs?: number;
  maxConsecutiveErrors?: number;
  minStepMs?: number;
  latency?: LatencyMode;
  latencySettings?: Partial<LatencySettings>;
  /** Freeze a window by pressing this key (its own pause key) instead of suspending its process. */
  pauseKey?: string;
  /** System key combinations the model may press here (added to the built-in game's allowedHotkeys). */
  allowedKeys?: string[];
  vlm?: Partial<VlmSettings> & { model?: string };
}

export function makeAgent(opts: Pick<RunOptions, 'agent' | 'seed' | 'vlm'>): Agent {
  if (opts.agent === 'random') return new RandomAgent(opts.seed);
  if (opts.agent === 'solver') return new SolverAgent();
  const model = opts.vlm?.model ?? process.env.GAMEPILOT_MODEL;
  if (!model) throw new CodedError('bad-input', 'the vlm agent needs a model: give its name (or set GAMEPILOT_MODEL)');
  return new VlmAgent({ ...opts.vlm, model });
}

export async function openTarget(
  opts: Pick<RunOptions, 'game' | 'window' | 'windowId'>,
  wm: WindowManager,
  launch?: ViewLauncher,
  size?: { width: number; height: number },
): Promise<Target> {
  if ([opts.game, opts.window, opts.windowId].filter((v) => v !== undefined).length > 1)
    throw new CodedError(
      'bad-input',
      'give one target: a built-in game, a window title pattern or a window id, not several',
    );
  if (opts.windowId !== undefined) {
    if (!/^[\w:]{1,40}$/.test(opts.windowId))
      throw new CodedError(
        'bad-input',
        `a window id looks as the window list shows it (e.g. 0x01e00003), got "${opts.windowId}"`,
      );
    return WindowTarget.byId(wm, opts.windowId);
  }
  if (opts.game)
    return BuiltinTarget.open(getGame(opts.game), wm, {
      ...(launch ? { launch } : {}),
      ...(size ? { ...size, x: 0, y: 0 } : {}),
    });
  if (opts.window) {
    let pattern: RegExp;
    try {
      pattern = new RegExp(opts.window, 'i');
    } catch (err) {
      throw new CodedError(
        'bad-input',
        `the window title pattern is not a valid regular expression: ${(err as Error).message}`,
      );
    }
    return WindowTarget.find(wm, pattern);
  }
  throw new CodedError('bad-input', 'give a target: a built-in game, a window title pattern or a window id');
}

export interface PreparedRun {
  session: Session;
  target: Target;
  store: RunStore;
}

/** Opens the target and wires a session to a fresh run folder. The caller closes the target. */
export async function prepareRun(opts: RunOptions, wm: WindowManager = createWindowManager()): Promise<PreparedRun> {
  const agent = makeAgent(opts);
  if (opts.space === 'semantic' && !opts.game)
    throw new CodedError(
      'bad-input',
      'the semantic action space needs a built-in game (a window has no declared moves)',
    );
  const target = await openTarget(opts, wm);
  try {
    return { ...wireSession(opts, target, agent, wm), target };
  } catch (err) {
    await target.close();
    throw err;
  }
}

/** A session for an already open target: the run folder, its metadata, the loop. */
export function wireSession(
  opts: RunOptions,
  target: Target,
  agent: Agent,
  wm: WindowManager,
): { session: Session; store: RunStore } {
  const maxSteps = opts.maxSteps ?? target.game?.def.defaultMaxSteps ?? 50;
  const allowedKeys = [...(target.game?.def.allowedHotkeys ?? []), ...(opts.allowedKeys ?? [])];
  const executor = new ActionExecutor({ allowedKeys }); // throws on an unreadable entry, before the run folder exists
  const { apiKey: _secret, ...vlmPublic } = opts.vlm ?? {};
  const store = RunStore.create(opts.outDir, {
    kind: 'agent',
    game: target.game?.def.id ?? null,
    target: {
      kind: target.kind,
      label: target.label,
      ...(opts.window ? { pattern: opts.window } : {}),
      ...(target instanceof WindowTarget ? { window_id: target.id } : {}),
    },
    agent: agent.name,
    model: opts.agent === 'vlm' ? (opts.vlm?.model ?? process.env.GAMEPILOT_MODEL ?? null) : null,
    action_space: opts.space,
    config: {
      episodes: opts.episodes,
      max_steps: maxSteps,
      seed: opts.seed,
      latency: opts.latency ?? 'normal',
      ...latencyRecord(opts),
      capture: opts.capture,
      encode: opts.encode,
      ...(allowedKeys.length ? { allowed_keys: allowedKeys } : {}),
      ...(opts.agent === 'vlm' ? { vlm: vlmPublic } : {}),
    },
    // A model run reflects only once reflection is attached (reflection/setup.ts rewrites this).
    ...(opts.agent === 'vlm' ? { reflection: { mode: 'none' as const, reflector_model: null, lessons: [] } } : {}),
  });
  const config: Partial<SessionConfig> = {
    space: opts.space,
    episodes: opts.episodes,
    maxSteps,
    seed: opts.seed,
    encode: opts.encode,
    ...(opts.settleMs !== undefined ? { settleMs: opts.settleMs } : {}),
    ...(opts.maxConsecutiveErrors !== undefined ? { maxConsecutiveErrors: opts.maxConsecutiveErrors } : {}),
    ...(opts.minStepMs !== undefined ? { minStepMs: opts.minStepMs } : {}),
    ...(opts.latency ? { latency: opts.latency } : {}),
    latencySettings: { ...DEFAULT_LATENCY, ...opts.latencySettings },
  };
  const world = target.game ? undefined : windowWorld(target, opts.pauseKey);
  const session = new Session(
    {
      target,
      agent,
      capturer: opts.capturer ?? createCapturer(opts.capture),
      wm,
      store,
      executor,
      ...(world ? { world } : {}),
    },
    config,
  );
  return { session, store };
}

/** The clock settings that shape a run's timeline, beside its latency mode. */
function latencyRecord(opts: RunOptions): Record<string, number> {
  const s = { ...DEFAULT_LATENCY, ...opts.latencySettings };
  if (opts.latency === 'stop') return { stop_interval_ms: s.stopIntervalMs };
  if (opts.latency === 'slow') return { slow_buffer_ms: s.slowBufferMs };
  return {};
}

let freezer: ProcessFreezer | undefined;

/** One freezer per process; its registry lets the next start resume what a crash left stopped. */
export function processFreezer(): ProcessFreezer {
  if (!freezer) {
    const f = new ProcessFreezer(suspendedRegistry(defaultConfigDir()));
    freezer = f;
    // Last line of defence: even on process.exit(), resume what we stopped (POSIX signals are synchronous).
    process.once('exit', () => f.resumeAll());
  }
  return freezer;
}

/** How a window that no engine drives is frozen: its pause key, else its process tree. */
function windowWorld(target: Target, pauseKey?: string): World {
  if (pauseKey) {
    let executor: ActionExecutor;
    try {
      executor = new ActionExecutor({ allowedKeys: [pauseKey] }); // the operator chose this key, even a system one
    } catch {
      throw new CodedError('bad-input', `the pause key "${pauseKey}" is not a key name (e.g. p, escape, f3, pause)`);
    }
    return new PauseKeyWorld(async () => {
      const w = await target.locate();
      await executor.execute([{ kind: 'gui', type: 'PRESS', params: { key: pauseKey } }], {
        window: w.bounds,
        imageScale: 1,
        imageWidth: w.bounds.width,
        imageHeight: w.bounds.height,
        inputScale: 1,
      });
    });
  }
  const pid = target.pid;
  if (!pid) return new UnfreezableWorld('the window reports no process id');
  let why: string | null;
  try {
    why = refusal(pid);
  } catch (err) {
    why = `cannot tell whether pid ${pid} may be suspended: ${(err as Error).message}`; // fail safe: never freeze blind
  }
  return why ? new UnfreezableWorld(why) : new ProcessWorld(pid, processFreezer());
}
