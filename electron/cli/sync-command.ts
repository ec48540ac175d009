/** `gamepilot sync s3://bucket/prefix DIR`: a bucket's complete runs and job records into a folder, resumable. */
import { openBucket } from '../store/bucket.ts';
import { isS3Url } from '../store/bucket-url.ts';
import { io } from './io.ts';
import { stopOnSignal } from './stop-signal.ts';
import { UsageError } from './options.ts';
import { syncChecked, syncProgressLine, syncSummaryLine } from './bucket-cache.ts';
import type { SyncFlags } from './command-flags.ts';

export async function syncCommand(from: string, dir: string, o: SyncFlags): Promise<number> {
  if (!isS3Url(from)) throw new UsageError(`sync reads a bucket: give s3://bucket/prefix, not "${from}"`);
  const b = openBucket(from);
  const { signal, dispose } = stopOnSignal('stopping the sync: files in flight are dropped, the rest is kept');
  try {
    const summary = await syncChecked(b, dir, {
      signal,
      parallel: o.parallel,
      ...(o.quiet ? {} : { onProgress: (p) => io.progress(syncProgressLine(p)) }),
    });
    if (o.json) io.out(JSON.stringify(summary));
    else io.out(syncSummaryLine(summary));
    return summary.stopped ? 1 : 0;
  } finally {
    dispose();
  }
}
