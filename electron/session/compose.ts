/**
 * The composition root: builds the parts of a run (agent, target, capturer, world, session)
 * from plain options, for every shell (CLI, web shell, app) and for the core's own runs (the
 * API, IDC rounds, solver demonstrations), so everything plays the same way. Messages name
 * options in words, never a shell's flags: each shell maps its own flags onto RunOptions.
 */
import { createWindowManager, type WindowManager } from '../../native/index.ts';
import { getGame, type GameDefinition } from '../../games/index.ts';
import { createCapturer, type CaptureBackend, type ScreenCapturer } from '../capture/index.ts';
import type { Agent } from '../agents/agent-types.ts';
import { RandomAgent, SolverAgent } from '../agents/baselines.ts';
import { VlmAgent, type VlmSettings } from '../agents/vlm.ts';
import { MemoryAgent, type MemoryAgentSettings } from '../agents/memory-agent.ts';
import { memoryFile } from '../agents/memory-store.ts';
import { resolveEndpoint } from '../agents/model-endpoint.ts';
import { RunStore, type RunJob, type RunWorker } from '../store/run-store.ts';
import { BuiltinTarget, WindowTarget, type Target, type ViewLauncher } from './targets.ts';
import { noMovesMessage, Session, type SessionConfig } from './session.ts';
import type { EncodeOptions } from '../capture/encode.ts';
import { DEFAULT_LATENCY, type LatencySettings } from '../latency/clock-policy.ts';
import { PauseKeyWorld, ProcessWorld, UnfreezableWorld, type World } from '../latency/world.ts';
import { refusal } from '../../native/process.ts';
import { ProcessFreezer, suspendedRegistry } from '../safety/suspended.ts';
import { ActionExecutor } from '../input/executor.ts';
import { guardAntiCheat } from '../safety/anticheat.ts';
import type { GamepilotHotkeys } from '../input/accelerator.ts';
import { defaultConfigDir } from '../util/paths.ts';
import { textPattern, type TextPattern } from '../util/text-pattern.ts';
import {
  CodedError,
  DEFAULT_MIN_FREE_MB,
  isModelAgent,
  type ActionSpace,
  type AgentKind,
  type KeepFrames,
  type LatencyMode,
} from '../domain.ts';
import { checkFramesFor } from '../store/frame-budget.ts';
import { builtinProfile, pickForWindow, type ProfileEntry } from '../profiles/registry.ts';
import { profileRecord } from './profile-record.ts';
import { executableOf } from '../profiles/executable.ts';
import { semanticApiOf, type Profile } from '../profiles/profile-schema.ts';
import { ScreenScoreReader } from '../scoring/screen-reader.ts';
import { attachLiveJudge } from './live-judge.ts';
import { runConfig } from './run-config.ts';
import { DEFAULT_JUDGING } from '../scoring/milestone-judging.ts';

/**
 * Which profile a run follows: one chosen by the caller, the one among `entries` that fits the
 * target (a built-in's own; a window's by title and executable — two that fit are refused, never
 * guessed between), or none.
 */
export type ProfileChoice =
  | { kind: 'none' }
  | { kind: 'chosen'; entry: ProfileEntry }
  | { kind: 'match'; entries: ProfileEntry[] };

