/**
 * The capture thread: the recorder's clock (capture-run.ts) and its frame writer pool, on a
 * thread where nothing else runs, so that work on the main thread (input hooks, the game's
 * view server, starting helper programs, garbage collection) cannot make a frame late.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createCapturer } from '../capture/index.ts';
import { FramePool } from './frame-pool.ts';
import { CaptureRun } from './capture-run.ts';
import type { CaptureMessage, CaptureSetup } from './capture.ts';

const port = parentPort!;
const setup = workerData as CaptureSetup & { backend: NonNullable<CaptureSetup['backend']> };
const send = (m: CaptureMessage) => port.postMessage(m);
let run: CaptureRun | undefined;
let stopRequested = false;
port.on('message', (m: { bounds?: CaptureSetup['bounds']; stop?: true }) => {
  if (m.bounds) run?.follow(m.bounds);
  if (m.stop) {
    stopRequested = true;
    run?.stop();
  }
});

try {
  const pool = await FramePool.start({ quality: setup.quality, ...(setup.writers ? { workers: setup.writers } : {}) });
  run = new CaptureRun(createCapturer(setup.backend), pool, setup.settings, setup.bounds, {
    started: (at) => send({ kind: 'started', at }),
    captured: (i, t, width, height, dropped) => send({ kind: 'captured', i, t, width, height, dropped }),
    written: (d) => send({ kind: 'written', d }),
  });
  if (stopRequested) run.stop();
  send({ kind: 'ended', stats: await run.run() });
} catch (err) {
  send({ kind: 'error', message: (err as Error).message });
}
port.close();
