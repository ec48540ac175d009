/**
 * A bucket location read as a runs folder: synced into a per-user cache folder of its own
 * (runs-source.ts decides when), and the sync's progress and summary lines (`gamepilot sync`).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { checkBucket, openBucket, type Bucket } from '../store/bucket.ts';
import { syncBucket, type SyncOptions, type SyncProgress, type SyncSummary } from '../store/bucket-sync.ts';
import { defaultCacheDir } from '../util/paths.ts';
import { io } from './io.ts';
import type { RunsSource } from './runs-source.ts';

/** `s3://bucket/prefix` synced into its cache folder (complete runs, only what changed), as a runs source. */
export async function readThroughCache(url: string): Promise<RunsSource> {
  const b = openBucket(url);
  const dir = bucketCacheDir(b);
  io.progress(`reading ${b.where} (${b.endpoint}) through the cache ${dir}`);
  const summary = await syncChecked(b, dir, { prune: true, onProgress: (p) => io.progress(syncProgressLine(p)) });
  io.progress(syncSummaryLine(summary));
  return { dir, where: b.where };
}

/** The cache folder of one bucket location (endpoint, bucket and prefix: two endpoints never share one). */
export function bucketCacheDir(b: Bucket): string {
  const id = createHash('sha256').update(`${b.endpoint}\n${b.where}`).digest('hex').slice(0, 12);
  return path.join(defaultCacheDir(), 'buckets', `${b.bucket}-${id}`);
}

/** Checks the bucket (a wrong secret or a missing bucket fails at once, naming both), then syncs; refused keys are warned about. */
export async function syncChecked(b: Bucket, dir: string, opts: SyncOptions): Promise<SyncSummary> {
  await checkBucket(b, undefined, opts.signal);
  const summary = await syncBucket(b, dir, opts);
  for (const r of summary.refused) io.log(`warning: ${b.where}: refused object key "${r.key}": ${r.why}`);
  return summary;
}

const mb = (n: number) => (n / 1e6).toFixed(1);

export function syncProgressLine(p: SyncProgress): string {
  const share = p.files.total ? p.files.done / p.files.total : 1;
  return `sync ${'█'.repeat(Math.round(share * 20)).padEnd(20, '░')} ${p.runs.done}/${p.runs.total} runs, ${p.files.done}/${p.files.total} files, ${mb(p.bytes.done)}/${mb(p.bytes.total)} MB`;
}

export function syncSummaryLine(s: SyncSummary): string {
  const left = [
    s.incomplete.length ? `${s.incomplete.length} incomplete run(s) left` : '',
    s.stray ? `${s.stray} stray key(s) left` : '',
    s.refused.length ? `${s.refused.length} key(s) refused` : '',
    s.removed ? `${s.removed} file(s) of runs gone from the bucket removed` : '',
  ].filter(Boolean);
  return `${s.from} → ${s.dir}: ${s.runs} run(s), ${s.jobs} job record(s); ${s.fetched} file(s) fetched (${mb(s.bytes)} MB), ${s.present} already here${left.length ? `; ${left.join(', ')}` : ''}; ${s.seconds.toFixed(1)} s${s.stopped ? ' — stopped: run it again to fetch the rest' : ''}`;
}
