/**
 * The composition root: builds the parts of a run (agent, target, capturer, world, session)
 * from its RunSpec (../run-spec.ts) and its place (RunPlace: where the run folder goes, the
 * profile the shell resolved, a ready capturer…), for every shell (CLI, web shell, app) and for
 * the core's own runs (the API, IDC rounds, solver demonstrations), so everything plays the
 * same way. The settings keep the spec's names all the way to the session and run.json.
 */
import path from 'node:path';
import type { RoleEndpoint } from '../agents/model-endpoint.ts';
import type { SessionDeps } from './session-types.ts';
import { createWindowManager, type WindowManager } from '../../native/index.ts';
import { getGame, type GameDefinition } from '../../games/index.ts';
import { createCapturer, type ScreenCapturer } from '../capture/index.ts';
import type { Agent } from '../agents/agent-types.ts';
import { RandomAgent, SolverAgent } from '../agents/baselines.ts';
import { VlmAgent, type VlmSettings } from '../agents/vlm.ts';
import { MemoryAgent, type MemoryAgentSettings } from '../agents/memory-agent.ts';
import { memoryFile } from '../agents/memory-store.ts';
import { RunStore, type RunJob, type RunWorker } from '../store/run-store.ts';
import { BuiltinTarget, WindowTarget, type Target, type ViewLauncher } from './targets.ts';
import { Session } from './session.ts';
import { sessionSettingsOf, type SessionConfig } from './session-config.ts';
import { DEFAULT_LATENCY, type LatencySettings } from '../latency/clock-policy.ts';
import { PauseKeyWorld, ProcessWorld, UnfreezableWorld, type World } from '../latency/world.ts';
import { refusal } from '../../native/process.ts';
import { ProcessFreezer, suspendedRegistry } from '../safety/suspended.ts';
import { ActionExecutor } from '../input/executor.ts';
import { guardAntiCheat } from '../safety/anticheat.ts';
import type { GamepilotHotkeys } from '../input/accelerator.ts';
import { defaultConfigDir } from '../util/paths.ts';
import { textPattern, type TextPattern } from '../util/text-pattern.ts';
import { CodedError, isModelAgent, type AgentKind, type LatencyMode } from '../domain.ts';
import { modelRule, namedAsWords, sayFields, type RunSpec } from '../run-spec.ts';
import { checkFramesFor } from '../store/frame-budget.ts';
import { builtinProfile, pickForWindow, readyForRun, type ProfileEntry } from '../profiles/registry.ts';
import { profileRecord } from './profile-record.ts';
import { executableOf } from '../profiles/executable.ts';
import { semanticMovesProblem, type Profile } from '../profiles/profile-schema.ts';
import { ScreenScoreReader } from '../scoring/screen-reader.ts';
import { attachLiveJudge } from './live-judge.ts';
import { runConfig, type Resolved } from './run-config.ts';
import { meterFor, priceOf } from './run-meter.ts';
import { usd, type CostMeter } from '../agents/cost-meter.ts';
import { agentKind, runModel, runSeed } from './front-door.ts';
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

/** Where and how a run happens, beyond its settings: the shell's own part. */
export interface RunPlace {
  /** The folder run folders go in. */
  outDir: string;
  /** The profile the shell resolved (the CLI takes files, the app ids); default none. */
  profile?: ProfileChoice;
  /** A ready capturer (the app's desktopCapturer) instead of the spec's `capture`. */
  capturer?: ScreenCapturer;
  /** The memory agent's config folder (default the user's). */
  configDir?: string;
  /** The sweep job this run is, and the worker running it (recorded in run.json). */
  job?: RunJob;
  worker?: RunWorker;
  /** The person's stop and take-over hotkeys (Settings): the agent never presses them (default: the defaults). */
  hotkeys?: GamepilotHotkeys;
  /**
   * What the run spends and may spend (`budgetUsd`): one meter for every model call of the run,
   * or of a whole command (an IDC's rounds, a suite's levels). `metered` gives a run its own.
   */
  meter?: CostMeter;
}

/** The place with the run's meter: the one it has, else a fresh one from the spec. */
export function metered<P extends RunPlace>(spec: RunSpec, place: P): P & { meter: CostMeter } {
  return { ...place, meter: place.meter ?? meterFor(spec, runModel(spec)) };
}

