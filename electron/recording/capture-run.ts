/**
 * The recorder's clock: grabs the window every 1/fps s and hands each frame to the writer pool.
 * When the pool is full the tick is skipped at once (busy) instead of waiting; when the clock
 * itself fell behind (the thread was held up) the missed ticks are counted (late) and skipped.
 * It runs in a capture thread of its own (capture-worker.ts) so nothing else in the process
 * can hold it up; a capture backend that cannot leave the main thread runs it there.
 */
import path from 'node:path';
import type { Rect } from '../../native/types.ts';
import type { ScreenCapturer } from '../capture/capturer.ts';
import { percentile, sleep } from '../util/time.ts';
import type { FrameDone, FramePool } from './frame-pool.ts';

export interface CaptureSettings {
  fps: number;
  /** Stop by itself after this long (s). */
  durationS?: number;
  /** The session folder; frames go to frames/ inside it. */
  dir: string;
}

export interface CaptureStats {
  /** Epoch ms of the first tick and of the end. */
  startedAt: number;
  endedAt: number;
  droppedLate: number;
  droppedBusy: number;
  writers: number;
  /** How long a grab took (ms). */
  grabMs: { p50: number; p95: number };
  /** Why capture ended early (a writer or capture failure), if it did. */
  error?: string;
}

/** What the run tells whoever owns it, in order: a frame is captured before it is written. */
export interface CaptureEvents {
  started(at: number): void;
  /** `dropped`: frames dropped so far (late + busy). */
  captured(i: number, t: number, width: number, height: number, dropped: number): void;
  written(d: FrameDone): void;
}

/** frames/f000042.jpg: the one place frame files are named. */
export const frameFile = (i: number) => `frames/f${String(i).padStart(6, '0')}.jpg`;

export class CaptureRun {
  private stopped = false;
  private readonly abort = new AbortController();
  private failure: string | undefined;

  constructor(
    private readonly capturer: ScreenCapturer,
    private readonly pool: FramePool,
    private readonly settings: CaptureSettings,
    private bounds: Rect,
    private readonly events: CaptureEvents,
  ) {
    pool.on('done', (d: FrameDone) => events.written(d));
    pool.on('failed', (err: Error) => {
      this.failure ??= err.message;
      this.stop();
    });
  }

  follow(bounds: Rect) {
    this.bounds = bounds;
  }

  stop() {
    this.stopped = true;
    this.abort.abort();
  }

  /** Runs until stopped or the duration is up; resolves once every accepted frame is written. */
  async run(): Promise<CaptureStats> {
    const interval = 1000 / this.settings.fps;
    let droppedLate = 0;
    let droppedBusy = 0;
    let accepted = 0;
    const grabMs: number[] = [];
    const startedAt = Date.now();
    const t0 = performance.now();
    const deadline = this.settings.durationS ? t0 + this.settings.durationS * 1000 : Infinity;
    this.events.started(startedAt);
    let next = t0;
    try {
      while (!this.stopped && performance.now() < deadline) {
        const wait = next - performance.now();
        if (wait > 0) await sleep(wait, this.abort.signal);
        if (this.stopped) break;
        if (this.pool.full) {
          droppedBusy++;
        } else {
          const t = Date.now();
          const g0 = performance.now();
          const raw = await this.capturer.grab(this.bounds);
          grabMs.push(performance.now() - g0);
          const i = accepted++;
          this.events.captured(i, t, raw.width, raw.height, droppedLate + droppedBusy);
          if (!this.pool.offer(i, path.join(this.settings.dir, frameFile(i)), raw))
            this.events.written({ i, error: this.failure ?? 'the frame writers have stopped' });
        }
        next += interval;
        const late = performance.now() - next;
        if (late > interval) {
          const missed = Math.floor(late / interval);
          droppedLate += missed;
          next += missed * interval;
        }
      }
    } catch (err) {
      this.failure ??= `capture failed: ${(err as Error).message}`;
    } finally {
      await this.pool.close();
    }
    const r1 = (n: number) => Math.round(n * 10) / 10;
    const grab = {
      p50: grabMs.length ? r1(percentile(grabMs, 50)) : 0,
      p95: grabMs.length ? r1(percentile(grabMs, 95)) : 0,
    };
    return {
      startedAt,
      endedAt: Date.now(),
      droppedLate,
      droppedBusy,
      writers: this.pool.threads,
      grabMs: grab,
      ...(this.failure ? { error: this.failure } : {}),
    };
  }
}
