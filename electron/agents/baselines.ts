/**
 * Baseline agents: uniform random over valid actions, and each built-in game's solver.
 * In the GUI space they act through the window the way a person would.
 */
import type { Action } from '../actions/schema.ts';
import { windowToImage } from '../input/coordinates.ts';
import { pick, seededRng, type Rng } from '../../games/shared/rng.ts';
import type { Agent, DecideContext, Decision, Observation } from './types.ts';

const GENERIC_KEYS = ['up', 'down', 'left', 'right', 'space', 'enter'];

/** The GUI action that performs a semantic move in a built-in game's view. */
function guiForMove(move: string, obs: Observation, ctx: DecideContext): Action | undefined {
  const gesture = ctx.instance?.gestureFor(move, obs.hits ?? []);
  if (!gesture) return undefined;
  if (gesture.type === 'key') return { kind: 'gui', type: 'PRESS', params: { key: gesture.key } };
  const p = windowToImage(obs.geometry, gesture.x, gesture.y);
  return { kind: 'gui', type: 'CLICK', params: { x: p.x, y: p.y } };
}

function moveDecision(move: string, obs: Observation, ctx: DecideContext, why: string): Decision {
  if (ctx.space === 'semantic') return { reasoning: why, actions: [{ kind: 'semantic', move }] };
  const action = guiForMove(move, obs, ctx);
  return action ? { reasoning: why, actions: [action] } : { reasoning: why, actions: [], error: `cannot locate move ${move} in the window` };
}

export class RandomAgent implements Agent {
  readonly name = 'random';
  private rng: Rng;

  constructor(seed = 1) {
    this.rng = seededRng(seed ^ 0x5eed);
  }

  async decide(obs: Observation, ctx: DecideContext): Promise<Decision> {
    const moves = obs.validMoves;
    if (moves && moves.length) return moveDecision(pick(this.rng, moves), obs, ctx, 'random valid move');
    if (ctx.space === 'semantic') return { reasoning: 'no valid moves', actions: [], error: 'no valid moves' };
    // A window no game defines: a random click inside it, or a random common key.
    if (this.rng() < 0.5) {
      const x = Math.floor(this.rng() * obs.frame.width);
      const y = Math.floor(this.rng() * obs.frame.height);
      return { reasoning: 'random click', actions: [{ kind: 'gui', type: 'CLICK', params: { x, y } }] };
    }
    return { reasoning: 'random key', actions: [{ kind: 'gui', type: 'PRESS', params: { key: pick(this.rng, GENERIC_KEYS) } }] };
  }
}

export class SolverAgent implements Agent {
  readonly name = 'solver';

  async decide(obs: Observation, ctx: DecideContext): Promise<Decision> {
    if (!ctx.instance) return { reasoning: '', actions: [], error: 'the solver baseline needs a built-in game' };
    if (ctx.instance.isOver()) return { reasoning: 'game over', actions: [{ kind: 'gui', type: 'DONE', params: {} }] };
    return moveDecision(ctx.instance.solverMove(), obs, ctx, 'solver move');
  }
}
