/**
 * Gamepilot as a Model Context Protocol server: the tools and resources one client connection
 * sees, over the core. Every connection (stdio, or one streamable-HTTP session) gets its own
 * server; they share one McpHost, which holds the one play going in this process. Tools take
 * no paths: a target is a built-in game's id or a window's id, a profile is an id from the
 * catalog, and the resources read only the play's own run folder.
 */
import { localXDisplays, withMcpDisplayAdvice } from '../session/display-advice.ts';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { GamepilotCore } from '../api/core.ts';
import type { StepEventData, WindowSummary } from '../api/contract.ts';
import { CodedError, LATENCY_MODES } from '../domain.ts';
import { describePrevious, taskOf } from '../agents/vlm.ts';
import { MAX_REMOTE_REASONING, type Turn } from '../agents/remote-agent.ts';
import { readRun } from '../store/run-store.ts';
import { McpPlay, playerName, START_SESSION_ARGS, startSessionRequest, type PlayResult } from './play.ts';
import { neverRule, WindowConsent, type WindowFacts } from './consent.ts';
import { executableOf } from '../profiles/executable.ts';

export interface McpHostOptions {
  /** End a play when its client calls no tool for this long (ms). */
  idleMs: number;
  /** Which windows a client may see and play (default: built-ins and profiled windows only, nobody to ask). */
  consent?: WindowConsent;
  log: (s: string) => void;
  version: string;
  /** The person let clients play windows where an anti-cheat system runs (`gamepilot mcp --accept-anticheat-risk`). */
  acceptAnticheatRisk?: boolean;
}

/** What all connections of one process share: the core and the one play going. */
export class McpHost {
  play: McpPlay | undefined;
  constructor(
    readonly core: GamepilotCore,
    readonly opts: McpHostOptions,
  ) {}

  /** A connection went away: its play, if it has one, ends (keys released, the world thawed). */
  async closed(connection: string): Promise<void> {
    const play = this.play;
    if (play?.owner === connection && !play.ended) {
      this.opts.log(`mcp: client ${connection} disconnected; ending run ${play.runId}`);
      await play.end('the MCP client disconnected');
    }
  }

  /** A request of this connection closed before its answer: an act it carried is cancelled, held input let go. */
  async requestLost(connection: string): Promise<void> {
    if (this.playing(connection)) await this.play!.interrupt('the MCP client went away from its request');
  }

  /** This connection has sent no request for a while: keys its play holds are let go. */
  async quiet(connection: string, ms: number): Promise<void> {
    if (this.playing(connection))
      await this.play!.releaseHeld(`no request from the MCP client for ${Math.round(ms / 1000)} s`);
  }

  /** Whether this connection owns the play going now. */
  playing(connection: string): boolean {
    return this.play?.owner === connection && !this.play.ended;
  }

  /** Ends whatever play is going (the process is shutting down). */
  async closeAll(): Promise<void> {
    if (this.play && !this.play.ended) await this.play.end('the MCP server is shutting down');
  }
}

/** A window as the consent rule judges it: its process and whether it is this process's. */
function windowFacts(w: { id: string; title: string; pid: number }): WindowFacts {
  return { id: w.id, title: w.title, process: executableOf(w.pid), own: w.pid === process.pid };
}

/**
 * An action written as an object (`{"action_type": "PRESS", "parameters": {"key": "left"}}`,
 * `{"action": "shoot", "angle": 35}`): its fields' values typed, so the schema says what it
 * takes (strict clients flag an untyped value as accepting anything); actions/parse.ts checks it.
 */
const ACTION_SCALARS = [z.string().max(500), z.number(), z.boolean(), z.null()] as const;
const ACTION_FIELD = z.union([...ACTION_SCALARS, z.array(z.union(ACTION_SCALARS)).max(20)]);
const ACTION_OBJECT = z.record(z.string(), z.union([...ACTION_FIELD.options, z.record(z.string(), ACTION_FIELD)]));

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });
const json = (v: unknown): CallToolResult => text(JSON.stringify(v, null, 2));
const refusal = (message: string): CallToolResult => ({ content: [{ type: 'text', text: message }], isError: true });

/** A tool's handler with Gamepilot's errors as tool errors the client reads (never a protocol failure). */
function tool<A>(fn: (args: A, signal: AbortSignal) => Promise<CallToolResult>) {
  return async (args: A, extra: { signal: AbortSignal }): Promise<CallToolResult> => {
    try {
      return await fn(args, extra.signal);
    } catch (caught) {
      // A client starts the server without the desktop's environment: say which `env` entry it lacks.
      const err = process.platform === 'linux' ? withMcpDisplayAdvice(caught, localXDisplays()) : caught;
      const code = err instanceof CodedError ? `${err.code}: ` : '';
      return refusal(`${code}${(err as Error).message}`);
    }
  };
}

