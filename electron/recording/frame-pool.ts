/**
 * A small pool of frame writer threads (frame-worker.ts) with a bounded queue. The recorder's
 * capture loop only hands frames over; when every thread is busy and the queue is full it is
 * told so at once (back-pressure) and skips that frame instead of falling behind or piling
 * frames up in memory.
 */
import { EventEmitter } from 'node:events';
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { RawFrame } from '../capture/capturer.ts';
import { startWorker } from '../util/worker.ts';

/** One frame for a writer thread; `data` is transferred, not copied. */
export interface FrameJob {
  i: number;
  file: string;
  data: ArrayBuffer;
  width: number;
  height: number;
  channels: 3 | 4;
  order: RawFrame['order'];
  quality: number;
}

export type FrameDone = { i: number; bytes: number; encodeMs: number; writeMs: number } | { i: number; error: string };

export interface FramePoolOptions {
  /** Writer threads; default: the cores, at least 1, at most 3. */
  workers?: number;
  /** Frames that may wait for a free thread before new ones are refused. */
  queue?: number;
  quality: number;
}

export const defaultWriters = () => Math.max(1, Math.min(3, os.availableParallelism()));

export class FramePool extends EventEmitter {
  private readonly idle: Worker[] = [];
  private readonly queued: FrameJob[] = [];
  private inFlight = 0;
  private failure: Error | undefined;
  private drained: (() => void)[] = [];
  private closed = false;

  private constructor(
    private readonly workers: Worker[],
    private readonly queueLimit: number,
    private readonly quality: number,
  ) {
    super();
    this.idle.push(...workers);
    for (const w of workers) {
      w.on('message', (m: FrameDone) => this.finished(w, m));
      w.on('error', (err) => this.fail(new Error(`frame writer thread failed: ${err.message}`), true));
      w.on('exit', (code) => {
        if (!this.closed) this.fail(new Error(`frame writer thread exited (code ${code})`), true);
      });
    }
  }

  /** Starts the threads and resolves once each has loaded its encoder. */
  static async start(opts: FramePoolOptions): Promise<FramePool> {
    const n = opts.workers ?? defaultWriters();
    const workers = Array.from({ length: n }, () => startWorker('frame-worker', {}));
    try {
      await Promise.all(
        workers.map(
          (w) =>
            new Promise<void>((resolve, reject) => {
              const timer = setTimeout(
                () => reject(new Error('a frame writer thread did not start within 30 s')),
                30_000,
              );
              w.once('message', () => {
                clearTimeout(timer);
                resolve();
              });
              w.once('error', (err) => {
                clearTimeout(timer);
                reject(err);
              });
            }),
        ),
      );
    } catch (err) {
      await Promise.all(workers.map((w) => w.terminate()));
      throw err;
    }
    return new FramePool(workers, opts.queue ?? 2 * n, opts.quality);
  }

  get threads() {
    return this.workers.length;
  }

  /** Frames accepted and not yet written. */
  get pending() {
    return this.inFlight + this.queued.length;
  }

  /** True when a frame offered now would be refused. */
  get full() {
    return this.idle.length === 0 && this.queued.length >= this.queueLimit;
  }

  /** The first thread or write failure, if any; no more frames are accepted after one. */
  get error() {
    return this.failure;
  }

  /** Hands a frame over; false (and nothing kept) when the pool is full or has failed. */
  offer(i: number, file: string, raw: RawFrame): boolean {
    if (this.failure || this.closed || this.full) return false;
    const whole =
      raw.data.byteOffset === 0 &&
      raw.data.byteLength === raw.data.buffer.byteLength &&
      raw.data.buffer instanceof ArrayBuffer;
    const data = whole
      ? (raw.data.buffer as ArrayBuffer)
      : (raw.data.buffer.slice(raw.data.byteOffset, raw.data.byteOffset + raw.data.byteLength) as ArrayBuffer);
    this.queued.push({
      i,
      file,
      data,
      width: raw.width,
      height: raw.height,
      channels: raw.channels,
      order: raw.order,
      quality: this.quality,
    });
    this.dispatch();
    return true;
  }

  /** Resolves once every accepted frame is written (or failed). */
  drain(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  async close(): Promise<void> {
    await this.drain();
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private dispatch() {
    while (this.idle.length && this.queued.length) {
      const job = this.queued.shift()!;
      const w = this.idle.pop()!;
      this.inFlight++;
      w.postMessage(job, [job.data]);
    }
  }

  private finished(w: Worker, m: FrameDone) {
    this.inFlight--;
    this.idle.push(w);
    if ('error' in m) this.fail(new Error(m.error), false);
    this.emit('done', m);
    this.dispatch();
    this.settle();
  }

  /** After a failure nothing queued is written; a dead thread (`fatal`) answers nothing more. */
  private fail(err: Error, fatal: boolean) {
    if (this.closed) return;
    if (!this.failure) {
      this.failure = err;
      this.emit('failed', err);
    }
    this.queued.length = 0;
    if (fatal) this.inFlight = 0;
    this.settle();
  }

  private settle() {
    if (this.pending !== 0) return;
    for (const r of this.drained.splice(0)) r();
  }
}
