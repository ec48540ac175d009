/**
 * GameVerse's Maze score (App. D.4): (1 − D_end / D_begin) × 100, D = the distance from the ball
 * to the target. The paper names neither the distance nor what happens when the ball ends farther
 * away than it began; Gamepilot takes the authors' code's reading — shortest-path moves over path
 * cells, clipped to [0, 100], and 100 once the ball has reached the target.
 */
export function gameVerseMazeScore(dBegin: number, dEnd: number): number {
  if (!(dBegin > 0)) throw new Error(`D_begin must be a positive distance (got ${dBegin})`);
  if (!(dEnd >= 0)) throw new Error(`D_end must be a distance ≥ 0 (got ${dEnd})`);
  if (dEnd === 0) return 100;
  return Math.min(100, Math.max(0, (1 - dEnd / dBegin) * 100));
}
