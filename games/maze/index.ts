/**
 * Maze (GameVerse D.4, Fig. 25): move a blue ball through a black-and-white maze to a red target,
 * one cell per arrow key; a move into a wall or off the maze leaves the ball where it is. 20 steps
 * an episode, one move a step, 10 trials; scored by the distance left (./score.ts). The paper
 * leaves the maze's size and generation open: the defaults follow the authors' public code
 * (docs/fidelity.md, "GameVerse — games, trials and scores").
 */
import type { GameDefinition, GameInstance, HitRect, MoveResult, ViewInput } from '../types.ts';
import {
  ARROW_KEY_DIRECTIONS,
  DIRECTIONS,
  directionKeyInput,
  parseDirection,
  type Direction,
} from '../shared/direction.ts';
import {
  distancesFrom,
  generateMaze,
  mazeRows,
  moveFrom,
  sameCell,
  shortestPathMove,
  type Cell,
  type Maze,
  type MazeSettings,
} from './engine.ts';
import { gameVerseMazeScore, mazeRule } from './score.ts';
import { mazeHtml } from './view.ts';

/** Side of GameVerse's maze in cells: the authors' `size: 4` (the paper leaves `maze_size` open). */
export const MAZE_SIZE = 4;

/**
 * GameVerse's generation, after the authors' code: depth-first carving, then walls until more
 * than half the cells are black, then a start and a target more than size + 2 moves apart when
 * the maze allows it (else as far apart as it allows).
 */
export const GAMEVERSE_MAZE: MazeSettings = { size: MAZE_SIZE, wallShareAbove: 0.5, minDistance: MAZE_SIZE + 3 };

export const TEXT_SYMBOLS = { wall: '#', path: '.', ball: 'B', target: 'T' };

export const maze: GameDefinition = {
  id: 'maze',
  title: 'Maze',
  task: 'Reach the red target with the blue ball. The episode ends after 20 steps; the closer the ball ends to the target, the better.',
  rules:
    `A ${MAZE_SIZE}×${MAZE_SIZE} maze drawn in black and white, without grid lines: black cells are walls and cannot be entered, ` +
    'white cells are open path. You move the blue ball; the red circle is the target, placed at random. ' +
    'The ball moves one cell up, down, left or right per move — never diagonally — and only onto white cells: ' +
    'a move into a wall or off the maze does nothing and the ball stays where it is. ' +
    'Work out the shortest route along the white cells from the ball to the target and follow it. ' +
    'Reaching the target scores 100; otherwise the score is the share of the starting distance (counted in moves along the paths) you have covered.',
  controls: {
    gui: 'Press one arrow key with PRESS, e.g. [{"action_type":"PRESS","parameters":{"key":"down"}}]: the ball moves one cell that way. One move per step: further moves in the same answer are not carried out.',
    semantic:
      'Name one direction: "up", "down", "left" or "right"; the ball moves one cell that way. One move per step: further moves in the same answer are not carried out.',
  },
  parseMove: parseDirection,
  viewSize: { width: 520, height: 600 },
  trials: 10,
  defaultMaxSteps: 20,
  maxActionsPerStep: 1,
  moveInputs: { keys: DIRECTIONS },
  actionSpace: { semantic: DIRECTIONS, gui: { press: DIRECTIONS } },
  create: ({ rng }) => new MazeGame(generateMaze(GAMEVERSE_MAZE, rng)),
  variants: [
    {
      id: 'wide-6',
      description:
        'a 6×6 maze (the game: 4×4) with the target at least 9 moves away: longer routes in the same 20 steps',
      rules: 'the maze is 6×6 cells instead of 4×4.',
      create: ({ rng }) => new MazeGame(generateMaze({ size: 6, wallShareAbove: 0.5, minDistance: 9 }, rng)),
    },
    {
      id: 'carved-only',
      description:
        'the carved 5×5 maze without the extra walls (the game fills until half is wall): corridors with dead ends, no open blocks',
      rules: 'the maze is 5×5 cells instead of 4×4, a winding corridor maze.',
      create: ({ rng }) => new MazeGame(generateMaze({ size: 5, minDistance: 6 }, rng)),
    },
    {
      id: 'near-target',
      description:
        'a 5×5 maze with the target 2–4 moves away (the game: as far as possible): a short route among many walls',
      rules: 'the maze is 5×5 cells instead of 4×4, and the target is close to the ball.',
      create: ({ rng }) =>
        new MazeGame(generateMaze({ size: 5, wallShareAbove: 0.5, minDistance: 2, maxDistance: 4 }, rng)),
    },
  ],
};

