/**
 * The VLM agent: any OpenAI-compatible chat endpoint (OpenAI, Gemini's compatible API,
 * OpenRouter, vLLM, Ollama, LM Studio). Streams the answer, parses it tolerantly and asks once
 * for a repair when it is unusable. Calls run under the harness's own limits and retries
 * (model-call.ts, guarded-fetch.ts): a total and an idle time limit, a size limit on answers,
 * capped Retry-After, and every wait ends at once when the step is stopped.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionContentPart } from 'openai/resources/chat/completions';
import { parseModelOutput } from '../actions/parse.ts';
import type { ActionSpace, ImageDetail } from '../domain.ts';
import { toWire } from '../actions/schema.ts';
import type { GameDefinition } from '../../games/types.ts';
import type { Profile } from '../profiles/schema.ts';
import { render, loadTemplate, fill } from './prompts.ts';
import { costOf, priceFor, type Price } from './pricing.ts';
import type { Agent, ComputeTime, DecideContext, Decision, Observation, PreviousStep, TokenUsage } from './types.ts';
import { callWithRetries, DEFAULT_RETRY, type ModelCallRecord } from './model-call.ts';
import { ModelCallError, describeCallError } from './model-call-error.ts';
import { guardedFetch, MAX_STREAM_LINE_BYTES } from './guarded-fetch.ts';

export interface VlmSettings {
  baseURL?: string;
  apiKey?: string;
  model: string;
  /** Image detail hint for providers that honour it. */
  detail: ImageDetail;
  temperature?: number;
  maxTokens?: number;
  /**
   * Frames per request, the current one included. 2 (the papers' zero-shot agent): the current
   * screenshot plus the previous step's screenshot and answer, and what became of its actions.
   * 1: strictly the current frame, nothing from earlier steps. K: the last K − 1 pairs.
   */
  history: number;
  /** Repair requests after an unusable answer. */
  repairs: number;
  /** Total time limit of one call, streaming included (ms). */
  timeoutMs: number;
  /** Longest silence while an answer streams (ms). */
  idleTimeoutMs: number;
  /** Largest answer, counted in response bytes as they arrive. */
  maxAnswerBytes: number;
  /** Retries after 429/5xx/time-outs/connection errors. */
  maxRetries: number;
  /** Longest wait a server's Retry-After may impose (ms). */
  retryAfterCapMs: number;
  /** System prompt template path (default prompts/system.md). */
  systemPrompt?: string;
  /** Learned experience for the system prompt's slot (reflection fills this). */
  experience?: string;
  price?: Partial<Price>;
  /** Include the game's text rendering with the screenshot (text+image modality). */
  includeGameText?: boolean;
}

export const DEFAULT_VLM: Omit<VlmSettings, 'model'> = {
  detail: 'auto',
  history: 2,
  repairs: 1,
  timeoutMs: 120_000,
  idleTimeoutMs: 30_000,
  // About 70k streamed tokens at ~230 bytes of SSE per token: room for long thinking.
  maxAnswerBytes: 16 * 1024 * 1024,
  maxRetries: 3,
  retryAfterCapMs: 20_000,
};

/** Most of one answer kept in a step record; the parser always sees all of it. */
export const MAX_STORED_ANSWER_CHARS = 256 * 1024;

interface Turn {
  image: string;
  user: string;
  answer: string;
}

/** Timing of one decision's model calls: what the provider reported, and each answer's stream. */
interface CallTiming {
  providerMs?: number;
  answers: { generationMs: number; ttftMs: number | null }[];
}

/** How long a measured round trip to the endpoint is trusted before it is measured again. */
const RTT_TTL_MS = 60_000;

export class VlmAgent implements Agent {
  readonly name = 'vlm';
  private client: OpenAI;
  private turns: Turn[] = [];
  private settings: VlmSettings;
  /** Whether any request of the current episode carried learned experience (VR = Yes). */
  private usedExperience = false;
  /** The last measured network round trip to the endpoint. */
  private rtt: { ms: number; at: number } | undefined;

  constructor(settings: Partial<VlmSettings> & { model: string }) {
    this.settings = { ...DEFAULT_VLM, ...settings };
    const s = this.settings;
    this.client = new OpenAI({
      baseURL: s.baseURL ?? process.env.OPENAI_BASE_URL,
      // Local servers (Ollama, vLLM, LM Studio) accept any key; the SDK insists on one.
      apiKey: s.apiKey ?? process.env.OPENAI_API_KEY ?? 'no-key',
      // Retries and time limits are ours (model-call.ts): the SDK's retry sleeps cannot be
      // interrupted and its timeout ends at the headers. Its timeout stays as a backstop.
      maxRetries: 0,
      timeout: s.timeoutMs + 1000,
      fetch: guardedFetch({
        idleMs: s.idleTimeoutMs,
        maxBytes: s.maxAnswerBytes,
        maxLineBytes: Math.min(MAX_STREAM_LINE_BYTES, s.maxAnswerBytes),
      }),
      logLevel: 'off', // a broken stream is reported once, in the step, not dumped to stderr
    });
  }

