/** The queue side of `gamepilot sweep --queue` and `gamepilot worker` (BullMQ on Redis). */
import path from 'node:path';
import { enqueue, follow, openQueue, runWorker } from '../sweep/queue.ts';
import type { Sweep } from '../sweep/spec.ts';
import type { SweepEvent } from '../sweep/progress.ts';
import { openStorage } from '../sweep/storage-open.ts';
import { io } from './io.ts';
import { stopOnSignal } from './stop-signal.ts';
import { UsageError } from './options.ts';
import type { SweepFlags, WorkerFlags } from './command-flags.ts';

function checkUrl(url: string): string {
  if (!/^rediss?:\/\/[^\s]+$/.test(url))
    throw new UsageError(`--queue takes redis://host:port (or rediss://), got "${url}"`);
  return url;
}

function redisNotice(state: 'down' | 'up', detail?: string) {
  io.log(
    state === 'down'
      ? `Redis is away (${detail ?? 'no connection'}): waiting, reconnecting with backoff`
      : 'Redis is back',
  );
}

export async function enqueueSweep(sweep: Sweep, o: SweepFlags, emit: (e: SweepEvent) => void): Promise<number> {
  // Workers run no job that names a file of theirs: refused here already, before anything is queued.
  if (sweep.spec.tutorial !== undefined && sweep.spec.tutorial !== 'solver')
    throw new UsageError(
      `${sweep.file}: tutorial: a queued sweep's tutorial must be "solver" (job data cannot name files on a worker)`,
    );
  const queue = openQueue(checkUrl(o.queue!), o.queueName, redisNotice);
  const { signal, dispose } = stopOnSignal();
  try {
    const r = await enqueue(queue, sweep, o.budgetUsd ?? sweep.spec.budget_usd);
    io.progress(
      `sweep ${sweep.name}: ${r.added} job(s) enqueued, ${r.present} already there, ${r.retried} failed one(s) enqueued again (queue ${o.queueName})`,
    );
    if (!o.wait) {
      if (o.json) io.out(JSON.stringify({ type: 'enqueued', sweep: sweep.name, total: sweep.jobs.length, ...r }));
      return 0;
    }
    const summary = await follow(queue, sweep, path.resolve(o.runsDir), emit, signal);
    return summary.failed || summary.completed < summary.total ? 1 : 0;
  } finally {
    dispose();
    await queue.close().catch(() => {});
  }
}

export async function runQueueWorker(o: WorkerFlags, emit: (e: SweepEvent) => void): Promise<number> {
  const { signal, dispose } = stopOnSignal();
  try {
    // Before Redis and the displays: a worker that could not store its runs takes no job.
    const storage = await openStorage(o.storage ?? o.runsDir, signal);
    const n = await runWorker({
      url: checkUrl(o.queue),
      queueName: o.queueName,
      displays: o.displays,
      out: o.runsDir,
      storage,
      ...(o.maxJobs !== undefined ? { maxJobs: o.maxJobs } : {}),
      ...(o.allowEndpoint ? { allowEndpoints: o.allowEndpoint } : {}),
      signal,
      emit: (e) => {
        if (e.type === 'redis') {
          if (o.json) io.out(JSON.stringify(e));
          redisNotice(e.state, e.detail);
        } else emit(e);
      },
    });
    io.progress(`worker: ${n} job(s) handled; stored in ${storage.where}`);
    return 0;
  } finally {
    dispose();
  }
}
