/**
 * Video-based reflection (GameVerse's reflect-and-retry): a model watches the failed attempt
 * (self-f), an expert tutorial (self-t), both in two stages (self: diagnose the failure, then
 * learn from the tutorial in its light), or another model does the same (other). Lessons are
 * bounded and kept with their provenance; a reflector that returns nothing changes nothing.
 */
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { GameDefinition } from '../../games/types.ts';
import { render } from '../agents/prompts.ts';
import { describeCallError as describeApiError } from '../agents/model-call-error.ts';
import { callerFor, type ModelCaller, type RoleEndpoint } from '../agents/model-endpoint.ts';
import type { Trajectory } from '../scoring/trajectory.ts';
import type { ReflectionMode, ReflectVideo } from '../domain.ts';
import type { Lesson, LessonInput } from '../session/reflection-records.ts';
import { isInputRefusal, trajectoryVideo } from './video-part.ts';
import type { ReflectionSample } from './sampling.ts';
import { thinEvenly } from '../scoring/trajectory.ts';

/**
 * The model that reflects, checked against the mode: `other` is another model's reflection
 * (GameVerse Tab. 5), so it needs a model different from the player's; the self modes reflect
 * with the player's own model. Returns the reflector model, or throws saying what to give.
 */
export function reflectorModelFor(mode: ReflectionMode, playerModel: string, reflectorModel?: string): string {
  const given = reflectorModel?.trim() || undefined;
  const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
  if (mode === 'other') {
    if (!given || same(given, playerModel)) {
      throw new Error(
        `reflection mode "other" learns from another model's reflection: give a reflector model different from the player's ("${playerModel}") — --reflector-model on the command line, reflectorModel over the API`,
      );
    }
    return given;
  }
  if (given && !same(given, playerModel) && mode !== 'none') {
    throw new Error(
      `reflection mode "${mode}" reflects with the player's own model ("${playerModel}"); to have "${given}" reflect, use mode "other"`,
    );
  }
  return playerModel;
}

export interface ReflectorSettings extends RoleEndpoint {
  maxWords: number;
  /** Default: the reflector role's (model-endpoint.ts). */
  maxRetries?: number;
  /** Native video input (video-part.ts); default off: frames. */
  video?: ReflectVideo;
  /**
   * The frame budget of each call (sampling.ts): trajectories come at the sampling rate, and
   * images are thinned to its count; a video takes them all. Default: the frames as given, low detail.
   */
  sample?: Pick<ReflectionSample, 'maxFrames' | 'detail' | 'budget'>;
}

/**
 * Keeps at most `maxWords` words. Lessons come one per line, most important first, so whole
 * lines are kept from the top; only a first line longer than the budget is cut inside, at a
 * sentence end where possible.
 */
export function boundWords(text: string, maxWords: number): { text: string; cut: boolean } {
  const lines = text
    .trim()
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const count = (l: string) => l.split(/\s+/).filter(Boolean).length;
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (used + count(line) > maxWords) break;
    kept.push(line);
    used += count(line);
  }
  if (kept.length === lines.length) return { text: kept.join('\n'), cut: false };
  if (kept.length > 0) return { text: kept.join('\n'), cut: true };
  let first = lines[0]!.split(/\s+/).slice(0, maxWords).join(' ');
  const end = first.lastIndexOf('. ');
  if (end > first.length / 2) first = first.slice(0, end + 1);
  return { text: first, cut: true };
}

/** The Lessons section as plain lines: list markers and blank lines removed, order kept. */
export function lessonLines(text: string): string {
  return text
    .split('\n')
    .map((l) => l.trim().replace(/^(?:[-*\u2022]|\d{1,2}[.)])\s+/, ''))
    .filter(Boolean)
    .join('\n');
}

function section(raw: string, name: string): string {
  const m = new RegExp(`#{1,6}\\s*${name}\\s*:?\\s*\\n([\\s\\S]*?)(?=\\n#{1,6}\\s|$)`, 'i').exec(raw);
  return (m?.[1] ?? '').trim();
}

export class Reflector {
  private readonly caller: ModelCaller;
  /** The stop of the reflection under way: ends its call and any retry wait at once. */
  private signal: AbortSignal | undefined;

  constructor(private readonly s: ReflectorSettings) {
    this.caller = callerFor(s, 'reflector', {
      limits: s.maxRetries !== undefined ? { maxRetries: s.maxRetries } : {},
    });
  }

