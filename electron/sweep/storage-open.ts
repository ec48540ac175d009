/** `--storage DIR` or `--storage s3://bucket/prefix`. */
import { isS3Url } from '../store/bucket-url.ts';
import { DirStorage, type RunStorage } from './storage.ts';
import { S3Storage } from './s3-storage.ts';

/**
 * The storage at `where`, checked before any job is taken: a folder is reconciled, a bucket must
 * exist and take these credentials (within 4 s; a wrong secret or a missing bucket throws a
 * message naming the endpoint and bucket). `signal` (the worker's stop) ends its waits.
 */
export async function openStorage(where: string, signal?: AbortSignal): Promise<RunStorage> {
  if (isS3Url(where)) {
    const s3 = S3Storage.fromUrl(where, signal);
    await s3.check();
    return s3;
  }
  const dir = new DirStorage(where);
  dir.reconcile();
  return dir;
}