/** One episode: the ball on a fixed maze, scored as GameVerse scores it. */
export class MazeGame implements GameInstance {
  private ball: Cell;
  private readonly toTarget: number[][];
  /** Shortest-path moves from the start to the target (the paper's D_begin). */
  readonly dBegin: number;
  private moves = 0;
  private blocked = 0;
  private last: { move: Direction; blocked: boolean } | null = null;

  constructor(readonly maze: Maze) {
    this.ball = { ...maze.start };
    this.toTarget = distancesFrom(maze, maze.target);
    this.dBegin = this.distance();
    if (!(this.dBegin > 0)) throw new Error('the maze’s target cannot be reached from its start');
  }

  /** Shortest-path moves from the ball to the target (the paper's D at this moment). */
  distance(): number {
    return this.toTarget[this.ball.row]![this.ball.col]!;
  }

  applyMove(move: string): MoveResult {
    if (this.isOver()) return { ok: false, error: 'the game is over' };
    const parsed = parseDirection(move);
    if (!parsed.ok) return parsed;
    const next = moveFrom(this.maze, this.ball, parsed.move);
    this.moves++;
    this.last = { move: parsed.move, blocked: !next };
    // A blocked move is a legal move that does nothing (the paper: "the ball stays in place").
    if (next) this.ball = next;
    else this.blocked++;
    return { ok: true };
  }

  handleInput(input: ViewInput): MoveResult {
    return directionKeyInput(input, ARROW_KEY_DIRECTIONS, (d) => this.applyMove(d));
  }

  validMoves() {
    return this.isOver() ? [] : [...DIRECTIONS];
  }

  isOver() {
    return sameCell(this.ball, this.maze.target);
  }

  scoring() {
    return { rule: mazeRule(this.dBegin), value: this.distance() };
  }

  score() {
    return gameVerseMazeScore(this.dBegin, this.distance());
  }

  status() {
    if (this.isOver()) return `Target reached in ${this.moves} moves.`;
    const last = this.last
      ? ` Last move ${this.last.move}${this.last.blocked ? ': blocked, the ball stayed' : ''}.`
      : '';
    return `${this.distance()} moves from the target (${this.dBegin} at the start).${last}`;
  }

  text() {
    return [
      ...mazeRows(this.maze, this.ball, TEXT_SYMBOLS),
      `${TEXT_SYMBOLS.wall} wall, ${TEXT_SYMBOLS.path} path, ${TEXT_SYMBOLS.ball} ball, ${TEXT_SYMBOLS.target} target. ${this.status()}`,
    ].join('\n');
  }

  html() {
    return mazeHtml(this.maze, this.ball, {
      info: `Moves: ${this.moves}`,
      hint: this.isOver() ? 'Target reached.' : 'Arrow keys move the blue ball.',
    });
  }

  snapshot() {
    return {
      size: this.maze.size,
      rows: mazeRows(this.maze, this.ball, TEXT_SYMBOLS),
      start: { ...this.maze.start },
      target: { ...this.maze.target },
      ball: { ...this.ball },
      d_begin: this.dBegin,
      distance: this.distance(),
      moves: this.moves,
      blocked: this.blocked,
      reached: this.isOver(),
    };
  }

  /** The next move of a shortest path (breadth-first search from the target). */
  solverMove() {
    return shortestPathMove(this.maze, this.ball) ?? 'up';
  }

  gestureFor(move: string, _hits: HitRect[]) {
    const parsed = parseDirection(move);
    return parsed.ok ? { type: 'key' as const, key: parsed.move } : undefined;
  }
}
