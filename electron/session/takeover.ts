/**
 * A person takes the controls mid-run and hands them back. While a person has them the agent
 * does not decide, the world runs in real time, and the person's input — heard through the
 * recorder's input path (recording/person-input.ts implements PersonInput) — is recorded as
 * steps whose `actor` is `human`. Each takeover is a span in run.json and a correction record in
 * corrections.jsonl: what the agent did just before it, and what the person did instead.
 */
import type { StepRecord } from '../store/run-store.ts';
import type { Rect } from '../../native/types.ts';
import type { AssistSummary, PersonEvent, TakeoverSpan, TakeoverTrigger } from '../domain.ts';

export type { AssistSummary, PersonEvent, TakeoverSpan, TakeoverTrigger };

/** The person's input as the recorder hears it; the agent's own input is not in it. */
export interface PersonInput {
  /** Keep what is heard from `t` (epoch ms) on; before that nothing is kept. */
  listenFrom(t: number): void;
  /** Stop keeping input (the events kept so far are dropped). */
  pause(): void;
  /** The events kept since the last call, oldest first. */
  drain(): PersonEvent[];
  /**
   * The executor acts from `from` (epoch ms) until `to`: what is heard then is its own. Called
   * with `from` alone before it acts (the span is open: input arriving while it acts is judged
   * against it), then again with the same `from` and `to` when it is done.
   */
  agentActs(from: number, to?: number): void;
  close(): Promise<void>;
}

export interface PersonInputOptions {
  windowId: string;
  /** Where the window is now (the input path follows it from then on). */
  bounds: Rect;
  /** Called on the person's input in the window (a key while it has focus, the pointer inside it), with its time. */
  onInput?: (t: number) => void;
  /** Keys that are not the person's play (the takeover and stop hotkeys' own key). */
  ignoreKeys?: readonly string[];
  /**
   * The keys the agent's executor holds now (nut names, e.g. `Right`): the X server autorepeats a
   * held key, and those repeats are the agent's, not a person's, however long after its action.
   */
  agentHeld?: () => readonly string[];
}

/** Opens the input path; rejects, saying why, where there is no global input hook. */
export type PersonInputFactory = (o: PersonInputOptions) => Promise<PersonInput>;

/**
 * How often a person's step is taken while they have the controls (frames per second). Each is
 * a step record with its own frame file, as the agent's are, so not the recorder's video rate.
 */
export const TAKEOVER_FPS = 10;

/** How many of the agent's steps before a takeover a correction record keeps. */
export const CORRECTION_CONTEXT_STEPS = 5;

/** A step as a correction record keeps it: the frame file, not its pixels. */
export interface CorrectionStep {
  step: number;
  frame: string | null;
  t_capture: number;
  reasoning: string;
  actions: unknown[];
  outcomes?: unknown[];
  input_events?: PersonEvent[];
}

/** A line of corrections.jsonl: what the agent did before the takeover, and the person's play during it. */
export interface CorrectionRecord extends Omit<TakeoverSpan, 'human_steps' | 'inputs'> {
  before: CorrectionStep[];
  during: CorrectionStep[];
}

const asCorrectionStep = (r: StepRecord): CorrectionStep => ({
  step: r.step,
  frame: r.frame,
  t_capture: r.t_capture,
  reasoning: r.reasoning,
  actions: r.actions,
  ...(r.outcomes ? { outcomes: r.outcomes } : {}),
  ...(Array.isArray(r.input_events) ? { input_events: r.input_events as PersonEvent[] } : {}),
});

/** The takeovers of one run: the spans, the agent's recent steps, the person's steps of the open one. */
export class TakeoverLog {
  readonly spans: TakeoverSpan[] = [];
  private recent: StepRecord[] = [];
  private during: StepRecord[] = [];

  get open(): TakeoverSpan | undefined {
    const last = this.spans.at(-1);
    return last && last.ended === null ? last : undefined;
  }

  /** An agent's step: kept as context for a takeover that may follow (or the one it was cut short by). */
  agentStep(rec: StepRecord) {
    this.recent.push(rec);
    if (this.recent.length > CORRECTION_CONTEXT_STEPS) this.recent.shift();
  }

  /** A new episode: the last one's steps are no context for a takeover in this one. */
  newEpisode() {
    this.recent = [];
  }

  begin(episode: number, trigger: TakeoverTrigger, started: number): TakeoverSpan {
    const span: TakeoverSpan = {
      index: this.spans.length,
      episode,
      trigger,
      from_step: null,
      to_step: null,
      started,
      ended: null,
      handed_back: false,
      human_steps: 0,
      inputs: 0,
      covered_frames: 0,
    };
    this.spans.push(span);
    this.during = [];
    return span;
  }

  /**
   * A step the person played, in the open takeover (or the one just ended: a frame taken as the
   * person handed back is still theirs).
   */
  humanStep(rec: StepRecord & { input_events: PersonEvent[] }) {
    const span = this.open ?? this.spans.at(-1);
    if (!span) return;
    span.from_step ??= rec.step;
    span.to_step = rec.step;
    span.human_steps++;
    span.inputs += rec.input_events.length;
    this.during.push(rec);
  }

  /** A frame of the open takeover not taken: another window covered the game. Returns how many so far. */
  coveredFrame(): number {
    const span = this.open;
    if (!span) return 0;
    return ++span.covered_frames;
  }

  /** Ends the open takeover; returns its correction record (undefined when none was open). */
  end(ended: number, handedBack: boolean): CorrectionRecord | undefined {
    const span = this.open;
    if (!span) return undefined;
    span.ended = ended;
    span.handed_back = handedBack;
    const { human_steps: _h, inputs: _i, ...head } = span;
    const rec: CorrectionRecord = {
      ...head,
      before: this.recent.filter((r) => r.episode === span.episode).map(asCorrectionStep),
      during: this.during.map(asCorrectionStep),
    };
    this.during = [];
    this.recent = [];
    return rec;
  }

  summary(now = Date.now()): AssistSummary {
    return {
      assisted: this.spans.length > 0,
      takeovers: this.spans.map((s) => ({ ...s })),
      human_steps: this.spans.reduce((n, s) => n + s.human_steps, 0),
      human_ms: this.spans.reduce((n, s) => n + ((s.ended ?? now) - s.started), 0),
    };
  }
}

/** The person's input over a takeover's steps, in order. */
export function personEvents(steps: readonly CorrectionStep[]): PersonEvent[] {
  return steps.flatMap((s) => s.input_events ?? []);
}

/** The note the agent's next prompt gets after a person handed back: how long, and what they did. */
export function handBackNote(span: TakeoverSpan, events: readonly PersonEvent[], max = 12): string {
  const seconds = (((span.ended ?? Date.now()) - span.started) / 1000).toFixed(1);
  const shown = events.slice(-max).map(describeEvent);
  const more = events.length > shown.length ? `… ${events.length - shown.length} earlier input(s), then ` : '';
  const what = events.length ? `${more}${shown.join(', ')}` : 'no input in the game window';
  return `A person had the controls for ${seconds} s and played ${span.human_steps} step(s): ${what}. The screen now shows the result; go on from here.`;
}

function describeEvent(e: PersonEvent): string {
  const p = e.parameters;
  if (typeof p.key === 'string') return `${e.action_type} ${p.key}`;
  if (typeof p.x === 'number' && typeof p.y === 'number') return `${e.action_type} (${p.x}, ${p.y})`;
  return e.action_type;
}
