/**
 * What a built-in game provides to the harness. The engine runs in the core (ground truth,
 * semantic moves, exact scores); the view is HTML rendered into a real window that is
 * captured and driven by real OS input like any other game.
 */
import type { Rng } from './shared/rng.ts';
import type { GameScoring } from './shared/score-rule.ts';
import type { LatencyMode } from '../electron/domain.ts';

/** A rectangle of an interactive element in the view, in window pixels. */
export interface HitRect {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Input the view forwards to the engine: what a person (or injected OS input) did. */
export type ViewInput = { type: 'key'; key: string } | { type: 'click'; hit: string | null };

export type MoveResult = { ok: true } | { ok: false; error: string };

/** A GUI gesture that performs a semantic move, in window pixels (the solver's hands). */
export type WindowGesture = { type: 'click'; x: number; y: number } | { type: 'key'; key: string };

export interface GameInstance {
  /** Applies a move from the semantic action space. Invalid moves follow the game's rules. */
  applyMove(move: string): MoveResult;
  /** Applies input that arrived through the real window. */
  handleInput(input: ViewInput): MoveResult;
  validMoves(): string[];
  isOver(): boolean;
  /** Score on the game's 0–100 scale as defined by the benchmark. */
  score(): number;
  /**
   * A one-seat game's own number (what its window shows: 2048's score, food eaten) and the rule
   * `score()` applies to it (shared/score-rule.ts). Two-seat games score by seat instead.
   */
  scoring?(): GameScoring;
  /** Text rendering of the state (for text-modality prompts and logs). */
  text(): string;
  /** HTML for the view; elements with `data-hit` report their rectangles back. */
  html(): string;
  /** A short status line for people and logs. */
  status(): string;
  /** Ground truth for tests and records. */
  snapshot(): unknown;
  /** The solver baseline's choice. */
  solverMove(): string;
  /** How a person would perform `move` in the window, given the view's hit rectangles. */
  gestureFor(move: string, hits: HitRect[]): WindowGesture | undefined;
  /** Real-time games: one tick of the game's own clock (the harness owns the clock). Returns true if the state changed. */
  tick?(): boolean;
  /** Real-time games: ticks without an action before the game moves by itself (null: never). */
  setIdleLimit?(ticks: number | null): void;
}

/** The world-clock settings a real-time game wants per latency mode. */
export interface RealtimeSpec {
  /** Length of one engine tick (ms). */
  tickMs: number;
  /**
   * Ticks without an action before the game advances by itself, per latency mode (null: never).
   * A person playing (a human baseline) gets the `normal` limit, as an agent in normal mode does.
   */
  idleLimit: Record<LatencyMode, number | null>;
  /**
   * Modes the game realises through its idle limit alone, as its paper defines them (GameVerse's
   * Snake: slow = a 20 s time-out): the harness does not also freeze the clock in these modes.
   */
  idleOnlyModes?: LatencyMode[];
}

/**
 * What makes a move in the game's window, for the per-step move cap: presses of these keys
 * (names as models write them: "up", "w"), or any left click in the view.
 */
export type MoveInputs = { keys: readonly string[] } | { click: true };

/**
 * The action space the game's prompt defines, as the random baseline samples it ("selects valid
 * actions uniformly at random", GameVerse §4.1): every well-formed action, legal in the current
 * position or not — the rules judge it, as they judge a model's.
 */
export interface ActionSpaceSpec {
  /** Every semantic move the format allows (e.g. all nine cells A1…C3, taken or not). */
  semantic: readonly string[];
  /** GUI: a PRESS of one of these keys, or a left CLICK at any pixel of the window. */
  gui: { press: readonly string[] } | { click: 'anywhere' };
}

/** A seat of a two-seat game: 0 is player 1 (moves first, X, blue), 1 is player 2. */
export type Seat = 0 | 1;
export const SEATS: readonly Seat[] = [0, 1];

/**
 * OmniGameArena's multi-agent settings: two seats in one world, against each other (PvP) or
 * together (co-op). Each seat has its own agent, prompt, keys and record; the world is one.
 */
export interface SeatsSpec {
  mode: 'pvp' | 'coop';
  /** alternate: one seat acts at a time (seatsToAct names it); simultaneous: both on the one clock. */
  turns: 'alternate' | 'simultaneous';
  /** What each seat is called in prompts, records and the UI (X/O, Blue/Orange). */
  names: readonly [string, string];
  /** Who each seat is and what it wants, for its prompt (the game's rules are shared). */
  roles: readonly [string, string];
  /**
   * The keys each seat owns in the GUI space, as in local two-player games (WASD and the arrows).
   * A seat's key the other seat presses is refused before it is sent. Unset: the seats act by
   * clicking, one at a time.
   */
  keys?: readonly [readonly string[], readonly string[]];
}

/** The engine of a two-seat game: the one world both seats act in. */
export interface SeatedInstance extends GameInstance {
  /** The seats that must act now: one in a turn-based game, both in a real-time one, none once over. */
  seatsToAct(): Seat[];
  /** A seat's semantic move; a move out of turn or against the rules follows the game's rules. */
  applySeatMove(seat: Seat, move: string): MoveResult;
  /**
   * Who the window's next clicks come from (the harness says, as it sends a seat's actions);
   * keys belong to a seat by the game's key map whatever this says. Null: nobody (clicks are ignored).
   */
  setActingSeat(seat: Seat | null): void;
  seatValidMoves(seat: Seat): string[];
  /** The seat's solver baseline. */
  seatSolverMove(seat: Seat): string;
  /** A seat's score on 0–100: PvP 100 win, 50 draw, 0 loss (once over); co-op the team score for both. */
  seatScore(seat: Seat): number;
  /** PvP once over: the winning seat, or null for a draw; undefined while playing (and in co-op). */
  winner(): Seat | null | undefined;
  /** The state as this seat's prompt tells it (its own side first). */
  seatStatus(seat: Seat): string;
  /** How this seat would perform `move` in the window (its own keys); unset: `gestureFor`. */
  seatGestureFor?(seat: Seat, move: string, hits: HitRect[]): WindowGesture | undefined;
}

export function isSeated(i: GameInstance): i is SeatedInstance {
  return typeof (i as Partial<SeatedInstance>).seatsToAct === 'function';
}

export interface GameDefinition {
  id: string;
  title: string;
  /** Rules and goal, written for the model's system prompt. */
  rules: string;
  /** The target task in one or two sentences (the "Target task" of every step's message). */
  task?: string;
  /** How to act in each action space, for the prompt. */
  controls: { gui: string; semantic: string };
  /** The game's semantic move syntax: canonical form or a reason. */
  parseMove(move: string): { ok: true; move: string } | { ok: false; error: string };
  /** Preferred view size in CSS pixels. */
  viewSize: { width: number; height: number };
  /** Step budget of an episode (a step = one decision of the agent), as the paper sets it. */
  defaultMaxSteps: number;
  /** Episodes of one evaluation (agents) and trials per round (people), as the paper sets them. */
  trials: number;
  /**
   * Moves one step may make (GameVerse: one for 2048, Tic-Tac-Toe and Snake). Moves beyond it in
   * an answer are dropped, not executed, and recorded as `dropped_actions`. Unset: no limit.
   */
  maxActionsPerStep?: number;
  /** Which window input is a move, for maxActionsPerStep. */
  moveInputs?: MoveInputs;
  /** The prompt's action space, for the random baseline. */
  actionSpace: ActionSpaceSpec;
  /** Present for real-time games. */
  realtime?: RealtimeSpec;
  /**
   * Window-manager or system key combinations this game really needs (e.g. ['alt+enter'] is
   * fine anyway, ['alt+f4'] is not): everything else of that kind is refused to the model.
   */
  allowedHotkeys?: string[];
  /** Present for two-seat games: their instances are SeatedInstances. */
  seats?: SeatsSpec;
  create(opts: { seed: number; episode: number; rng: Rng }): GameInstance;
  /**
   * Held-out variants for OmniGameArena's transfer test (its Table 5): each changes the game in
   * a way a learned skill must cope with, not only the seed. See `variantOf`.
   */
  variants?: readonly GameVariant[];
}

/** A designed variant of a built-in game: its own engine rule, told to the model in the rules. */
export interface GameVariant {
  id: string;
  /** What differs from the game, in a sentence (the report and the docs show it). */
  description: string;
  /** Appended to the game's rules, so the model plays the variant it is shown. */
  rules: string;
  create: GameDefinition['create'];
}

/** The game as one of its variants plays: the same id and window, the variant's engine and rules. */
export function variantOf(def: GameDefinition, id: string): GameDefinition {
  const v = def.variants?.find((x) => x.id === id);
  if (!v)
    throw new Error(
      `${def.id} has no variant "${id}"${def.variants?.length ? ` (it has ${def.variants.map((x) => x.id).join(', ')})` : ''}`,
    );
  return { ...def, rules: `${def.rules} Variant — ${v.rules}`, create: v.create, variants: [] };
}
