/**
 * An agent whose decisions come from outside the process: an MCP client (Claude Desktop, an
 * agent framework, a researcher's planner) plays through the ordinary loop. The session calls
 * `decide` as it would a model; the call waits, with the world as the latency mode leaves it
 * (frozen in stop mode), until the remote side submits actions for that observation or the run
 * stops. The remote side takes turns with `waitTurn` and answers with `submit`; what it sends is
 * checked as strictly as a model's answer (actions/parse.ts), and a bad list is refused without
 * using up the turn.
 */
import type { Agent, DecideContext, Decision, Observation } from './agent-types.ts';
import { parseActionItems } from '../actions/parse.ts';
import { semanticFormat, semanticMoves } from './semantic-moves.ts';
import { systemPromptText } from './vlm.ts';
import { render } from './prompts.ts';
import { CodedError } from '../domain.ts';

/** One observation waiting for the remote side's actions. */
export interface Turn {
  obs: Observation;
  ctx: DecideContext;
  /** The instructions a model would get for this step, with the answer format of the `act` tool. */
  briefing(): string;
}

interface Pending extends Turn {
  settle(d: Decision): void;
}

/** The decision for a turn taken back before the client answered it (a stop, a takeover). */
const TAKEN_BACK: Decision = {
  reasoning: '',
  actions: [],
  withdrawn: true,
  error: 'the observation was taken back before the MCP client answered it',
};

/** The longest reasoning text a remote side may attach to a step (it is kept in steps.jsonl). */
export const MAX_REMOTE_REASONING = 20_000;

export class RemoteAgent implements Agent {
  private pending: Pending | undefined;
  private waiters: ((t: Turn | null) => void)[] = [];
  private ended = false;
  /**
   * A turn was taken back before the client answered it (a person took over): an answer sent
   * now would land on an observation the client has not seen, so it is refused until it observes.
   */
  private withdrawn = false;

  /** `name` is how records and tables name the player, e.g. `mcp:claude-code`. */
  constructor(readonly name: string) {}

  decide(obs: Observation, ctx: DecideContext): Promise<Decision> {
    if (ctx.signal.aborted || this.ended) return Promise.resolve({ ...TAKEN_BACK });
    return new Promise<Decision>((resolve) => {
      const onAbort = () => {
        if (this.pending?.obs === obs) {
          this.pending = undefined;
          this.withdrawn = true;
        }
        resolve({ ...TAKEN_BACK });
      };
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      const turn: Pending = {
        obs,
        ctx,
        briefing: () => briefingFor(obs, ctx),
        settle: (d) => {
          ctx.signal.removeEventListener('abort', onAbort);
          resolve(d);
        },
      };
      this.pending = turn;
      for (const w of this.waiters.splice(0)) w(turn);
    });
  }

  /** The observation waiting for actions now, or the next one; null once the run has ended or `signal` aborts. */
  waitTurn(signal: AbortSignal): Promise<Turn | null> {
    if (this.pending) return Promise.resolve(this.pending);
    if (this.ended || signal.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const done = (t: Turn | null) => {
        signal.removeEventListener('abort', onAbort);
        resolve(t);
      };
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve(null);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(done);
    });
  }

  /** The client looks again: what it answers next is what it saw. */
  observed() {
    this.withdrawn = false;
  }

  /** Whether the turn the client last saw was taken back before it answered (see `withdrawn`). */
  get answerWithdrawn(): boolean {
    return this.withdrawn;
  }

  /** The turn waiting now, if any (without waiting). */
  get current(): Turn | undefined {
    return this.pending;
  }

  /**
   * Answers the waiting turn with `items` (the action schema of the run's space). Refuses, with
   * the reason and without using up the turn, a list that does not parse or when no turn waits.
   */
  submit(turn: Turn, items: unknown[], reasoning = ''): void {
    const pending = this.pending;
    if (!pending || pending !== turn) throw new CodedError('bad-input', 'that observation is no longer waiting');
    if (reasoning.length > MAX_REMOTE_REASONING)
      throw new CodedError('bad-input', `reasoning is longer than ${MAX_REMOTE_REASONING} characters`);
    const { ctx, obs } = pending;
    const parsed = parseActionItems(items, {
      actionSpace: ctx.actionSpace,
      parseMove: semanticMoves({ game: ctx.game, profile: ctx.profile }, obs.validMoves)?.parse,
    });
    if (!parsed.ok) throw new CodedError('bad-input', parsed.error);
    this.pending = undefined;
    // Shown live as the step's reasoning, as a model's streamed answer is.
    if (reasoning) ctx.onToken?.(reasoning, 'answer');
    pending.settle({ reasoning, actions: parsed.actions });
  }

  /**
   * Ends the episode at the waiting turn instead of answering it: the turn makes no step, and
   * the episode is scored as the game stands now.
   */
  endEpisode(turn: Turn): void {
    const pending = this.pending;
    if (!pending || pending !== turn) throw new CodedError('bad-input', 'that observation is no longer waiting');
    this.pending = undefined;
    pending.settle({ reasoning: '', actions: [], endsEpisode: true });
  }

  /** The run is over: nothing waits any more. */
  end() {
    this.ended = true;
    for (const w of this.waiters.splice(0)) w(null);
  }
}

/** The system prompt a model would get for this observation, answering through the `act` tool. */
function briefingFor(obs: Observation, ctx: DecideContext): string {
  const { actionSpace, game, profile } = ctx;
  const format = actionSpace === 'gui' ? render('format-gui') : semanticFormat({ game, profile }, obs.validMoves);
  return systemPromptText({
    template: 'system',
    obs,
    actionSpace,
    game,
    profile,
    answerFormat: render('remote-act', { action_format: format }),
  });
}
