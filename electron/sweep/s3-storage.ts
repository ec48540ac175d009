/**
 * Run storage in an S3-compatible bucket (store/bucket.ts): `<prefix>/<run id>/<file>` and
 * `<prefix>/.jobs/<job id>.json`, the same layout as a folder. A run's files go up first (four at
 * a time), then the bucket's own listing must show each at its local size, then `run.json`, then
 * the job record: a reader that sees run.json sees the whole run, and a job counts as stored only
 * once its record is there. Files above 16 MiB go up in 8 MiB parts.
 *
 * A storage server that goes away mid-upload is waited for: each request that fails for want
 * of an answer (no connection, 5xx, 429) is tried again with backoff until it succeeds, the
 * patience runs out or the worker stops; the run folder stays on the worker until then.
 * Refusals (wrong credentials, a missing bucket) end the upload at once.
 */
import { createHash } from 'node:crypto';
import { openSync, readSync, closeSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import {
  type Bucket,
  bucketProblem,
  checkBucket,
  isNotFound,
  listObjects,
  openBucket,
  retryTransient,
} from '../store/bucket.ts';
import { keyOf } from '../store/bucket-url.ts';
import { allOrFirstError, semaphore } from '../util/concurrency.ts';
import { parseOutcome, type JobOutcome } from './job-run.ts';
import { runFiles, storedTiming, type RunStorage } from './storage.ts';

export const MULTIPART_THRESHOLD = 16 * 1024 * 1024;
export const PART_SIZE = 8 * 1024 * 1024;
/** S3 allows at most 10 000 parts: larger files get larger parts. */
const MAX_PARTS = 10_000;
/** How long one upload waits, in all, for a storage server that stopped answering. */
export const STORE_PATIENCE_MS = 10 * 60_000;
const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];
/** Files in flight at once: a run is mostly small frames, each a request's round trip. */
const UPLOAD_LANES = 4;

export function jobKey(prefix: string, jobId: string): string {
  return keyOf(prefix, '.jobs', `${jobId}.json`);
}

/** Object keys of a run folder's files, run.json last (a reader that sees it sees the rest). */
export function runObjectKeys(prefix: string, runId: string, files: string[]): { file: string; key: string }[] {
  const ordered = [...files.filter((f) => f !== 'run.json'), ...files.filter((f) => f === 'run.json')];
  return ordered.map((file) => ({ file, key: keyOf(prefix, runId, file) }));
}

export type UploadPlan = { kind: 'single' } | { kind: 'multipart'; partSize: number; parts: number };

/** One PUT for small files; multipart above the threshold, parts of 8 MiB (or more, within 10 000 parts). */
export function uploadPlan(size: number): UploadPlan {
  if (size <= MULTIPART_THRESHOLD) return { kind: 'single' };
  const partSize = Math.max(PART_SIZE, Math.ceil(size / MAX_PARTS));
  return { kind: 'multipart', partSize, parts: Math.ceil(size / partSize) };
}

/** The bytes of a file from `start`, `length` of them (one part). */
function readRange(file: string, start: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  const fd = openSync(file, 'r');
  try {
    let got = 0;
    while (got < length) {
      const n = readSync(fd, buf, got, length - got, start + got);
      if (n === 0) throw new Error(`${file} ended at ${start + got} bytes, shorter than when listed`);
      got += n;
    }
  } finally {
    closeSync(fd);
  }
  return buf;
}

const md5 = (b: Buffer) => createHash('md5').update(b).digest('base64');

export class S3Storage implements RunStorage {
  readonly where: string;
  constructor(
    readonly bucket: Bucket,
    private readonly signal?: AbortSignal,
    private readonly patienceMs = STORE_PATIENCE_MS,
  ) {
    this.where = bucket.where;
  }

  static fromUrl(url: string, signal?: AbortSignal): S3Storage {
    return new S3Storage(openBucket(url), signal);
  }

  /** Fails within `timeoutMs` when the bucket is missing or the credentials are refused (bucket.ts). */
  check(timeoutMs?: number): Promise<void> {
    return checkBucket(this.bucket, timeoutMs, this.signal);
  }

