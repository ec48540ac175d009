/**
 * The one game an MCP client plays at a time: an ordinary run in the core's activity slot
 * (same capture, key policy, confinement, latency modes, run folder, scoring), whose player is a
 * RemoteAgent the client drives with observe and act. It belongs to the connection that started
 * it: another connection can see that it is going, never drive or end it. It ends when the
 * client ends it, when the run ends (its steps, the game over, Stop in the app, the stop
 * hotkey), when the client's connection closes, or when the client stays quiet longer than the
 * idle limit; every end goes through the core's stop, which releases held keys and thaws a
 * frozen world.
 */
import path from 'node:path';
import { z } from 'zod';
import type { GamepilotCore } from '../api/core.ts';
import { parseParams, type CoreEvent, type StartRun, type StepEventData } from '../api/contract.ts';
import { RemoteAgent, type Turn } from '../agents/remote-agent.ts';
import { readRun } from '../store/run-store.ts';
import { CodedError } from '../domain.ts';
import { RUN_SPEC_FIELDS } from '../run-spec.ts';
import { tryLock, type FileLock } from '../util/file-lock.ts';
import { defaultConfigDir } from '../util/paths.ts';

/** An episode as a finished play reports it: run.json's figures. */
export interface EpisodeEnd {
  episode: number;
  score: number | null;
  steps: number;
  end: string;
}

const episodeEnd = (e: EpisodeEnd): EpisodeEnd => ({
  episode: e.episode,
  score: e.score ?? null,
  steps: e.steps,
  end: String(e.end),
});

/** What a finished play left: its run folder and how it scored (run.json's own figures). */
export interface PlayResult {
  runId: string;
  runDir: string;
  status: string;
  /** Mean episode score (0–100), as run.json has it; null when no episode scored. */
  score: number | null;
  episodes: EpisodeEnd[];
  /** Why the play ended: Gamepilot's reason when it ended it (idle client, closed connection, stop), else the run's own. */
  endedBecause: string;
}

export interface PlayOptions {
  /** End the play when the client calls no tool for this long (ms). */
  idleMs: number;
  log: (s: string) => void;
  /** Where the per-window locks live (default: the config folder of every command). */
  lockDir?: string;
}

/**
 * One MCP play per window across processes: a second `gamepilot mcp` (another client's) is
 * refused the window while a play holds it. A built-in game opens a window of its own per run.
 */
function lockWindow(windowId: string, dir: string): FileLock {
  const file = path.join(dir, 'mcp', `window-${windowId.replace(/[^\w]/g, '_')}.lock`);
  const got = tryLock(file);
  if ('held' in got)
    throw new CodedError(
      'busy',
      `window ${windowId} is being played by another MCP session (pid ${got.held?.pid ?? '?'}); one session at a time per window`,
    );
  return got;
}

