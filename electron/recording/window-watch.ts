/** The main-thread side of the window watcher thread (window-watch-worker.ts). */
import { EventEmitter } from 'node:events';
import type { Worker } from 'node:worker_threads';
import type { Rect } from '../../native/types.ts';
import { startWorker } from '../util/worker.ts';

export interface WatchSetup {
  windowId: string;
  /** How often focus is checked (ms). */
  focusMs: number;
  /** Bounds are checked every n-th focus check. */
  boundsEvery: number;
}

export type WatchReport =
  | { kind: 'focus'; focused: boolean }
  | { kind: 'bounds'; id: string; bounds: Rect }
  | { kind: 'gone'; id: string }
  /** A minimized window shows nothing of its own: the recording stops rather than keep what is behind it. */
  | { kind: 'minimized'; id: string }
  | { kind: 'error'; message: string };

/** Emits 'report' (WatchReport) until stopped. */
export class WindowWatch extends EventEmitter {
  private exited = false;

  private constructor(private readonly worker: Worker) {
    super();
    worker.once('exit', () => (this.exited = true));
    worker.on('message', (r: WatchReport) => this.emit('report', r));
    worker.on('error', (err) =>
      this.emit('report', {
        kind: 'error',
        message: `window watcher thread failed: ${err.message}`,
      } satisfies WatchReport),
    );
  }

  static start(setup: WatchSetup): WindowWatch {
    return new WindowWatch(startWorker('window-watch-worker', { ...setup }));
  }

  /** Follow another window id (the target was found again under a new id). */
  follow(windowId: string) {
    this.worker.postMessage({ windowId });
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    this.worker.postMessage({ stop: true });
    // It finishes its current question first; a hung helper program must not hold the recorder.
    const exited = new Promise<void>((r) => this.worker.once('exit', () => r()));
    const timer = setTimeout(() => void this.worker.terminate(), 6000);
    await exited;
    clearTimeout(timer);
  }
}
