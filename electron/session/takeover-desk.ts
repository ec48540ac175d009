/**
 * A person taking the controls of a run, and handing them back: the person's input path
 * (opened through the shell's factory: the global hook), the spans (TakeoverLog), the
 * person's steps — a frame at TAKEOVER_FPS, the input heard until the next frame its actions —
 * and the correction record written when a span ends. The loop asks it whether a person has
 * the controls and when the person's next frame is due; it tells the loop, through a small
 * host, to let the step go, to make the world safe, and what the person did.
 */
import type { EventEmitter } from 'node:events';
import type { PreviousStep } from '../agents/agent-types.ts';
import { windowsOver } from '../capture/occlusion.ts';
import { CodedError, round2, type LatencyMode, type WorldKind } from '../domain.ts';
import type { ActionExecutor } from '../input/executor.ts';
import type { RunStore } from '../store/run-store.ts';
import { now, sleep } from '../util/time.ts';
import { CoverRepaint } from './cover-repaint.ts';
import type { WindowManager } from '../../native/types.ts';
import type {
  FrameHead,
  SeenTarget,
  SessionEvents,
  SessionStepRecord,
  StepTrace,
  TakeoverState,
} from './session-types.ts';
import {
  handBackNote,
  personEvents,
  TAKEOVER_FPS,
  TakeoverLog,
  type PersonInput,
  type PersonInputFactory,
  type TakeoverTrigger,
} from './takeover.ts';
import type { Target } from './targets.ts';
import type { SessionConfig } from './session-config.ts';
import { gameFields } from './step-record.ts';

/** What the desk needs of the session it serves. */
export interface TakeoverHost {
  /** The run's stop. */
  readonly signal: AbortSignal;
  /** What the agent holds (the hook must not take its keys for the person's). */
  readonly executor: ActionExecutor;
  readonly emit: EventEmitter<SessionEvents>['emit'];
  /** A person took over: the step in progress ends (its model call and waits), a paused run goes on. */
  yieldStep(): void;
  /** Thaws the world and lets go of held input. */
  makeSafe(): Promise<void>;
  /** The person handed back: what the agent's next observation says they did. */
  handedBack(previous: PreviousStep): void;
  /** The episode the loop is in. */
  episode(): number;
  /** The latency mode and the world's kind when a person's step is written. */
  clockFields(): { latency_mode: LatencyMode; world: WorldKind };
}

/** A person's step as it waits for its input: the frame is taken, the input follows until the next frame. */
interface PendingHumanStep {
  trace: StepTrace;
  head: FrameHead;
}

export class TakeoverDesk {
  readonly log = new TakeoverLog();
  /** The person's input path (given by the shell: recording/person-input.ts); open while it is heard. */
  private factory: PersonInputFactory | undefined;
  private input: PersonInput | undefined;
  private opening: Promise<PersonInput> | undefined;
  private onInput = false;
  private pending: PendingHumanStep | undefined;
  private nextFrame = 0;
  /** Whether the last frame time of a takeover found the game covered (warned once per covering). */
  private wasCovered = false;
  /** What the game draws while covered, so that uncovering waits for its repaint. */
  private readonly coverRepaint: CoverRepaint;
  /** The run has ended (its input path closed): nothing can be taken over any more. */
  private finished = false;

  constructor(
    private readonly host: TakeoverHost,
    private readonly deps: { target: Target; wm: WindowManager; store: RunStore },
    private readonly config: Pick<SessionConfig, 'takeOverOnInput' | 'settleQuietMs'>,
  ) {
    this.coverRepaint = new CoverRepaint(deps.wm);
  }

  /** Whether a person has the controls now. */
  get open() {
    return !!this.log.open;
  }

  /**
   * Lets people take over through their input path. With the run's take-over-on-input setting
   * the path listens from the start, and the person's input in the window takes over by itself.
   */
  accept(factory: PersonInputFactory, o: { ignoreKeys?: readonly string[] } = {}) {
    this.factory = (opts) => factory({ ...opts, ...(o.ignoreKeys ? { ignoreKeys: o.ignoreKeys } : {}) });
    this.onInput = this.config.takeOverOnInput;
  }

