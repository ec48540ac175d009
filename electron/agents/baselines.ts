/**
 * Baseline agents: uniform random over the game's action space, and each built-in game's
 * solver. In the GUI space they act through the window the way a person would.
 */
import type { Action } from '../actions/schema.ts';
import { windowToImage } from '../input/coordinates.ts';
import { pick, seededRng, type Rng } from '../../games/shared/rng.ts';
import { semanticApiOf } from '../profiles/profile-schema.ts';
import type { Agent, DecideContext, Decision, Observation } from './agent-types.ts';

const GENERIC_KEYS = ['up', 'down', 'left', 'right', 'space', 'enter'];
const WHOLE = { x: 0, y: 0, width: 1, height: 1 };

/** The GUI action that performs a semantic move in a built-in game's view. */
function guiForMove(move: string, obs: Observation, ctx: DecideContext): Action | undefined {
  const gesture = ctx.instance?.gestureFor(move, obs.hits ?? []);
  if (!gesture) return undefined;
  if (gesture.type === 'key') return { kind: 'gui', type: 'PRESS', params: { key: gesture.key } };
  const p = windowToImage(obs.geometry, gesture.x, gesture.y);
  return { kind: 'gui', type: 'CLICK', params: { x: p.x, y: p.y } };
}

function moveDecision(move: string, obs: Observation, ctx: DecideContext, why: string): Decision {
  if (ctx.actionSpace === 'semantic') return { reasoning: why, actions: [{ kind: 'semantic', move }] };
  const action = guiForMove(move, obs, ctx);
  return action
    ? { reasoning: why, actions: [action] }
    : { reasoning: why, actions: [], error: `cannot locate move ${move} in the window` };
}

/**
 * GameVerse's random baseline, read literally: "selects valid actions uniformly at random" from
 * the action space the game's prompt defines — every well-formed action, whether or not it is a
 * legal move right now (a click off the board or on a taken cell loses Tic-Tac-Toe at once, a
 * 2048 move that changes nothing counts toward its five-no-op end). Built-ins declare that space
 * (GameDefinition.actionSpace); on any other window it clicks anywhere or presses a common key.
 */
export class RandomAgent implements Agent {
  readonly name = 'random';
  private rng: Rng;

  constructor(seed = 1) {
    this.rng = seededRng(seed ^ 0x5eed);
  }

  async decide(obs: Observation, ctx: DecideContext): Promise<Decision> {
    const space = ctx.game?.actionSpace;
    if (ctx.actionSpace === 'semantic') {
      const api = semanticApiOf(ctx.profile);
      if (!ctx.game && api)
        return { reasoning: 'random call', actions: [{ kind: 'semantic', move: api.randomCall(this.rng) }] };
      if (!space?.semantic.length)
        return {
          reasoning: 'no moves declared',
          actions: [],
          error: 'the semantic action space needs a built-in game or a profile that declares moves',
        };
      return { reasoning: 'random move', actions: [{ kind: 'semantic', move: pick(this.rng, space.semantic) }] };
    }
    if (space && 'press' in space.gui) return this.press(space.gui.press);
    if (space || this.rng() < 0.5) return this.clickAnywhere(obs, ctx.profile?.actions.pointerArea);
    // A window: the keys its profile allows (the title's own), else a few common ones.
    return this.press(ctx.profile?.actions.allowedKeys ?? GENERIC_KEYS);
  }

  private press(keys: readonly string[]): Decision {
    return {
      reasoning: 'random key',
      actions: [{ kind: 'gui', type: 'PRESS', params: { key: pick(this.rng, keys) } }],
    };
  }

  /**
   * A left click at a uniformly random pixel of the image the agent saw (the window's visible
   * part), inside the profile's pointer area when it has one.
   */
  private clickAnywhere(obs: Observation, area = WHOLE): Decision {
    const at = (start: number, share: number, size: number) =>
      Math.min(size - 1, Math.floor((start + this.rng() * share) * size));
    const x = at(area.x, area.width, obs.frame.width);
    const y = at(area.y, area.height, obs.frame.height);
    return { reasoning: 'random click', actions: [{ kind: 'gui', type: 'CLICK', params: { x, y } }] };
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
