/**
 * Why a failed episode failed, as GameVerse (§4.6, Fig. 7) and ING-VP (Fig. 3) count it: a judge
 * model reads the episode's steps (reasoning, actions, what was sent and what the window did)
 * and a few of its frames, and names one class of the taxonomy with a short reason. The verdicts
 * are kept beside the run (`errors.json`) with the judge model, the prompt version and a hash of
 * each episode's input; an answer that names no class of the taxonomy, or a call that fails, is
 * recorded as unclassified with why, never guessed.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { render } from '../agents/prompts.ts';
import { CodedError } from '../domain.ts';
import { readJsonFile } from '../store/json-rows.ts';
import { resolveRunFile } from '../store/run-files.ts';
import { isCountedEpisode } from '../store/run-quality.ts';
import { listedStatus, readRun, type RunMeta, type StepRecord } from '../store/run-store.ts';
import { titleOf } from '../store/run-title.ts';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { JsonAsker, type JudgeModel } from './json-ask.ts';
import { thin } from './milestone-judging.ts';
import { toDataUrl } from './trajectory.ts';

/** Each taxonomy's classes, in the order the papers' figures print them, with their definitions in our words. */
export const TAXONOMIES = {
  gameverse: {
    perception:
      'the agent misread the screen: it saw something that is not there, missed something that is, or placed or identified an element wrongly.',
    reasoning:
      'the agent read the screen right but concluded wrongly: a bad deduction, a wrong prediction of what an action leads to, or a plan that cannot reach the goal.',
    execution:
      'the plan was sound but the actions did not carry it out: wrong keys or coordinates, presses too short or too long, actions the game did not take.',
    latency:
      'plan and actions fitted the screen the agent saw, but the game had moved on while the model was answering, so they came too late.',
  },
  ingvp: {
    perceptual:
      'the agent misread the image of the level: positions, sizes or counts of its elements are wrong from the start.',
    'textual-understanding':
      'the agent misread the instructions or the text form of the level (its character grid or data structure).',
    planning:
      'the first moves were plausible, but the agent lost track of the state after some moves and went wrong midway.',
    other: 'the agent refused, or answered in a form that could not be read as moves.',
  },
} as const satisfies Record<string, Record<string, string>>;
export type Taxonomy = keyof typeof TAXONOMIES;
export const TAXONOMY_NAMES = Object.keys(TAXONOMIES) as Taxonomy[];
export const classesOf = (t: Taxonomy): string[] => Object.keys(TAXONOMIES[t]);

export const ERRORS_FILE = 'errors.json';
/** Changes whenever the prompt or what it is shown changes: verdicts of another version are judged again. */
export const ERROR_PROMPT_VERSION = 'error-judge/1';

export interface ErrorJudging {
  /** Steps described to the judge at most (evenly spread over the episode, its last step kept). */
  maxSteps: number;
  /** Frames shown at most (likewise). */
  maxFrames: number;
  /** Long side of each frame sent (px). */
  maxSide: number;
}
export const DEFAULT_ERROR_JUDGING: ErrorJudging = { maxSteps: 40, maxFrames: 4, maxSide: 768 };

const VerdictSchema = z.object({
  episode: z.number().int().nonnegative(),
  score: z.number().nullable(),
  /** A class of the taxonomy; null: the judge could not classify it (`reason` says why). */
  class: z.string().nullable(),
  reason: z.string(),
  input_hash: z.string(),
  steps_shown: z.number().int().nonnegative(),
  frames_shown: z.array(z.number().int().nonnegative()),
});
export type ErrorVerdict = z.infer<typeof VerdictSchema>;

const ErrorRecordSchema = z.object({
  taxonomy: z.enum(TAXONOMY_NAMES as [Taxonomy, ...Taxonomy[]]),
  judge_model: z.string(),
  prompt_version: z.string(),
  judged_at: z.string(),
  calls: z.number().int().nonnegative(),
  tokens: z.object({ input: z.number(), output: z.number() }),
  cost_usd: z.number().nullable(),
  episodes: z.array(VerdictSchema).max(100_000),
  /** This judging's requests, as json-ask.ts records them. */
  requests: z
    .array(
      z.object({
        call: z.number(),
        ms: z.number(),
        ok: z.boolean(),
        tokens: z.object({ input: z.number(), output: z.number() }).optional(),
        error: z.string().optional(),
        answer: z.string().optional(),
      }),
    )
    .max(100_000),
});
export type ErrorRecord = z.infer<typeof ErrorRecordSchema>;

