/**
 * A window scored off its screen, live: its steps record no score (the episode's is read at its
 * end), so the live view shows the episode so far, as read after earlier steps (the profile's
 * `everySteps`), with the number read beside it.
 */
import type { GameScoreFields } from '../domain.ts';
import type { ScreenScoreReader } from '../scoring/screen-reader.ts';

export function withScreenScoreSoFar<T extends { score?: number | null }>(
  step: T,
  reader: Pick<ScreenScoreReader, 'result'>,
  formula: string | null,
): T & Partial<GameScoreFields> {
  if (step.score != null || formula === null) return step;
  const { value, score } = reader.result();
  return value === null ? step : { ...step, score, game_score: value, score_formula: formula };
}