  resetEpisode() {
    this.turns = [];
    this.usedExperience = false;
  }

  /** The current (or just finished) episode was played with learned experience in the prompt. */
  get playedWithExperience() {
    return this.usedExperience;
  }

  /** Frames per request, when the run did not set it (a profile's history). */
  setHistory(k: number) {
    this.settings.history = k;
  }

  setExperience(text: string | undefined) {
    this.settings.experience = text;
  }

  get experience() {
    return this.settings.experience;
  }

  get model() {
    return this.settings.model;
  }

  /** The system prompt: the profile's parts in the title's own terms, else the built-in's, else a generic one. */
  systemPrompt(obs: Observation, space: ActionSpace, game?: GameDefinition, profile?: Profile): string {
    const template = loadTemplate(this.settings.systemPrompt ?? 'system');
    const gui = space === 'gui';
    const p = profile?.prompt;
    const controls = gui
      ? (p?.controls ?? game?.controls.gui)
      : (p?.semanticControls ?? game?.controls.semantic ?? p?.controls);
    const keys = gui && profile?.actions.allowedKeys ? profile.actions.allowedKeys : undefined;
    return fill(template, {
      game_title: profile?.title ?? game?.title ?? 'a game',
      action_space_name: gui ? 'mouse and keyboard actions' : 'named game moves',
      rules: p?.rules ?? game?.rules ?? 'Play the game shown in the window as well as you can.',
      controls:
        (controls ?? 'Use the mouse and keyboard as the game expects.') +
        (keys ? `\n\nOnly these keys work here; any other key is refused: ${keys.join(', ')}.` : ''),
      screen_section: p?.screen ? render('profile-screen', { screen: p.screen }) : '',
      examples_section: p?.examples?.length
        ? render('profile-examples', { examples: p.examples.map((e) => `- ${e}`).join('\n') })
        : '',
      action_reference: gui
        ? render('gui-actions', { image_width: obs.frame.width, image_height: obs.frame.height })
        : '',
      experience: this.settings.experience?.trim() ?? '',
      // No lessons, no section: a first attempt is told nothing about experience it does not have.
      experience_section: this.settings.experience?.trim()
        ? render('experience', { experience: this.settings.experience.trim() })
        : '',
      action_format: gui
        ? render('format-gui')
        : render('format-semantic', { example_move: obs.validMoves?.[0] ?? 'move' }),
    })
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  }