export interface RunOptions {
  game?: string;
  window?: string;
  /** An exact window, by its id in the window list. */
  windowId?: string;
  agent: AgentKind;
  space: ActionSpace;
  /** Default: the profile's trials, else the built-in's, else 1. */
  episodes?: number;
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
  /** A person's input in the window takes over (session/takeover.ts). */
  takeOverOnInput?: boolean;
  /** Play a window although an anti-cheat system runs or the profile names one (safety/anticheat.ts). */
  acceptAnticheatRisk?: boolean;
  latency?: LatencyMode;
  latencySettings?: Partial<LatencySettings>;
  /** Freeze a window by pressing this key (its own pause key) instead of suspending its process. */
  pauseKey?: string;
  /** System key combinations the model may press here (added to the built-in game's allowedHotkeys). */
  allowedKeys?: string[];
  /** The person's stop and take-over hotkeys (Settings): the agent never presses them (default: the defaults). */
  hotkeys?: GamepilotHotkeys;
  vlm?: Partial<VlmSettings> & { model?: string };
  /** The memory agent's store and limits; the scope defaults to the profile's or game's id (or the window's title). */
  memory?: Partial<MemoryAgentSettings>;
  /** A model agent of the kind the title's profile names (memory or zero-shot); zero-shot without a profile. */
  agentFromProfile?: boolean;
  /** The title's profile (default: none). Its settings fill what the options leave unset. */
  profile?: ProfileChoice;
  /** The live milestone judge of a milestone-scored profile (on unless `live` is false). */
  judge?: JudgeOptions;
  /** The sweep job this run is, and the worker running it (recorded in run.json). */
  job?: RunJob;
  worker?: RunWorker;
  /** Which step frames are written (default all); one that leaves the milestone judge nothing is refused. */
  keepFrames?: KeepFrames;
  /** The most the run folder may hold (MB; default: no limit of its own). */
  maxRunMb?: number;
  /** The free space (MB) a run leaves on its disk (default DEFAULT_MIN_FREE_MB; 0: no floor). */
  minFreeMb?: number;
}

export interface JudgeOptions {
  live?: boolean;
  /** Default: the run's model. */
  model?: string;
  baseURL?: string;
  apiKey?: string;
  /** At most this many judge calls in the whole run. */
  budget?: number;
  /** A judgement every this many steps (default 3), besides each episode's end. */
  everySteps?: number;
}

/** The run's model: the one given, else the environment's (model-endpoint.ts). */
function runModel(opts: Pick<RunOptions, 'vlm'>): string | undefined {
  return resolveEndpoint({ ...(opts.vlm?.model ? { model: opts.vlm.model } : {}) }).model;
}

export function makeAgent(opts: Pick<RunOptions, 'agent' | 'seed' | 'vlm' | 'memory'>): Agent {
  if (opts.agent === 'random') return new RandomAgent(opts.seed);
  if (opts.agent === 'solver') return new SolverAgent();
  const model = runModel(opts);
  if (!model)
    throw new CodedError('bad-input', `the ${opts.agent} agent needs a model: give its name (or set GAMEPILOT_MODEL)`);
  if (opts.agent === 'memory') {
    const scope = opts.memory?.scope;
    if (scope !== undefined) memoryFile(opts.memory?.configDir ?? defaultConfigDir(), scope); // a bad scope fails here, before any window opens
    // The scope is settled in wireSession, once the target is known.
    return new MemoryAgent({ ...opts.vlm, model }, { ...opts.memory, scope: scope ?? '' });
  }
  return new VlmAgent({ ...opts.vlm, model });
}

/** A memory scope from a game id, a window pattern or title: lower-case words joined by dashes. */
export function defaultMemoryScope(target: Target, windowPattern?: string): string {
  if (target.game) return target.game.def.id;
  const slug = (windowPattern ?? target.label)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return slug || 'window';
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
    let pattern: TextPattern;
    try {
      pattern = textPattern(opts.window);
    } catch (err) {
      throw new CodedError('bad-input', `the window title pattern cannot be used: ${(err as Error).message}`);
    }
    return WindowTarget.find(wm, pattern);
  }
  throw new CodedError('bad-input', 'give a target: a built-in game, a window title pattern or a window id');
}

export interface PreparedRun {
  session: Session;
  target: Target;
  store: RunStore;
  /** The profile the run follows, if any. */
  profile?: ProfileEntry | undefined;
  /** Things the person starting the run should know (the profile names another agent…). */
  notices: string[];
}