  get state(): TakeoverState {
    const open = this.log.open;
    return {
      active: !!open,
      ...(open ? { trigger: open.trigger } : {}),
      takeovers: this.log.spans.length,
      onInput: this.onInput,
    };
  }

  /** At the run's start, when the person's input in the window takes over: the input path listens. */
  async listen() {
    if (!this.onInput) return;
    try {
      (await this.openInput()).pause(); // nothing kept until a takeover
    } catch (err) {
      this.host.emit('warning', `take over on input is off: ${(err as Error).message}`);
      this.onInput = false;
    }
  }

  /**
   * A person takes the controls: the agent's call and the step's waits end, held input is let
   * go, a frozen world runs, and from the next frame on the person's input is recorded as the
   * run's steps (`actor: human`) until handBack(). A paused run goes on: the person plays it.
   * `since`: input from then on is the person's (the input that took over, when it did).
   */
  async takeOver(trigger: TakeoverTrigger, since = Date.now()): Promise<TakeoverState> {
    const ending = () => this.host.signal.aborted || this.finished;
    if (ending()) throw new CodedError('not-found', 'the run is ending: there is nothing to take over');
    if (this.log.open) return this.state;
    const input = await this.openInput();
    if (this.finished) {
      await this.closeInput(); // the run ended while the input path opened
      throw new CodedError('not-found', 'the run has ended: there is nothing to take over');
    }
    if (this.log.open || ending()) return this.state;
    input.listenFrom(since);
    this.log.begin(this.host.episode(), trigger, Date.now());
    this.nextFrame = 0;
    this.wasCovered = false;
    this.coverRepaint.close();
    this.host.yieldStep();
    this.deps.store.update(this.log.summary());
    this.host.emit('takeover', this.state);
    await this.host.makeSafe();
    return this.state;
  }

  /** The take-over hotkey: takes the controls, or hands them back when a person has them. */
  toggle(trigger: TakeoverTrigger): Promise<TakeoverState> {
    return this.log.open ? this.handBack() : this.takeOver(trigger);
  }

  /** The person gives the controls back: the agent goes on from the current frame, told what the person did. */
  async handBack(): Promise<TakeoverState> {
    if (!this.log.open) return this.state;
    await this.end(true);
    return this.state;
  }

  /**
   * The agent acts from `from`: what the input path listening now hears until the returned
   * function is called (with the time the agent was done) is the agent's.
   */
  agentActs(from: number): (to: number) => void {
    const input = this.input;
    input?.agentActs(from);
    return (to) => input?.agentActs(from, to);
  }

  /**
   * Whether the person's next frame is taken now: waits for its time (TAKEOVER_FPS); false once
   * handed back or stopped, or while another window covers the game. The step before is written.
   */
  async frameDue(seen: SeenTarget): Promise<boolean> {
    await sleep(this.nextFrame - Date.now(), this.host.signal);
    if (this.host.signal.aborted || !this.log.open) return false;
    this.nextFrame = Date.now() + 1000 / TAKEOVER_FPS;
    if (await this.covered(seen)) return false;
    this.flush();
    return true;
  }

  /**
   * The person's frame is taken: its step waits for the input heard until the next frame.
   * `head`: what the step's record says first (step-record.ts).
   */
  framed(trace: StepTrace, head: FrameHead) {
    this.pending = { trace, head };
    if (!this.log.open) this.flush(); // handed back while the frame was taken
  }

