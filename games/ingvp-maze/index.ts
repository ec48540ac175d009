/**
 * ING-VP's maze (App. B): move the red square to the green one on an 11×11 grid, L/R/U/D, a move
 * into a wall changing nothing. The same engine as GameVerse's Maze (games/maze/engine.ts: DFS
 * carving, BFS distances); the levels, drawing, text and scoring are ING-VP's. Text rendering as
 * the authors': 'S' current position, 'X' destination, '+' wall, ' ' floor.
 */
import type { Direction } from '../shared/direction.ts';
import { distancesFrom, mazeRows, moveFrom, parseMaze, sameCell, type Cell, type Maze } from '../maze/engine.ts';
import { arrowKeyGui, ingvpGame, type PuzzleGui } from '../ingvp/definition.ts';
import { frameHtml, parseDirectionPlan, parseLetterDirection, type Puzzle, type PuzzleSpec } from '../ingvp/puzzle.ts';
import levels from './levels/levels.json' with { type: 'json' };

export interface IngvpMazeLevel {
  /** games/maze/engine.ts parseMaze rows: '#' wall, '.' path, 'S' start, 'T' target. */
  rows: string[];
  optimal: number;
}

const DIR: Record<string, Direction> = { L: 'left', R: 'right', U: 'up', D: 'down' };
export const TEXT = { wall: '+', path: ' ', ball: 'S', target: 'X' };

export class IngvpMazePuzzle implements Puzzle {
  private at: Cell;
  private readonly toTarget: number[][];

  constructor(readonly maze: Maze) {
    this.at = { ...maze.start };
    this.toTarget = distancesFrom(maze, maze.target);
  }

  apply(move: string): boolean {
    const dir = DIR[move];
    const next = dir ? moveFrom(this.maze, this.at, dir) : null;
    if (!next) return false;
    this.at = next;
    return true;
  }

  solved() {
    return sameCell(this.at, this.maze.target);
  }

  remaining(bound: number) {
    const d = this.toTarget[this.at.row]![this.at.col]!;
    return d < 0 || d > bound ? Number.POSITIVE_INFINITY : d;
  }

  solution() {
    const plan: string[] = [];
    let at = this.at;
    for (let d = this.toTarget[at.row]![at.col]!; d > 0; d--) {
      const move = Object.keys(DIR).find((m) => {
        const n = moveFrom(this.maze, at, DIR[m]!);
        return n && this.toTarget[n.row]![n.col] === d - 1;
      })!;
      plan.push(move);
      at = moveFrom(this.maze, at, DIR[move]!)!;
    }
    return plan;
  }

  text() {
    return mazeRows(this.maze, this.at, TEXT).join('\n');
  }

  key() {
    return `${this.at.row},${this.at.col}`;
  }

  snapshot() {
    return { rows: mazeRows(this.maze, this.at, TEXT), at: { ...this.at }, target: { ...this.maze.target } };
  }

  html() {
    const n = this.maze.size;
    const px = Math.floor(440 / n);
    const cells: string[] = [];
    for (let row = 0; row < n; row++)
      for (let col = 0; col < n; col++) {
        const here = { row, col };
        const cls = sameCell(here, this.at)
          ? 'me'
          : sameCell(here, this.maze.target)
            ? 'goal'
            : this.maze.open[row]![col]
              ? 'path'
              : 'wall';
        cells.push(`<div class="${cls}"></div>`);
      }
    return frameHtml(
      'Maze',
      'Move the red square to the green square.',
      `<div class="board" data-hit="board">${cells.join('')}</div>`,
      this.solved() ? 'Solved.' : 'Arrow keys move the red square.',
      `.board{display:grid;grid-template-columns:repeat(${n},${px}px);grid-template-rows:repeat(${n},${px}px);gap:1px;background:#9aa3ad;border:6px solid #5b6470}
       .wall{background:#000}.path{background:#fff}.me{background:#e02424}.goal{background:#1fa34a}`,
    );
  }
}

export const ingvpMazeSpec: PuzzleSpec<IngvpMazeLevel> = {
  id: 'ingvp-maze',
  title: 'Maze (ING-VP)',
  levels: levels as IngvpMazeLevel[],
  load: (level) => new IngvpMazePuzzle(parseMaze(level.rows)),
  optimal: (level) => level.optimal,
  parseStep: parseLetterDirection,
  parsePlan: parseDirectionPlan,
  formatStep: (m) => m,
  formatPlan: (ms) => ms.join(''),
  actionSpace: () => Object.keys(DIR),
  undo: false,
  completion: { kind: 'steps' },
  prompt: {
    goal: 'Move the red square to the green square.',
    rules:
      'The maze is an 11×11 grid. Each move takes the red square one cell left, right, up or down; ' +
      'it cannot enter a wall or leave the grid, and such a move changes nothing.',
    imageLegend:
      'In the picture: red is where you are, green is the destination, black cells are walls, white cells are floor.',
    textLegend:
      "In the text: 'S' is where you are, 'X' the destination, '+' a wall, ' ' floor. The first line is the top row.",
    stepFormat: 'One move: {"output": "L"} — "L" left, "R" right, "U" up, "D" down.',
    planFormat:
      'All moves in order as one string: {"output": "DDRRULL"} means two cells down, two right, one up, two left.',
  },
};

export const ingvpMazeGui: PuzzleGui = arrowKeyGui(
  'Press one arrow key with PRESS, e.g. [{"action_type":"PRESS","parameters":{"key":"down"}}]: the red square moves one cell that way. One move per step.',
);

export const ingvpMaze = ingvpGame(ingvpMazeSpec, ingvpMazeGui, { width: 540, height: 600 });