/** A capped run's parts must share its meter: one made without it would call uncounted. */
function meterOf(spec: RunSpec, place: Pick<RunPlace, 'meter'>): CostMeter | undefined {
  if (spec.budgetUsd !== undefined && !place.meter)
    throw new CodedError('internal', 'a run with a cost cap was composed without its meter (compose.ts metered)');
  return place.meter;
}

/** The player's settings a spec gives a model agent (its model resolved by runModel). */
export function vlmSettingsOf(s: RunSpec): Partial<VlmSettings> & { model?: string } {
  const model = runModel(s);
  const price = priceOf(s);
  return {
    ...(model ? { model } : {}),
    ...(s.baseUrl ? { baseUrl: s.baseUrl } : {}),
    ...(s.apiKey ? { apiKey: s.apiKey } : {}),
    ...(s.prompt ? { systemPrompt: s.prompt } : {}),
    ...(s.history !== undefined ? { history: s.history } : {}),
    detail: s.detail,
    ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
    ...(s.maxTokens !== undefined ? { maxTokens: s.maxTokens } : {}),
    repairs: s.repairs,
    timeoutMs: s.timeoutMs,
    idleTimeoutMs: s.idleTimeoutMs,
    maxRetries: s.maxRetries,
    retryAfterCapMs: s.retryAfterCapMs,
    maxAnswerBytes: s.maxAnswerBytes,
    ...(price ? { price } : {}),
    ...(s.gameText ? { includeGameText: true } : {}),
  };
}

/** The memory agent's store and limits a spec asks for; the scope defaults to the profile's or game's id (or the window's title). */
function memorySettingsOf(s: RunSpec, place: Pick<RunPlace, 'configDir'>): Partial<MemoryAgentSettings> {
  return {
    ...(place.configDir ? { configDir: place.configDir } : {}),
    ...(s.memoryScope ? { scope: s.memoryScope } : {}),
    embeddingModel: s.embeddingModel === 'none' ? null : s.embeddingModel,
    topK: s.memoryTopK,
    threshold: s.memoryThreshold,
    dedupe: s.memoryDedupe,
    shortTerm: s.shortTerm,
    summaryWords: s.summaryWords,
  };
}

/** Which agent to make: a kind, its seed, and a model agent's settings. */
export interface AgentChoice {
  agent: AgentKind;
  seed: number;
  vlm?: Partial<VlmSettings> & { model?: string };
  memory?: Partial<MemoryAgentSettings>;
}

/** Why a run cannot play `mcp` itself: its player is the client, handed to the session by the MCP shell (mcp/play.ts). */
export const MCP_AGENT_REFUSAL = '{agent} mcp is an MCP client: connect one to `gamepilot mcp` and call start_session';

/** The agent a spec asks for (`model`: the zero-shot one; the profile may change it once the target is known). */
export function agentFor(
  s: RunSpec,
  place: Pick<RunPlace, 'configDir' | 'meter'>,
  kind: AgentKind | 'mcp' = agentKind(s),
): Agent {
  if (kind === 'mcp') throw new CodedError('bad-input', sayFields(MCP_AGENT_REFUSAL, namedAsWords));
  const meter = meterOf(s, place);
  return makeAgent({
    agent: kind,
    seed: runSeed(s),
    vlm: { ...vlmSettingsOf(s), ...(meter ? { meter } : {}) },
    ...(kind === 'memory' ? { memory: memorySettingsOf(s, place) } : {}),
  });
}

export function makeAgent(opts: AgentChoice): Agent {
  if (opts.agent === 'random') return new RandomAgent(opts.seed);
  if (opts.agent === 'solver') return new SolverAgent();
  const model = runModel({ model: opts.vlm?.model });
  if (!model) throw new CodedError('bad-input', sayFields(modelRule(opts.agent), namedAsWords));
  if (opts.agent === 'memory') {
    const scope = opts.memory?.scope;
    if (scope !== undefined) memoryFile(opts.memory?.configDir ?? defaultConfigDir(), scope); // a bad scope fails here, before any window opens
    // The scope is settled in wireSession, once the target is known.
    return new MemoryAgent({ ...opts.vlm, model }, { ...opts.memory, scope: scope ?? '' });
  }
  return new VlmAgent({ ...opts.vlm, model });
}

