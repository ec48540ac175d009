/**
 * ING-VP's six puzzles: the checked-in levels are what the generator makes, each level has the
 * shape the paper asks for, and the solver solves every one of the 300 within its bound (the
 * solver's plan is replayed on a fresh engine and must end solved). Rules, answer parsing and
 * completion degree per game, from engine state.
 */
import { describe, expect, it } from 'vitest';
import { INGVP_GAMES, ingvpGame } from '../../games/ingvp/games.ts';
import { completionDegree, type PuzzleSpec } from '../../games/ingvp/puzzle.ts';
import { levelsFileText, generateLevels, countSudokuSolutions } from '../../scripts/ingvp-levels.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ALL_SOLUTIONS } from '../../games/queens/index.ts';
import { DISTANCE } from '../../games/hanoi/index.ts';
import { BUILTIN_GAMES } from '../../games/index.ts';
import { sokobanGui } from '../../games/sokoban/index.ts';
import { ingvpMazeGui } from '../../games/ingvp-maze/index.ts';
import { seededRng } from '../../games/shared/rng.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const spec = (id: string) => ingvpGame(id)!.spec as PuzzleSpec<any>;

describe('ING-VP levels', () => {
  it('are 50 per game, as scripts/ingvp-levels.ts makes them', () => {
    for (const { spec: s } of INGVP_GAMES) {
      expect(s.levels.length, s.id).toBe(50);
      const file = readFileSync(path.join(ROOT, 'games', s.id, 'levels', 'levels.json'), 'utf8');
      expect(file, `${s.id}: run npx tsx scripts/ingvp-levels.ts`).toBe(levelsFileText(generateLevels(s.id)));
    }
  });

  it('the solver solves all 300 levels within their bounds', () => {
    const bound: Record<string, number> = { sokoban: 8, 'ingvp-maze': 8, queens: 7, sudoku: 10, hanoi: 8, fifteen: 8 };
    let solved = 0;
    for (const { spec: s } of INGVP_GAMES) {
      s.levels.forEach((level, i) => {
        const plan = s.load(level).solution();
        expect(plan.length, `${s.id} level ${i + 1}`).toBe(s.optimal(level));
        expect(plan.length).toBeLessThanOrEqual(bound[s.id]!);
        const replay = s.load(level);
        for (const m of plan) expect(replay.apply(m), `${s.id} level ${i + 1} move ${m}`).toBe(true);
        expect(replay.solved(), `${s.id} level ${i + 1}`).toBe(true);
        solved++;
      });
    }
    expect(solved).toBe(300);
  });

  it('have the paper’s shapes: 11×11 mazes, distinct first queens, 71-clue unique Sudokus, Hanoi at exactly 8, no Sokoban box on a dock', () => {
    for (const l of spec('ingvp-maze').levels) expect([l.rows.length, l.rows[0].length]).toEqual([11, 11]);
    const firsts = spec('queens').levels.map((l) => l.first.join(','));
    expect(new Set(firsts).size).toBe(50);
    for (const l of spec('sudoku').levels) {
      expect([...l.puzzle].filter((c: string) => c !== '0').length).toBe(71);
      expect(countSudokuSolutions([...l.puzzle].map(Number))).toBe(1);
    }
    for (const l of spec('hanoi').levels) expect(DISTANCE.get(l.disks)).toBe(8);
    for (const l of spec('sokoban').levels) expect(l.rows.join('')).not.toMatch(/[*+]/);
    expect(ALL_SOLUTIONS.length).toBe(92);
  });
});

