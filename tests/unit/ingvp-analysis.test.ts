/**
 * ING-VP §4.3 pieces without windows: the Best-of-N vote and its calls, Forced Planning's plan
 * check, the maze-length study's levels (from the engine: lengths, layout kept, seeded), the
 * study's completion degree, the settings and lengths the CLI takes, and the Fig. 4 table.
 */
import { describe, expect, it } from 'vitest';
import { bestOf, majorityMove, readPlan } from '../../electron/ingvp/answer-checks.ts';
import { extractOutput, extractPlan } from '../../electron/ingvp/answer.ts';
import {
  INGVP_SETTINGS,
  parseMazeSteps,
  parseSettings,
  settingSpec,
  type SuiteSetting,
} from '../../electron/ingvp/ingvp-settings.ts';
import { RandomPlayer, RANDOM_PLAN_LENGTH, type Answer, type Player, type Turn } from '../../electron/ingvp/players.ts';
import { tableOf, type LevelRow } from '../../electron/ingvp/table.ts';
import { ingvpMazeSpec } from '../../games/ingvp-maze/index.ts';
import { lengthStudyLevel, lengthStudySpec } from '../../games/ingvp-maze/length-study.ts';
import { completionDegree, type PuzzleSpec } from '../../games/ingvp/puzzle.ts';
import { distancesFrom, parseMaze } from '../../games/maze/engine.ts';

const maze = ingvpMazeSpec as PuzzleSpec<never>;
const level1 = () => maze.load(ingvpMazeSpec.levels[0] as never);

function turnOf(setting: SuiteSetting = 'best-of-10'): Turn {
  return {
    spec: maze,
    setting: settingSpec(setting),
    level: 1,
    step: 0,
    puzzle: level1(),
    history: [],
    undo: false,
    key: `ingvp-maze/${setting}/1`,
  };
}

/** A player answering sample i with answers[i] (its own tokens and price), recording the calls it got. */
function scripted(answers: string[], costs: (number | null)[] = answers.map(() => 0.5)) {
  const calls: number[] = [];
  const player: Player = {
    name: 'vlm',
    model: 'm',
    thinking: false,
    async answer(turn: Turn): Promise<Answer> {
      calls.push(turn.sample!);
      return { raw: answers[turn.sample!]!, tokens: { input: 100, output: 10 }, costUsd: costs[turn.sample!]! };
    },
  };
  return { player, calls };
}

