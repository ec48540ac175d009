/**
 * ING-VP's planning-capacity study (§4.3, Fig. 4): the maze levels made to need a set number of
 * moves "by adjusting only the number of moves required … while maintaining the same level
 * structure". Each level keeps its walls and its destination; its start moves to a floor cell
 * whose shortest path to the destination is exactly that many moves, picked with a seeded rng
 * among all such cells (the same seed, length and level give the same cell everywhere).
 * Completion degree loses 100/max(8, length) per optimal move still needed, so an unplayed
 * level longer than 8 starts at 0 as the suite's levels do.
 */
import { distancesFrom, mazeRows, parseMaze, type Cell } from '../maze/engine.ts';
import { pick, seededRng } from '../shared/rng.ts';
import type { PuzzleSpec } from '../ingvp/puzzle.ts';
import { ingvpGame } from '../ingvp/definition.ts';
import type { IngvpGame } from '../ingvp/games.ts';
import { ingvpMazeGui, ingvpMazeSpec, type IngvpMazeLevel } from './index.ts';

/** One level moved to `length` moves from its destination; throws when no floor cell is that far. */
export function lengthStudyLevel(level: number, length: number, seed: number): IngvpMazeLevel {
  const base = ingvpMazeSpec.levels[level - 1];
  if (!base) throw new Error(`maze level ${level} does not exist (1–${ingvpMazeSpec.levels.length})`);
  const maze = parseMaze(base.rows);
  const dist = distancesFrom(maze, maze.target);
  const cells: Cell[] = [];
  for (const [row, line] of dist.entries())
    for (const [col, d] of line.entries()) if (d === length) cells.push({ row, col });
  if (!cells.length)
    throw new Error(
      `maze level ${level} has no floor cell ${length} moves from its destination (at most ${Math.max(...dist.flat())})`,
    );
  const start = pick(seededRng(mix(seed, length, level)), cells);
  return {
    rows: mazeRows({ ...maze, start }, start, { wall: '#', path: '.', ball: 'S', target: 'T' }),
    optimal: length,
  };
}

/**
 * The study's puzzle at one length, in the suite's level numbering: each of `levels` moved (the
 * others, never played, stay as they are, so a level too short for the length fails only when asked for).
 */
export function lengthStudySpec(length: number, seed: number, levels: number[]): PuzzleSpec<IngvpMazeLevel> {
  return {
    ...ingvpMazeSpec,
    levels: ingvpMazeSpec.levels.map((l, i) => (levels.includes(i + 1) ? lengthStudyLevel(i + 1, length, seed) : l)),
    completion: { kind: 'steps', per: Math.max(8, length) },
  };
}

/** The result rows' game of one length (the level runs' game stays ingvp-maze: the same window). */
export const lengthStudyId = (length: number) => `ingvp-maze-${length}`;

/** The study's puzzle at one length as a built-in game (its own window). */
export function lengthStudyGame(length: number, seed: number, levels: number[]): IngvpGame {
  const spec = lengthStudySpec(length, seed, levels);
  return { spec: spec as PuzzleSpec<never>, def: ingvpGame(spec, ingvpMazeGui, { width: 540, height: 600 }) };
}

/** One 32-bit seed from the study's seed, the length and the level. */
function mix(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) h = Math.imul(h ^ (p >>> 0), 0x01000193) ^ (h >>> 13);
  return h >>> 0;
}