describe('ING-VP rules and completion degree', () => {
  it('Sokoban: pushes one box, never into a wall; 100/8 per optimal move left', () => {
    const s = spec('sokoban');
    const p = s.load({ rows: ['#####', '#@$.#', '#####'], optimal: 1 });
    expect(completionDegree(s, p)).toBe(87.5);
    expect(p.apply('L')).toBe(false);
    expect(p.apply('R')).toBe(true);
    expect(p.solved()).toBe(true);
    expect(p.text()).toBe('#####\n# @*#\n#####');
    expect(p.apply('R')).toBe(false); // box against the wall
    expect(completionDegree(s, p)).toBe(100);
  });

  it('Maze: text as the authors write it; a wall changes nothing', () => {
    const s = spec('ingvp-maze');
    const p = s.load(s.levels[0]);
    expect(p.text()).toMatch(/^[+ SX\n]+$/);
    expect(p.text().split('\n')).toHaveLength(11);
    const opt = s.levels[0].optimal;
    expect(completionDegree(s, p)).toBe(Math.max(0, 100 - 12.5 * opt));
    const first = p.solution()[0]!;
    expect(p.apply(first)).toBe(true);
    expect(completionDegree(s, p)).toBe(Math.max(0, 100 - 12.5 * (opt - 1)));
  });

  it('8-Queens: a threatening queen is ignored; 100/7 per queen missing', () => {
    const s = spec('queens');
    const p = s.load({ first: [0, 0], optimal: 7 });
    expect(completionDegree(s, p)).toBe(0);
    expect(p.apply('1,1')).toBe(false); // diagonal
    expect(p.apply('0,5')).toBe(false); // row
    expect(p.apply('0,0')).toBe(false); // taken
    expect(p.apply('1,4')).toBe(true); // 0,0 1,4 2,7 3,5 4,2 5,6 6,1 7,3 is a solution
    expect(completionDegree(s, p)).toBe(14.29);
    expect(p.text()).toBe('[[0,0],[1,4]]');
    for (const m of ['2,7', '3,5', '4,2', '5,6', '6,1', '7,3']) expect(p.apply(m)).toBe(true);
    expect(p.solved()).toBe(true);
  });

  it('Sudoku: clues cannot change; 10 per wrong cell', () => {
    const s = spec('sudoku');
    const level = s.levels[0];
    const p = s.load(level);
    expect(completionDegree(s, p)).toBe(0);
    const clue = [...level.puzzle].findIndex((c: string) => c !== '0');
    expect(p.apply(`${Math.floor(clue / 9)}${clue % 9}=${(Number(level.puzzle[clue]) % 9) + 1}`)).toBe(false);
    const [right, ...rest] = p.solution();
    expect(p.apply(right!)).toBe(true);
    expect(completionDegree(s, p)).toBe(10);
    const wrong = `${rest[0]!.slice(0, 3)}${(Number(rest[0]![3]) % 9) + 1}`;
    expect(p.apply(wrong)).toBe(true);
    expect(completionDegree(s, p)).toBe(10);
    expect(s.parseStep({ '34': 7 })).toBe('34=7');
    expect(s.parsePlan({ '34': 7, '01': '2' })).toEqual(['34=7', '01=2']);
  });

  it('Hanoi: never a larger disk on a smaller one; 100/8 per optimal move left', () => {
    const s = spec('hanoi');
    const p = s.load({ disks: 'DDDDC', optimal: 0 });
    expect(DISTANCE.get('DDDDC')).toBeGreaterThan(8);
    expect(completionDegree(s, p)).toBe(0);
    const near = s.load({ disks: 'CDDDD', optimal: 1 });
    expect(completionDegree(s, near)).toBe(87.5);
    expect(near.apply('CD')).toBe(true);
    expect(completionDegree(s, near)).toBe(100);
    expect(p.apply('DC')).toBe(true); // a onto e
    expect(p.text()).toBe('{"A":[],"B":[],"C":["a","e"],"D":["b","c","d"]}');
    expect(p.apply('DC')).toBe(false); // b onto a
    expect(p.apply('AB')).toBe(false); // nothing on A
    expect(completionDegree(s, p)).toBe(Math.max(0, 100 - 12.5 * DISTANCE.get('CDDDC')!));
    expect(s.parseStep('A→D')).toBe('AD');
  });

  it('15-puzzle: only a tile next to the space moves', () => {
    const s = spec('fifteen');
    const p = s.load({ tiles: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0, 15], optimal: 1 });
    expect(completionDegree(s, p)).toBe(87.5);
    expect(p.apply('12')).toBe(false);
    expect(p.apply('15')).toBe(true);
    expect(p.solved()).toBe(true);
  });

  it('each is a built-in game whose level follows seed + episode, and a random move never throws', () => {
    for (const { def, spec: s } of INGVP_GAMES) {
      expect(BUILTIN_GAMES[def.id]).toBe(def);
      const g = def.create({ seed: 6, episode: 0, rng: seededRng(1) });
      expect(g.snapshot()).toMatchObject({ level: 7 });
      expect(g.text()).toBe(s.load(s.levels[6]!).text());
      const rng = seededRng(2);
      for (let i = 0; i < 30; i++) g.applyMove(s.actionSpace()[Math.floor(rng() * s.actionSpace().length)]!);
      expect(g.score()).toBeGreaterThanOrEqual(0);
      expect(def.create({ seed: 49, episode: 3, rng: seededRng(1) }).snapshot()).toMatchObject({ level: 3 });
    }
  });
});

describe('ING-VP plan parsing and arrow-key GUI', () => {
  it('reads a plan as a list or as words; one bad move refuses the whole plan', () => {
    expect(spec('fifteen').parsePlan('12 8, 4')).toEqual(['12', '8', '4']);
    expect(spec('fifteen').parsePlan([12, 'x'])).toBeUndefined();
    expect(spec('hanoi').parsePlan('AC; A->D')).toEqual(['AC', 'AD']);
    expect(spec('hanoi').parsePlan(['AC', 'AA'])).toBeUndefined();
    expect(
      spec('queens').parsePlan([
        [3, 5],
        [0, 1],
      ]),
    ).toEqual(['3,5', '0,1']);
    expect(
      spec('queens').parsePlan([
        [3, 5],
        [9, 1],
      ]),
    ).toBeUndefined();
    expect(spec('sokoban').parsePlan('left, up down')).toEqual(['L', 'U', 'D']);
    expect(spec('ingvp-maze').parsePlan(['R', 'sideways'])).toBeUndefined();
  });

  it('Sokoban and the maze move one cell a press of an arrow key', () => {
    for (const gui of [sokobanGui, ingvpMazeGui]) {
      expect(gui.handle({ type: 'key', key: 'ArrowUp' }, null)).toEqual({ move: 'U', selection: null });
      expect(gui.handle({ type: 'key', key: 'a' }, null)).toEqual({ selection: null });
      expect(gui.gesture('L', [], null)).toEqual({ type: 'key', key: 'left' });
      expect(gui.gesture('X', [], null)).toBeUndefined();
      expect(gui.actionSpace).toEqual({ press: ['left', 'right', 'up', 'down'] });
    }
  });
});
