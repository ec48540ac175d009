/**
 * One ING-VP level in one setting, in the game's open window: load the level into the view,
 * ask, apply, record — the multi-step loop up to the step limit, or one plan replayed. Metrics
 * come from engine state only: solved, completion degree, and how many actions changed it.
 */
import type { BuiltinGame } from '../games/builtin-game.ts';
import type { ScreenCapturer } from '../capture/capturer.ts';
import { encodeFrame, type EncodeOptions, type EncodedFrame } from '../capture/encode.ts';
import { visiblePart } from '../input/coordinates.ts';
import type { WindowInfo } from '../../native/types.ts';
import type { RunStore } from '../store/run-store.ts';
import { PuzzleInstance } from '../../games/ingvp/definition.ts';
import { completionDegree, type Puzzle } from '../../games/ingvp/puzzle.ts';
import type { IngvpGame } from '../../games/ingvp/games.ts';
import { extractOutput } from './answer.ts';
import { bestOf, readPlan, type PlanCheck, type Sample } from './answer-checks.ts';
import type { Answer, HistoryLine, Player, Turn } from './players.ts';
import { INGVP_STEP_LIMIT, type SettingSpec } from './ingvp-settings.ts';
import { round2, type LevelScore } from '../domain.ts';

/** The window a level is shown in: the built-in game behind it, and where it is on the screen. */
export interface LevelView {
  game: BuiltinGame;
  locate(): Promise<WindowInfo>;
}

export interface LevelMetrics extends LevelScore {
  /** Answers from which no move could be read. */
  unparsable: number;
  /** One-step moves past the step limit, or after the level was solved: not played. */
  dropped: number;
  /** Best of N: model answers drawn in all (N a step). */
  samples?: number;
  /** Forced Planning: answers whose plan could be read, whose move was the plan's first, and whose plan solves from its state. */
  plans?: number;
  plans_followed?: number;
  plans_solving?: number;
}

/** One action and what it did, as the step record keeps it. */
interface Outcome {
  action: string;
  changed: boolean;
  error?: string;
}

export interface LevelRunDeps {
  view: LevelView;
  capturer: ScreenCapturer;
  encode: EncodeOptions;
  store: RunStore;
  player: Player;
  signal: AbortSignal;
  /** Each step as it is recorded (the live view). */
  onStep?: (s: {
    step: number;
    raw: string;
    outcomes: Outcome[];
    state: string;
    solved: boolean;
    /** The screenshot the model answered (image settings). */
    frame?: EncodedFrame;
  }) => void;
}

function instanceOf(game: BuiltinGame): PuzzleInstance {
  if (!(game.instance instanceof PuzzleInstance)) throw new Error(`${game.def.id} is not an ING-VP puzzle`);
  return game.instance;
}

/** The open window as the model sees it: the view showing the current state, captured and encoded. */
async function screenshot(deps: LevelRunDeps): Promise<{ frame: EncodedFrame; ms: number }> {
  const t0 = performance.now();
  // Drawn by the page and in the window's pixels (a window whose drawing is not seen in time is
  // captured as it is: the model sees what a person would).
  const shown = await deps.view.game.shows(5000, deps.signal);
  deps.signal.throwIfAborted();
  if (!shown.rendered) throw new Error('the game view did not draw the new state');
  const win = await deps.view.locate();
  const visible = visiblePart(win.bounds, await deps.capturer.screenBounds());
  if (!visible || win.minimized) throw new Error(`the ${deps.view.game.def.title} window is not on the screen`);
  const raw = await deps.capturer.grab(visible, { maxLongSide: deps.encode.imageSize });
  const frame = await encodeFrame(raw, deps.encode);
  return { frame, ms: performance.now() - t0 };
}