/** A client name as records name it: `mcp:<name>`, letters, digits, '.', '-', '_' only. */
export function playerName(clientName: string | undefined): string {
  const slug = (clientName ?? '')
    .trim()
    .replace(/[^\w.-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  return `mcp:${slug || 'client'}`;
}

const F = RUN_SPEC_FIELDS;
/** start_session's arguments, under their MCP names: the spec's own fields where they are settings. */
export const START_SESSION_ARGS = {
  game: z.string().min(1).max(64).optional().describe('a built-in game id from list_targets'),
  window_id: z.string().min(1).max(40).optional().describe('a window id from list_targets'),
  latency: F.latency.describe(
    'stop: the game is frozen while you think, and runs while your actions play; slow and normal: it keeps running (default: the profile’s, else normal)',
  ),
  action_space: F.actionSpace.describe(
    'gui: keys and pointer; semantic: the game’s own named moves (a built-in’s or the profile’s)',
  ),
  profile: z
    .string()
    .min(1)
    .max(64)
    .nullable()
    .optional()
    .describe('a profile id to follow; null: none; absent: the one that fits the target'),
  max_steps: F.maxSteps.describe('steps per episode (default: the profile’s or the game’s)'),
  episodes: F.episodes.unwrap().default(1).describe('episodes to play'),
  seed: F.seed.describe('seed of a built-in game'),
  preflight: F.preflight.describe(
    'a run that calls a model first checks its endpoints, the display and the window, before anything opens (false: skip)',
  ),
  budget_usd: F.budgetUsd.describe(
    'the most the session may spend on the model calls Gamepilot makes for it (reading a score, judging milestones), in USD: it stops (stopped, budget) before a call that could pass it',
  ),
};
export type StartSessionArgs = z.output<z.ZodObject<typeof START_SESSION_ARGS>>;

/**
 * The run start_session asks for: the client plays (agent mcp); whether an anti-cheat risk is
 * taken is the person's choice, given when `gamepilot mcp` started, never the client's.
 */
export function startSessionRequest(
  a: Omit<StartSessionArgs, 'preflight'> & Partial<Pick<StartSessionArgs, 'preflight'>>,
  acceptAnticheatRisk: boolean,
): StartRun {
  return parseParams('startRun', {
    target: a.game !== undefined ? { game: a.game } : { windowId: a.window_id },
    agent: 'mcp',
    actionSpace: a.action_space,
    episodes: a.episodes,
    ...(a.max_steps !== undefined ? { maxSteps: a.max_steps } : {}),
    seed: a.seed,
    ...(a.preflight !== undefined ? { preflight: a.preflight } : {}),
    ...(a.latency ? { latency: a.latency } : {}),
    ...(a.profile !== undefined ? { profile: a.profile } : {}),
    ...(a.budget_usd !== undefined ? { budgetUsd: a.budget_usd } : {}),
    acceptAnticheatRisk,
  });
}

export class McpPlay {
  readonly agent: RemoteAgent;
  readonly runId: string;
  readonly runDir: string;
  /** The last step the run recorded. */
  lastStep: StepEventData | undefined;
  private readonly steps = new Map<string, (s: StepEventData | null) => void>();
  /** Waiters for an episode's summary, by episode index. */
  private readonly episodeEnds = new Map<number, (e: EpisodeEnd) => void>();
  private pausedWaiters: (() => void)[] = [];
  private endedBecause: string | null = null;
  private lastSeen = Date.now();
  private busy = 0;
  /** Aborted when the client's act request goes away (interrupt), renewed for the next act. */
  private actCancel = new AbortController();
  private over = false;
  private readonly done: Promise<PlayResult>;
  private readonly idleTimer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;

  private constructor(
    private readonly core: GamepilotCore,
    readonly owner: string,
    agent: RemoteAgent,
    run: { id: string; dir: string },
    private readonly opts: PlayOptions,
  ) {
    this.agent = agent;
    this.runId = run.id;
    this.runDir = run.dir;
    let finish: (r: PlayResult) => void = () => {};
    this.done = new Promise((r) => (finish = r));
    const onEvent = (e: CoreEvent) => {
      if (e.type === 'step' && e.data.runId === this.runId) {
        this.lastStep = e.data;
        const key = `${e.data.episode}:${e.data.step}`;
        this.steps.get(key)?.(e.data);
        this.steps.delete(key);
      }
      if (e.type === 'episode' && e.runId === this.runId) {
        this.episodeEnds.get(e.episode)?.(episodeEnd(e));
        this.episodeEnds.delete(e.episode);
      }
      if (e.type === 'state' && e.state.status === 'paused') for (const w of this.pausedWaiters.splice(0)) w();
      if (e.type === 'state' && e.state.run?.id !== this.runId && e.state.status === 'idle' && !this.over) {
        this.over = true;
        this.agent.end();
        for (const w of this.steps.values()) w(null);
        this.steps.clear();
        clearInterval(this.idleTimer);
        this.unsubscribe();
        finish(this.result());
      }
    };
    core.on('event', onEvent);
    this.unsubscribe = () => core.off('event', onEvent);
    this.idleTimer = setInterval(() => this.checkIdle(), 1000);
    this.idleTimer.unref();
  }

  /** Starts the run with the client as its player; refuses while anything else holds the slot. */
  static async start(
    core: GamepilotCore,
    owner: string,
    clientName: string | undefined,
    req: StartRun,
    opts: PlayOptions,
  ): Promise<McpPlay> {
    const agent = new RemoteAgent(playerName(clientName));
    const lock =
      'windowId' in req.target ? lockWindow(req.target.windowId, opts.lockDir ?? defaultConfigDir()) : undefined;
    try {
      const { id } = await core.startRun(req, { agent });
      const live = core.state().run;
      if (live?.id !== id) {
        // It ended before we could look (the window closed at once): report it as an end.
        agent.end();
        throw new CodedError('target-gone', 'the run ended as soon as it started; see its run folder');
      }
      const play = new McpPlay(core, owner, agent, { id, dir: live.dir }, opts);
      void play.finished.then(() => lock?.release());
      return play;
    } catch (err) {
      lock?.release();
      throw err;
    }
  }

  get ended(): boolean {
    return this.over;
  }

  /** Settles once the run has ended, whoever ended it. */
  get finished(): Promise<PlayResult> {
    return this.done;
  }

  /** Runs one tool call of the owner: it counts as activity, and no idle end happens during it. */
  async call<T>(fn: () => Promise<T>): Promise<T> {
    this.busy++;
    this.lastSeen = Date.now();
    try {
      return await fn();
    } finally {
      this.busy--;
      this.lastSeen = Date.now();
    }
  }

  /** The observation waiting for actions (or the next one); null once the run has ended. */
  async observe(signal: AbortSignal): Promise<Turn | null> {
    const turn = await this.agent.waitTurn(signal);
    this.agent.observed();
    return turn;
  }

  /**
   * Answers the waiting observation and resolves with the step the run recorded for it (each
   * action's outcome, refusals included; null when the run ended before recording it) once the
   * run is either ready for the next actions or over, so the answer says which.
   */
  async act(
    items: unknown[],
    reasoning: string | undefined,
    signal: AbortSignal,
  ): Promise<{ turn: Turn; step: StepEventData | null; over: boolean; paused: boolean } | null> {
    signal = AbortSignal.any([signal, this.actCancel.signal]);
    if (this.agent.answerWithdrawn)
      throw new CodedError(
        'bad-input',
        'the observation you answered was taken back before your actions arrived (a person took the controls, or the run is ending): observe again',
      );
    const turn = await this.agent.waitTurn(signal);
    if (!turn) return null;
    const key = `${turn.obs.episode}:${turn.obs.step}`;
    const recorded = new Promise<StepEventData | null>((resolve) => this.steps.set(key, resolve));
    try {
      this.agent.submit(turn, items, reasoning);
    } catch (err) {
      this.steps.delete(key);
      throw err;
    }
    const aborted = new Promise<null>((resolve) =>
      signal.addEventListener('abort', () => resolve(null), { once: true }),
    );
    const step = await Promise.race([recorded, aborted]);
    const paused = this.whenPaused();
    try {
      const next = await Promise.race([
        this.agent.waitTurn(signal),
        this.done.then(() => null),
        paused.promise.then(() => 'paused' as const),
      ]);
      return { turn, step, over: next === null && this.over, paused: next === 'paused' };
    } finally {
      paused.cancel(); // one act a step: a waiter left behind by each would pile up over a long run
    }
  }

  /**
   * Ends the episode at the waiting observation (the next one, when none waits yet) without a
   * step for it, and resolves with the episode as run.json records it — scored as the game
   * stood — once the run is ready for the next episode's actions or over. Null when the run
   * ended before an observation came.
   */
  async endEpisode(signal: AbortSignal): Promise<{ episode: EpisodeEnd | null; over: boolean } | null> {
    const turn = await this.agent.waitTurn(signal);
    if (!turn) return null;
    const index = turn.obs.episode;
    const summary = new Promise<EpisodeEnd>((resolve) => this.episodeEnds.set(index, resolve));
    try {
      this.agent.endEpisode(turn);
    } catch (err) {
      this.episodeEnds.delete(index);
      throw err;
    }
    const episode = await Promise.race([summary, this.done.then(() => null)]);
    const next = await Promise.race([this.agent.waitTurn(signal), this.done.then(() => null)]);
    return { episode, over: next === null && this.over };
  }

  /** Resolves once the run is paused (at once if it is): a paused run takes no next step. */
  private whenPaused(): { promise: Promise<void>; cancel: () => void } {
    if (this.core.state().status === 'paused') return { promise: Promise.resolve(), cancel: () => {} };
    let waiter: () => void = () => {};
    const promise = new Promise<void>((resolve) => {
      waiter = resolve;
      this.pausedWaiters.push(resolve);
    });
    return { promise, cancel: () => (this.pausedWaiters = this.pausedWaiters.filter((w) => w !== waiter)) };
  }

  /**
   * The client went away from its act (the HTTP request carrying it closed): the act's waits
   * end, the plan being carried out stops, and what the agent holds is let go. The run goes on
   * and waits for the client's next observe, as the idle limit allows.
   */
  async interrupt(why: string): Promise<string[]> {
    if (this.over) return [];
    this.actCancel.abort();
    this.actCancel = new AbortController();
    const released = await this.core.releaseHeld(this.runId);
    this.opts.log(
      `mcp: run ${this.runId}: ${why}: its act is cancelled${released.length ? `; released ${released.join(', ')}` : ''}`,
    );
    return released;
  }

  /** Lets go of what the agent holds (a quiet client's held keys), the run going on. */
  async releaseHeld(why: string): Promise<string[]> {
    if (this.over) return [];
    const released = await this.core.releaseHeld(this.runId);
    if (released.length) this.opts.log(`mcp: run ${this.runId}: released ${released.join(', ')}: ${why}`);
    return released;
  }

  /** Ends the play (held keys released, the world thawed) and resolves with its result. */
  async end(because: string | null = null): Promise<PlayResult> {
    if (!this.over) {
      this.endedBecause ??= because;
      if (this.core.state().run?.id === this.runId) await this.core.stop();
    }
    return this.done;
  }

  private checkIdle() {
    if (this.over || this.busy > 0) return;
    const quiet = Date.now() - this.lastSeen;
    if (quiet < this.opts.idleMs) return;
    const why = `the MCP client called no tool for ${Math.round(quiet / 1000)} s (idle limit ${Math.round(this.opts.idleMs / 1000)} s)`;
    this.opts.log(`mcp: ending run ${this.runId}: ${why}`);
    void this.end(why);
  }

  private result(): PlayResult {
    let meta: ReturnType<typeof readRun>['meta'] | undefined;
    try {
      meta = readRun(this.runDir).meta;
    } catch {
      meta = undefined;
    }
    return {
      runId: this.runId,
      runDir: this.runDir,
      status: meta?.status ?? 'unknown',
      score: meta?.mean ?? null,
      episodes: (meta?.episodes ?? []).map(episodeEnd),
      endedBecause: this.endedBecause ?? endReason(meta),
    };
  }
}

/** Why a run ended, as its run.json says, for a play that Gamepilot did not end itself. */
function endReason(meta: ReturnType<typeof readRun>['meta'] | undefined): string {
  if (!meta) return 'the run ended; its run.json could not be read';
  if (meta.error) return `the run ${meta.status}: ${meta.error}`;
  const ends = [...new Set(meta.episodes.map((e) => String(e.end)))];
  return `the run ${meta.status}${ends.length ? ` (episodes ended by: ${ends.join(', ')})` : ''}`;
}
