/**
 * `gamepilot bench --storage s3://bucket/prefix`: the bucket's upload throughput for a real run
 * folder, measured as a queue worker stores one (sweep/s3-storage.ts: every file, the listing
 * check, run.json, the job record). The newest completed run of --runs-dir goes up three times
 * under `<prefix>/.bench-<time>-<n>/` (keys a reader of the prefix skips: no run.json at their
 * top), each removed again after it is measured.
 */
import { DeleteObjectsCommand } from '@aws-sdk/client-s3';
import path from 'node:path';
import { type Bucket, checkBucket, listObjects, openBucket } from '../store/bucket.ts';
import { isS3Url, keyOf } from '../store/bucket-url.ts';
import { scanRuns } from '../store/run-library.ts';
import { emptyOutcome, type JobOutcome, workerIdentity } from '../sweep/job-run.ts';
import { megabytesPerSecond } from '../sweep/progress.ts';
import { S3Storage } from '../sweep/s3-storage.ts';
import { folderSize } from '../sweep/storage.ts';
import { percentile } from '../util/time.ts';
import { UsageError } from './options.ts';

const ROUNDS = 3;

export interface StorageBenchResult {
  where: string;
  endpoint: string;
  run: string;
  files: number;
  bytes: number;
  rounds: { upload_s: number; store_s: number; mb_s: number; files_s: number; retries: number }[];
  mb_s_p50: number;
}

function newestCompletedRun(runsDir: string): string {
  const runs = scanRuns(runsDir).runs.filter((r) => r.meta.status === 'completed');
  const newest = runs.sort((a, b) => b.meta.created.localeCompare(a.meta.created))[0];
  if (!newest)
    throw new UsageError(
      `no completed run in ${runsDir} to upload: play one first (gamepilot run … --runs-dir ${runsDir})`,
    );
  return path.join(runsDir, newest.id);
}

async function removeAll(b: Bucket, sub: string, signal?: AbortSignal) {
  const keys = (await listObjects(b, sub, signal)).map((o) => ({ Key: keyOf(b.prefix, o.key) }));
  for (let i = 0; i < keys.length; i += 1000)
    await b.client.send(
      new DeleteObjectsCommand({ Bucket: b.bucket, Delete: { Objects: keys.slice(i, i + 1000), Quiet: true } }),
      signal ? { abortSignal: signal } : {},
    );
}

export async function runStorageBench(opts: {
  where: string;
  runsDir: string;
  signal?: AbortSignal;
  log: (line: string) => void;
}): Promise<StorageBenchResult> {
  if (!isS3Url(opts.where)) throw new UsageError(`--storage with bench takes s3://bucket/prefix, got "${opts.where}"`);
  const runDir = newestCompletedRun(opts.runsDir);
  const bucket = openBucket(opts.where);
  await checkBucket(bucket, undefined, opts.signal);
  const size = folderSize(runDir);
  const stamp = new Date().toISOString().replace(/[-:.]/g, '');
  const rounds: StorageBenchResult['rounds'] = [];
  for (let n = 1; n <= ROUNDS; n++) {
    const sub = `.bench-${stamp}-${n}`;
    const at: Bucket = { ...bucket, prefix: keyOf(bucket.prefix, sub), where: `${bucket.where}/${sub}` };
    opts.log(`upload ${n} of ${ROUNDS}: ${path.basename(runDir)} (${size.files} files) to ${at.where}`);
    const outcome: JobOutcome = {
      ...emptyOutcome({ id: `bench-${n}`, sweep: 'bench' }, 1, new Date().toISOString(), workerIdentity(null)),
      status: 'completed',
    };
    try {
      const { timing } = await new S3Storage(at, opts.signal).put(runDir, outcome);
      const t = timing!;
      rounds.push({
        upload_s: t.upload_s!,
        store_s: t.store_s,
        mb_s: megabytesPerSecond(t.bytes, t.upload_s!),
        files_s: Math.round(t.files / t.upload_s!),
        retries: t.retries ?? 0,
      });
    } finally {
      await removeAll(bucket, `${sub}/`, opts.signal);
    }
  }
  return {
    where: bucket.where,
    endpoint: bucket.endpoint,
    run: path.basename(runDir),
    ...size,
    rounds,
    mb_s_p50: percentile(
      rounds.map((r) => r.mb_s),
      50,
    ),
  };
}

export function formatStorageBench(r: StorageBenchResult): string {
  const lines = [
    `bucket upload: run ${r.run} (${r.files} files, ${(r.bytes / 1e6).toFixed(1)} MB) to ${r.where} at ${r.endpoint}`,
    ...r.rounds.map(
      (x, i) =>
        `  upload ${i + 1}: ${x.upload_s} s (${x.mb_s} MB/s, ${x.files_s} files/s${x.retries ? `, ${x.retries} retried` : ''}); stored and checked in ${x.store_s} s`,
    ),
    `  median ${r.mb_s_p50} MB/s`,
  ];
  return lines.join('\n');
}
