/**
 * The run's front door: what a RunSpec needs besides its own schema before anything opens — the
 * model (the spec's, else the environment's), an ING-VP level only on an ING-VP game, and a
 * two-seat game's seats. Every way in (the CLI's `run`, the app's request, a sweep's job, an MCP
 * client) comes through here; refusals are RunSpecErrors naming their fields as `{field}`.
 */
import { INGVP_GAME_IDS } from '../../games/ingvp/games.ts';
import { TWO_SEAT_GAMES } from '../../games/index.ts';
import { resolveEndpoint } from '../agents/model-endpoint.ts';
import { isModelAgent, type AgentKind } from '../domain.ts';
import { cappedModels, checkCapPriced } from './run-meter.ts';
import { modelRule, parseAgentSpec, RunSpecError, type RunSpec, type SeatSpec } from '../run-spec.ts';

/** A spec that passed the front door, with what it resolved. */
export interface CheckedRun {
  spec: RunSpec;
  /** The model the run's model calls use; undefined when it has none. */
  model: string | undefined;
  /** A two-seat game: who sits where. */
  seats?: readonly [SeatSpec, SeatSpec];
}

/** The model a run's calls use: the spec's, else the environment's (model-endpoint.ts). */
export function runModel(s: Pick<RunSpec, 'model'>): string | undefined {
  return resolveEndpoint(s.model ? { model: s.model } : {}).model;
}

/** The agent kind a spec plays with: `model` is the zero-shot model agent unless the title's profile names memory. */
export function agentKind(s: Pick<RunSpec, 'agent'>): AgentKind | 'mcp' {
  return s.agent === 'model' ? 'vlm' : s.agent;
}

/** The run's seed: an ING-VP level n is seed n − 1. */
export function runSeed(s: Pick<RunSpec, 'level' | 'seed'>): number {
  return s.level !== undefined ? s.level - 1 : s.seed;
}

/** Checks what the schema cannot; a mistake between settings is a RunSpecError. */
export function frontDoor(s: RunSpec): CheckedRun {
  const modelAgent = isModelAgent(agentKind(s));
  // A baseline (or a client over MCP) given a model plays without it; the model reads a window's
  // score off the screen and judges milestones, as it would for a model agent.
  const model = modelAgent ? runModel(s) : s.model;
  if (modelAgent && !model) throw new RunSpecError('model', modelRule(s.agent));
  if (s.level !== undefined && !(s.game && INGVP_GAME_IDS.includes(s.game)))
    throw new RunSpecError('level', `{level} needs an ING-VP {game} (${INGVP_GAME_IDS.join(', ')})`);
  const seats = seatsOf(s);
  checkCapPriced(s, cappedModels(s, model, seats));
  return { spec: s, model, ...(seats ? { seats } : {}) };
}

/** The seats of a two-seat game; a two-seat game without them, or them on a one-seat target, is refused. */
function seatsOf(s: RunSpec): readonly [SeatSpec, SeatSpec] | undefined {
  const twoSeat = s.game !== undefined && TWO_SEAT_GAMES[s.game] !== undefined;
  if (twoSeat && !s.seats)
    throw new RunSpecError(
      'seats',
      `{game} ${s.game} has two seats: give {seats} <player 1>,<player 2> (solver, random, vlm:<model> or human, e.g. vlm:gpt-4o,solver)`,
    );
  if (!s.seats) return undefined;
  if (!twoSeat)
    throw new RunSpecError(
      'seats',
      `{seats} needs a two-seat {game} (${Object.keys(TWO_SEAT_GAMES).join(', ')})${s.game ? `; ${s.game} has one seat` : ''}`,
    );
  const seats: [SeatSpec, SeatSpec] = [parseAgentSpec(s.seats[0]!), parseAgentSpec(s.seats[1]!)];
  if (seats.some((x) => x.agent === 'human') && !TWO_SEAT_GAMES[s.game!]!.seats!.keys)
    throw new RunSpecError(
      'seats',
      `{seats} human plays with the keyboard, and ${s.game} is played by clicking (human seats: ${keyedGames().join(', ')})`,
    );
  return seats;
}

const keyedGames = () =>
  Object.values(TWO_SEAT_GAMES)
    .filter((d) => d.seats!.keys)
    .map((d) => d.id);
