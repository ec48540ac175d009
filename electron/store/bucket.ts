/**
 * An S3-compatible bucket (AWS, MinIO, R2, Ceph, …) as a place for run folders, through
 * @aws-sdk/client-s3: `s3://bucket/prefix` holds `<prefix>/<run id>/<file>` and
 * `<prefix>/.jobs/<job id>.json`, the same layout as a runs folder. The endpoint and credentials
 * come from the environment (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, AWS_REGION,
 * AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or any source the SDK's default chain reads). Messages
 * name the endpoint and the bucket, never a credential.
 */
import { HeadBucketCommand, ListObjectsV2Command, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { sleep } from '../util/time.ts';
import { keyOf, parseS3Url } from './bucket-url.ts';

export interface Bucket {
  client: S3Client;
  bucket: string;
  /** Without leading or trailing slashes; '' for the bucket's root. */
  prefix: string;
  /** The endpoint requests go to ("AWS" when the SDK picks it from the region). */
  endpoint: string;
  /** `s3://bucket/prefix`, for messages. */
  where: string;
}

/** How long a request may wait for a connection, and for an answer, before it counts as failed. */
const CONNECT_MS = 5_000;
const REQUEST_MS = 120_000;

export function openBucket(url: string): Bucket {
  const { bucket, prefix } = parseS3Url(url);
  const endpoint = process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
  const client = new S3Client({
    region: process.env.AWS_REGION ?? 'us-east-1',
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    // Since 2025 the SDK adds CRC checksums to every upload, streamed uploads as aws-chunked
    // bodies; S3-compatible servers that predate it store the chunk framing inside the object
    // (s3rver did: a 20 MB file became 20,002,861 bytes). Checksums only where the API requires
    // them, unless the environment says otherwise; each upload is confirmed by its size instead
    // (sweep/s3-storage.ts).
    ...(process.env.AWS_REQUEST_CHECKSUM_CALCULATION ? {} : { requestChecksumCalculation: 'WHEN_REQUIRED' as const }),
    ...(process.env.AWS_RESPONSE_CHECKSUM_VALIDATION ? {} : { responseChecksumValidation: 'WHEN_REQUIRED' as const }),
    requestHandler: { connectionTimeout: CONNECT_MS, requestTimeout: REQUEST_MS },
  });
  return { client, bucket, prefix, endpoint: endpoint ?? 'AWS', where: `s3://${keyOf(bucket, prefix)}` };
}

type SdkError = { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };

export function httpStatus(err: unknown): number | undefined {
  return (err as SdkError)?.$metadata?.httpStatusCode;
}

export function isNotFound(err: unknown): boolean {
  const e = err as SdkError;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || httpStatus(err) === 404;
}

/**
 * Whether trying again may help: the server could not be reached, went away mid-request, or
 * answered 5xx/429/408. Refusals (403), missing buckets and bad requests are final.
 */
export function isTransient(err: unknown): boolean {
  if ((err as Error)?.name === 'AbortError') return false;
  const status = httpStatus(err);
  if (status !== undefined && status !== 0) return status >= 500 || status === 429 || status === 408;
  return !(err instanceof S3ServiceException); // no HTTP answer: a network error
}

/**
 * `step`, tried again after each transient failure (isTransient) following `waitMs(retry)`, until
 * it succeeds or `giveUp(retry, wait)` says so; a stop (`signal`) ends a wait at once. Throws the
 * last error as it came: the caller names what it was doing (bucketProblem).
 */
export async function retryTransient<T>(
  step: () => Promise<T>,
  opts: {
    signal?: AbortSignal | undefined;
    waitMs: (retry: number) => number;
    giveUp: (retry: number, waitMs: number) => boolean;
    onRetry?: () => void;
  },
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await step();
    } catch (err) {
      const wait = opts.waitMs(retry);
      if (opts.signal?.aborted || !isTransient(err) || opts.giveUp(retry, wait)) throw err;
      opts.onRetry?.();
      await sleep(wait, opts.signal);
    }
  }
}

/** One line on why the bucket could not be used, naming the endpoint and bucket (never a secret). */
export function bucketProblem(b: Pick<Bucket, 'bucket' | 'endpoint'>, err: unknown): string {
  const e = err as SdkError;
  const status = httpStatus(err);
  const at = `bucket "${b.bucket}" at ${b.endpoint}`;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `${at} did not answer in time`;
  if (status === 404 || e?.name === 'NoSuchBucket' || e?.name === 'NotFound') return `${at} does not exist`;
  if (status === 403 || status === 401)
    return `${at} refused the credentials (${status}${e?.name && e.name !== 'Unknown' && e.name !== 'Forbidden' ? ` ${e.name}` : ''}): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`;
  if (status === undefined || status === 0)
    return `no S3 server answers at ${b.endpoint} for bucket "${b.bucket}" (${e?.code ?? e?.name ?? 'network error'})`;
  return `${at} answered ${status}${e?.name ? ` ${e.name}` : ''}`;
}

/**
 * Checks that the bucket exists and these credentials may list it, within `timeoutMs`: a worker
 * or reader with a wrong secret or a missing bucket fails at once, not at its first upload.
 * Throws an Error whose message is bucketProblem's.
 */
export async function checkBucket(b: Bucket, timeoutMs = 4_000, signal?: AbortSignal): Promise<void> {
  const limit = AbortSignal.timeout(timeoutMs);
  const abortSignal = signal ? AbortSignal.any([signal, limit]) : limit;
  try {
    await b.client.send(new HeadBucketCommand({ Bucket: b.bucket }), { abortSignal });
    await b.client.send(new ListObjectsV2Command({ Bucket: b.bucket, Prefix: keyOf(b.prefix, ''), MaxKeys: 1 }), {
      abortSignal,
    });
  } catch (err) {
    if (signal?.aborted) throw new Error(`${b.where}: stopped while checking the bucket`);
    throw new Error(`cannot use ${b.where}: ${bucketProblem(b, limit.aborted ? { name: 'TimeoutError' } : err)}`);
  }
}

/** One object under the bucket's prefix, its key relative to the prefix. */
export interface BucketObject {
  key: string;
  size: number;
  etag: string;
}

/** Every object under `<prefix>/<sub>`, page by page (1,000 keys a request). */
export async function listObjects(b: Bucket, sub = '', signal?: AbortSignal): Promise<BucketObject[]> {
  const root = b.prefix ? `${b.prefix}/` : '';
  const out: BucketObject[] = [];
  let token: string | undefined;
  do {
    const r = await b.client.send(
      new ListObjectsV2Command({ Bucket: b.bucket, Prefix: root + sub, ContinuationToken: token }),
      signal ? { abortSignal: signal } : {},
    );
    for (const o of r.Contents ?? [])
      if (o.Key) out.push({ key: o.Key.slice(root.length), size: o.Size ?? 0, etag: o.ETag ?? '' });
    token = r.IsTruncated ? r.NextContinuationToken : undefined;
  } while (token);
  return out;
}
