/**
 * The one slot for what the core does on the desktop — a run, an IDC, a recording, an ING-VP
 * suite, a sweep: at most one at a time. One busy rule (nothing starts while anything holds the slot,
 * even while it is still starting), one stop path (ask the holder to stop, wait until it has
 * ended and released its input), one cleanup path (close what it holds, report how it
 * ended, free the slot) — whatever the activity is.
 */
import { CodedError } from '../domain.ts';

export type ActivityKind = 'run' | 'idc' | 'recording' | 'suite' | 'sweep';

/** Something long the core does; the slot holds at most one. */
export interface Activity {
  readonly kind: ActivityKind;
  /**
   * Settles when it has ended, however it ended: with why it ended badly (a message for the
   * person), or null. Never rejects.
   */
  readonly finished: Promise<string | null>;
  /** Ends it at once: held input released, a frozen world thawed. */
  stop(): void;
  /** Gives back what it holds (its target window). Called once, after it finished. */
  close(): Promise<void>;
}

/** Where the slot is: empty, an activity starting, running, paused (a run), or stopping. */
export type SlotPhase = 'idle' | 'starting' | 'running' | 'paused' | 'stopping';

const NAMES: Record<ActivityKind, string> = {
  run: 'a run',
  idc: 'an IDC',
  recording: 'a recording',
  suite: 'an ING-VP suite',
  sweep: 'a sweep',
};

interface Held<A extends Activity> {
  kind: ActivityKind;
  phase: Exclude<SlotPhase, 'idle'>;
  activity?: A;
  stopRequested: boolean;
  /** Resolves once the slot is free again. */
  freed: Promise<void>;
}

export interface SlotEvents {
  /** The phase or the holder changed. */
  changed(): void;
  /** An activity ended: with a problem to report (or null), or failed to start. */
  ended(kind: ActivityKind, problem: string | null): void;
}

export class ActivitySlot<A extends Activity> {
  private held?: Held<A>;

  constructor(private readonly on: SlotEvents) {}

  get phase(): SlotPhase {
    return this.held?.phase ?? 'idle';
  }

  /** The activity holding the slot, once it has started. */
  get current(): A | undefined {
    return this.held?.activity;
  }

  /**
   * Starts an activity built by `open`. Refuses with `busy` while anything holds the slot. When
   * `open` throws, it must have undone its own partial work; the slot is free again.
   */
  async start<T extends A>(kind: T['kind'], open: () => Promise<T>): Promise<T> {
    if (this.held) throw new CodedError('busy', `${NAMES[this.held.kind]} is already going; stop it first`);
    let free: () => void = () => {};
    const held: Held<A> = {
      kind,
      phase: 'starting',
      stopRequested: false,
      freed: new Promise<void>((r) => (free = r)),
    };
    this.held = held;
    this.on.changed();
    let activity: T;
    try {
      activity = await open();
    } catch (err) {
      this.held = undefined;
      free();
      this.on.ended(kind, (err as Error).message);
      this.on.changed();
      throw err;
    }
    held.activity = activity;
    held.phase = held.stopRequested ? 'stopping' : 'running';
    if (held.stopRequested) activity.stop(); // stopped while it was starting
    this.on.changed();
    void activity.finished.then(async (problem) => {
      await activity.close().catch(() => {});
      this.held = undefined;
      free();
      this.on.ended(kind, problem);
      this.on.changed();
    });
    return activity;
  }

  /** A run paused or resumed itself (a person, a minimized window); ignored while stopping. */
  setPhase(activity: A, phase: 'running' | 'paused') {
    const held = this.held;
    if (!held || held.activity !== activity || held.phase === 'stopping' || held.phase === phase) return;
    held.phase = phase;
    this.on.changed();
  }

  /** Stops whatever holds the slot and resolves once it has ended and the slot is free. */
  async stop(): Promise<void> {
    const held = this.held;
    if (!held) return;
    held.stopRequested = true;
    if (held.activity && held.phase !== 'stopping') {
      held.phase = 'stopping';
      this.on.changed();
      held.activity.stop();
    }
    await held.freed;
  }
}
