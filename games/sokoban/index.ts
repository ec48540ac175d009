/** ING-VP Sokoban as a built-in game and a suite puzzle (levels: scripts/ingvp-levels.ts). */
import { arrowKeyGui, ingvpGame, type PuzzleGui } from '../ingvp/definition.ts';
import { parseDirectionPlan, parseLetterDirection, type PuzzleSpec } from '../ingvp/puzzle.ts';
import { SOKOBAN_MOVES, SokobanBoard, SokobanPuzzle, type SokobanLevel } from './engine.ts';
import levels from './levels/levels.json' with { type: 'json' };

export const sokobanSpec: PuzzleSpec<SokobanLevel> = {
  id: 'sokoban',
  title: 'Sokoban',
  levels: levels as SokobanLevel[],
  load: (level) => new SokobanPuzzle(new SokobanBoard(level.rows)),
  optimal: (level) => level.optimal,
  parseStep: parseLetterDirection,
  parsePlan: parseDirectionPlan,
  formatStep: (m) => m,
  formatPlan: (ms) => ms.join(''),
  actionSpace: () => SOKOBAN_MOVES,
  undo: true,
  completion: { kind: 'steps' },
  prompt: {
    goal: 'Push every box onto a dock (a storage place).',
    rules:
      'You control the worker in a warehouse seen from above and move it one cell up, down, left or right per move. ' +
      'Walking into a box pushes it one cell the same way. You can push only one box at a time and never pull one; ' +
      'a box cannot be pushed into a wall or into another box, and the worker cannot walk through walls or boxes. ' +
      'A move that is blocked changes nothing.',
    imageLegend:
      'In the picture: dark brown cells are walls, light cells are floor, a cell with a dashed outline is a dock, ' +
      'a brown box stands on the floor, a yellow box stands on a dock (it can still be pushed), the blue disc is the worker.',
    textLegend:
      "In the text: '#' wall, ' ' floor, '.' dock, '$' box, '*' box on a dock, '@' worker, '+' worker on a dock. " +
      'The first line is the top row.',
    stepFormat: 'One move: {"output": "L"} — "L" left, "R" right, "U" up, "D" down.',
    planFormat: 'All moves in order as one string: {"output": "LLURD"} — "L" left, "R" right, "U" up, "D" down.',
    undo: 'If you are stuck in a state you cannot recover from, go back to the state after an earlier step with {"output": N}, N being that step\'s number (0: the start).',
  },
};

export const sokobanGui: PuzzleGui = arrowKeyGui(
  'Press one arrow key with PRESS, e.g. [{"action_type":"PRESS","parameters":{"key":"left"}}]: the worker moves (and pushes) one cell that way. One move per step.',
);

export const sokoban = ingvpGame(sokobanSpec, sokobanGui, { width: 560, height: 620 });