/** The profile that fits the target, as the choice says; throws when several fit a window. */
export function resolveProfile(choice: ProfileChoice | undefined, target: Target): ProfileEntry | undefined {
  if (!choice || choice.kind === 'none') return undefined;
  const game = target.game?.def.id;
  if (choice.kind === 'chosen') {
    const p = choice.entry.profile;
    if (game !== undefined && p.builtin !== game)
      throw new CodedError(
        'bad-input',
        `the profile "${p.id}" (${choice.entry.file}) describes ${p.builtin ? `the built-in game ${p.builtin}` : 'a window title'}, not the built-in game ${game}`,
      );
    if (game === undefined && p.builtin !== undefined && !p.match)
      throw new CodedError(
        'bad-input',
        `the profile "${p.id}" describes the built-in game ${p.builtin}: play it with its game, not a window`,
      );
    return choice.entry;
  }
  if (game !== undefined) return builtinProfile({ entries: choice.entries, errors: [] }, game);
  return pickForWindow(
    choice.entries.filter((e) => e.profile.builtin === undefined),
    { title: target.label, executable: executableOf(target.pid) },
  );
}

/** Opens the target and wires a session to a fresh run folder. The caller closes the target. */
export async function prepareRun(opts: RunOptions, wm: WindowManager = createWindowManager()): Promise<PreparedRun> {
  const agent = makeAgent(opts);
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
  given: Agent,
  wm: WindowManager,
): { session: Session; store: RunStore; profile: ProfileEntry | undefined; notices: string[] } {
  const entry = resolveProfile(opts.profile, target);
  const profile = entry?.profile;
  if (opts.space === 'semantic' && !target.game && !semanticApiOf(profile))
    throw new CodedError('bad-input', noMovesMessage(profile)); // before the run folder exists
  const agent = profileAgent(opts, given, profile);
  const notices: string[] = [];
  const def = target.game?.def;
  const { maxSteps, episodes, allowedKeys, onlyKeys, latency, latencySettings } = runSettings(opts, profile, def);
  if (profile && agent instanceof VlmAgent && opts.vlm?.history === undefined)
    agent.setHistory(profile.episode.history);
  if (profile && agent instanceof VlmAgent && !(agent instanceof MemoryAgent) && profile.episode.agent === 'memory')
    notices.push(
      `the profile "${profile.id}" names the memory agent for this title; this run plays with the zero-shot model agent`,
    );
  const executor = new ActionExecutor({ allowedKeys, onlyKeys, hotkeys: opts.hotkeys }); // throws on an unreadable entry, before the run folder exists
  // Input into another program's window: refused where an anti-cheat system watches (before the run folder exists).
  const antiCheat =
    target instanceof WindowTarget
      ? guardAntiCheat({ accepted: opts.acceptAnticheatRisk ?? false, profileAntiCheat: profile?.antiCheat })
      : undefined;
  const keepFrames = opts.keepFrames ?? 'all';
  const minFreeMb = opts.minFreeMb ?? DEFAULT_MIN_FREE_MB;
  const judge = profile ? judgeSettings(profile, opts, notices) : undefined;
  if (judge) checkFramesFor('the milestone judge', keepFrames, maxSteps); // before the run folder exists
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
    model: isModelAgent(opts.agent) ? (runModel(opts) ?? null) : null,
    action_space: opts.space,
    // The settings under the RunSpec's names (run-config.ts), then what the profile adds.
    config: {
      ...runConfig(opts, {
        episodes,
        maxSteps,
        latency,
        latencySettings,
        keepFrames,
        minFreeMb,
        ...(profile ? { history: profile.episode.history } : {}),
      }),
      ...(profile?.episode.maxSeconds !== undefined ? { max_seconds: profile.episode.maxSeconds } : {}),
      ...(allowedKeys.length ? { allowed_keys: allowedKeys } : {}),
      ...(onlyKeys ? { only_keys: onlyKeys } : {}),
      ...(antiCheat?.systems.length ? { anticheat: antiCheat.systems } : {}),
      ...(profile?.actions.maxActionsPerStep !== undefined && !def
        ? { max_actions_per_step: profile.actions.maxActionsPerStep }
        : {}),
    },
    // A model run reflects only once reflection is attached (reflection/setup.ts rewrites this).
    ...(isModelAgent(opts.agent) ? { reflection: { mode: 'none' as const, reflector_model: null, lessons: [] } } : {}),
    ...(entry ? { profile: profileRecord(entry) } : {}),
    ...(opts.job ? { job: opts.job } : {}),
    ...(opts.worker ? { worker: opts.worker } : {}),
  });
  store.recordBytesWritten(); // everything in this run folder is written through the store
  if (agent instanceof MemoryAgent) bindMemory(agent, opts, target, store, profile?.id);
  const config: Partial<SessionConfig> = {
    actionSpace: opts.space,
    episodes,
    maxSteps,
    ...(profile?.episode.maxSeconds !== undefined ? { maxSeconds: profile.episode.maxSeconds } : {}),
    seed: opts.seed,
    imageSize: opts.encode.longSide,
    format: opts.encode.format,
    quality: opts.encode.quality,
    ...(opts.settleMs !== undefined ? { settleMs: opts.settleMs } : {}),
    ...(opts.maxConsecutiveErrors !== undefined ? { maxErrors: opts.maxConsecutiveErrors } : {}),
    ...(opts.minStepMs !== undefined ? { paceMs: opts.minStepMs } : {}),
    takeOverOnInput: opts.takeOverOnInput ?? false,
    latency,
    ...latencySettings,
    keepFrames,
    ...(opts.maxRunMb !== undefined ? { maxRunMb: opts.maxRunMb } : {}),
    minFreeMb,
  };
  const world = target.game ? undefined : windowWorld(target, opts.pauseKey ?? profilePauseKey(profile), profile);
  const scorer = target.game || !profile ? undefined : screenScorer(profile, opts, notices, store);
  if (judge) store.update({ config: { ...store.meta.config, judge: judge.record } });
  const session = new Session(
    {
      target,
      agent,
      capturer: opts.capturer ?? createCapturer(opts.capture),
      wm,
      store,
      executor,
      ...(world ? { world } : {}),
      ...(profile ? { profile } : {}),
      ...(scorer ? { scorer } : {}),
    },
    config,
  );
  if (agent instanceof MemoryAgent) {
    agent.events.on('warning', (m) => session.emit('warning', m));
    agent.events.on('retrieval', (r) => {
      if (store.meta.memory)
        store.update({
          memory: { ...store.meta.memory, retrieval: r.retrieval, ...(r.reason ? { retrieval_note: r.reason } : {}) },
        });
    });
  }

  if (profile && judge)
    attachLiveJudge(
      session,
      profile,
      { ...judge.model, onCall: (rec) => store.recordModelCall(rec) },
      {
        ...DEFAULT_JUDGING,
        everySteps: judge.record.every_steps,
        budget: judge.record.budget ?? undefined,
        episodes,
      },
    );
  return { session, store, profile: entry, notices };
}

