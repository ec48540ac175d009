/** ING-VP's six puzzles in the paper's order: each a suite puzzle (spec) and a built-in game (def). */
import type { GameDefinition } from '../types.ts';
import type { PuzzleSpec } from './puzzle.ts';
import { sokoban, sokobanSpec } from '../sokoban/index.ts';
import { ingvpMaze, ingvpMazeSpec } from '../ingvp-maze/index.ts';
import { queens, queensSpec } from '../queens/index.ts';
import { sudoku, sudokuSpec } from '../sudoku/index.ts';
import { hanoi, hanoiSpec } from '../hanoi/index.ts';
import { fifteen, fifteenSpec } from '../fifteen/index.ts';

export interface IngvpGame {
  spec: PuzzleSpec<never>;
  def: GameDefinition;
}

const entry = <L>(spec: PuzzleSpec<L>, def: GameDefinition): IngvpGame => ({ spec: spec as PuzzleSpec<never>, def });

export const INGVP_GAMES: readonly IngvpGame[] = [
  entry(sokobanSpec, sokoban),
  entry(ingvpMazeSpec, ingvpMaze),
  entry(queensSpec, queens),
  entry(sudokuSpec, sudoku),
  entry(hanoiSpec, hanoi),
  entry(fifteenSpec, fifteen),
];

export const INGVP_GAME_IDS = INGVP_GAMES.map((g) => g.def.id);

export function ingvpGame(id: string): IngvpGame | undefined {
  return INGVP_GAMES.find((g) => g.def.id === id);
}
