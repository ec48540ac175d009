/**
 * The VLM agent: any OpenAI-compatible chat endpoint (OpenAI, Gemini's compatible API,
 * OpenRouter, vLLM, Ollama, LM Studio). Streams the answer, parses it tolerantly and asks once
 * for a repair when it is unusable. Calls run under the harness's own limits and retries
 * (model-call.ts, guarded-fetch.ts): a total and an idle time limit, a size limit on answers,
 * capped Retry-After, and every wait ends at once when the step is stopped.
 */
import type { ChatCompletionMessageParam, ChatCompletionContentPart } from 'openai/resources/chat/completions';
import { parseModelOutput } from '../actions/parse.ts';
import type { ActionSpace, ImageDetail } from '../domain.ts';
import { toWire } from '../actions/schema.ts';
import type { GameDefinition } from '../../games/types.ts';
import type { Profile } from '../profiles/profile-schema.ts';
import { render, loadTemplate, fill } from './prompts.ts';
import { semanticFormat, semanticMoves } from './semantic-moves.ts';
import type { Agent, DecideContext, Decision, Observation, PreviousStep } from './agent-types.ts';
import { describeCallError } from './model-call-error.ts';
import { CallLedger, ModelClient, type ModelClientSettings } from './model-client.ts';
import { ROLE_LIMITS } from './model-endpoint.ts';
import type { RunSpecInput } from '../run-spec.ts';

export { MAX_STORED_ANSWER_CHARS } from './model-client.ts';

export interface VlmSettings extends ModelClientSettings {
  /** Image detail hint for providers that honour it. */
  detail: ImageDetail;
  /**
   * Frames per request, the current one included. 2 (the papers' zero-shot agent): the current
   * screenshot plus the previous step's screenshot and answer, and what became of its actions.
   * 1: strictly the current frame, nothing from earlier steps. K: the last K − 1 pairs.
   */
  history: number;
  /** Repair requests after an unusable answer. */
  repairs: number;
  /** System prompt template path (default prompts/system.md). */
  systemPrompt?: string;
  /** Learned experience for the system prompt's slot (reflection fills this). */
  experience?: string;
  /** Include the game's text rendering with the screenshot (text+image modality). */
  includeGameText?: boolean;
}

/**
 * A configured model (Settings, or an IDC's player) as a run's spec names it: the endpoint and
 * the player settings Settings keeps. The one way from the agent's names back to the spec's.
 */
export function modelSpecFields(
  m: Partial<VlmSettings> & { model: string },
): Pick<RunSpecInput, 'model' | 'baseUrl' | 'apiKey' | 'detail' | 'history' | 'temperature' | 'priceIn' | 'priceOut'> {
  return {
    model: m.model,
    ...(m.baseUrl ? { baseUrl: m.baseUrl } : {}),
    ...(m.apiKey ? { apiKey: m.apiKey } : {}),
    ...(m.detail ? { detail: m.detail } : {}),
    ...(m.history !== undefined ? { history: m.history } : {}),
    ...(m.temperature !== undefined ? { temperature: m.temperature } : {}),
    ...(m.price?.inputPerM !== undefined ? { priceIn: m.price.inputPerM } : {}),
    ...(m.price?.outputPerM !== undefined ? { priceOut: m.price.outputPerM } : {}),
  };
}

export const DEFAULT_VLM: Omit<VlmSettings, 'model'> = {
  detail: 'auto',
  history: 2,
  repairs: 1,
  timeoutMs: ROLE_LIMITS.player.timeoutMs,
  idleTimeoutMs: ROLE_LIMITS.player.idleTimeoutMs,
  maxAnswerBytes: ROLE_LIMITS.player.maxAnswerBytes,
  maxRetries: ROLE_LIMITS.player.maxRetries,
  retryAfterCapMs: ROLE_LIMITS.player.retryAfterCapMs,
};

interface Turn {
  image: string;
  user: string;
  answer: string;
}

export class VlmAgent implements Agent {
  readonly name: string = 'vlm';
  protected readonly client: ModelClient;
  private turns: Turn[] = [];
  protected settings: VlmSettings;
  /** Whether any request of the current episode carried learned experience (VR = Yes). */
  protected usedExperience = false;

  constructor(settings: Partial<VlmSettings> & { model: string }) {
    this.settings = { ...DEFAULT_VLM, ...settings };
    this.client = new ModelClient(this.settings);
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

  /** The run's cost meter its calls are admitted by (reflection between its episodes spends from it too). */
  get meter() {
    return this.settings.meter;
  }

  /**
   * The system prompt: the profile's parts in the title's own terms, else the built-in's, else a
   * generic one. `answerFormat` replaces the answer-format section (the memory agent's sections).
   */
  systemPrompt(
    obs: Observation,
    space: ActionSpace,
    game?: GameDefinition,
    profile?: Profile,
    answerFormat?: string,
  ): string {
    return systemPromptText({
      template: this.settings.systemPrompt ?? 'system',
      experience: this.settings.experience,
      obs,
      actionSpace: space,
      game,
      profile,
      answerFormat,
    });
  }

  async decide(obs: Observation, ctx: DecideContext): Promise<Decision> {
    const image = imageUrl(obs);
    const user = this.userText(obs, ctx.game, ctx.profile);
    if (this.settings.experience?.trim()) this.usedExperience = true;
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: this.systemPrompt(obs, ctx.actionSpace, ctx.game, ctx.profile) },
    ];
    const past = this.settings.history > 1 ? this.turns.slice(-(this.settings.history - 1)) : [];
    for (const t of past) {
      messages.push(
        { role: 'user', content: this.userContent(t.user, t.image) },
        { role: 'assistant', content: t.answer },
      );
    }
    messages.push({ role: 'user', content: this.userContent(user, image) });

