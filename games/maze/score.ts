/**
 * GameVerse's Maze score (App. D.4): (1 − D_end / D_begin) × 100, D = the distance from the ball
 * to the target. The paper names neither the distance nor what happens when the ball ends farther
 * away than it began; Gamepilot takes the authors' code's reading — shortest-path moves over path
 * cells, clipped to [0, 100], and 100 once the ball has reached the target.
 */
import { applyScoreRule, type ScoreRule } from '../shared/score-rule.ts';

export function gameVerseMazeScore(dBegin: number, dEnd: number): number {
  if (!(dBegin > 0)) throw new Error(`D_begin must be a positive distance (got ${dBegin})`);
  if (!(dEnd >= 0)) throw new Error(`D_end must be a distance ≥ 0 (got ${dEnd})`);
  return applyScoreRule(mazeRule(dBegin), dEnd);
}

/** The rule of an episode that starts `dBegin` moves from the target. */
export function mazeRule(dBegin: number): ScoreRule {
  return { kind: 'progress', number: 'moves left to the target', start: dBegin };
}
