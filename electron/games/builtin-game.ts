/**
 * One built-in game as the harness sees it: the engine instance plus the live view it
 * drives. Input from the real window and semantic moves both go through here, so the
 * engine state is the single source of truth.
 */
import { EventEmitter } from 'node:events';
import type { GameDefinition, GameInstance, HitRect, MoveResult, ViewInput } from '../../games/types.ts';
import { seededRng } from '../../games/shared/rng.ts';
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

  /** Resolves once `count` inputs arrived since the last drain (or false after `timeoutMs`). */
  waitForInputs(count: number, timeoutMs: number): Promise<boolean> {
    return this.waitUntil('input', () => this.inputs.length >= count, timeoutMs);
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

  /** Resolves once the view shows the current engine state (or false after `timeoutMs`). */
  waitRendered(timeoutMs = 3000): Promise<boolean> {
    return this.waitUntil('rendered', () => this.renderedVersion >= this.version, timeoutMs);
  }

  private waitUntil(event: string, done: () => boolean, timeoutMs: number): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        this.off(event, check);
        resolve(ok);
      };
      const check = () => done() && finish(true);
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.on(event, check);
    });
  }

  renderMessage() {
    return { type: 'render', version: this.version, html: this.instance.html() };
  }

  private changed() {
    this.version++;
    this.emit('changed');
  }
}
