/**
 * Who answers an ING-VP level: a model (any OpenAI-compatible endpoint, through the shared
 * ModelClient with its limits and retries), the solver, or uniformly random moves. All three
 * answer in the paper's `{"output": …}` text, so one parser reads every answer.
 */
import path from 'node:path';
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { EncodedFrame } from '../capture/encode.ts';
import { CallLedger, ModelClient, type ModelClientSettings } from '../agents/model-client.ts';
import { costOf, priceFor } from '../agents/pricing.ts';
import { fill, loadTemplate, promptsDir } from '../agents/prompts.ts';
import { seededRng, type Rng } from '../../games/shared/rng.ts';
import { randomOf, type Puzzle, type PuzzleSpec } from '../../games/ingvp/puzzle.ts';
import type { SettingSpec } from './ingvp-settings.ts';
import { extractOutput } from './answer.ts';

/** One earlier step as the with-history prompt shows it: the model's own output and what came of it. */
export interface HistoryLine {
  step: number;
  output: string;
  changed: boolean;
}

export interface Turn {
  spec: PuzzleSpec<never>;
  setting: SettingSpec;
  /** The level, 1–50. */
  level: number;
  /** Steps taken so far (0 before the first). */
  step: number;
  /** The level's state: the text setting's input, and the baselines' ground truth. */
  puzzle: Puzzle;
  /** The window's screenshot (image settings). */
  image?: EncodedFrame;
  history: HistoryLine[];
  /** Undo is offered (with history, in Sokoban, Sudoku and 8-Queens). */
  undo: boolean;
  /** Identifies the level and setting (seeds the random player). */
  key: string;
  /** Which of the step's Best-of-N answers this is (0-based; absent when one answer is drawn). */
  sample?: number;
}

export interface Answer {
  raw: string;
  tokens?: { input: number; output: number };
  costUsd?: number | null;
  /** The prompt as sent, for the record (images replaced by their size). */
  prompt?: unknown;
}

export interface Player {
  readonly name: 'vlm' | 'solver' | 'random';
  readonly model: string | null;
  /** A model asked to think before its answer (the paper asks for the answer only); false for the baselines. */
  readonly thinking: boolean;
  answer(turn: Turn, signal: AbortSignal): Promise<Answer>;
}

/** The model call failed after its retries: the suite stops here (the level is not counted) rather than score a dead endpoint. */
export class ModelUnavailableError extends Error {}

export class SolverPlayer implements Player {
  readonly name = 'solver';
  readonly model = null;
  readonly thinking = false;

  async answer(turn: Turn): Promise<Answer> {
    const plan = turn.puzzle.solution();
    if (turn.setting.oneStep) return { raw: JSON.stringify({ output: turn.spec.formatPlan(plan) }) };
    return planned(turn, plan, plan[0] ?? '');
  }
}

/** Random plans are as long as the levels' bound (8 moves); each move uniform over the answer format's action space. */
export const RANDOM_PLAN_LENGTH = 8;

export class RandomPlayer implements Player {
  readonly name = 'random';
  readonly model = null;
  readonly thinking = false;
  private rngs = new Map<string, Rng>();

  constructor(private readonly seed = 0) {}

  /** One generator per level and setting, so a resumed suite draws the same moves. */
  private rng(key: string): Rng {
    let r = this.rngs.get(key);
    if (!r) {
      let h = this.seed ^ 0x9e3779b9;
      for (const ch of key) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
      r = seededRng(h >>> 0);
      this.rngs.clear();
      this.rngs.set(key, r);
    }
    return r;
  }

  async answer(turn: Turn): Promise<Answer> {
    const rng = this.rng(turn.key);
    const space = turn.spec.actionSpace();
    // A plan is drawn only where one is answered: the six settings draw what they always drew.
    const plan = () => Array.from({ length: RANDOM_PLAN_LENGTH }, () => randomOf(rng, space));
    if (turn.setting.oneStep) return { raw: JSON.stringify({ output: turn.spec.formatPlan(plan()) }) };
    if (!turn.setting.forcedPlan) return planned(turn, [], randomOf(rng, space));
    const moves = plan();
    return planned(turn, moves, moves[0]!);
  }
}

