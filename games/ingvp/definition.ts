/**
 * An ING-VP puzzle as an ordinary built-in game: its view is a real window (the image settings
 * capture it; the suite loads each level into the open window), and `gamepilot run --game
 * sokoban --level 7` plays it in the GUI action space — the extra setting the paper does not have.
 * Seed + episode pick the level: seed s, episode e plays level ((s + e) mod 50) + 1.
 */
import type {
  ActionSpaceSpec,
  GameDefinition,
  GameInstance,
  HitRect,
  MoveInputs,
  MoveResult,
  ViewInput,
  WindowGesture,
} from '../types.ts';
import { completionDegree, completionScoring, type Puzzle, type PuzzleSpec } from './puzzle.ts';

/** The authors' code's step limit (`MAX_STEPS = 50`); the paper leaves it open. */
export const INGVP_MAX_STEPS = 50;

/** How a person plays the puzzle in its window. `selection` is a cell or rod picked by a first click. */
export interface PuzzleGui {
  controls: string;
  semanticControls: string;
  moveInputs?: MoveInputs;
  /** At most one move per step (the paper's multi-step setting: one instruction per round). */
  oneMovePerStep: boolean;
  actionSpace: ActionSpaceSpec['gui'];
  /** Window input → a move, and the selection after it. */
  handle(input: ViewInput, selection: string | null): { move?: string; selection: string | null };
  /** The next gesture towards `move`, given what is selected now. */
  gesture(move: string, hits: HitRect[], selection: string | null): WindowGesture | undefined;
}

const ARROW_MOVES: Record<string, string> = { ArrowLeft: 'L', ArrowRight: 'R', ArrowUp: 'U', ArrowDown: 'D' };
const ARROW_KEYS: Record<string, string> = { L: 'left', R: 'right', U: 'up', D: 'down' };

/** The GUI of a puzzle played with the arrow keys: one press, one move "L", "R", "U" or "D". */
export function arrowKeyGui(controls: string): PuzzleGui {
  return {
    controls,
    semanticControls: 'Name one move: "L", "R", "U" or "D" (left, right, up, down). One move per step.',
    moveInputs: { keys: ['left', 'right', 'up', 'down'] },
    oneMovePerStep: true,
    actionSpace: { press: ['left', 'right', 'up', 'down'] },
    handle: (input, selection) => ({
      ...(input.type === 'key' && ARROW_MOVES[input.key] ? { move: ARROW_MOVES[input.key] } : {}),
      selection,
    }),
    gesture: (move) => (ARROW_KEYS[move] ? { type: 'key', key: ARROW_KEYS[move]! } : undefined),
  };
}

/** The level a seed and an episode play (0-based index). */
export function levelIndex(count: number, seed: number, episode: number): number {
  return (((seed + episode) % count) + count) % count;
}

/** The centre of a hit rectangle as a click. */
export function clickOn(hits: HitRect[], id: string): WindowGesture | undefined {
  const h = hits.find((x) => x.id === id);
  return h ? { type: 'click', x: Math.round(h.x + h.width / 2), y: Math.round(h.y + h.height / 2) } : undefined;
}

export function ingvpGame<L>(spec: PuzzleSpec<L>, gui: PuzzleGui, viewSize: { width: number; height: number }) {
  const p = spec.prompt;
  const def: GameDefinition = {
    id: spec.id,
    title: spec.title,
    task: `${p.goal} The level ends when it is solved or after ${INGVP_MAX_STEPS} steps.`,
    rules: `${p.rules} ${p.imageLegend}`,
    controls: { gui: gui.controls, semantic: gui.semanticControls },
    parseMove(move) {
      const m = parseSemantic(spec, move);
      return m === undefined ? { ok: false, error: `"${move}" is not a move of ${spec.title}` } : { ok: true, move: m };
    },
    viewSize,
    defaultMaxSteps: INGVP_MAX_STEPS,
    trials: 1,
    ...(gui.oneMovePerStep ? { maxActionsPerStep: 1 } : {}),
    ...(gui.moveInputs ? { moveInputs: gui.moveInputs } : {}),
    actionSpace: { semantic: spec.actionSpace(), gui: gui.actionSpace },
    create: ({ seed, episode }) => {
      const index = levelIndex(spec.levels.length, seed, episode);
      return new PuzzleInstance(spec, gui, index + 1, spec.load(spec.levels[index]!));
    },
  };
  return def;
}

/** A semantic move as text: the canonical form, or the answer format's JSON written as text. */
export function parseSemantic(spec: Pick<PuzzleSpec, 'parseStep'>, move: string): string | undefined {
  const direct = spec.parseStep(move);
  if (direct !== undefined) return direct;
  try {
    return spec.parseStep(JSON.parse(move));
  } catch {
    return undefined;
  }
}

/** One level in play; the suite reads its puzzle for the metrics. */
export class PuzzleInstance implements GameInstance {
  private selection: string | null = null;
  private moves = 0;
  private changedMoves = 0;
  private last: { move: string; changed: boolean } | null = null;

  constructor(
    readonly spec: PuzzleSpec<never> | PuzzleSpec,
    private readonly gui: PuzzleGui,
    readonly level: number,
    readonly puzzle: Puzzle,
  ) {}

  applyMove(move: string): MoveResult {
    if (this.puzzle.solved()) return { ok: false, error: 'the level is solved' };
    const m = parseSemantic(this.spec, move);
    if (m === undefined) return { ok: false, error: `"${move}" is not a move of ${this.spec.title}` };
    const changed = this.puzzle.apply(m);
    this.moves++;
    if (changed) this.changedMoves++;
    this.last = { move: m, changed };
    this.selection = null;
    return { ok: true };
  }

  handleInput(input: ViewInput): MoveResult {
    if (this.puzzle.solved()) return { ok: true };
    const r = this.gui.handle(input, this.selection);
    this.selection = r.selection;
    return r.move === undefined ? { ok: true } : this.applyMove(r.move);
  }

  validMoves() {
    return this.puzzle.solved() ? [] : [...this.spec.actionSpace()];
  }

  isOver() {
    return this.puzzle.solved();
  }

  scoring() {
    return completionScoring(this.spec, this.puzzle);
  }

  score() {
    return completionDegree(this.spec, this.puzzle);
  }

  status() {
    if (this.puzzle.solved()) return `Level ${this.level} solved in ${this.moves} moves.`;
    const last = this.last ? ` Last move ${this.last.move}${this.last.changed ? '' : ': it changed nothing'}.` : '';
    return `Level ${this.level}: ${this.moves} moves, ${this.changedMoves} of them changed the state.${last}`;
  }

  text() {
    return this.puzzle.text();
  }

  html() {
    return this.puzzle.html(this.selection);
  }

  snapshot() {
    return { level: this.level, ...this.puzzle.snapshot(), solved: this.puzzle.solved(), selection: this.selection };
  }

  solverMove() {
    return this.puzzle.solution()[0] ?? this.spec.actionSpace()[0]!;
  }

  gestureFor(move: string, hits: HitRect[]) {
    const m = parseSemantic(this.spec, move);
    return m === undefined ? undefined : this.gui.gesture(m, hits, this.selection);
  }
}