/** The tools and resources of one connection. `connection` names it as the owner of a play. */
export function createMcpServer(host: McpHost, connectionOf: string | (() => string)): McpServer {
  const me = () => (typeof connectionOf === 'string' ? connectionOf : connectionOf());
  const server = new McpServer(
    { name: 'gamepilot', version: host.opts.version },
    {
      instructions:
        'Gamepilot lets you play a real game window. Call list_targets, then start_session on a game or window; ' +
        'then repeat observe (a screenshot and the state) and act (your actions and, optionally, your reasoning) ' +
        'until the run ends; end_episode when you judge an episode over (it is scored as it stands), and ' +
        'end_session for the run folder and score (a run ended there before its episodes are is stopped, not scored).',
    },
  );
  const { core } = host;
  const clientName = () => server.server.getClientVersion()?.name;

  /** The play of this connection; refuses when none is going or another connection's is. */
  const ownPlay = (): McpPlay => {
    const play = host.play;
    if (!play || (play.ended && play.owner !== me()))
      throw new CodedError('not-found', 'no session is going: call start_session first');
    if (play.owner !== me())
      throw new CodedError('forbidden', `run ${play.runId} belongs to another MCP client; it alone can drive it`);
    return play;
  };

  const consent = host.opts.consent ?? new WindowConsent();

  /**
   * Refuses, before anything opens, a window the client may not play: one the consent rule
   * refuses or the person does not allow, or a profile that does not fit it.
   */
  const mayPlayWindow = async (windowId: string, profile: string | null | undefined, signal: AbortSignal) => {
    const { windows } = (await core.handle('listTargets', {})) as { windows: WindowSummary[] };
    const w = windows.find((x) => x.id === windowId);
    if (!w) throw new CodedError('not-found', `no window ${windowId} to play: call list_targets`);
    const fitting = (
      (await core.handle('matchProfile', { target: { windowId } })) as { candidates: { id: string }[] }
    ).candidates.map((c) => c.id);
    if (typeof profile === 'string' && !fitting.includes(profile))
      throw new CodedError(
        'forbidden',
        `the profile "${profile}" does not fit window ${windowId}${fitting.length ? ` (profiles that fit: ${fitting.join(', ')})` : ''}; a profile is used only on the windows it matches`,
      );
    await consent.check(windowFacts(w), fitting, playerName(clientName()), signal);
  };

  server.registerTool(
    'list_targets',
    {
      title: 'List targets',
      description:
        'What can be played: the built-in games (by id); the windows a profile fits or the person allowed by pattern (by id, with title and profiles); the other windows by id only (starting one asks the person in the Live view); and the session going now, if any. Terminals, shells and password managers are never offered.',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    tool(async () => {
      const { games, windows } = (await core.handle('listTargets', {})) as {
        games: { id: string; title: string; maxSteps: number; seats?: unknown }[];
        windows: { id: string; title: string; pid: number; bounds: unknown; minimized?: boolean }[];
      };
      const profilesOf = async (target: { game: string } | { windowId: string }) => {
        try {
          const r = (await core.handle('matchProfile', { target })) as { candidates: { id: string; title: string }[] };
          return r.candidates.map((c) => c.id);
        } catch {
          return [];
        }
      };
      const live = core.state().run;
      // A window's title goes to the client only when it may play it without asking; the
      // others are listed by id alone, and starting one asks the person first.
      const shown = await Promise.all(
        windows.map(async (w) => {
          const facts = windowFacts(w);
          const profiles = await profilesOf({ windowId: w.id });
          return { w, profiles, never: neverRule(facts), listed: consent.listed(facts, profiles) };
        }),
      );
      return json({
        games: await Promise.all(
          games
            .filter((g) => !g.seats) // two seats need two players: `gamepilot run --seats`
            .map(async (g) => ({
              id: g.id,
              title: g.title,
              maxSteps: g.maxSteps,
              profiles: await profilesOf({ game: g.id }),
            })),
        ),
        windows: shown
          .filter((x) => x.listed)
          .map(({ w, profiles }) => ({
            id: w.id,
            title: w.title,
            bounds: w.bounds,
            ...(w.minimized ? { minimized: true } : {}),
            profiles,
          })),
        other_windows: shown
          .filter((x) => !x.listed && !x.never)
          .map(({ w }) => ({ id: w.id, needs: 'the person’s consent: start_session asks them in the Live view' })),
        busy: live ? { runId: live.id, agent: live.agent, target: live.target } : null,
      });
    }),
  );

  server.registerTool(
    'start_session',
    {
      title: 'Start a session',
      description:
        'Starts a run on one target with you as its player: the run is recorded and scored like any Gamepilot run, under your client name (mcp:<name>). Give game (a built-in id) or window_id (from list_targets); a window no profile fits waits for the person to allow it (up to 2 min). A profile you name must fit the window. One session at a time.',
      inputSchema: START_SESSION_ARGS,
    },
    tool(async (a, signal) => {
      if (host.play && !host.play.ended)
        throw new CodedError(
          'busy',
          host.play.owner === me()
            ? `your session (run ${host.play.runId}) is going: end_session first`
            : 'another MCP client is playing; one session at a time',
        );
      if ((a.game === undefined) === (a.window_id === undefined))
        throw new CodedError('bad-input', 'give one target: game or window_id');
      if (a.window_id !== undefined) await mayPlayWindow(a.window_id, a.profile, signal);
      const req = startSessionRequest(a, host.opts.acceptAnticheatRisk ?? false);
      const play = await McpPlay.start(core, me(), clientName(), req, host.opts);
      host.play = play;
      const run = core.state().run;
      return json({
        runId: play.runId,
        runDir: play.runDir,
        player: play.agent.name,
        target: run?.target,
        latency: run?.latency.mode,
        maxSteps: run?.maxSteps,
        episodes: run?.episodes,
        next: 'call observe for the first screenshot and the instructions',
      });
    }),
  );

  let briefed: string | undefined;
  server.registerTool(
    'observe',
    {
      title: 'Observe',
      description:
        'The game as it is now: a screenshot of the window (the coordinates your actions use), the step, the score so far, the latency mode, and what your last actions did. Waits until the game is ready for your next actions. The first call of a session also gives the instructions (rules, controls, the action format).',
      inputSchema: {
        briefing: z.boolean().optional().describe('include the instructions again (default: only on the first call)'),
      },
      annotations: { readOnlyHint: true },
    },
    tool(async (a, signal) => {
      const play = ownPlay();
      return play.call(async () => {
        // A paused run takes no step: say so rather than wait (resume, or Resume in the app).
        if (!play.agent.current && core.state().status === 'paused')
          return text('The run is paused: call resume (or resume it in the app), then observe.');
        const turn = await play.observe(signal);
        if (!turn) return json({ ended: await play.finished });
        const withBriefing = a.briefing === true || briefed !== play.runId;
        briefed = play.runId;
        return observation(turn, play, core, withBriefing);
      });
    }),
  );

  server.registerTool(
    'act',
    {
      title: 'Act',
      description:
        'Carries out your actions for the screenshot observe gave, then returns the outcome of each (done, refused and why, or dropped). GUI actions: [{"action_type":"PRESS","parameters":{"key":"left"}}]; semantic moves: [{"action":"left"}] or ["left"]. Refused keys are not pressed.',
      inputSchema: {
        actions: z
          .array(z.union([z.string().max(500), ACTION_OBJECT]))
          .min(1)
          .max(20)
          .describe('the actions, in the run’s action space, as the instructions describe'),
        reasoning: z
          .string()
          .max(MAX_REMOTE_REASONING)
          .optional()
          .describe('what you see and why you act so: shown live and kept with the step'),
      },
    },
    tool(async (a, signal) => {
      const play = ownPlay();
      return play.call(async () => {
        const r = await play.act(a.actions, a.reasoning, signal);
        if (!r) return json({ ended: await play.finished });
        const ended = r.over || r.step === null;
        return json({
          episode: r.turn.obs.episode + 1,
          step: r.turn.obs.step + 1,
          outcomes: r.step?.outcomes ?? [],
          errors: r.step?.errors ?? [],
          score: r.step?.score ?? null,
          ...(ended
            ? { ended: await play.finished }
            : { next: r.paused ? 'the run is paused: call resume, then observe' : 'observe' }),
        });
      });
    }),
  );

  server.registerTool(
    'set_latency',
    {
      title: 'Set the latency mode',
      description:
        'stop: the game is frozen while you think; slow: it runs slowed down; normal: in real time. Takes effect at the next step.',
      inputSchema: { mode: z.enum(LATENCY_MODES) },
    },
    tool(async (a) => {
      const play = ownPlay();
      return play.call(async () => json({ latency: await core.handle('setLatency', { mode: a.mode }) }));
    }),
  );

  for (const action of ['pause', 'resume'] as const)
    server.registerTool(
      action,
      {
        title: action === 'pause' ? 'Pause' : 'Resume',
        description:
          action === 'pause'
            ? 'Pauses the run before its next step (the idle limit still applies to you).'
            : 'Resumes a paused run.',
        inputSchema: {},
      },
      tool(async () => {
        const play = ownPlay();
        return play.call(async () => json(await core.handle('control', { action })));
      }),
    );

  server.registerTool(
    'end_episode',
    {
      title: 'End the episode',
      description:
        'Ends the episode you are playing instead of acting on the waiting screenshot: it makes no step, and the episode is scored as the game stands now, as at any episode end, recorded as ended_by_player. Returns the episode (score, steps, end); then observe for the next episode, or, after the last, the run’s result: a run whose every episode ended (by the game, its step limit or end_episode) is completed and counts in the tables.',
      inputSchema: {},
    },
    tool(async (_a, signal) => {
      const play = ownPlay();
      return play.call(async () => {
        if (!play.agent.current && core.state().status === 'paused')
          return text('The run is paused: call resume (or resume it in the app), then end_episode.');
        const r = await play.endEpisode(signal);
        if (!r) return json({ ended: await play.finished });
        return json({
          episode: r.episode,
          ...(r.over ? { ended: await play.finished } : { next: 'observe: the next episode has begun' }),
        });
      });
    }),
  );

  server.registerTool(
    'end_session',
    {
      title: 'End the session',
      description:
        'Ends the run (held keys released, a frozen game thawed) and returns its run folder and score. A run it ends before its episodes ended is stopped: its ended episodes keep their scores, but it is not pooled in tables (use end_episode to have an episode scored). A run that ended by itself returns the same. The observation you did not act on is not recorded as a step.',
      inputSchema: {},
    },
    tool(async () => {
      const play = ownPlay();
      const result = await play.end('the MCP client ended it');
      host.play = undefined;
      return json(result);
    }),
  );

  server.registerResource(
    'profile',
    'gamepilot://session/profile',
    {
      title: 'The profile of the current target',
      description: 'The profile the session follows (its prompt parts, key limits, scoring), as run.json records it.',
      mimeType: 'application/json',
    },
    async (uri) => {
      const play = ownPlay();
      const meta = readRun(play.runDir).meta;
      return {
        contents: [
          { uri: uri.href, mimeType: 'application/json', text: JSON.stringify(meta.profile ?? null, null, 2) },
        ],
      };
    },
  );

  server.registerResource(
    'steps',
    'gamepilot://session/steps',
    {
      title: 'The steps so far',
      description:
        'The session’s recorded steps (actions, outcomes, errors, scores, timings), newest last; at most the last 200.',
      mimeType: 'application/json',
    },
    async (uri) => {
      const play = ownPlay();
      const { steps } = readRun(play.runDir);
      return {
        contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(steps.slice(-200), null, 2) }],
      };
    },
  );

  return server;
}

