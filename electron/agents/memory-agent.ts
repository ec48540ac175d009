/**
 * The memory agent (GameVerse's agent for story titles): four modules a step, in order —
 * 1. history review: the last few screenshot–action pairs and the running summary → an updated
 *    summary (bounded in words, kept by importance), reasoning and a plan (one model call);
 * 2. long-term retrieval: memories relevant to the review's observation, reasoning and summary;
 * 3. action inference with memory: the current screenshot, summary, reasoning, plan and the
 *    retrieved memories → actions, and maybe a new memory (a second model call), saved unless
 *    it nearly repeats one already stored;
 * 4. short-term update: this step joins the window of recent pairs.
 * It shares the zero-shot agent's client, prompts, parser and reflection slot (it is a VlmAgent).
 */
import { EventEmitter } from 'node:events';
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { parseModelOutput } from '../actions/parse.ts';
import { toWire } from '../actions/schema.ts';
import type { MemoryStepRecord, RetrievalKind } from '../domain.ts';
import { defaultConfigDir } from '../util/paths.ts';
import { semanticFormat, semanticMoves } from './semantic-moves.ts';
import { render } from './prompts.ts';
import type { DecideContext, Decision, Observation } from './agent-types.ts';
import { CallLedger, type Parsed } from './model-client.ts';
import { VlmAgent, describePrevious, imageUrl, taskOf, type VlmSettings } from './vlm.ts';
import { boundSummary, parseReview, splitMemorySections, type Review } from './memory-parse.ts';
import { MemoryStore, type Retrieved } from './memory-store.ts';
import { DEFAULT_LONG_TERM, LongTermMemory, type LongTermSettings } from './memory-long-term.ts';

export interface MemoryAgentSettings extends LongTermSettings {
  /** The store's name: `<configDir>/memory/<scope>.json`. */
  scope: string;
  configDir: string;
  /** Screenshot–action pairs the review sees (the paper: 5). */
  shortTerm: number;
  /** Longest running summary, in words (the paper: 500–600). */
  summaryWords: number;
  /** Recorded with saved memories: where they were learnt. */
  runId?: string;
}

export const DEFAULT_MEMORY: Omit<MemoryAgentSettings, 'scope' | 'configDir'> = {
  ...DEFAULT_LONG_TERM,
  shortTerm: 5,
  summaryWords: 600,
};

/** What the agent reports beside its decisions: warnings, and how retrieval works now. */
export interface MemoryAgentEvents {
  warning: [string];
  retrieval: [{ retrieval: RetrievalKind; reason?: string }];
}

interface Pair {
  step: number;
  image: string;
  /** The actions chosen, in the wire format; what became of them is filled in at the next step. */
  actions: unknown[];
  fate?: string;
}

const NO_SUMMARY = '(nothing yet: the episode has just begun)';

export class MemoryAgent extends VlmAgent {
  override readonly name = 'memory';
  readonly events = new EventEmitter<MemoryAgentEvents>();
  readonly memorySettings: MemoryAgentSettings;
  private longTerm: LongTermMemory | undefined;
  private pairs: Pair[] = [];
  private summary = '';
  private reviewReasoning = '';
  private plan = '';

  constructor(
    settings: Partial<VlmSettings> & { model: string },
    memory: Partial<MemoryAgentSettings> & { scope: string },
  ) {
    super(settings);
    this.memorySettings = { ...DEFAULT_MEMORY, configDir: defaultConfigDir(), ...memory };
  }

  override resetEpisode() {
    super.resetEpisode();
    this.pairs = [];
    this.summary = '';
    this.reviewReasoning = '';
    this.plan = '';
  }

