/**
 * Each built-in game's score formula, as the UI shows it, read back as arithmetic: the text
 * applied to the game's own number gives `score()` at every state of a played episode. The
 * reader below knows only the words scoreRuleText may use, so a rule whose words and sums parted
 * fails here.
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_GAMES, type GameDefinition, type GameInstance } from '../../games/index.ts';
import { seededRng, pick } from '../../games/shared/rng.ts';
import { scoreRuleText, type GameScoring } from '../../games/shared/score-rule.ts';
import path from 'node:path';
import {
  milestoneList,
  milestoneScore,
  normaliserText,
  normalise,
  profileFormula,
} from '../../electron/scoring/normalise.ts';
import { loadCatalog } from '../../electron/profiles/registry.ts';
import { liveScore } from '../../electron/api/contract.ts';
import { withScreenScoreSoFar } from '../../electron/api/screen-score-so-far.ts';
import { ROOT } from '../helpers/cli.ts';

/** The score a formula's text gives `value`, reading it as a person would. */
function readFormula(text: string, number: string, value: number): number {
  const m = /^score = (.+)$/.exec(text);
  if (!m) throw new Error(`not a formula: ${text}`);
  const fixed = /^(\d+(?:\.\d+)?) \(.+\)$/.exec(m[1]!);
  if (fixed) return Number(fixed[1]);
  const [expr, ...clauses] = m[1]!.replace(/ \([^()]*\)$/, '').split(/[,;] /);
  if (!expr!.includes(number)) throw new Error(`"${text}" does not name the number "${number}"`);
  const arithmetic = expr!.replaceAll(number, `(${value})`).replaceAll('×', '*').replaceAll('−', '-');
  if (!/^[\d\s.()+\-*/Infinity]+$/.test(arithmetic)) throw new Error(`cannot read "${expr}" as arithmetic`);
  let score = Function(`return ${arithmetic}`)() as number;
  for (const c of clauses) {
    if (c === 'clipped to 0–100') score = Math.min(100, Math.max(0, score));
    else if (c === 'floored at 0') score = Math.max(0, score);
    else if (c === 'to 2 decimals') score = Math.round(score * 100) / 100;
    else if (c === '100 once it is 0') score = value === 0 ? 100 : score;
    else throw new Error(`unknown clause "${c}" in "${text}"`);
  }
  return score;
}

/** Every state of a few seeded episodes, half played by the solver and half at random. */
function* states(def: GameDefinition): Generator<GameInstance> {
  for (let episode = 0; episode < 4; episode++) {
    const rng = seededRng(11 + episode);
    const game = def.create({ seed: 5, episode, rng });
    yield game;
    for (let i = 0; i < 60 && !game.isOver(); i++) {
      const moves = game.validMoves();
      const move = episode % 2 === 0 ? game.solverMove() : pick(rng, moves.length ? moves : [game.solverMove()]);
      game.applyMove(move);
      game.tick?.();
      yield game;
    }
  }
}

describe('a built-in game’s formula', () => {
  for (const def of Object.values(BUILTIN_GAMES)) {
    it(`${def.id}: the formula's words applied to the game's own number give score()`, () => {
      const seen = new Set<string>();
      for (const game of states(def)) {
        expect(game.scoring, `${def.id} has no scoring()`).toBeTypeOf('function');
        const s: GameScoring = game.scoring!();
        const text = scoreRuleText(s.rule);
        seen.add(text);
        expect(readFormula(text, s.rule.number, s.value), text).toBeCloseTo(game.score(), 6);
      }
      expect(seen.size).toBeGreaterThan(0);
    });
  }

  it('2048 at a merge score of 328 (the issue’s screen) is 1.64 on the paper scale', () => {
    const game = BUILTIN_GAMES['2048']!.create({ seed: 1, episode: 0, rng: seededRng(1) });
    const { rule } = game.scoring!();
    expect(readFormula(scoreRuleText(rule), rule.number, 328)).toBeCloseTo(1.64, 9);
  });

  it('Tic-Tac-Toe says which outcome its formula is for', () => {
    const texts = new Set<string>();
    for (const game of states(BUILTIN_GAMES.tictactoe!)) texts.add(scoreRuleText(game.scoring!().rule));
    expect([...texts].some((t) => t.includes('until the game ends'))).toBe(true);
    expect([...texts].some((t) => /a (draw|win|loss)/.test(t))).toBe(true);
  });
});