export async function playLevel(
  g: IngvpGame,
  setting: SettingSpec,
  level: number,
  deps: LevelRunDeps,
): Promise<LevelMetrics> {
  const { view, store, player, signal } = deps;
  const game = view.game;
  const load = () => {
    game.reset(level - 1, 0);
    return instanceOf(game).puzzle;
  };
  let puzzle: Puzzle = load();
  const spec = g.spec;
  const undo = setting.history && !setting.oneStep && spec.undo;
  /** The changing moves that lead to the state after each step (index 0: the start). */
  const paths: string[][] = [[]];
  const history: HistoryLine[] = [];
  const m: LevelMetrics = {
    solved: false,
    completion: 0,
    efficiency: 0,
    actions: 0,
    changed: 0,
    steps: 0,
    unparsable: 0,
    dropped: 0,
    ...(setting.samples > 1 ? { samples: 0 } : {}),
    ...(setting.forcedPlan ? { plans: 0, plans_followed: 0, plans_solving: 0 } : {}),
  };
  /** The state after the latest step, rebuilt on a fresh engine: what the harness checks answers against. */
  const replica = (): Puzzle => {
    const p = spec.load(spec.levels[level - 1] as never);
    for (const mv of paths.at(-1)!) p.apply(mv);
    return p;
  };
  const apply = (move: string): boolean => {
    const before = puzzle.key();
    game.applyMove(move);
    return puzzle.key() !== before;
  };

  while (!puzzle.solved() && m.steps < (setting.oneStep ? 1 : INGVP_STEP_LIMIT)) {
    signal.throwIfAborted();
    const t0 = performance.now();
    const tCapture = Date.now();
    const shot = setting.image ? await screenshot(deps) : undefined;
    const frameFile = shot
      ? store.writeFrame(0, m.steps, shot.frame.data, shot.frame.mime === 'image/png' ? 'png' : 'jpg')
      : null;
    const turn: Turn = {
      spec,
      setting,
      level,
      step: m.steps,
      puzzle,
      ...(shot ? { image: shot.frame } : {}),
      history,
      undo,
      key: `${spec.id}/${setting.id}/${level}`,
    };
    const tAsk = performance.now();
    let answer: Answer;
    let samples: Sample[] | undefined;
    if (setting.samples > 1) {
      const best = await bestOf(player, turn, setting.samples, signal, replica);
      ({ answer, samples } = best);
      m.samples! += samples.length;
    } else answer = await player.answer(turn, signal);
    const tAnswer = performance.now();
    const plan: PlanCheck | undefined = setting.forcedPlan ? readPlan(spec, answer.raw, replica()) : undefined;
    m.steps++;
    const outcomes: Outcome[] = [];
    const read = extractOutput(answer.raw);
    let output = read.ok ? JSON.stringify(read.value) : answer.raw.slice(0, 200);
    if (!read.ok) {
      outcomes.push({ action: '', changed: false, error: read.error });
    } else if (setting.oneStep) {
      const plan = spec.parsePlan(read.value);
      if (!plan?.length) outcomes.push({ action: output, changed: false, error: 'not a plan in this game’s format' });
      else
        for (const [i, move] of plan.entries()) {
          if (puzzle.solved() || i >= INGVP_STEP_LIMIT) {
            m.dropped = plan.length - i;
            break;
          }
          outcomes.push({ action: move, changed: apply(move) });
        }
    } else {
      const back = undo && typeof read.value === 'number' ? read.value : undefined;
      const move = back === undefined ? spec.parseStep(read.value) : undefined;
      if (back !== undefined) {
        if (!Number.isInteger(back) || back < 0 || back >= paths.length)
          outcomes.push({ action: `undo ${back}`, changed: false, error: `no step ${back} to go back to` });
        else {
          const before = puzzle.key();
          puzzle = load();
          for (const mv of paths[back]!) game.applyMove(mv);
          outcomes.push({ action: `undo ${back}`, changed: puzzle.key() !== before });
        }
      } else if (move === undefined)
        outcomes.push({ action: output, changed: false, error: 'not a move in this game’s format' });
      else outcomes.push({ action: move, changed: apply(move) });
      const last = outcomes[0]!;
      const prior = paths.at(-1)!;
      paths.push(
        last.action.startsWith('undo ') && last.changed
          ? [...paths[back!]!]
          : last.changed
            ? [...prior, last.action]
            : prior,
      );
    }
    if (plan) {
      const played = outcomes[0] && !outcomes[0].error ? outcomes[0].action : undefined;
      plan.followed = plan.moves && played !== undefined ? plan.moves[0] === played : null;
      if (plan.moves) m.plans!++;
      if (plan.followed) m.plans_followed!++;
      if (plan.solves) m.plans_solving!++;
    }
    if (!read.ok) output = '(no output)';
    m.actions += outcomes.length;
    m.changed += outcomes.filter((o) => o.changed).length;
    m.unparsable += outcomes.some((o) => o.error && !o.action.startsWith('undo')) ? 1 : 0;
    history.push({ step: m.steps, output, changed: outcomes.some((o) => o.changed) });
    const solved = puzzle.solved();
    store.appendStep({
      step: m.steps - 1,
      episode: 0,
      t_capture: tCapture,
      frame: frameFile,
      ...(shot ? { frame_size: { width: shot.frame.width, height: shot.frame.height, scale: shot.frame.scale } } : {}),
      reasoning: '',
      raw: answer.raw,
      actions: outcomes.map((o) => o.action),
      outcomes,
      errors: outcomes.flatMap((o) => (o.error ? [o.error] : [])),
      latency_ms: {
        locate: 0,
        capture: round2(shot?.ms ?? 0),
        encode: 0,
        model: round2(tAnswer - tAsk),
        act: round2(performance.now() - tAnswer),
        total: round2(performance.now() - t0),
      },
      ...(answer.tokens ? { tokens: answer.tokens } : {}),
      ...(answer.costUsd !== undefined ? { cost_usd: answer.costUsd } : {}),
      score: completionDegree(spec, puzzle),
      game_state: { ...puzzle.snapshot(), solved, key: puzzle.key() },
      ...(setting.oneStep && m.dropped ? { dropped_actions: m.dropped } : {}),
      ...(samples ? { samples } : {}),
      ...(plan ? { plan } : {}),
      ...(answer.prompt ? { prompt: answer.prompt } : {}),
    });
    deps.onStep?.({
      step: m.steps,
      raw: answer.raw,
      outcomes,
      state: puzzle.text(),
      solved,
      ...(shot ? { frame: shot.frame } : {}),
    });
  }
  m.solved = puzzle.solved();
  m.completion = completionDegree(spec, puzzle);
  m.efficiency = m.actions ? round2((m.changed / m.actions) * 100) : 0;
  return m;
}