describe('Best of N', () => {
  it('plays the most frequent move; a tie goes to the move drawn first; unreadable answers do not vote', () => {
    const m = (...moves: (string | null)[]) => moves.map((move) => ({ move }));
    expect(majorityMove(m('L', 'D', 'D', null, null, null))).toBe('D');
    expect(majorityMove(m('U', 'D', 'D', 'U'))).toBe('U');
    expect(majorityMove(m(null, null))).toBeNull();
  });

  it('draws every answer as a call, reads each against the state, and counts all their tokens and cost', async () => {
    const solution = level1().solution();
    const wall = ['L', 'R', 'U', 'D'].find((d) => !level1().apply(d))!;
    const answers = [
      `{"output": "${wall}"}`,
      'no idea',
      ...Array.from({ length: 5 }, () => `{"output": "${solution[0]}"}`),
      ...Array.from({ length: 3 }, () => `{"output": "${wall}"}`),
    ];
    const { player, calls } = scripted(answers);
    const { answer, samples } = await bestOf(player, turnOf(), 10, new AbortController().signal, level1);
    expect(calls.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(extractOutput(answer.raw)).toEqual({ ok: true, value: solution[0] });
    expect(samples.map((s) => s.changes)).toEqual([false, null, true, true, true, true, true, false, false, false]);
    expect(samples[1]).toMatchObject({ move: null, error: 'no {"output": …} in the answer' });
    expect(answer.tokens).toEqual({ input: 1000, output: 100 });
    expect(answer.costUsd).toBeCloseTo(5, 9);
    // One unpriced call makes the step's cost unknown, not smaller.
    const unpriced = scripted(answers, [...answers.map(() => 0.5).slice(1), null]);
    expect(
      (await bestOf(unpriced.player, turnOf(), 10, new AbortController().signal, level1)).answer.costUsd,
    ).toBeNull();
  });

  it('a failed call ends the others on the same signal before the error is passed on', async () => {
    const ended: number[] = [];
    const player: Player = {
      name: 'vlm',
      model: 'm',
      thinking: false,
      answer: (turn, signal) =>
        new Promise((_resolve, reject) => {
          if (turn.sample === 3) return reject(new Error('model call failed: 500'));
          signal.addEventListener('abort', () => {
            ended.push(turn.sample!);
            reject(signal.reason);
          });
        }),
    };
    await expect(bestOf(player, turnOf(), 10, new AbortController().signal, level1)).rejects.toThrow(
      'model call failed: 500',
    );
    expect(ended.sort((a, b) => a - b)).toEqual([0, 1, 2, 4, 5, 6, 7, 8, 9]);
  });
});

describe('Forced Planning', () => {
  it('reads the plan written before the move, in the one-step format, and replays it on the state', () => {
    const plan = level1().solution();
    const text = `Let me plan.\n{"plan": "${plan.join('')}"}\n{"output": "${plan[0]}"}`;
    expect(extractPlan(text)).toEqual({ ok: true, value: plan.join('') });
    expect(extractOutput(text)).toEqual({ ok: true, value: plan[0] });
    expect(readPlan(maze, text, level1())).toEqual({
      text: plan.join(''),
      moves: plan,
      followed: null,
      solves: true,
    });
    expect(readPlan(maze, `{"plan": "${plan.slice(1).join('')}"}`, level1())).toMatchObject({ solves: false });
    expect(readPlan(maze, '{"output": "L"}', level1())).toMatchObject({ text: null, moves: null, solves: null });
    expect(readPlan(maze, '{"plan": "go north"}', level1())).toMatchObject({
      text: 'go north',
      moves: null,
      error: 'not a plan in this game’s format',
    });
  });
});

describe('the random player in §4.3’s settings', () => {
  it('draws one move per multi-step answer, as before: only Forced Planning answers draw a plan', async () => {
    const read = async (setting: SuiteSetting, answers: number) => {
      const player = new RandomPlayer(3);
      const out: unknown[] = [];
      for (let i = 0; i < answers; i++) {
        const raw = (await player.answer({ ...turnOf(setting), key: 'same' })).raw;
        out.push((extractOutput(raw) as { value: unknown }).value);
      }
      return out;
    };
    const plan = (await read('one-step-text', 1))[0] as string;
    expect((await read('multi-step-text', RANDOM_PLAN_LENGTH)).join('')).toBe(plan);
    // Forced Planning: the plan is the same eight draws, and the move its first.
    const player = new RandomPlayer(3);
    const raw = (await player.answer({ ...turnOf('forced-planning'), key: 'same' })).raw;
    expect(extractPlan(raw)).toEqual({ ok: true, value: plan });
    expect(extractOutput(raw)).toEqual({ ok: true, value: plan[0] });
  });
});

describe('the maze-length study', () => {
  it('moves each level’s start to exactly that many moves from its destination, walls and destination kept', () => {
    for (const length of [4, 12, 16])
      for (let level = 1; level <= ingvpMazeSpec.levels.length; level++) {
        const study = parseMaze(lengthStudyLevel(level, length, 0).rows);
        const original = parseMaze(ingvpMazeSpec.levels[level - 1]!.rows);
        expect(study.open).toEqual(original.open);
        expect(study.target).toEqual(original.target);
        expect(distancesFrom(study, study.target)[study.start.row]![study.start.col]).toBe(length);
        expect(ingvpMazeSpec.load(lengthStudyLevel(level, length, 0)).solution()).toHaveLength(length);
      }
  });

  it('picks the start with the seed: the same seed the same cell, other seeds other cells', () => {
    const starts = (seed: number) =>
      ingvpMazeSpec.levels.map((_, i) => parseMaze(lengthStudyLevel(i + 1, 12, seed).rows).start);
    expect(starts(5)).toEqual(starts(5));
    expect(starts(6)).not.toEqual(starts(5));
  });

  it('refuses a length a level has no cell for, naming the level', () => {
    const dist = distancesFrom(
      parseMaze(ingvpMazeSpec.levels[35]!.rows),
      parseMaze(ingvpMazeSpec.levels[35]!.rows).target,
    );
    const farthest = Math.max(...dist.flat());
    expect(() => lengthStudyLevel(36, farthest + 1, 0)).toThrow(
      `maze level 36 has no floor cell ${farthest + 1} moves`,
    );
    // Only the levels asked for are made.
    expect(() => lengthStudySpec(farthest + 1, 0, [1])).not.toThrow();
  });

  it('completion loses 100/max(8, length) per move still needed', () => {
    for (const [length, atStart] of [
      [4, 50],
      [12, 0],
      [16, 0],
    ] as const) {
      const spec = lengthStudySpec(length, 0, [1]);
      const p = spec.load(spec.levels[0]!);
      expect(completionDegree(spec, p)).toBe(atStart);
      for (const move of p.solution().slice(0, 4)) p.apply(move);
      expect(completionDegree(spec, p)).toBe(
        Math.round((100 - (100 / Math.max(8, length)) * (length - 4)) * 100) / 100,
      );
    }
  });
});

describe('the CLI’s settings and lengths', () => {
  it('all is the six of Table 1; §4.3’s settings are asked for by name', () => {
    expect(parseSettings('all')).toEqual([...INGVP_SETTINGS]);
    expect(parseSettings('forced-planning, best-of-10,multi-step-text')).toEqual([
      'multi-step-text',
      'best-of-10',
      'forced-planning',
    ]);
    expect(() => parseSettings('best-of-5')).toThrow('unknown setting best-of-5');
    expect(settingSpec('best-of-10')).toMatchObject({ oneStep: false, image: false, history: false, samples: 10 });
    expect(settingSpec('forced-planning')).toMatchObject({
      oneStep: false,
      image: false,
      forcedPlan: true,
      samples: 1,
    });
  });

  it('maze lengths are whole moves up to the step limit', () => {
    expect(parseMazeSteps('16,4,12,4')).toEqual([4, 12, 16]);
    expect(() => parseMazeSteps('0')).toThrow('"0" is not a maze length');
    expect(() => parseMazeSteps('51')).toThrow('"51" is not a maze length');
    expect(() => parseMazeSteps('4,x')).toThrow('"x" is not a maze length');
  });
});

describe('the Fig. 4 table', () => {
  it('a row per length (the suite’s own maze levels as "original"); the game table leaves study levels out', () => {
    const row = (game: string, solved: boolean, completion: number, maze_steps?: number): LevelRow => ({
      game,
      setting: 'multi-step-text',
      solved,
      completion,
      efficiency: 50,
      actions: 2,
      changed: 1,
      ...(maze_steps === undefined ? {} : { maze_steps }),
    });
    const t = tableOf(
      [
        row('ingvp-maze', true, 100),
        row('ingvp-maze', false, 75),
        row('ingvp-maze-4', true, 100, 4),
        row('ingvp-maze-16', false, 25, 16),
        row('ingvp-maze-16', false, 0, 16),
      ],
      ['multi-step-text'],
      ['ingvp-maze'],
      [4, 16],
    );
    expect(t.rows['ingvp-maze']!['multi-step-text']).toMatchObject({ levels: 2, accuracy: 50, completion: 87.5 });
    expect(t.maze_study!.lengths).toEqual(['original', 4, 16]);
    expect(t.maze_study!.rows['4']!['multi-step-text']).toMatchObject({ levels: 1, accuracy: 100, completion: 100 });
    expect(t.maze_study!.rows['16']!['multi-step-text']).toMatchObject({ levels: 2, accuracy: 0, completion: 12.5 });
    expect(tableOf([row('ingvp-maze', true, 100)], ['multi-step-text'], ['ingvp-maze']).maze_study).toBeUndefined();
  });
});