    const ledger = new CallLedger();
    const out = await this.client.ask(
      messages,
      ctx,
      ledger,
      (answer) => parseModelOutput(answer, { actionSpace: ctx.actionSpace, parseMove: semanticMoves(ctx)?.parse }),
      this.settings.repairs,
    );
    if (!out.ok) {
      this.remember({ image, user, answer: `(no usable answer: ${out.error})` });
      return this.client.finish(ctx, ledger, { reasoning: out.reasoning, actions: [], error: out.error });
    }
    this.remember({ image, user, answer: canonicalAnswer(out.parsed.reasoning, out.parsed.actions) });
    return this.client.finish(ctx, ledger, { reasoning: out.parsed.reasoning, actions: out.parsed.actions });
  }

  /** Keeps this step as the newest past pair (an unusable one too: it was the previous step). */
  private remember(turn: Turn) {
    this.turns.push(turn);
    this.turns.splice(0, Math.max(0, this.turns.length - (this.settings.history - 1)));
  }

  /** One step's message: target task, previous state (from history 2 on), current state. */
  userText(obs: Observation, game?: GameDefinition, profile?: Profile): string {
    const previous =
      this.settings.history > 1 ? render('previous-state', { previous: describePrevious(obs.previous) }) : '';
    return render('user-step', {
      task: taskOf(game, profile),
      previous_section: previous,
      other_section: obs.otherSeat ? render('other-seat', { other: obs.otherSeat }) : '',
      step: obs.step + 1,
      episode: obs.episode + 1,
      game_text: this.gameText(obs),
    }).replace(/\n{3,}/g, '\n\n');
  }

  /** The built-in game's text rendering, when asked to send it. */
  protected gameText(obs: Observation): string {
    return this.settings.includeGameText && obs.gameText ? `\nThe board as text:\n${obs.gameText}` : '';
  }

  protected userContent(text: string, image: string): ChatCompletionContentPart[] {
    return [
      { type: 'text', text },
      { type: 'image_url', image_url: { url: image, detail: this.settings.detail } },
    ];
  }
}

/**
 * The system prompt of a step: the profile's parts in the title's own terms, else the built-in's,
 * else a generic one. `answerFormat` replaces the answer-format section (the memory agent's
 * sections; a remote agent's tool call).
 */
export function systemPromptText(args: {
  template: string;
  experience?: string | undefined;
  obs: Pick<Observation, 'frame' | 'validMoves'>;
  actionSpace: ActionSpace;
  game?: GameDefinition | undefined;
  profile?: Profile | undefined;
  answerFormat?: string | undefined;
}): string {
  const { obs, game, profile, answerFormat } = args;
  const experience = args.experience?.trim() ?? '';
  const template = loadTemplate(args.template);
  const gui = args.actionSpace === 'gui';
  const p = profile?.prompt;
  const moves = gui ? undefined : semanticMoves({ game, profile }, obs.validMoves);
  const controls = gui
    ? (p?.controls ?? game?.controls.gui)
    : moves?.listing
      ? [p?.semanticControls, moves.listing].filter(Boolean).join('\n\n')
      : (p?.semanticControls ?? game?.controls.semantic ?? p?.controls);
  const keys = gui && profile?.actions.allowedKeys ? profile.actions.allowedKeys : undefined;
  const text = fill(template, {
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
    experience: experience,
    // No lessons, no section: a first attempt is told nothing about experience it does not have.
    experience_section: experience ? render('experience', { experience: experience }) : '',
    action_format: gui ? render('format-gui') : semanticFormat({ game, profile }, obs.validMoves),
  });
  const cut = answerFormat ? text.indexOf('## Answer format') : -1;
  const shaped = !answerFormat
    ? text
    : cut >= 0
      ? `${text.slice(0, cut)}${answerFormat}`
      : `${text}\n\n${answerFormat}`;
  return shaped.replace(/\n{3,}/g, '\n\n').trim();
}

/** The task line of a user message: the profile's, else the built-in's, else a generic one. */
export function taskOf(game?: GameDefinition, profile?: Profile): string {
  const title = profile?.title ?? game?.title;
  return (
    profile?.prompt.task ??
    game?.task ??
    (title ? `Play ${title} as well as you can.` : 'Play the game in the window as well as you can.')
  );
}

/** The observation's frame as a data URL. */
export function imageUrl(obs: Observation): string {
  return `data:${obs.frame.mime};base64,${obs.frame.data.toString('base64')}`;
}

/** The previous step in words: each action with its fate, refusals and dropped actions included. */
export function describePrevious(p: PreviousStep | undefined): string {
  if (!p) return render('previous-first');
  if (p.person) return render('previous-person', { note: p.person });
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

export function canonicalAnswer(reasoning: string, actions: Parameters<typeof toWire>[0][]): string {
  return `### Reasoning\n${reasoning}\n\n### Actions\n${JSON.stringify(actions.map(toWire))}`;
}

/** Kept for callers outside the agent (connection test, reflector). */
export const describeApiError = describeCallError;