  async reflect(
    mode: ReflectionMode,
    game: GameDefinition | undefined,
    inputs: { failure?: Trajectory; tutorial?: Trajectory },
    signal?: AbortSignal,
  ): Promise<Lesson> {
    this.signal = signal;
    const before = { ...this.caller.totals.tokens, cost: this.caller.totals.cost_usd };
    const tokens = { input: 0, output: 0 };
    const lesson: Lesson = {
      text: '',
      diagnosis: '',
      mode,
      model: this.s.model,
      provenance: {},
      tokens,
      cost_usd: null,
    };
    if (mode === 'none') return lesson;
    const wantsFailure = mode !== 'self-t';
    const wantsTutorial = mode === 'self-t' || mode === 'self' || (mode === 'other' && !!inputs.tutorial);
    if (wantsFailure && !inputs.failure) throw new Error(`reflection ${mode} needs the failed attempt`);
    if (wantsTutorial && !inputs.tutorial) throw new Error(`reflection ${mode} needs a tutorial (--tutorial)`);
    const system = render('reflect-system', {
      game_title: game?.title ?? 'the game',
      rules: game?.rules ?? 'The player sees the game window and uses mouse and keyboard.',
    });

    let raw = '';
    if (wantsFailure) {
      const asked = await this.ask(
        system,
        render('reflect-failure', { notes: inputs.failure!.notes, max_words: this.s.maxWords }),
        inputs.failure!,
      );
      raw = asked.text;
      lesson.provenance.failure = asked.input;
    }
    if (wantsTutorial) {
      const prompt = wantsFailure
        ? render('reflect-combined', {
            diagnosis: section(raw, 'Diagnosis') || raw.slice(0, 2000),
            notes: inputs.tutorial!.notes,
            max_words: this.s.maxWords,
          })
        : render('reflect-tutorial', { notes: inputs.tutorial!.notes, max_words: this.s.maxWords });
      const asked = await this.ask(system, prompt, inputs.tutorial!);
      raw = asked.text;
      lesson.provenance.tutorial = asked.input;
    }
    lesson.diagnosis = section(raw, 'Diagnosis');
    const lessons = lessonLines(section(raw, 'Lessons') || (raw.includes('###') ? '' : raw.trim()));
    const bounded = boundWords(lessons, this.s.maxWords);
    lesson.text = bounded.text;
    if (!lesson.text) lesson.note = 'the reflector returned no lessons; the previous experience is kept';
    else if (bounded.cut) lesson.note = `lessons cut to ${this.s.maxWords} words`;
    const spent = this.caller.totals;
    tokens.input = spent.tokens.input - before.input;
    tokens.output = spent.tokens.output - before.output;
    lesson.cost_usd = spent.cost_usd === null ? null : spent.cost_usd - (before.cost ?? 0);
    return lesson;
  }

  /**
   * One reflection call on a trajectory: as a video of all its frames where asked
   * (video-part.ts), or as images thinned to the budget; in mode auto a video that cannot be
   * made or that the provider refuses goes as images, noted.
   */
  private async ask(system: string, text: string, t: Trajectory): Promise<{ text: string; input: LessonInput }> {
    const input: LessonInput = { source: t.source, frames: [] };
    const mode = this.s.video ?? 'off';
    if (mode !== 'off') {
      let video: Awaited<ReturnType<typeof trajectoryVideo>> | undefined;
      try {
        video = await trajectoryVideo(t, this.signal ? { signal: this.signal } : {});
      } catch (err) {
        if (mode === 'on') throw new Error(`reflection call failed: ${(err as Error).message}`);
        input.video_note = (err as Error).message;
      }
      if (video) {
        // The SDK's types know image parts only; OpenAI-compatible servers such as vLLM take this one.
        const part = { type: 'video_url', video_url: { url: video.dataUrl } } as unknown as ChatCompletionContentPart;
        const timing = `The video shows ${video.frames} frames of play, ${video.seconds} s at ${Number(video.fps.toFixed(2))} frames a second.`;
        try {
          const answer = await this.call(system, [{ type: 'text', text: `${text}\n\n${timing}` }, part]);
          return {
            text: answer,
            input: {
              ...input,
              frames: video.times,
              input: 'video',
              video_bytes: video.bytes,
              video_seconds: video.seconds,
              ...(video.thinned_from !== undefined ? { video_thinned_from: video.thinned_from } : {}),
            },
          };
        } catch (err) {
          if (mode === 'on' || !isInputRefusal(err))
            throw new Error(`reflection call failed: ${describeApiError(err)}`);
          input.video_note = `the provider refused the video: ${describeApiError(err)}`;
        }
      }
    }
    const sample = this.s.sample;
    const frames = sample ? thinEvenly(t.frames, sample.maxFrames) : t.frames;
    const detail = sample?.detail ?? 'low';
    const content: ChatCompletionContentPart[] = [{ type: 'text', text }];
    for (const f of frames)
      content.push(
        { type: 'text', text: `t = ${f.at} s` },
        { type: 'image_url', image_url: { url: f.dataUrl, detail } },
      );
    const sent: LessonInput = {
      ...input,
      frames: frames.map((f) => f.at),
      input: 'frames',
      ...(sample ? { budget: sample.budget } : {}),
    };
    try {
      return { text: await this.call(system, content), input: sent };
    } catch (err) {
      throw new Error(`reflection call failed: ${describeApiError(err)}`);
    }
  }

  private async call(system: string, content: ChatCompletionContentPart[]): Promise<string> {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: system },
      { role: 'user', content },
    ];
    const r = await this.caller.chat({ messages, stream: false }, this.signal ? { signal: this.signal } : {});
    return r.text;
  }
}
