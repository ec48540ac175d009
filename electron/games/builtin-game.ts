/**
 * One built-in game as the harness sees it: the engine instance plus the live view it
 * drives. Input from the real window and semantic moves both go through here, so the
 * engine state is the single source of truth.
 */
import { EventEmitter } from 'node:events';
import type { GameDefinition, GameInstance, HitRect, MoveResult, ViewInput } from '../../games/types.ts';
import { seededRng } from '../../games/shared/rng.ts';
import type { ChangeWatch } from '../../native/types.ts';
import { GameClock } from './game-clock.ts';

export interface ViewMetrics {
  dpr: number;
  innerWidth: number;
  innerHeight: number;
  outerWidth: number;
  outerHeight: number;
}

export interface InputRecord {
  t: number;
  input: ViewInput;
  result: MoveResult;
}

export class BuiltinGame extends EventEmitter {
  instance!: GameInstance;
  version = 0;
  renderedVersion = -1;
  hits: HitRect[] = [];
  metrics?: ViewMetrics;
  /** Inputs the view delivered since the last drain, for the step record. */
  private inputs: InputRecord[] = [];
  seed = 0;
  episode = 0;
  /** The game's own clock; real-time games move on its ticks. */
  readonly clock: GameClock;

  constructor(
    readonly def: GameDefinition,
    readonly title: string,
  ) {
    super();
    this.clock = new GameClock(def.realtime?.tickMs ?? 100, () => {
      if (this.instance.tick?.()) this.changed();
    });
    this.reset(0, 0);
    this.clock.start();
  }

  dispose() {
    this.clock.dispose();
    this.drawing?.close();
    this.drawing = undefined;
  }

  reset(seed: number, episode: number) {
    this.seed = seed;
    this.episode = episode;
    this.instance = this.def.create({ seed, episode, rng: seededRng(seed * 1000003 + episode) });
    this.inputs = [];
    this.changed();
  }

  applyMove(move: string): MoveResult {
    const r = this.instance.applyMove(move);
    this.changed();
    return r;
  }

  /**
   * When set, a key from the window counts only if this says so: with a person in a seat, only the
   * keys the executors sent do (the person's own are taken through their seat's actions).
   */
  keyGate?: (key: string) => boolean;
  /** Keys from the window the gate kept out of the game. */
  keysKeptOut = 0;

  /** Input that arrived through the real window. */
  handleViewInput(input: ViewInput) {
    if (input.type === 'key' && this.keyGate && !this.keyGate(input.key)) {
      this.keysKeptOut++;
      return;
    }
    const result = this.instance.handleInput(input);
    this.inputs.push({ t: Date.now(), input, result });
    this.changed();
    this.emit('input', input, result);
  }

  /** Resolves once `count` inputs arrived since the last drain (false after `timeoutMs` or on `signal`). */
  waitForInputs(count: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    return this.waitUntil('input', () => this.inputs.length >= count, timeoutMs, signal);
  }

  drainInputs(): InputRecord[] {
    const out = this.inputs;
    this.inputs = [];
    return out;
  }

  acknowledgeRender(version: number, hits: HitRect[], metrics: ViewMetrics) {
    this.hits = hits;
    this.metrics = metrics;
    this.renderedVersion = Math.max(this.renderedVersion, version);
    this.emit('rendered', version);
  }

  /** Resolves once the page says it drew the current engine state (false after `timeoutMs` or on `signal`). */
  waitRendered(timeoutMs = 3000, signal?: AbortSignal): Promise<boolean> {
    return this.waitUntil('rendered', () => this.renderedVersion >= this.version, timeoutMs, signal);
  }

  /**
   * The view window's drawing as the display server reports it, where it can be followed (set
   * by whoever opened the window). Each change of state starts its count afresh.
   */
  drawing?: ChangeWatch;
  /** The state changed since the window was last seen drawing it. */
  private undrawn = false;

  /**
   * Waits until the window's pixels show the current state: the page acknowledged drawing it
   * and, where the drawing can be followed, the window drew since the state last changed. The
   * page's word alone is not enough: it comes two animation frames after the update, and on a
   * busy machine that was before the pixels reached the window (7 stale frames in 4,542 steps of
   * 2048 beside busy loops; none with this wait, side by side). `drew` is absent where the drawing cannot be followed, and true
   * when nothing changed since the last wait (what is shown was confirmed then).
   */
  async shows(timeoutMs: number, signal?: AbortSignal): Promise<{ rendered: boolean; drew?: boolean }> {
    const deadline = performance.now() + timeoutMs;
    const rendered = await this.waitRendered(timeoutMs, signal);
    const watch = this.drawing;
    if (!watch) return { rendered };
    if (!this.undrawn) return { rendered, drew: true };
    const left = Math.max(0, deadline - performance.now());
    const r = await watch.settled({ quietMs: 0, firstMs: left, maxMs: left, signal });
    if (r.changed) this.undrawn = false;
    return { rendered, drew: r.changed };
  }

  private waitUntil(event: string, done: () => boolean, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        this.off(event, check);
        signal?.removeEventListener('abort', stop);
        resolve(ok);
      };
      const check = () => done() && finish(true);
      const stop = () => finish(false);
      const timer = setTimeout(stop, timeoutMs);
      this.on(event, check);
      signal?.addEventListener('abort', stop, { once: true });
    });
  }

  renderMessage() {
    return { type: 'render', version: this.version, html: this.instance.html() };
  }

  private changed() {
    this.version++;
    if (this.drawing) {
      this.drawing.reset(0);
      this.undrawn = true;
    }
    this.emit('changed');
  }
}