  async decide(obs: Observation, ctx: DecideContext): Promise<Decision> {
    const image = `data:${obs.frame.mime};base64,${obs.frame.data.toString('base64')}`;
    const user = this.userText(obs, ctx.game, ctx.profile);
    if (this.settings.experience?.trim()) this.usedExperience = true;
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: this.systemPrompt(obs, ctx.space, ctx.game, ctx.profile) },
    ];
    const past = this.settings.history > 1 ? this.turns.slice(-(this.settings.history - 1)) : [];
    for (const t of past) {
      messages.push(
        { role: 'user', content: this.userContent(t.user, t.image) },
        { role: 'assistant', content: t.answer },
      );
    }
    messages.push({ role: 'user', content: this.userContent(user, image) });

    const usage: TokenUsage = { input: 0, output: 0 };
    const timing: CallTiming = { answers: [] };
    const raws: string[] = [];
    const parseErrors: string[] = [];
    const calls: ModelCallRecord[] = [];
    const started = performance.now();
    const raw = () => raws.map(boundStored).join('\n\n---\n\n');
    let attempts = 0;
    let lastReasoning = '';
    for (let round = 0; round <= this.settings.repairs; round++) {
      attempts++;
      let answer: string;
      const partial = { text: '' };
      try {
        answer = await callWithRetries((signal) => this.complete(messages, ctx, usage, timing, signal, partial), {
          totalMs: this.settings.timeoutMs,
          retry: {
            ...DEFAULT_RETRY,
            maxRetries: this.settings.maxRetries,
            retryAfterCapMs: this.settings.retryAfterCapMs,
          },
          signal: ctx.signal,
          calls,
        });
      } catch (err) {
        if (partial.text) raws.push(partial.text);
        const error = `model call failed: ${describeCallError(err)}`;
        this.remember({ image, user, answer: `(no usable answer: ${error})` });
        return await this.finish(
          ctx,
          timing,
          { reasoning: lastReasoning, actions: [], error, raw: raw(), parseErrors, calls },
          usage,
          started,
          attempts,
        );
      }
      raws.push(answer);
      const parsed = parseModelOutput(answer, { space: ctx.space, parseMove: ctx.game?.parseMove });
      lastReasoning = parsed.reasoning;
      if (parsed.ok) {
        this.remember({ image, user, answer: canonicalAnswer(parsed.reasoning, parsed.actions) });
        return await this.finish(
          ctx,
          timing,
          { reasoning: parsed.reasoning, actions: parsed.actions, raw: raw(), parseErrors, calls },
          usage,
          started,
          attempts,
        );
      }
      parseErrors.push(parsed.error);
      messages.push(
        { role: 'assistant', content: boundStored(answer) || '(empty)' },
        { role: 'user', content: render('repair', { error: parsed.error }) },
      );
    }
    const error = `unusable answer: ${parseErrors.at(-1)}`;
    this.remember({ image, user, answer: `(no usable answer: ${error})` });
    return await this.finish(
      ctx,
      timing,
      { reasoning: lastReasoning, actions: [], error, raw: raw(), parseErrors, calls },
      usage,
      started,
      attempts,
    );
  }

  /** Keeps this step as the newest past pair (an unusable one too: it was the previous step). */
  private remember(turn: Turn) {
    this.turns.push(turn);
    this.turns.splice(0, Math.max(0, this.turns.length - (this.settings.history - 1)));
  }

  /** One step's message: target task, previous state (from history 2 on), current state. */
  userText(obs: Observation, game?: GameDefinition, profile?: Profile): string {
    const gameText = this.settings.includeGameText && obs.gameText ? `\nThe board as text:\n${obs.gameText}` : '';
    const title = profile?.title ?? game?.title;
    const task =
      profile?.prompt.task ??
      game?.task ??
      (title ? `Play ${title} as well as you can.` : 'Play the game in the window as well as you can.');
    const previous =
      this.settings.history > 1 ? render('previous-state', { previous: describePrevious(obs.previous) }) : '';
    return render('user-step', {
      task,
      previous_section: previous,
      step: obs.step + 1,
      episode: obs.episode + 1,
      game_text: gameText,
    }).replace(/\n{3,}/g, '\n\n');
  }

  private userContent(text: string, image: string): ChatCompletionContentPart[] {
    return [
      { type: 'text', text },
      { type: 'image_url', image_url: { url: image, detail: this.settings.detail } },
    ];
  }

  private async finish(
    ctx: DecideContext,
    timing: CallTiming,
    d: Decision,
    usage: TokenUsage,
    started: number,
    attempts: number,
  ): Promise<Decision> {
    const modelMs = performance.now() - started;
    const compute = await this.computeTime(ctx, timing);
    return {
      ...d,
      usage,
      costUsd: costOf(usage, priceFor(this.settings.model, this.settings.price)),
      modelMs,
      ...(compute ? { compute } : {}),
      attempts,
    };
  }

  /** The provider's report; else, when asked (LCRT), the answers' generation time without the network's round trip. */
  private async computeTime(ctx: DecideContext, timing: CallTiming): Promise<ComputeTime | undefined> {
    if (timing.providerMs !== undefined) return { ms: timing.providerMs, source: 'provider' };
    if (!ctx.computeTime || !timing.answers.length || ctx.signal.aborted) return undefined;
    const generationMs = timing.answers.reduce((n, a) => n + a.generationMs, 0);
    const ttft = timing.answers[0]!.ttftMs;
    const rttMs = await this.roundTrip(ctx.signal);
    if (rttMs === undefined)
      return { ms: generationMs, source: 'stream', generationMs, ...(ttft !== null ? { ttftMs: ttft } : {}) };
    const ms = timing.answers.reduce((n, a) => n + Math.max(0, a.generationMs - rttMs), 0);
    return { ms, source: 'estimated', rttMs, generationMs, ...(ttft !== null ? { ttftMs: ttft } : {}) };
  }

  /**
   * One network round trip to the model's endpoint: the quickest of three requests for its
   * model list, timed to the response headers (the first may pay for a new connection).
   * Measured again after RTT_TTL_MS. Undefined when the endpoint cannot be reached.
   */
  private async roundTrip(signal: AbortSignal): Promise<number | undefined> {
    if (this.rtt && performance.now() - this.rtt.at < RTT_TTL_MS) return this.rtt.ms;
    const url = `${this.client.baseURL.replace(/\/+$/, '')}/models`;
    let best: number | undefined;
    for (let i = 0; i < 3 && !signal.aborted; i++) {
      const t0 = performance.now();
      try {
        const res = await fetch(url, {
          headers: { authorization: `Bearer ${this.client.apiKey}` },
          signal: AbortSignal.any([signal, AbortSignal.timeout(5000)]),
        });
        const ms = performance.now() - t0;
        await res.body?.cancel().catch(() => {});
        best = Math.min(best ?? ms, ms);
      } catch {
        break;
      }
    }
    if (best !== undefined) this.rtt = { ms: best, at: performance.now() };
    return best;
  }

  /**
   * One streamed completion; returns the answer text and adds token usage. The text so far is
   * kept in `partial`, so a call that fails half-way still shows what came.
   */
  private async complete(
    messages: ChatCompletionMessageParam[],
    ctx: DecideContext,
    usage: TokenUsage,
    timing: CallTiming,
    signal: AbortSignal,
    partial: { text: string },
  ): Promise<string> {
    const sent = performance.now();
    let firstTokenAt: number | null = null;
    const stream = await this.client.chat.completions.create(
      {
        model: this.settings.model,
        messages,
        stream: true,
        stream_options: { include_usage: true },
        ...(this.settings.temperature !== undefined ? { temperature: this.settings.temperature } : {}),
        ...(this.settings.maxTokens !== undefined ? { max_tokens: this.settings.maxTokens } : {}),
      },
      { signal },
    );
    let text = '';
    let sawUsage = false;
    let chunks = 0;
    partial.text = '';
    try {
      for await (const chunk of stream) {
        chunks++;
        const delta = chunk.choices?.[0]?.delta as
          | { content?: string | null; reasoning_content?: string; reasoning?: string }
          | undefined;
        const thinking = delta?.reasoning_content ?? delta?.reasoning;
        if ((thinking || delta?.content) && firstTokenAt === null) firstTokenAt = performance.now();
        if (thinking) ctx.onToken?.(thinking, 'thinking');
        if (delta?.content) {
          text += delta.content;
          partial.text = text;
          ctx.onToken?.(delta.content, 'answer');
        }
        if (chunk.usage) {
          usage.input += chunk.usage.prompt_tokens ?? 0;
          usage.output += chunk.usage.completion_tokens ?? 0;
          sawUsage = true;
        }
        const reported = providerSeconds(chunk);
        if (reported !== undefined) timing.providerMs = (timing.providerMs ?? 0) + reported * 1000;
      }
    } catch (err) {
      if (err instanceof SyntaxError) throw new ModelCallError(describeCallError(err), 'invalid-stream');
      throw err;
    }
    if (signal.aborted) return text; // the caller throws the reason (stopped, or the time limit)
    if (chunks === 0)
      throw new ModelCallError(
        'the server answered without any chat-completion data (is this an OpenAI-compatible endpoint?)',
        'empty-stream',
      );
    if (!sawUsage) usage.output += Math.ceil(text.length / 4); // estimate when the server reports none
    timing.answers.push({
      generationMs: performance.now() - sent,
      ttftMs: firstTokenAt === null ? null : firstTokenAt - sent,
    });
    return text;
  }
}