/** ING-VP's level runs get ING-VP's classes; every other run GameVerse's. */
export const taxonomyOf = (meta: RunMeta): Taxonomy => (meta.config.suite === 'ingvp' ? 'ingvp' : 'gameverse');

/**
 * A run whose failures are a model's to explain: a completed agent run of a model, unassisted,
 * not a demo and not a two-seat match.
 */
export const isJudgeableRun = (meta: RunMeta): boolean =>
  meta.kind === 'agent' &&
  meta.status === 'completed' &&
  meta.model !== null &&
  !meta.demo &&
  !meta.assisted &&
  !meta.seats?.length;

/**
 * The run's failed episodes: a counted episode below 100 (the goal not reached); for an ING-VP
 * level run, every episode of a level left unsolved.
 */
export function failedEpisodes(meta: RunMeta): { episode: number; score: number }[] {
  if (!isJudgeableRun(meta)) return [];
  const counted = meta.episodes.filter(isCountedEpisode);
  if (taxonomyOf(meta) === 'ingvp') {
    const solved = (meta as { ingvp?: { solved?: unknown } }).ingvp?.solved;
    return solved === false ? counted.map((e) => ({ episode: e.episode, score: e.score })) : [];
  }
  return counted.filter((e) => e.score < 100).map((e) => ({ episode: e.episode, score: e.score }));
}

/** The run's verdicts (null when it has none); a damaged file throws, naming it. */
export function readErrors(dir: string): ErrorRecord | null {
  if (!existsSync(path.join(dir, ERRORS_FILE))) return null;
  return readJsonFile(resolveRunFile(dir, ERRORS_FILE), ErrorRecordSchema, 'error verdicts');
}

/** A class as the judge or a person may write it ("Perception error", "TEXTUAL_UNDERSTANDING") in the taxonomy's spelling. */
export function normaliseClass(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-')
    .replace(/-errors?$/, '');
}

const latencyNotes: Record<string, string> = {
  stop: 'the game was frozen while the model answered',
  lcrt: 'the game was frozen while the model answered, then ran on for the time the model took',
  slow: 'the game paused briefly after each screenshot, then ran on while the model answered',
  normal: 'the game kept running while the model answered',
};

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** One step as the judge reads it: reasoning, actions, what was sent, what the window did. */
function describeStep(s: StepRecord): string {
  const outcomes = (Array.isArray(s.outcomes) ? s.outcomes : []) as { ok?: boolean; error?: string }[];
  const sent = outcomes.filter((o) => o.ok === true).length;
  const refused = outcomes.filter((o) => o.ok === false && o.error).map((o) => o.error);
  const parts = [
    `step ${s.step}`,
    `reasoning: ${JSON.stringify(clip(s.reasoning.replace(/\s+/g, ' ').trim(), 400))}`,
    `actions: ${clip(JSON.stringify(s.actions), 300)}`,
    `sent: ${sent} of ${s.actions.length}${refused.length ? ` (refused: ${clip(refused.join('; '), 200)})` : ''}`,
    `effect: ${s.effect ?? 'unknown'}`,
    `model time: ${Math.round(s.latency_ms.model)} ms`,
  ];
  if (s.errors.length) parts.push(`errors: ${clip(s.errors.join('; '), 300)}`);
  return `- ${parts.join(' | ')}`;
}

export interface JudgeErrorsResult {
  record: ErrorRecord;
  /** Episodes whose stored verdict was kept (same judge, prompt version and input). */
  kept: number;
  warnings: string[];
}

/**
 * Judges every failed episode of a finished run and writes `errors.json`. An episode whose
 * stored verdict came from the same judge model and prompt version on the same input is kept
 * without a call (unless `again`).
 */