/** The agent of the kind the profile names, when the run asked for that; else the one given. */
function profileAgent(opts: RunOptions, given: Agent, profile: Profile | undefined): Agent {
  if (!opts.agentFromProfile) return given;
  const kind = profile?.episode.agent === 'memory' ? 'memory' : 'vlm';
  if ((kind === 'memory') === given instanceof MemoryAgent) return given;
  return makeAgent({ ...opts, agent: kind });
}

/** The live judge of a milestone-scored profile: its model (the run's, unless one is given), budget and pace. */
function judgeSettings(p: Profile, opts: RunOptions, notices: string[]) {
  if (p.scoring.kind !== 'milestones' || opts.judge?.live === false) return undefined;
  const model = opts.judge?.model ?? runModel(opts);
  if (!model) {
    notices.push(
      `the profile "${p.id}" scores by milestones, judged by a model; no model is set, so episodes score null (give a judge model)`,
    );
    return undefined;
  }
  const baseURL = opts.judge?.baseURL ?? opts.vlm?.baseURL;
  const apiKey = opts.judge?.apiKey ?? opts.vlm?.apiKey;
  const everySteps = opts.judge?.everySteps ?? DEFAULT_JUDGING.everySteps;
  return {
    model: { model, ...(baseURL ? { baseURL } : {}), ...(apiKey ? { apiKey } : {}) },
    record: { model, every_steps: everySteps, budget: opts.judge?.budget ?? null },
  };
}

