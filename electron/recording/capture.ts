/**
 * Starts the recorder's capture: in a capture thread when the backend can be created there
 * (nut-js, screenshot-desktop), otherwise (Electron's desktopCapturer lives on the main
 * thread) on this thread. Either way the owner gets the same events and the same stats.
 */
import type { Rect } from '../../native/types.ts';
import type { CaptureBackend } from '../capture/index.ts';
import type { ScreenCapturer } from '../capture/capturer.ts';
import { startWorker } from '../util/worker.ts';
import { CaptureRun, type CaptureEvents, type CaptureSettings, type CaptureStats } from './capture-run.ts';
import { FramePool, type FrameDone } from './frame-pool.ts';

export interface CaptureSetup {
  /** The backend to create in the capture thread; none: capture on this thread. */
  backend?: CaptureBackend;
  settings: CaptureSettings;
  bounds: Rect;
  writers?: number;
  quality: number;
}

export type CaptureMessage =
  | { kind: 'started'; at: number }
  | { kind: 'captured'; i: number; t: number; width: number; height: number; dropped: number }
  | { kind: 'written'; d: FrameDone }
  | { kind: 'ended'; stats: CaptureStats }
  | { kind: 'error'; message: string };

export interface CaptureHandle {
  follow(bounds: Rect): void;
  stop(): void;
  /** Resolves after the last frame is written; rejects when capture could not start. */
  readonly done: Promise<CaptureStats>;
}

/** The capture backend behind a capturer, when it can be re-created in another thread. */
export function threadableBackend(capturer: ScreenCapturer): CaptureBackend | undefined {
  return (
    // On Windows `auto` is the in-process GDI grab (win32-gdi).
    (
      { x11: 'x11', 'win32-gdi': 'auto', 'nut-js': 'nut', 'screenshot-desktop': 'screenshot-desktop' } as Record<
        string,
        CaptureBackend
      >
    )[capturer.name]
  );
}

export async function startCapture(
  capturer: ScreenCapturer,
  setup: Omit<CaptureSetup, 'backend'>,
  events: CaptureEvents,
): Promise<CaptureHandle> {
  const backend = threadableBackend(capturer);
  if (!backend) {
    const pool = await FramePool.start({
      quality: setup.quality,
      ...(setup.writers ? { workers: setup.writers } : {}),
    });
    const run = new CaptureRun(capturer, pool, setup.settings, setup.bounds, events);
    return { follow: (b) => run.follow(b), stop: () => run.stop(), done: run.run() };
  }
  const worker = startWorker('capture-worker', {
    ...setup,
    backend,
  });
  const done = new Promise<CaptureStats>((resolve, reject) => {
    worker.on('message', (m: CaptureMessage) => {
      if (m.kind === 'started') events.started(m.at);
      else if (m.kind === 'captured') events.captured(m.i, m.t, m.width, m.height, m.dropped);
      else if (m.kind === 'written') events.written(m.d);
      else if (m.kind === 'ended') resolve(m.stats);
      else reject(new Error(m.message));
    });
    worker.on('error', (err) => reject(new Error(`capture thread failed: ${err.message}`)));
    worker.on('exit', (code) => reject(new Error(`capture thread exited (code ${code}) before it finished`)));
  });
  return { follow: (bounds) => worker.postMessage({ bounds }), stop: () => worker.postMessage({ stop: true }), done };
}