  /**
   * Whether another window lies over the game now. While a person plays the harness does not
   * raise the game, and a capture of the screen would show (and a dataset export ship) what
   * covers it: such a frame is not taken, and counted in the span's covered_frames; the input
   * heard meanwhile goes to the step before, as between any two frames. The warning names no
   * window (its title may be private). Where the stacking is unknown: false. Once uncovered, the
   * game's repaint of what was covered is waited for (cover-repaint.ts).
   */
  async covered(seen: SeenTarget): Promise<boolean> {
    const over = await windowsOver(this.deps.wm, seen.win, seen.visible).catch(() => undefined);
    if (!over?.length) {
      if (this.wasCovered) await this.coverRepaint.uncovered(this.config.settleQuietMs, this.host.signal);
      this.wasCovered = false;
      return false;
    }
    this.coverRepaint.covered(seen.win.id);
    const n = this.log.coveredFrame();
    if (!this.wasCovered)
      this.host.emit(
        'warning',
        `another window covers the game: the person's frames are not recorded until it is moved away (${n} left out so far in this takeover)`,
      );
    this.wasCovered = true;
    return true;
  }

  /** The agent's step, for the span's record of what came before. */
  agentStep(rec: SessionStepRecord) {
    this.log.agentStep(rec);
  }

  /** The run has ended: the open span closed (not handed back), the input path closed. */
  async close() {
    this.finished = true;
    await this.end(false).catch(() => {});
    await this.closeInput();
    this.coverRepaint.close();
  }

  private async openInput(): Promise<PersonInput> {
    if (this.input) return this.input;
    if (!this.factory)
      throw new CodedError('bad-input', 'taking over needs the input hook, which this shell did not start');
    const win = await this.deps.target.locate();
    this.opening ??= this.factory({
      windowId: win.id,
      bounds: win.bounds,
      agentHeld: () => this.host.executor.held(),
      ...(this.onInput
        ? {
            onInput: (t: number) => {
              if (!this.log.open && !this.host.signal.aborted)
                this.takeOver('input', t).catch((err: Error) => this.host.emit('warning', `take over: ${err.message}`));
            },
          }
        : {}),
    });
    try {
      this.input = await this.opening;
    } catch (err) {
      this.opening = undefined;
      throw new CodedError('bad-input', `cannot hear a person's input: ${(err as Error).message}`);
    }
    return this.input;
  }

  private async closeInput() {
    const input = this.input;
    this.input = undefined;
    this.opening = undefined;
    await input?.close().catch(() => {});
  }

  /** Ends the open takeover: its last step written, its span closed, its correction record kept. */
  private async end(handedBack: boolean) {
    if (!this.log.open) return;
    this.flush();
    const rec = this.log.end(Date.now(), handedBack);
    this.input?.pause(); // nothing kept until the next takeover (the hook may still take over)
    if (rec) {
      try {
        this.deps.store.appendFile('corrections.jsonl', `${JSON.stringify(rec)}\n`);
      } catch (err) {
        this.host.emit('warning', `the correction record was not written: ${(err as Error).message}`);
      }
      const span = this.log.spans[rec.index]!;
      if (handedBack)
        this.host.handedBack({ actions: [], outcomes: [], person: handBackNote(span, personEvents(rec.during)) });
    }
    this.deps.store.update(this.log.summary());
    this.host.emit('takeover', this.state);
  }

  /** Writes the person's pending step with the input heard since its frame. */
  private flush() {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    const events = this.input?.drain() ?? [];
    const t = pending.trace.times;
    const actions = events.map((ev) => ({ action_type: ev.action_type, parameters: ev.parameters }));
    const rec = {
      ...pending.head,
      actor: 'human' as const,
      reasoning: '',
      raw: null,
      actions,
      input_events: events,
      outcomes: [],
      errors: [],
      latency_ms: {
        locate: round2(t.located - t.start),
        capture: round2(t.captured! - t.located),
        encode: round2(t.encoded! - t.captured!),
        model: 0,
        act: 0,
        total: round2(now() - t.start),
      },
      ...this.host.clockFields(),
      paused_ms: 0,
      ...gameFields(this.deps.target),
    };
    this.log.humanStep(rec);
    this.deps.store.appendStep(rec, this.log.summary()); // run.json's counts current with the step
    this.host.emit('step', {
      ...rec,
      actionsText: actions.map((a) => `${a.action_type} ${JSON.stringify(a.parameters)}`),
    });
  }
}