/** A run's limits: what the options say, else the profile's, else the built-in's, else the defaults. */
export function runSettings(
  opts: Pick<RunOptions, 'maxSteps' | 'episodes' | 'allowedKeys' | 'latency' | 'latencySettings'>,
  profile: Profile | undefined,
  def: GameDefinition | undefined,
) {
  const latencySettings: LatencySettings = {
    ...DEFAULT_LATENCY,
    ...(profile?.latency.stopIntervalMs !== undefined ? { stopIntervalMs: profile.latency.stopIntervalMs } : {}),
    ...(profile?.latency.slowBufferMs !== undefined ? { slowBufferMs: profile.latency.slowBufferMs } : {}),
    ...opts.latencySettings,
  };
  return {
    maxSteps: opts.maxSteps ?? profile?.episode.maxSteps ?? def?.defaultMaxSteps ?? 50,
    episodes: opts.episodes ?? profile?.episode.trials ?? def?.trials ?? 1,
    /** System combinations allowed: the built-in's, the profile's and the run's own. */
    allowedKeys: [
      ...new Set([
        ...(def?.allowedHotkeys ?? []),
        ...(profile?.actions.allowedHotkeys ?? []),
        ...(opts.allowedKeys ?? []),
      ]),
    ],
    /** The only keys that may be pressed (the profile's list), if it has one. */
    onlyKeys: profile?.actions.allowedKeys,
    latency: opts.latency ?? profile?.latency.mode ?? ('normal' as LatencyMode),
    latencySettings,
  };
}

function profilePauseKey(p: Profile | undefined): string | undefined {
  return p?.latency.freeze === 'pause-key' ? p.latency.pauseKey : undefined;
}

/** The screen reader of a profile that scores off the screen; it asks the run's model (none: no score, and a notice). */
function screenScorer(p: Profile, opts: RunOptions, notices: string[], store: RunStore): ScreenScoreReader | undefined {
  if (p.scoring.kind !== 'screen') return undefined;
  if (p.scoring.reader === 'ocr') return new ScreenScoreReader(p, p.scoring);
  const model = runModel(opts);
  if (!model) {
    notices.push(
      `the profile "${p.id}" scores by reading the screen with a model; no model is set, so episodes score null`,
    );
    return undefined;
  }
  return new ScreenScoreReader(p, p.scoring, {
    model,
    ...(opts.vlm?.baseURL ? { baseURL: opts.vlm.baseURL } : {}),
    ...(opts.vlm?.apiKey ? { apiKey: opts.vlm.apiKey } : {}),
    onCall: (rec) => store.recordModelCall(rec),
  });
}

/** Settles the memory agent's scope for this target and records its store and settings in run.json. */
function bindMemory(agent: MemoryAgent, opts: RunOptions, target: Target, store: RunStore, profileId?: string) {
  const s = agent.memorySettings;
  if (!s.scope) s.scope = profileId ?? defaultMemoryScope(target, opts.window);
  s.runId = store.meta.id;
  store.update({
    memory: {
      scope: s.scope,
      file: memoryFile(s.configDir, s.scope),
      retrieval: s.embeddingModel ? 'embedding' : 'lexical',
      ...(s.embeddingModel ? {} : { retrieval_note: 'no embedding model was given' }),
      embedding_model: s.embeddingModel,
      top_k: s.topK,
      threshold: s.threshold,
      dedupe: s.dedupe,
      short_term: s.shortTerm,
      summary_words: s.summaryWords,
    },
  });
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

/** How a window that no engine drives is frozen: its pause key, else its process tree (unless its profile says it cannot be). */
function windowWorld(target: Target, pauseKey: string | undefined, profile: Profile | undefined): World {
  if (!pauseKey && profile?.latency.freeze === 'none')
    return new UnfreezableWorld(`the profile "${profile.id}" says this title cannot be frozen`);
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