  /** The store, opened on first use (a damaged file is moved aside then, with a warning). */
  memory(): LongTermMemory {
    if (!this.longTerm) {
      const s = this.memorySettings;
      const store = MemoryStore.open(s.configDir, s.scope, (m) => this.events.emit('warning', m));
      this.longTerm = new LongTermMemory(store, this.client, s, (retrieval, reason) => {
        this.events.emit(
          'warning',
          `long-term memory: ${reason}; retrieval is lexical (BM25 over the memories' words) for the rest of this run`,
        );
        this.events.emit('retrieval', { retrieval, reason });
      });
      if (!s.embeddingModel) {
        this.events.emit(
          'warning',
          'long-term memory: no embedding model was given, so retrieval is lexical (BM25 over the memories’ words)',
        );
        this.events.emit('retrieval', { retrieval: 'lexical', reason: 'no embedding model was given' });
      }
    }
    return this.longTerm;
  }

  override async decide(obs: Observation, ctx: DecideContext): Promise<Decision> {
    const longTerm = this.memory();
    const image = imageUrl(obs);
    if (this.settings.experience?.trim()) this.usedExperience = true;
    const last = this.pairs.at(-1);
    if (last && obs.previous) last.fate = describePrevious(obs.previous);
    const ledger = new CallLedger();
    const errors: string[] = [];
    const record = (): MemoryStepRecord => ({
      scope: this.memorySettings.scope,
      retrieval: longTerm.retrieval,
      summary: this.summary,
      ...(this.reviewReasoning ? { review_reasoning: this.reviewReasoning } : {}),
      ...(this.plan ? { plan: this.plan } : {}),
      retrieved: [],
      saved: null,
      skipped: null,
      ...(errors.length ? { errors } : {}),
    });

    // 1. History review (its tokens do not stream to the live view: it is not the answer).
    const review = await this.client.ask(
      this.reviewMessages(obs, ctx, image),
      { signal: ctx.signal },
      ledger,
      (text): Parsed<Review> => parseReview(text),
      this.settings.repairs,
      'memory-review-repair',
      'memory-review',
    );
    let observation = '';
    let dropped = 0;
    if (review.ok) {
      const bounded = boundSummary(review.parsed.summary, this.memorySettings.summaryWords);
      this.summary = bounded.summary;
      dropped = bounded.dropped;
      this.reviewReasoning = review.parsed.reasoning;
      this.plan = review.parsed.plan;
      observation = review.parsed.observation;
    } else {
      if (ctx.signal.aborted)
        return this.client.finish(ctx, ledger, { reasoning: '', actions: [], error: review.error });
      errors.push(`history review: ${review.error}; the previous summary is kept`);
    }

    // 2. Long-term retrieval from the observation, the reasoning and the summary.
    let retrieved: Retrieved[] = [];
    try {
      retrieved = await longTerm.retrieve(
        [observation, `${this.reviewReasoning}\n${this.plan}`, this.summary],
        ctx.signal,
        ledger.calls,
      );
    } catch (err) {
      if (ctx.signal.aborted) return this.client.finish(ctx, ledger, { reasoning: '', actions: [], error: 'stopped' });
      errors.push(`retrieval: ${(err as Error).message}`);
    }
    const mem: MemoryStepRecord = {
      ...record(),
      ...(observation ? { observation } : {}),
      retrieved,
      ...(dropped ? { summary_dropped: dropped } : {}),
    };
    ctx.onMemory?.(mem);

    // 3. Action inference with memory.
    const out = await this.client.ask(
      this.actionMessages(obs, ctx, image, retrieved),
      ctx,
      ledger,
      (text) => {
        const { rest, newMemory, shouldSave } = splitMemorySections(text);
        const parsed = parseModelOutput(rest, { actionSpace: ctx.actionSpace, parseMove: semanticMoves(ctx)?.parse });
        return parsed.ok ? { ...parsed, newMemory, shouldSave } : parsed;
      },
      this.settings.repairs,
      'memory-repair',
    );

    // 4. Short-term update: this step is the newest pair, whatever came of it.
    this.pairs.push({ step: obs.step, image, actions: out.ok ? out.parsed.actions.map(toWire) : [] });
    if (!out.ok) this.pairs.at(-1)!.fate = `no usable answer: ${out.error}`;
    this.pairs.splice(0, Math.max(0, this.pairs.length - this.memorySettings.shortTerm));

    if (out.ok && out.parsed.newMemory && out.parsed.shouldSave !== false && !ctx.signal.aborted) {
      try {
        const r = await longTerm.save(
          out.parsed.newMemory,
          {
            ...(this.memorySettings.runId ? { run: this.memorySettings.runId } : {}),
            episode: obs.episode,
            step: obs.step,
          },
          ctx.signal,
          ledger.calls,
        );
        if (r.saved) mem.saved = { id: r.saved.id, text: r.saved.text };
        if (r.skipped) mem.skipped = r.skipped;
      } catch (err) {
        if (!ctx.signal.aborted) errors.push(`saving the new memory: ${(err as Error).message}`);
      }
    }
    mem.retrieval = longTerm.retrieval;
    if (errors.length) mem.errors = errors;
    ctx.onMemory?.(mem);
    const base = out.ok
      ? { reasoning: out.parsed.reasoning, actions: out.parsed.actions }
      : { reasoning: out.reasoning, actions: [], error: out.error };
    return this.client.finish(ctx, ledger, { ...base, memory: mem });
  }

