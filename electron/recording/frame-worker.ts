/**
 * A frame writer thread of the recorder: raw pixels in (transferred, not copied), a JPEG file
 * out, written atomically so a reader never sees half a frame. Everything heavy a frame costs
 * after its capture happens here, off the thread that keeps the capture on time.
 */
import { parentPort } from 'node:worker_threads';
import { encodeFrame } from '../capture/encode.ts';
import { writeFileAtomic } from '../util/atomic-file.ts';
import type { FrameJob, FrameDone } from './frame-pool.ts';

const port = parentPort!;
port.on('message', async (job: FrameJob) => {
  try {
    const t0 = performance.now();
    const frame = await encodeFrame(
      { data: Buffer.from(job.data), width: job.width, height: job.height, channels: job.channels, order: job.order },
      { imageSize: Math.max(job.width, job.height), format: 'jpeg', quality: job.quality },
    );
    const t1 = performance.now();
    try {
      writeFileAtomic(job.file, frame.data, { fsync: false });
    } catch (err) {
      const msg = (err as Error).message;
      throw new Error(msg.includes(job.file) ? msg : `cannot write ${job.file}: ${msg}`);
    }
    const done: FrameDone = { i: job.i, bytes: frame.data.length, encodeMs: t1 - t0, writeMs: performance.now() - t1 };
    port.postMessage(done);
  } catch (err) {
    port.postMessage({ i: job.i, error: (err as Error).message } satisfies FrameDone);
  }
});
port.postMessage('ready');
