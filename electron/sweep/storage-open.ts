/** `--storage DIR` or `--storage s3://bucket/prefix`. */
import { DirStorage, type RunStorage } from './storage.ts';
import { S3Storage } from './s3-storage.ts';

export function openStorage(where: string): RunStorage {
  if (where.startsWith('s3://')) return S3Storage.fromUrl(where);
  const dir = new DirStorage(where);
  dir.reconcile();
  return dir;
}
