/**
 * What a run's record says about itself, from its agent steps as they are written: the quality
 * figures of run.json (`quality`) and its times (`timing`, step-timing.ts), which episodes do not
 * count (most steps had no model answer), whether the model was ever reached, and a warning,
 * with its checked causes, when a run of steps in a row acted and changed nothing.
 */
import type { WindowInfo, WindowManager } from '../../native/types.ts';
import type { Profile } from '../profiles/profile-schema.ts';
import type { LatencyMode, ModeFigures, RunTiming, TimingByMode } from '../domain.ts';
import type { RoleUsage, RunQuality } from '../store/run-store.ts';
import { rate } from '../store/run-quality.ts';
import { TimingTally } from '../store/run-timing.ts';
import { noteStepTiming } from './step-timing.ts';
import type { SessionStepRecord } from './session-types.ts';
import { keysPressed, noEffectCauses } from './no-effect-causes.ts';

/** A step's model calls (attempts), and whether one of them answered. */
function modelAnswer(rec: SessionStepRecord): 'answered' | 'unanswered' | 'no-model' {
  const calls = rec.model_calls as { ok: boolean }[] | undefined;
  if (!calls?.length) return 'no-model';
  return calls.some((c) => c.ok) ? 'answered' : 'unanswered';
}

/** Refused actions, plus one for an answer that brought no actions because it could not be read. */
function invalidIn(rec: SessionStepRecord): { invalid: number; chosen: number } {
  const refused = ((rec.outcomes ?? []) as { ok: boolean }[]).filter((o) => !o.ok).length;
  const unreadable = rec.actions.length === 0 && rec.errors.some((e) => e.startsWith('parse:')) ? 1 : 0;
  return { invalid: refused + unreadable, chosen: rec.actions.length + unreadable };
}

export class RunAudit {
  private steps = 0;
  private noEffect = 0;
  private invalid = 0;
  private chosen = 0;
  private answered = 0;
  private unanswered = 0;
  private readonly episodes = new Map<number, { steps: number; unanswered: number }>();
  /** The no-effect steps in a row so far, and the keys they pressed. */
  private streak: { steps: number; keys: string[] } = { steps: 0, keys: [] };
  private pending: Promise<void> = Promise.resolve();
  private readonly times = new TimingTally();

  constructor(
    private readonly deps: { wm: WindowManager; profile?: Profile | undefined; label: string },
    private readonly warnAfter: number,
    private readonly warn: (message: string) => void,
  ) {}

  /** An agent step as written. */
  noteStep(rec: SessionStepRecord, win: WindowInfo) {
    this.steps++;
    const answer = modelAnswer(rec);
    if (answer === 'answered') this.answered++;
    if (answer === 'unanswered') this.unanswered++;
    const ep = this.episodes.get(rec.episode) ?? { steps: 0, unanswered: 0 };
    ep.steps++;
    if (answer === 'unanswered') ep.unanswered++;
    this.episodes.set(rec.episode, ep);
    noteStepTiming(this.times, rec);
    const { invalid, chosen } = invalidIn(rec);
    this.invalid += invalid;
    this.chosen += chosen;
    if (rec.effect === 'none') {
      this.noEffect++;
      this.streak.steps++;
      this.streak.keys.push(...keysPressed(rec.actions));
      if (this.streak.steps === this.warnAfter) this.explain(rec, win, this.streak.keys);
    } else if (rec.effect === 'changed') this.streak = { steps: 0, keys: [] };
  }

  /** Why an episode does not count, when more than half of its steps had no model answer. */
  episodeVerdict(episode: number): { invalid?: string } {
    const ep = this.episodes.get(episode);
    if (!ep || ep.unanswered * 2 <= ep.steps) return {};
    return { invalid: `${ep.unanswered} of ${ep.steps} steps had no model answer` };
  }

  /** The run asked a model and never got an answer: it failed, whatever it scored. */
  get neverAnswered(): boolean {
    return this.unanswered > 0 && this.answered === 0;
  }

  /** run.json's `quality`, the model calls of every role counted from `usage`. */
  quality(usage: Record<string, RoleUsage> | undefined): RunQuality {
    const roles = Object.values(usage ?? {});
    return {
      steps: this.steps,
      no_effect_steps: this.noEffect,
      no_effect_rate: rate(this.noEffect, this.steps),
      invalid_actions: this.invalid,
      invalid_rate: rate(this.invalid, this.chosen),
      model_calls: roles.reduce((n, r) => n + r.calls, 0),
      model_call_failures: roles.reduce((n, r) => n + r.failed, 0),
    };
  }

  /** The agent steps' times so far per latency mode, without their samples (what the Live view shows). */
  timingFigures(): TimingByMode<ModeFigures> {
    return this.times.figures();
  }

  /** run.json's `timing`: the agent steps' times per latency mode, the run started in `mode`. */
  timing(mode: LatencyMode): RunTiming {
    return { latency_mode: mode, by_mode: this.times.byMode() };
  }

  /** Waits for a warning still being worked out. */
  settled(): Promise<void> {
    return this.pending;
  }

  private explain(rec: SessionStepRecord, win: WindowInfo, keys: string[]) {
    const head = `${this.warnAfter} steps in a row acted and changed nothing in ${this.deps.label}`;
    const settle = rec.settle;
    this.pending = this.pending.then(async () => {
      const found =
        settle?.by === 'view'
          ? [
              settle.inputs_arrived
                ? 'the game received the inputs and its state did not change (moves that are not possible there)'
                : 'the game’s view did not receive every input sent (focus, or a window over it)',
            ]
          : await noEffectCauses(this.deps.wm, win, keys, this.deps.profile);
      const says = found.length
        ? found.join('; ')
        : 'focus, stacking and the window manager look right: the keys may not be the game’s controls, or it answers after the settle limit (--settle-ms)';
      this.warn(`${head}: ${says}`);
    });
  }
}
