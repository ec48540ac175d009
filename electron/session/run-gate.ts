/**
 * Whether the loop may take its next step, and why not: paused by a person (a single step let
 * through at a time on request), or waiting for its window to be shown again (minimized, or
 * entirely off the screen). Every state it enters is announced with its reason.
 */
export class RunGate {
  private paused = false;
  /** Why a person (or the app for them) paused the run. */
  private pausedBecause = '';
  private waiters: (() => void)[] = [];
  private singleSteps = 0;
  /** Why the run waits for its window; undefined while it is shown. */
  private hiddenBecause: string | undefined;
  /** A person pressed resume while the window was hidden: show it again. */
  private restoreRequested = false;

  constructor(
    /** The run's stop: a paused run lets it through. */
    private readonly signal: AbortSignal,
    /** Every state it enters; a pause with its reason, which the UI shows beside it. */
    private readonly say: { status(s: 'running' | 'paused', why?: string): void; warn(message: string): void },
  ) {}

  get isPaused() {
    return this.paused;
  }

  /** Whether the run waits for its window to be shown again. */
  get waitingForWindow() {
    return this.hiddenBecause !== undefined;
  }

  /** `why` is shown beside PAUSED (a window that cannot be seen says its own reason instead). */
  pause(why = 'paused by a person') {
    this.paused = true;
    this.pausedBecause = why;
    if (!this.hiddenBecause) this.say.status('paused', why);
  }

  /** Resumes a paused run; while its window is hidden, resuming first asks for the window to be shown again. */
  resume() {
    this.paused = false;
    if (this.hiddenBecause) this.restoreRequested = true;
    this.wake();
    if (!this.hiddenBecause) this.say.status('running');
  }

  /** While paused, lets exactly one more step run. */
  stepOnce() {
    this.singleSteps++;
    this.wake();
  }

  /** Lets a waiting loop go on (stop, resume, a single step). */
  wake() {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits while a person has paused the run (or until a single step or the stop). */
  async pass() {
    while (this.paused && !this.signal.aborted) {
      if (this.singleSteps > 0) {
        this.singleSteps--;
        return;
      }
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  /**
   * The window cannot be seen (`why`): the run is paused until it is shown again, said once.
   * Returns whether a person asked since to show it again.
   */
  hidden(why: string): boolean {
    if (!this.hiddenBecause) {
      this.hiddenBecause = why;
      this.say.warn(`${why}: the run is paused until the window is shown again (or the run is stopped)`);
      this.say.status('paused', why);
    }
    const restore = this.restoreRequested;
    this.restoreRequested = false;
    return restore;
  }

  /** The window is shown again: the run goes on unless a person paused it. */
  shown() {
    if (!this.hiddenBecause) return;
    this.hiddenBecause = undefined;
    this.say.status(this.paused ? 'paused' : 'running', this.paused ? this.pausedBecause : undefined);
  }
}