/**
 * Compute time some providers report with the final chunk, in seconds: Groq's
 * `x_groq.usage.total_time`, or `usage.total_time` on servers that copy it.
 */
function providerSeconds(chunk: unknown): number | undefined {
  const c = chunk as { usage?: { total_time?: unknown }; x_groq?: { usage?: { total_time?: unknown } } };
  const t = c.x_groq?.usage?.total_time ?? c.usage?.total_time;
  return typeof t === 'number' && Number.isFinite(t) && t >= 0 ? t : undefined;
}

/** The previous step in words: each action with its fate, refusals and dropped actions included. */
export function describePrevious(p: PreviousStep | undefined): string {
  if (!p) return render('previous-first');
  if (!p.actions.length) return render('previous-unusable', { error: p.error ?? 'no actions' });
  const refusedAt = p.outcomes.findIndex((o) => !o.ok && !o.dropped);
  const lines = p.actions.map((a, i) => {
    const o = p.outcomes[i];
    const fate = o?.dropped
      ? 'dropped: one move per step, so it was not made'
      : o
        ? o.ok
          ? 'done'
          : `refused: ${o.error ?? 'no reason given'}`
        : refusedAt >= 0
          ? `dropped: not tried after action ${refusedAt + 1} was refused`
          : 'not tried: the step was stopped';
    return `${i + 1}. ${JSON.stringify(a)} → ${fate}`;
  });
  return render('previous-actions', { lines: lines.join('\n') });
}

function canonicalAnswer(reasoning: string, actions: Parameters<typeof toWire>[0][]): string {
  return `### Reasoning\n${reasoning}\n\n### Actions\n${JSON.stringify(actions.map(toWire))}`;
}

/** Kept for callers outside the agent (connection test, reflector). */
export const describeApiError = describeCallError;

/** An answer as stored in a step: whole up to a bound, then cut with a note of what was left out. */
function boundStored(text: string): string {
  if (text.length <= MAX_STORED_ANSWER_CHARS) return text;
  return `${text.slice(0, MAX_STORED_ANSWER_CHARS)}\n[… ${text.length - MAX_STORED_ANSWER_CHARS} more characters not stored]`;
}
