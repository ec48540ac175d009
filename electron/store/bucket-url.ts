/**
 * `s3://bucket/prefix` locations as text, without the S3 client: what a command reads to decide
 * between a folder and a bucket before it loads @aws-sdk/client-s3 (store/bucket.ts).
 */

export function isS3Url(where: string): boolean {
  return where.startsWith('s3://');
}

export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!m) throw new Error(`not an S3 location: "${url}" (s3://bucket/prefix)`);
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((p) => p === '..' || p === '.')) throw new Error(`bad S3 prefix in "${url}"`);
  return { bucket: m[1]!, prefix };
}

/** Joins key parts with '/', leaving out empty ones (an empty prefix). */
export function keyOf(...parts: string[]): string {
  return parts.filter(Boolean).join('/');
}
