/**
 * How a built-in game's own number (2048's merge score, food eaten, the distance left) becomes
 * its score on the papers' 0–100 scale. One declaration per game, which the engine computes
 * with (applyScoreRule) and people read (scoreRuleText), so the words cannot drift from the sums.
 */
import { round2 } from '../../electron/domain.ts';

export type ScoreRule =
  /** number × multiplier / divisor, clipped to 0–100 (2048: merge score / 20000 × 100). */
  | { kind: 'scaled'; number: string; divisor: number; multiplier: number; when?: string }
  /** 100 − points/per for each unit of the number, floored at 0, to 2 decimals (ING-VP: what is still missing). */
  | { kind: 'shortfall'; number: string; points: number; per: number }
  /** (1 − number / start) × 100, clipped to 0–100, and 100 once the number is 0 (Maze: the distance left). */
  | { kind: 'progress'; number: string; start: number }
  /** A score the outcome fixes, whatever the number (Tic-Tac-Toe: a draw is 100). */
  | { kind: 'fixed'; number: string; score: number; when: string };

/** A game's own number now and the rule that puts it on the 0–100 scale. */
export interface GameScoring {
  rule: ScoreRule;
  /** The game's own number; +∞ where it is past what the game counts (an ING-VP puzzle too far from solved). */
  value: number;
}

const clip = (x: number) => Math.min(100, Math.max(0, x));

/** The score the rule gives the number. */
export function applyScoreRule(rule: ScoreRule, value: number): number {
  switch (rule.kind) {
    case 'scaled':
      return clip((value * rule.multiplier) / rule.divisor);
    case 'shortfall':
      return Math.max(0, round2(100 - (rule.points / rule.per) * value));
    case 'progress':
      return value === 0 ? 100 : clip((1 - value / rule.start) * 100);
    case 'fixed':
      return rule.score;
  }
}

/** The rule in words, e.g. "score = merge score / 20000 × 100, clipped to 0–100". */
export function scoreRuleText(rule: ScoreRule): string {
  switch (rule.kind) {
    case 'scaled': {
      const over = rule.divisor === 1 ? '' : ` / ${rule.divisor}`;
      const when = rule.when ? ` (${rule.when})` : '';
      return `score = ${rule.number}${over} × ${rule.multiplier}, clipped to 0–100${when}`;
    }
    case 'shortfall': {
      const each = rule.per === 1 ? `${rule.points}` : `${rule.points}/${rule.per}`;
      return `score = 100 − ${each} × ${rule.number}, floored at 0, to 2 decimals`;
    }
    case 'progress':
      return `score = (1 − ${rule.number} / ${rule.start}) × 100, clipped to 0–100; 100 once it is 0`;
    case 'fixed':
      return `score = ${rule.score} (${rule.when})`;
  }
}

/** A game's score from its own number: what every engine's `score()` returns. */
export function scoreOf(s: GameScoring): number {
  return applyScoreRule(s.rule, s.value);
}
