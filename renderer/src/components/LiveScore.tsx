/**
 * A score as people read it: the game's own number (what its window shows) beside the value on
 * the papers' 0–100 scale, with the formula between them on hover. The Live view's counters, the
 * Runs tab's row of the run going now and the replay's step show it.
 */
import type { LiveScore } from '../../../electron/api/contract.ts';

/** The hover text: the formula, and what the second number is. */
function hover(s: LiveScore): string {
  const scale = 'the second number is on the papers’ 0–100 scale, the one runs are compared on';
  return s.scoreFormula ? `${s.scoreFormula} (${scale})` : scale;
}

export function LiveScoreText({ score, testId }: { score: LiveScore; testId: string }) {
  return (
    <span data-testid={testId} title={hover(score)}>
      {score.gameScore !== null && (
        <>
          Score <b data-testid={`${testId}-game`}>{score.gameScore.toLocaleString('en')}</b> ·{' '}
        </>
      )}
      {score.gameScore === null && 'score '}
      <b data-testid={`${testId}-paper`}>{score.score ?? '–'}</b>
      {score.score !== null && ' (paper scale)'}
    </span>
  );
}