/** What observe returns: the screenshot, then the state in words (and the instructions when asked). */
function observation(turn: Turn, play: McpPlay, core: GamepilotCore, withBriefing: boolean): CallToolResult {
  const { obs, ctx } = turn;
  const live = core.state().run;
  const last: StepEventData | undefined = play.lastStep;
  const lines = [
    `Episode ${obs.episode + 1}${live ? ` of ${live.episodes}` : ''}, step ${obs.step + 1}${live ? ` of at most ${live.maxSteps}` : ''} (run ${play.runId}).`,
    `Score so far: ${last?.score ?? live?.score ?? 'none yet'} (0–100).`,
    live
      ? `Latency mode: ${live.latency.mode}; the game is ${live.latency.frozen ? 'frozen until you act' : 'running while you think'}.`
      : '',
    `Screenshot: ${obs.frame.width}×${obs.frame.height} pixels; coordinates of your actions are in it.`,
    `Task: ${taskOf(ctx.game, ctx.profile)}`,
    ctx.actionSpace === 'semantic' && obs.validMoves?.length ? `Valid moves now: ${obs.validMoves.join(', ')}` : '',
    describePrevious(obs.previous),
  ].filter(Boolean);
  const content: CallToolResult['content'] = [
    { type: 'image', data: obs.frame.data.toString('base64'), mimeType: obs.frame.mime },
    { type: 'text', text: lines.join('\n') },
  ];
  if (withBriefing) content.push({ type: 'text', text: turn.briefing() });
  return { content };
}

export type { PlayResult };