export async function judgeErrors(
  dir: string,
  model: JudgeModel,
  opts: Partial<ErrorJudging> & { again?: boolean; signal?: AbortSignal; onEpisode?: (v: ErrorVerdict) => void } = {},
): Promise<JudgeErrorsResult> {
  const o = { ...DEFAULT_ERROR_JUDGING, ...opts };
  const { meta, steps, problems } = readRun(dir);
  if (listedStatus(meta) === 'running')
    throw new CodedError('busy', `${dir} is still being written; judge it once the run has ended`);
  if (!isJudgeableRun(meta))
    throw new CodedError(
      'bad-input',
      `${dir} is not a completed, unassisted run of a model (status ${meta.status}, agent ${meta.agent}): nothing to judge`,
    );
  const taxonomy = taxonomyOf(meta);
  const before = opts.again ? null : readErrors(dir);
  const asker = new JsonAsker(model, 'error-judge');
  const ids = classesOf(taxonomy);
  const AnswerSchema = z.object({
    class: z.preprocess((v) => (typeof v === 'string' ? normaliseClass(v) : v), z.enum(ids as [string, ...string[]])),
    reason: z.string().max(4000).default(''),
  });
  const episodes: ErrorVerdict[] = [];
  let kept = 0;
  for (const failed of failedEpisodes(meta)) {
    const own = steps.filter((s) => s.episode === failed.episode).sort((a, b) => a.step - b.step);
    const shownSteps = thin(own, o.maxSteps);
    const shownFrames = thin(
      own.filter((s) => s.frame),
      o.maxFrames,
    );
    const text = render('error-judge', {
      game_title: titleOf(meta).name,
      score: failed.score,
      latency: String(meta.config.latency ?? 'normal'),
      latency_note: latencyNotes[String(meta.config.latency ?? 'normal')] ?? 'see the model times below',
      classes: Object.entries(TAXONOMIES[taxonomy])
        .map(([id, def]) => `- ${id}: ${def}`)
        .join('\n'),
      class_ids: ids.join(', '),
      steps: shownSteps.length ? shownSteps.map(describeStep).join('\n') : '(the episode recorded no steps)',
    });
    const content: ChatCompletionContentPart[] = [{ type: 'text', text }];
    const hash = createHash('sha256').update(text);
    for (const s of shownFrames) {
      const url = await toDataUrl(resolveRunFile(dir, s.frame!), o.maxSide);
      hash.update(url);
      content.push({ type: 'text', text: `step ${s.step}` });
      content.push({ type: 'image_url', image_url: { url, detail: 'low' } });
    }
    const input_hash = hash.digest('hex');
    const shown = { steps_shown: shownSteps.length, frames_shown: shownFrames.map((s) => s.step) };
    const old = before?.episodes.find((v) => v.episode === failed.episode);
    if (
      old &&
      old.class !== null &&
      old.input_hash === input_hash &&
      before!.judge_model === model.model &&
      before!.prompt_version === ERROR_PROMPT_VERSION
    ) {
      episodes.push(old);
      kept++;
      continue;
    }
    const out = await asker.ask(content, AnswerSchema, () => true, opts.signal);
    const verdict: ErrorVerdict = out.ok
      ? {
          episode: failed.episode,
          score: failed.score,
          class: out.value.class,
          reason: out.value.reason,
          input_hash,
          ...shown,
        }
      : {
          episode: failed.episode,
          score: failed.score,
          class: null,
          reason: out.retried ? `${out.error} (asked again once)` : out.error,
          input_hash,
          ...shown,
        };
    episodes.push(verdict);
    opts.onEpisode?.(verdict);
    if (opts.signal?.aborted) break;
  }
  const t = asker.totals;
  const record: ErrorRecord = {
    taxonomy,
    judge_model: model.model,
    prompt_version: ERROR_PROMPT_VERSION,
    judged_at: new Date().toISOString(),
    calls: t.calls,
    tokens: { ...t.tokens },
    cost_usd: t.cost_usd,
    episodes,
    requests: asker.log,
  };
  writeFileAtomic(path.join(dir, ERRORS_FILE), `${JSON.stringify(record, null, 2)}\n`);
  return { record, kept, warnings: problems };
}