/** A baseline's multi-step answer: the move, after its whole plan in the Forced Planning setting. */
function planned(turn: Turn, plan: string[], move: string): Answer {
  const output = JSON.stringify({ output: turn.spec.formatStep(move) });
  return {
    raw: turn.setting.forcedPlan ? `${JSON.stringify({ plan: turn.spec.formatPlan(plan) })}\n${output}` : output,
  };
}

const template = (name: string) => loadTemplate(path.join(promptsDir(), 'ingvp', `${name}.md`));
const filled = (name: string, values: Record<string, string | number>) => fill(template(name), values).trim();

/**
 * The system and user text of a turn, from prompts/ingvp/*.md and the game's own parts. The
 * paper's instructions end "… and not output anything else": the answer only, unless `thinking`.
 */
export function promptText(turn: Turn, thinking = false): { system: string; user: string } {
  const p = turn.spec.prompt;
  const { setting } = turn;
  const system = filled('system', {
    title: turn.spec.title,
    level: turn.level,
    goal: p.goal,
    rules: p.rules,
    legend: setting.image ? p.imageLegend : p.textLegend,
    answer: setting.oneStep
      ? `Answer with the whole plan in JSON: ${p.planFormat}`
      : setting.forcedPlan
        ? `Answer with your whole plan from the current state in JSON, then one move in JSON: ${p.stepFormat}`
        : `Answer with one move in JSON: ${p.stepFormat}`,
    reply: filled(thinking ? 'reply-thinking' : setting.forcedPlan ? 'reply-plan' : 'reply-answer-only', {}),
  });
  const state = setting.image ? filled('image-state', {}) : filled('text-state', { text: turn.puzzle.text() });
  const parts = [
    setting.oneStep
      ? filled('one-step', { state, format: p.planFormat })
      : setting.forcedPlan
        ? filled('forced-planning', {
            state,
            step: turn.step,
            // The one-step format, keyed "plan" so the plan and the move are two objects.
            plan_format: p.planFormat.replaceAll('{"output":', '{"plan":'),
            format: p.stepFormat,
          })
        : filled('multi-step', { state, step: turn.step, format: p.stepFormat }),
  ];
  if (setting.history)
    parts.push(
      filled('history', {
        history: turn.history.length
          ? turn.history
              .map((h) => `Step ${h.step}: ${h.output} (${h.changed ? 'changed the state' : 'changed nothing'})`)
              .join('\n')
          : '(no steps yet)',
        undo: turn.undo && p.undo ? p.undo : '',
      }),
    );
  return { system, user: parts.join('\n\n') };
}

export class VlmPlayer implements Player {
  readonly name = 'vlm';
  private readonly client: ModelClient;

  constructor(readonly settings: ModelClientSettings & { detail?: 'low' | 'high' | 'auto'; thinking?: boolean }) {
    this.client = new ModelClient(settings);
  }

  get model() {
    return this.settings.model;
  }

  get thinking() {
    return this.settings.thinking ?? false;
  }

  async answer(turn: Turn, signal: AbortSignal): Promise<Answer> {
    const { system, user } = promptText(turn, this.thinking);
    const content: ChatCompletionContentPart[] = [];
    if (turn.image) {
      const url = `data:${turn.image.mime};base64,${turn.image.data.toString('base64')}`;
      content.push({ type: 'image_url', image_url: { url, detail: this.settings.detail ?? 'auto' } });
    }
    content.push({ type: 'text', text: user });
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: system },
      { role: 'user', content },
    ];
    const ledger = new CallLedger();
    // No repair round: the paper applies only what it can extract; an unusable answer changes nothing.
    const outcome = await this.client.ask(
      messages,
      { signal },
      ledger,
      (text) => {
        const r = extractOutput(text);
        return r.ok ? { ok: true, reasoning: '' } : { ok: false, reasoning: '', error: r.error };
      },
      0,
    );
    if (!outcome.ok && outcome.error.startsWith('model call failed')) throw new ModelUnavailableError(outcome.error);
    return {
      raw: ledger.raw(),
      tokens: { ...ledger.usage },
      costUsd: costOf(ledger.usage, priceFor(this.settings.model, this.settings.price)),
      prompt: {
        system,
        user,
        ...(turn.image ? { image: { width: turn.image.width, height: turn.image.height } } : {}),
      },
    };
  }
}
