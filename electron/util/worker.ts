/**
 * Worker threads whose code is TypeScript in the checkout and a bundled .mjs in the app.
 * From source (tsx, vitest) a small bootstrap registers tsx inside the worker; from the
 * bundle the worker file sits beside the main bundle (Electron ≥ 17.3 loads workers from the asar).
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

const fromSource = import.meta.url.endsWith('.ts');

/**
 * `source`: the worker's .ts module (`new URL('./x.ts', import.meta.url)` in the caller);
 * `bundled`: its file name in dist-electron/ (an entry of scripts/build-electron.mjs).
 */
export function startWorker(source: URL, bundled: string, workerData: Record<string, unknown>): Worker {
  if (fromSource)
    return new Worker(new URL('./worker-boot.mjs', import.meta.url), {
      workerData: { ...workerData, __entry: source.href },
    });
  return new Worker(fileURLToPath(new URL(`./${bundled}`, import.meta.url)), { workerData });
}
