/**
 * Run storage in an S3-compatible bucket (AWS, MinIO, R2, …) through @aws-sdk/client-s3, with
 * the same layout as a folder: `<prefix>/<run id>/<file>` and `<prefix>/.jobs/<job id>.json`,
 * the job record written last. Endpoint and credentials come from the environment
 * (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY
 * or any source the SDK's default chain reads). Files above 16 MiB go up in 8 MiB parts.
 * Not tested against a real bucket here (none can be run on these machines).
 */
import { createReadStream, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { parseOutcome, type JobOutcome } from './job-run.ts';
import { runFiles, type RunStorage } from './storage.ts';

export const MULTIPART_THRESHOLD = 16 * 1024 * 1024;
export const PART_SIZE = 8 * 1024 * 1024;
/** S3 allows at most 10 000 parts: larger files get larger parts. */
const MAX_PARTS = 10_000;

export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!m) throw new Error(`not an S3 location: "${url}" (s3://bucket/prefix)`);
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((p) => p === '..' || p === '.')) throw new Error(`bad S3 prefix in "${url}"`);
  return { bucket: m[1]!, prefix };
}

function join(...parts: string[]): string {
  return parts.filter(Boolean).join('/');
}

export function jobKey(prefix: string, jobId: string): string {
  return join(prefix, '.jobs', `${jobId}.json`);
}

/** Object keys of a run folder's files, run.json last (a reader that sees it sees the rest). */
export function runObjectKeys(prefix: string, runId: string, files: string[]): { file: string; key: string }[] {
  const ordered = [...files.filter((f) => f !== 'run.json'), ...files.filter((f) => f === 'run.json')];
  return ordered.map((file) => ({ file, key: join(prefix, runId, file) }));
}

export type UploadPlan = { kind: 'single' } | { kind: 'multipart'; partSize: number; parts: number };

/** One PUT for small files; multipart above the threshold, parts of 8 MiB (or more, within 10 000 parts). */
export function uploadPlan(size: number): UploadPlan {
  if (size <= MULTIPART_THRESHOLD) return { kind: 'single' };
  const partSize = Math.max(PART_SIZE, Math.ceil(size / MAX_PARTS));
  return { kind: 'multipart', partSize, parts: Math.ceil(size / partSize) };
}

export class S3Storage implements RunStorage {
  readonly where: string;
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly prefix: string,
  ) {
    this.where = `s3://${bucket}/${prefix}`;
  }

  static fromUrl(url: string): S3Storage {
    const { bucket, prefix } = parseS3Url(url);
    const endpoint = process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
    const client = new S3Client({
      region: process.env.AWS_REGION ?? 'us-east-1',
      ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    });
    return new S3Storage(client, bucket, prefix);
  }

  async finished(jobId: string): Promise<JobOutcome | undefined> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: jobKey(this.prefix, jobId) }));
      let parsed: ReturnType<typeof parseOutcome>;
      try {
        parsed = parseOutcome(JSON.parse(await r.Body!.transformToString()));
      } catch {
        return undefined; // a torn record: the job runs again
      }
      return 'outcome' in parsed && parsed.outcome.status === 'completed' ? parsed.outcome : undefined;
    } catch (err) {
      const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return undefined;
      throw err;
    }
  }

  async put(runDir: string, outcome: JobOutcome): Promise<JobOutcome> {
    const prior = await this.finished(outcome.job_id);
    if (prior) return prior;
    const runId = path.basename(runDir);
    for (const { file, key } of runObjectKeys(this.prefix, runId, runFiles(runDir)))
      await this.upload(path.join(runDir, file), key);
    const stored = { ...outcome, run_id: runId };
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: jobKey(this.prefix, outcome.job_id),
        Body: JSON.stringify(stored, null, 2),
        ContentType: 'application/json',
      }),
    );
    return stored;
  }

  private async upload(file: string, key: string) {
    const size = statSync(file).size;
    const plan = uploadPlan(size);
    if (plan.kind === 'single') {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: readFileSync(file) }));
      return;
    }
    const { UploadId } = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key }));
    try {
      const parts: { ETag: string; PartNumber: number }[] = [];
      for (let i = 0; i < plan.parts; i++) {
        const start = i * plan.partSize;
        const end = Math.min(size, start + plan.partSize) - 1;
        const r = await this.client.send(
          new UploadPartCommand({
            Bucket: this.bucket,
            Key: key,
            UploadId,
            PartNumber: i + 1,
            Body: createReadStream(file, { start, end }),
            ContentLength: end - start + 1,
          }),
        );
        parts.push({ ETag: r.ETag!, PartNumber: i + 1 });
      }
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
    } catch (err) {
      await this.client
        .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId }))
        .catch(() => {});
      throw err;
    }
  }
}
