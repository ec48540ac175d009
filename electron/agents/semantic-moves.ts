/**
 * The moves of the semantic action space a step offers: a built-in game's own (its parser and
 * its legal moves), or the calls a window's profile declares (semantic-api.ts). Every agent
 * asks here, so the prompt, the parser and the baselines agree on one set.
 */
import type { SemanticMoveParser } from '../actions/parse.ts';
import type { GameDefinition } from '../../games/types.ts';
import { semanticApiOf, type Profile } from '../profiles/profile-schema.ts';
import { render } from './prompts.ts';

export interface SemanticMoves {
  parse: SemanticMoveParser;
  /** The answer format's text, with an example. */
  format: string;
  /** The list of moves with their parameters, when the profile declares them (the built-ins' prompts describe theirs). */
  listing?: string;
}

export function semanticMoves(
  ctx: { game?: GameDefinition | undefined; profile?: Profile | undefined },
  validMoves?: readonly string[],
): SemanticMoves | undefined {
  if (ctx.game) {
    return {
      parse: ctx.game.parseMove,
      format: render('format-semantic', { example_move: validMoves?.[0] ?? 'move' }),
    };
  }
  const api = semanticApiOf(ctx.profile);
  if (!api) return undefined;
  return {
    parse: (m) => {
      const r = api.parse(m);
      return r.ok ? { ok: true, move: r.move } : r;
    },
    format: render('format-semantic-api', { example_call: api.exampleWire() }),
    listing: render('semantic-api', { moves: api.describe() }),
  };
}

/** The semantic answer format; a generic one when the step offers no moves (the parser then refuses every answer). */
export function semanticFormat(
  ctx: { game?: GameDefinition | undefined; profile?: Profile | undefined },
  validMoves?: readonly string[],
): string {
  return semanticMoves(ctx, validMoves)?.format ?? render('format-semantic', { example_move: 'move' });
}
