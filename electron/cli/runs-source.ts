/**
 * Where `report`, `leaderboard` and `export` read runs from: a folder as it is, or an
 * `s3://bucket/prefix` synced first into a cache folder of its own (complete runs only, only what
 * changed since the last read), which is then read exactly as a folder.
 */
import path from 'node:path';
import { isS3Url } from '../store/bucket-url.ts';

export interface RunsSource {
  /** The local folder to read. */
  dir: string;
  /** What the output names: the folder, or the s3:// location. */
  where: string;
}

/**
 * The folder to read `runsDir` from: itself, or the bucket location's cache once synced. The S3
 * client is loaded only for a bucket (about 70 ms of a folder report's start otherwise).
 */
export async function localRunsDir(runsDir: string): Promise<RunsSource> {
  if (!isS3Url(runsDir)) return { dir: path.resolve(runsDir), where: path.resolve(runsDir) };
  const { readThroughCache } = await import('./bucket-cache.ts');
  return readThroughCache(runsDir);
}