describe('a screen-scored profile’s formula', () => {
  const cases = [
    { divisor: 133000 },
    { divisor: 500, multiplier: 100, offset: 20 },
    { divisor: 51, clip: false as const },
    { divisor: 2, multiplier: 10 },
  ];
  for (const n of cases)
    it(`reads back as the normalisation it names (${JSON.stringify(n)})`, () => {
      const text = normaliserText(n, 'points');
      for (const v of [0, 1, 17.5, 400, 133000, 1e6])
        expect(readFormula(text, 'points', v), text).toBeCloseTo(normalise(v, n), 6);
    });
});

describe('a shipped profile’s formula', () => {
  const entries = loadCatalog({ shippedDir: path.join(ROOT, 'games') }).entries;
  it('reads back as what its scorer computes, for every screen- and milestone-scored title', () => {
    let checked = 0;
    for (const { profile } of entries) {
      const s = profile.scoring;
      const text = profileFormula(s);
      if (s.kind === 'screen') {
        const number = /^score = \(?(.+?)(?: [−+] [\d.]+\))? \/ /.exec(text!)![1]!;
        for (const v of [0, 1234, s.normaliser.divisor / 3, s.normaliser.divisor * 2])
          expect(readFormula(text!, number, v), `${profile.id}: ${text}`).toBeCloseTo(normalise(v, s.normaliser), 6);
        checked++;
      } else if (s.kind === 'milestones') {
        const total = milestoneList(s).length;
        for (const reached of [0, 1, total])
          expect(readFormula(text!, 'milestones reached', reached), `${profile.id}: ${text}`).toBeCloseTo(
            milestoneScore(s, reached),
            9,
          );
        checked++;
      } else expect(text, profile.id).toBeNull();
    }
    expect(checked).toBeGreaterThanOrEqual(5);
  });
});

describe('the live run’s score', () => {
  const none = { score: null, gameScore: null, scoreFormula: null };
  it('follows a built-in’s steps: both numbers and the formula', () => {
    const formula = 'score = merge score / 20000 × 100, clipped to 0–100';
    const s = liveScore(none, { score: 1.64, game_score: 328, score_formula: formula });
    expect(s).toEqual({ score: 1.64, gameScore: 328, scoreFormula: formula });
    expect(liveScore(s, { score: 0, game_score: 0, score_formula: formula }).gameScore).toBe(0);
  });

  it('keeps a screen-scored window’s episode score through the next steps, which read nothing', () => {
    const formula = 'score = the number read last / 133000 × 100, clipped to 0–100';
    const after = liveScore({ ...none, scoreFormula: formula }, { score: 30, raw_score: 39900 });
    expect(after).toEqual({ score: 30, gameScore: 39900, scoreFormula: formula });
    expect(liveScore(after, { score: null })).toEqual(after);
    expect(liveScore(after, { score: null, raw_score: null })).toEqual({ ...after, score: null, gameScore: null });
  });
});

describe('a screen-scored window’s live step', () => {
  const formula = 'score = the number read last / 500 × 100, clipped to 0–100';
  const read = (value: number | null) => ({ result: () => ({ value, score: value === null ? null : value / 5 }) });
  it('says the episode so far, as read after earlier steps, with the number read', () => {
    expect(withScreenScoreSoFar({ step: 3, score: null }, read(120), formula)).toEqual({
      step: 3,
      score: 24,
      game_score: 120,
      score_formula: formula,
    });
  });
  it('says nothing before the first reading, and leaves a built-in’s step as its engine scored it', () => {
    expect(withScreenScoreSoFar({ step: 0, score: null }, read(null), formula)).toEqual({ step: 0, score: null });
    expect(withScreenScoreSoFar({ step: 0, score: 1.64 }, read(120), formula)).toEqual({ step: 0, score: 1.64 });
  });
});
