/**
 * Worker threads whose code is TypeScript in the checkout and a bundled .mjs elsewhere
 * (util/resources.ts says which file). From source a small bootstrap registers tsx inside the
 * worker; the bundled worker sits beside the main bundle (Electron ≥ 17.3 loads it from the asar).
 */
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { workerEntry } from './resources.ts';

/** `name`: the worker's module in electron/recording/ (an entry of scripts/build-electron.mjs). */
export function startWorker(name: string, workerData: Record<string, unknown>): Worker {
  const { file, sourceEntry } = workerEntry(name);
  return new Worker(file, {
    workerData: sourceEntry ? { ...workerData, __entry: pathToFileURL(sourceEntry).href } : workerData,
  });
}