  async finished(jobId: string): Promise<JobOutcome | undefined> {
    return this.patiently(`reading the record of job ${jobId}`, Date.now() + this.patienceMs, async () => {
      try {
        const r = await this.bucket.client.send(
          new GetObjectCommand({ Bucket: this.bucket.bucket, Key: jobKey(this.bucket.prefix, jobId) }),
          this.opts,
        );
        let parsed: ReturnType<typeof parseOutcome>;
        try {
          parsed = parseOutcome(JSON.parse(await r.Body!.transformToString()));
        } catch {
          return undefined; // a torn record: the job runs again
        }
        return 'outcome' in parsed && parsed.outcome.status === 'completed' ? parsed.outcome : undefined;
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    });
  }

  async put(runDir: string, outcome: JobOutcome): Promise<JobOutcome> {
    const t0 = Date.now();
    const deadline = t0 + this.patienceMs;
    const prior = await this.finished(outcome.job_id);
    if (prior) return prior; // another worker stored it first: keep one run per job
    const runId = path.basename(runDir);
    const files = runFiles(runDir);
    const sizes = new Map(files.map((f) => [f, statSync(path.join(runDir, f)).size]));
    const counter = { retries: 0 };
    let uploadMs = 0; // the transfers' wall time, retries included: the throughput's denominator
    /** Uploads `list`, UPLOAD_LANES files at once; after a failure none starts, and it is thrown once all end. */
    const transfer = async (list: { file: string; key: string }[]) => {
      const t = Date.now();
      const lane = semaphore(UPLOAD_LANES);
      let failed = false;
      await allOrFirstError(
        list.map(({ file, key }) =>
          lane(async () => {
            if (failed) return;
            const local = path.join(runDir, file);
            await this.patiently(`uploading ${key}`, deadline, () => this.upload(local, key), counter).catch((err) => {
              failed = true;
              throw err;
            });
          }),
        ),
      );
      uploadMs += Date.now() - t;
    };
    const keys = runObjectKeys(this.bucket.prefix, runId, files);
    await transfer(keys.filter((k) => k.file !== 'run.json'));
    // Observed, not assumed: the bucket's listing must show every file at its size before run.json.
    const wrong = await this.patiently('listing the run', deadline, () => this.mismatches(runId, sizes), counter);
    if (wrong.length) {
      await transfer(wrong.map((file) => ({ file, key: keyOf(this.bucket.prefix, runId, file) })));
      const still = await this.patiently('listing the run', deadline, () => this.mismatches(runId, sizes), counter);
      if (still.length)
        throw new Error(`${this.where}: ${still[0]} of run ${runId} is not stored at its size after two uploads`);
    }
    await transfer(keys.filter((k) => k.file === 'run.json'));
    const bytes = [...sizes.values()].reduce((a, b) => a + b, 0);
    const stored: JobOutcome = {
      ...outcome,
      run_id: runId,
      timing: storedTiming(outcome, t0, { files: files.length, bytes, uploadMs, retries: counter.retries }),
    };
    await this.patiently(
      'writing the job record',
      deadline,
      () =>
        this.bucket.client.send(
          new PutObjectCommand({
            Bucket: this.bucket.bucket,
            Key: jobKey(this.bucket.prefix, outcome.job_id),
            Body: JSON.stringify(stored, null, 2),
            ContentType: 'application/json',
          }),
          this.opts,
        ),
      counter,
    );
    return stored;
  }

  /** Files of the run the bucket does not list at their local size (missing, or torn by a crash). */
  private async mismatches(runId: string, sizes: Map<string, number>): Promise<string[]> {
    const listed = new Map(
      (await listObjects(this.bucket, `${runId}/`, this.signal)).map((o) => [o.key.slice(runId.length + 1), o.size]),
    );
    return [...sizes].filter(([f, size]) => f !== 'run.json' && listed.get(f) !== size).map(([f]) => f);
  }

  /** Every request ends when the worker stops. */
  private get opts() {
    return this.signal ? { abortSignal: this.signal } : {};
  }

  /**
   * `step`, again after a transient failure (bucket.ts isTransient) with backoff, until it
   * succeeds, `deadline` passes or the worker stops. Other failures end it at once, as a message
   * naming the endpoint and bucket.
   */
  private async patiently<T>(
    what: string,
    deadline: number,
    step: () => Promise<T>,
    counter = { retries: 0 },
  ): Promise<T> {
    try {
      return await retryTransient(step, {
        signal: this.signal,
        waitMs: (n) => BACKOFF_MS[Math.min(n, BACKOFF_MS.length - 1)]!,
        giveUp: (_, wait) => Date.now() + wait > deadline,
        onRetry: () => counter.retries++,
      });
    } catch (err) {
      if (this.signal?.aborted) throw new Error(`${this.where}: stopped while ${what}`);
      throw new Error(`${this.where}: ${what}: ${bucketProblem(this.bucket, err)}`);
    }
  }

  private async upload(file: string, key: string): Promise<void> {
    const size = statSync(file).size;
    const plan = uploadPlan(size);
    const Bucket = this.bucket.bucket;
    if (plan.kind === 'single') {
      const body = readFileSync(file);
      await this.bucket.client.send(
        new PutObjectCommand({ Bucket, Key: key, Body: body, ContentMD5: md5(body) }),
        this.opts,
      );
      return;
    }
    const { UploadId } = await this.bucket.client.send(
      new CreateMultipartUploadCommand({ Bucket, Key: key }),
      this.opts,
    );
    try {
      const parts: { ETag: string; PartNumber: number }[] = [];
      for (let i = 0; i < plan.parts; i++) {
        const start = i * plan.partSize;
        const body = readRange(file, start, Math.min(size, start + plan.partSize) - start);
        const r = await this.bucket.client.send(
          new UploadPartCommand({ Bucket, Key: key, UploadId, PartNumber: i + 1, Body: body, ContentMD5: md5(body) }),
          this.opts,
        );
        parts.push({ ETag: r.ETag!, PartNumber: i + 1 });
      }
      await this.bucket.client.send(
        new CompleteMultipartUploadCommand({ Bucket, Key: key, UploadId, MultipartUpload: { Parts: parts } }),
        this.opts,
      );
    } catch (err) {
      // Best effort: a server that went away keeps the parts until its lifecycle rules clear them.
      await this.bucket.client
        .send(new AbortMultipartUploadCommand({ Bucket, Key: key, UploadId }), this.opts)
        .catch(() => {});
      throw err;
    }
  }
}