  /** The review request: the recent pairs (screenshot, then what was done and became of it), then the current screenshot. */
  private reviewMessages(obs: Observation, ctx: DecideContext, image: string): ChatCompletionMessageParam[] {
    const content: ChatCompletionContentPart[] = [];
    const text = render('memory-review', {
      task: taskOf(ctx.game, ctx.profile),
      summary: this.summary || NO_SUMMARY,
      recent: this.pairs.length
        ? `The last ${this.pairs.length} step(s), oldest first, each a screenshot and what was done on it:`
        : 'None: this is the first step of the episode.',
      step: obs.step + 1,
      episode: obs.episode + 1,
      game_text: this.gameText(obs),
    });
    content.push({ type: 'text', text });
    for (const p of this.pairs) {
      content.push(
        { type: 'image_url', image_url: { url: p.image, detail: this.settings.detail } },
        {
          type: 'text',
          text: render('memory-review-step', {
            step: p.step + 1,
            actions: p.fate ?? (p.actions.length ? JSON.stringify(p.actions) : 'none'),
          }),
        },
      );
    }
    content.push(
      { type: 'text', text: 'The current screenshot:' },
      { type: 'image_url', image_url: { url: image, detail: this.settings.detail } },
    );
    return [
      {
        role: 'system',
        content: this.systemPrompt(
          obs,
          ctx.actionSpace,
          ctx.game,
          ctx.profile,
          render('memory-review-format', { max_words: this.memorySettings.summaryWords }),
        ),
      },
      { role: 'user', content },
    ];
  }

  /** The action request: the paper's order — task, summary, reasoning, plan, memories, last actions, current screenshot. */
  private actionMessages(
    obs: Observation,
    ctx: DecideContext,
    image: string,
    retrieved: Retrieved[],
  ): ChatCompletionMessageParam[] {
    const gui = ctx.actionSpace === 'gui';
    const format = render('memory-format', {
      action_format: gui ? render('format-gui') : semanticFormat(ctx, obs.validMoves),
    });
    const text = render('memory-step', {
      task: taskOf(ctx.game, ctx.profile),
      summary: this.summary || NO_SUMMARY,
      reasoning: this.reviewReasoning || '(none)',
      plan: this.plan || '(none)',
      memories: retrieved.length
        ? retrieved.map((m, i) => `${i + 1}. ${m.text} (similarity ${m.similarity.toFixed(2)})`).join('\n')
        : 'None relevant found.',
      previous: describePrevious(obs.previous),
      step: obs.step + 1,
      episode: obs.episode + 1,
      game_text: this.gameText(obs),
    });
    return [
      { role: 'system', content: this.systemPrompt(obs, ctx.actionSpace, ctx.game, ctx.profile, format) },
      { role: 'user', content: this.userContent(text, image) },
    ];
  }
}
