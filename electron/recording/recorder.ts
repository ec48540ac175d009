/**
 * Records a person playing: frames of the target window at a set rate (written as they come,
 * never held), and global input on the same clock, translated into the action schema. The
 * session folder is a run (kind "human"), so it is listed, scored and replayed like agent runs.
 */
import { EventEmitter } from 'node:events';
import { appendFileSync, openSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { WindowManager, Rect } from '../../native/types.ts';
import type { ScreenCapturer } from '../capture/types.ts';
import { encodeFrame } from '../capture/encode.ts';
import type { Target } from '../session/targets.ts';
import { RunStore } from '../store/run-store.ts';
import { listenGlobalInput, keyNames } from '../input/global-hook.ts';
import { InputTranslator, type RecordedEvent } from './input-translator.ts';
import { sleep } from '../util/time.ts';
import type { RecordingResult } from '../api/contract.ts';

export type Role = 'rookie' | 'expert';

export interface SessionInfo {
  participant: string;
  role: Role;
  trial: number;
  /** Protocol stage, e.g. "play-1" or "play-2" for a rookie. */
  stage: string;
  consent: boolean;
}

export interface RecorderOptions {
  fps: number;
  /** Stop by itself after this long (s); also stops when a built-in game ends. */
  durationS?: number;
  quality: number;
  /** A replay step is sampled this often (ms), carrying the input since the previous one. */
  sampleMs: number;
}

export const DEFAULT_RECORDER: RecorderOptions = { fps: 30, quality: 75, sampleMs: 500 };

export type RecordingSummary = RecordingResult & {
  /** Input seen outside the window or its focus: counted, never stored. */
  ignored_events: number;
};

export class Recorder extends EventEmitter {
  readonly store: RunStore;
  private stopped = false;
  private frames = 0;
  private dropped = 0;
  private events = 0;
  private started = 0;
  private bounds!: Rect;
  private focused = true;
  private done?: Promise<RecordingSummary>;
  private stopRequested?: () => void;

  constructor(
    private readonly deps: { target: Target; wm: WindowManager; capturer: ScreenCapturer },
    private readonly info: SessionInfo,
    private readonly opts: RecorderOptions,
    outDir: string,
  ) {
    super();
    if (!info.consent) throw new Error('recording needs the participant’s consent');
    if (!/^[\w.-]{1,64}$/.test(info.participant)) throw new Error('participant id: use a pseudonym of letters, digits, dot, dash or underscore');
    const game = deps.target.game?.def.id ?? null;
    this.store = RunStore.create(outDir, {
      kind: 'human',
      game,
      target: { kind: deps.target.kind, label: deps.target.label },
      agent: `human-${info.role}`,
      model: null,
      action_space: 'gui',
      config: { participant: info.participant, role: info.role, trial: info.trial, stage: info.stage, fps: opts.fps },
    });
  }

  get id() {
    return this.store.meta.id;
  }

  progress() {
    const seconds = this.started ? (performance.now() - this.started) / 1000 : 0;
    return { id: this.id, frames: this.frames, dropped: this.dropped, events: this.events, seconds: Math.round(seconds * 10) / 10, fps: seconds ? Math.round((this.frames / seconds) * 10) / 10 : 0 };
  }

  /** Starts recording; resolves with the summary once it has stopped. */
  start(): Promise<RecordingSummary> {
    this.done ??= this.record();
    return this.done;
  }

  stop() {
    this.stopped = true;
    this.stopRequested?.();
  }

  private writeSessionJson(extra: Record<string, unknown>) {
    writeFileSync(path.join(this.store.dir, 'session.json'), JSON.stringify({ ...this.info, game: this.store.meta.game, target: this.deps.target.label, ...extra }, null, 2));
  }

  private async record(): Promise<RecordingSummary> {
    const { target, wm, capturer } = this.deps;
    const game = target.game;
    const win = await target.locate();
    this.bounds = win.bounds;
    await wm.focus(win.id);
    const startedAt = new Date();
    this.writeSessionJson({ start: startedAt.toISOString(), end: null, fps: this.opts.fps });

    const eventsFd = openSync(path.join(this.store.dir, 'events.jsonl'), 'a');
    const framesIndex = path.join(this.store.dir, 'frames.jsonl');
    let sample: RecordedEvent[] = [];
    const names = await keyNames();
    const translator = new InputTranslator((e) => {
      writeSync(eventsFd, JSON.stringify(e) + '\n');
      this.events++;
      sample.push(e);
    }, (code) => names.get(code));
    const unlisten = await listenGlobalInput((e) => translator.feed(e, { window: this.bounds, focused: this.focused }));

    // Follow the window (twice a second) and its focus (ten times a second: keys typed into
    // another window must not be kept) without spending the frame budget on it.
    let ticks = 0;
    let windowId = win.id;
    const watch = setInterval(async () => {
      try {
        if (ticks++ % 5 === 0) {
          const w = await target.locate();
          // A minimized window shows nothing of its own: stop rather than record what is behind it.
          if (w.minimized) throw new Error('the window was minimized');
          this.bounds = w.bounds;
          windowId = w.id;
          this.emit('progress', this.progress());
        }
        this.focused = (await wm.activeId()) === windowId;
      } catch {
        this.stop();
      }
      translator.flush(Date.now());
    }, 100);

    const interval = 1000 / this.opts.fps;
    this.started = performance.now();
    let next = this.started;
    let nextSample = this.started;
    let step = 0;
    const deadline = this.opts.durationS ? this.started + this.opts.durationS * 1000 : Infinity;
    const stopSignal = new AbortController();
    this.stopRequested = () => stopSignal.abort();
    try {
      while (!this.stopped && performance.now() < deadline) {
        const wait = next - performance.now();
        if (wait > 0) await sleep(wait, stopSignal.signal);
        if (this.stopped) break;
        const t = Date.now();
        const raw = await capturer.grab(this.bounds);
        const frame = await encodeFrame(raw, { longSide: 4096, format: 'jpeg', quality: this.opts.quality });
        const file = `frames/f${String(this.frames).padStart(6, '0')}.jpg`;
        await writeFile(path.join(this.store.dir, file), frame.data);
        appendFileSync(framesIndex, JSON.stringify({ i: this.frames, t, file }) + '\n');
        this.frames++;
        if (performance.now() >= nextSample) {
          this.store.appendStep({
            step: step++, episode: 0, t_capture: t, frame: file, frame_size: { width: frame.width, height: frame.height, scale: frame.scale },
            window: this.bounds, reasoning: '', raw: null, actions: sample.map(({ action_type, parameters }) => ({ action_type, parameters })), errors: [],
            latency_ms: { locate: 0, capture: 0, encode: 0, model: 0, act: 0, total: 0 }, ...(game ? { score: game.instance.score(), game_state: game.instance.snapshot() } : { score: null }),
          });
          sample = [];
          nextSample += this.opts.sampleMs;
        }
        next += interval;
        const late = performance.now() - next;
        if (late > interval) {
          const missed = Math.floor(late / interval);
          this.dropped += missed;
          next += missed * interval;
        }
        if (game?.instance.isOver() && !this.opts.durationS) {
          await sleep(1000, stopSignal.signal); // let the final board be seen
          break;
        }
      }
    } finally {
      clearInterval(watch);
      unlisten();
      translator.flush(Number.POSITIVE_INFINITY);
      closeSync(eventsFd);
    }
    const duration = (performance.now() - this.started) / 1000;
    const score = game ? Math.round(game.instance.score() * 100) / 100 : null;
    const summary: RecordingSummary = {
      session_dir: this.store.dir, id: this.id, frames: this.frames, dropped: this.dropped, duration_s: Math.round(duration * 100) / 100,
      events: this.events, ignored_events: translator.ignored, score, fps: Math.round((this.frames / duration) * 10) / 10,
    };
    this.writeSessionJson({ start: startedAt.toISOString(), end: new Date().toISOString(), fps: this.opts.fps, frames: this.frames, dropped: this.dropped, events: this.events, score });
    this.store.update({ episodes: [{ episode: 0, seed: game?.seed ?? 0, score, steps: step, end: game?.instance.isOver() ? 'game_over' : this.stopped ? 'stopped' : 'duration' }], mean: score, std: score === null ? null : 0 });
    this.store.close('completed');
    this.emit('done', summary);
    return summary;
  }
}