/** What the session plays by: the spec's settings under their names, and what the profile and the game resolved. */
export function sessionConfig(
  spec: RunSpec,
  r: Pick<Resolved, 'episodes' | 'maxSteps' | 'latency' | 'latencySettings'> & { maxSeconds?: number },
): Partial<SessionConfig> {
  return {
    ...sessionSettingsOf(spec),
    seed: runSeed(spec),
    episodes: r.episodes,
    maxSteps: r.maxSteps,
    latency: r.latency,
    ...r.latencySettings,
    ...(r.maxSeconds !== undefined ? { maxSeconds: r.maxSeconds } : {}),
  };
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
  opts: Pick<RunSpec, 'game' | 'window' | 'windowId'>,
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
export async function prepareRun(
  spec: RunSpec,
  place: RunPlace,
  wm: WindowManager = createWindowManager(),
): Promise<PreparedRun> {
  const placed = metered(spec, place);
  const agent = agentFor(spec, placed);
  const target = await openTarget(spec, wm);
  try {
    return { ...wireSession(spec, placed, target, agent, wm), target };
  } catch (err) {
    await target.close();
    throw err;
  }
}

/** A session for an already open target: the run folder, its metadata, the loop. */
export function wireSession(
  spec: RunSpec,
  place: RunPlace,
  target: Target,
  given: Agent,
  wm: WindowManager,
): {
  session: Session;
  store: RunStore;
  profile: ProfileEntry | undefined;
  notices: string[];
  /** A window scored off its screen: its reader (the live view shows what it read so far). */
  scorer?: ScreenScoreReader;
} {
  // A person's session may follow a starter profile; a model run may not (its TODOs would be the rules).
  const entry = readyForRun(resolveProfile(place.profile, target));
  const profile = entry?.profile;
  const noMoves = semanticMovesProblem(spec.actionSpace, !!target.game, profile);
  if (noMoves) throw new CodedError('bad-input', noMoves); // before the run folder exists
  const agent = profileAgent(spec, place, given, profile);
  const notices: string[] = [];
  const def = target.game?.def;
  const { maxSteps, episodes, allowedKeys, onlyKeys, latency, latencySettings } = runSettings(spec, profile, def);
  if (profile && agent instanceof VlmAgent && spec.history === undefined) agent.setHistory(profile.episode.history);
  if (profile && agent instanceof VlmAgent && !(agent instanceof MemoryAgent) && profile.episode.agent === 'memory')
    notices.push(
      `the profile "${profile.id}" names the memory agent for this title; this run plays with the zero-shot model agent`,
    );
  const executor = new ActionExecutor({ allowedKeys, onlyKeys, hotkeys: place.hotkeys }); // throws on an unreadable entry, before the run folder exists
  // Input into another program's window: refused where an anti-cheat system watches (before the run folder exists).
  const antiCheat =
    target instanceof WindowTarget
      ? guardAntiCheat({ accepted: spec.acceptAnticheatRisk, profileAntiCheat: profile?.antiCheat })
      : undefined;
  const meter = meterOf(spec, place);
  const judge = profile ? judgeSettings(profile, spec, notices) : undefined;
  if (judge) checkFramesFor('the milestone judge', spec.keepFrames, maxSteps); // before the run folder exists
  const modelAgent = isModelAgent(agentKind(spec));
  const store = RunStore.create(place.outDir, {
    kind: 'agent',
    game: target.game?.def.id ?? null,
    target: {
      kind: target.kind,
      label: target.label,
      ...(spec.window ? { pattern: spec.window } : {}),
      ...(target instanceof WindowTarget ? { window_id: target.id } : {}),
    },
    agent: agent.name,
    model: modelAgent ? (runModel(spec) ?? null) : null,
    action_space: spec.actionSpace,
    // The settings under the RunSpec's names (run-config.ts), then what the profile adds.
    config: {
      ...runConfig(
        spec,
        { episodes, maxSteps, latency, latencySettings, ...(profile ? { history: profile.episode.history } : {}) },
        { modelSettings: modelAgent },
      ),
      ...(profile?.episode.maxSeconds !== undefined ? { max_seconds: profile.episode.maxSeconds } : {}),
      ...(allowedKeys.length ? { allowed_keys: allowedKeys } : {}),
      ...(onlyKeys ? { only_keys: onlyKeys } : {}),
      ...(antiCheat?.systems.length ? { anticheat: antiCheat.systems } : {}),
      ...(profile?.actions.maxActionsPerStep !== undefined && !def
        ? { max_actions_per_step: profile.actions.maxActionsPerStep }
        : {}),
    },
    // A model run reflects only once reflection is attached (reflection/setup.ts rewrites this).
    ...(modelAgent ? { reflection: { mode: 'none' as const, reflector_model: null, lessons: [] } } : {}),
    ...(entry ? { profile: profileRecord(entry) } : {}),
    ...(place.job ? { job: place.job } : {}),
    ...(place.worker ? { worker: place.worker } : {}),
  });
  store.recordBytesWritten(); // everything in this run folder is written through the store
  if (agent instanceof MemoryAgent) bindMemory(agent, spec.window, target, store, profile?.id);
  const config = sessionConfig(spec, {
    episodes,
    maxSteps,
    latency,
    latencySettings,
    ...(profile?.episode.maxSeconds !== undefined ? { maxSeconds: profile.episode.maxSeconds } : {}),
  });
  const world = target.game ? undefined : windowWorld(target, spec.pauseKey ?? profilePauseKey(profile), profile);
  const scorer = target.game || !profile ? undefined : screenScorer(profile, spec, notices, store, meter);
  const episodeEnd =
    entry && !target.game ? episodeEndOf(entry, spec, { store, meter, hotkeys: place.hotkeys, notices }) : undefined;
  if (judge) store.update({ config: { ...store.meta.config, judge: judge.record } });
  const session = new Session(
    {
      target,
      agent,
      capturer: place.capturer ?? createCapturer(spec.capture),
      wm,
      store,
      executor,
      ...(world ? { world } : {}),
      ...(profile ? { profile } : {}),
      ...(scorer ? { scorer } : {}),
      ...(meter ? { meter } : {}),
      ...(episodeEnd ? { episodeEnd } : {}),
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
      { ...judge.model, onCall: (rec) => store.recordModelCall(rec), ...(meter ? { meter } : {}) },
      {
        ...DEFAULT_JUDGING,
        everySteps: judge.record.every_steps,
        budget: judge.record.budget ?? undefined,
        episodes,
      },
    );
  if (meter) recordSpend(session, meter);
  return { session, store, profile: entry, notices, ...(scorer ? { scorer } : {}) };
}

/**
 * run.json's `spent_usd`: what this run's model calls of every role cost, as its meter counted
 * them (a meter shared by a command's runs counts from this run's start). Registered last, so
 * the milestone judge's final calls are in it.
 */
export function recordSpend(session: Session, meter: CostMeter) {
  const from = meter.spentUsd;
  session.beforeClose(async (_stopped, episodes) => ({ episodes, patch: { spent_usd: usd(meter.spentUsd - from) } }));
}

/** The agent of the kind the profile names, when the run asked for that (`model`); else the one given. */
function profileAgent(spec: RunSpec, place: RunPlace, given: Agent, profile: Profile | undefined): Agent {
  if (spec.agent !== 'model') return given;
  const kind = profile?.episode.agent === 'memory' ? 'memory' : 'vlm';
  if ((kind === 'memory') === given instanceof MemoryAgent) return given;
  return agentFor(spec, place, kind);
}

/** The live judge of a milestone-scored profile: its model (the run's, unless one is given), budget and pace. */
function judgeSettings(p: Profile, spec: RunSpec, notices: string[]) {
  if (p.scoring.kind !== 'milestones' || !spec.judge) return undefined;
  const model = spec.judgeModel ?? runModel(spec);
  if (!model) {
    notices.push(
      `the profile "${p.id}" scores by milestones, judged by a model; no model is set, so episodes score null (give a judge model)`,
    );
    return undefined;
  }
  const { baseUrl, apiKey } = spec;
  return {
    model: { model, ...(baseUrl ? { baseUrl } : {}), ...(apiKey ? { apiKey } : {}) },
    record: { model, every_steps: spec.judgeEvery, budget: spec.judgeBudget ?? null },
  };
}

/** A run's limits: what the options say, else the profile's, else the built-in's, else the defaults. */
export function runSettings(
  opts: Partial<Pick<RunSpec, 'maxSteps' | 'episodes' | 'allowKeys' | 'latency' | 'stopIntervalMs' | 'slowBufferMs'>>,
  profile: Profile | undefined,
  def: GameDefinition | undefined,
) {
  const latencySettings: LatencySettings = {
    ...DEFAULT_LATENCY,
    ...(profile?.latency.stopIntervalMs !== undefined ? { stopIntervalMs: profile.latency.stopIntervalMs } : {}),
    ...(profile?.latency.slowBufferMs !== undefined ? { slowBufferMs: profile.latency.slowBufferMs } : {}),
    ...(opts.stopIntervalMs !== undefined ? { stopIntervalMs: opts.stopIntervalMs } : {}),
    ...(opts.slowBufferMs !== undefined ? { slowBufferMs: opts.slowBufferMs } : {}),
  };
  return {
    maxSteps: opts.maxSteps ?? profile?.episode.maxSteps ?? def?.defaultMaxSteps ?? 50,
    episodes: opts.episodes ?? profile?.episode.trials ?? def?.trials ?? 1,
    /** System combinations allowed: the built-in's, the profile's and the run's own. */
    allowedKeys: [
      ...new Set([
        ...(def?.allowedHotkeys ?? []),
        ...(profile?.actions.allowedHotkeys ?? []),
        ...(opts.allowKeys ?? []),
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
function screenScorer(
  p: Profile,
  spec: RunSpec,
  notices: string[],
  store: RunStore,
  meter: CostMeter | undefined,
): ScreenScoreReader | undefined {
  if (p.scoring.kind !== 'screen') return undefined;
  if (p.scoring.reader === 'ocr') return new ScreenScoreReader(p, p.scoring);
  const model = screenReaderModel(spec, store, meter);
  if (!model) {
    notices.push(
      `the profile "${p.id}" scores by reading the screen with a model; no model is set, so episodes score null`,
    );
    return undefined;
  }
  return new ScreenScoreReader(p, p.scoring, model);
}

/** The screen reader's endpoint (the run's model), its calls recorded and metered; undefined without a model. */
function screenReaderModel(spec: RunSpec, store: RunStore, meter: CostMeter | undefined): RoleEndpoint | undefined {
  const model = runModel(spec);
  if (!model) return undefined;
  return {
    model,
    ...(spec.baseUrl ? { baseUrl: spec.baseUrl } : {}),
    ...(spec.apiKey ? { apiKey: spec.apiKey } : {}),
    onCall: (rec) => store.recordModelCall(rec),
    ...(meter ? { meter } : {}),
  };
}

/**
 * What a profiled window's episode end and reset need: the profile's folder (templates), the
 * judge detectors' model, and an executor for the reset that holds the key policy but not the
 * profile's allowedKeys (they are the model's keys; the reset is the person's).
 */
function episodeEndOf(
  entry: ProfileEntry,
  spec: RunSpec,
  o: { store: RunStore; meter: CostMeter | undefined; hotkeys: RunPlace['hotkeys']; notices: string[] },
): SessionDeps['episodeEnd'] {
  const p = entry.profile;
  if (!p.episode.end && !p.episode.reset) return undefined;
  const judge = screenReaderModel(spec, o.store, o.meter);
  if (!judge && p.episode.end?.some((d) => d.judge !== undefined))
    o.notices.push(`the profile "${p.id}" has judge end detectors; no model is set, so they cannot end an episode`);
  const executor = new ActionExecutor({ allowedKeys: p.actions.allowedHotkeys ?? [], hotkeys: o.hotkeys });
  return { profileDir: path.dirname(entry.file), judge, executor };
}

/** Settles the memory agent's scope for this target and records its store and settings in run.json. */
function bindMemory(
  agent: MemoryAgent,
  windowPattern: string | undefined,
  target: Target,
  store: RunStore,
  profileId?: string,
) {
  const s = agent.memorySettings;
  if (!s.scope) s.scope = profileId ?? defaultMemoryScope(target, windowPattern);
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
      const w = await target.locate({ reuse: true }); // the step's own look, unless the window changed since
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
