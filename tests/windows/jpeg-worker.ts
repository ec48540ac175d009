/**
 * Worker thread of jpeg.test.ts: chooses this thread's JPEG encoder (native/jpeg.ts, as the
 * recorder's frame writers do) and encodes the BGRX frame it is given; answers with the
 * encoder's name and the JPEG, or the error.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { jpegEncoder } from '../../native/jpeg.ts';

const { data, width, height } = workerData as { data: Uint8Array; width: number; height: number };
try {
  const encoder = jpegEncoder();
  if (!encoder) throw new Error('no in-process JPEG encoder loaded in the worker thread');
  parentPort!.postMessage({ name: encoder.name, jpeg: encoder.encode(data, { width, height }, 'bgrx', 90) });
} catch (err) {
  parentPort!.postMessage({ error: (err as Error).message });
}
