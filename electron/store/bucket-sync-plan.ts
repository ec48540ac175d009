/**
 * What a bucket sync fetches, decided without touching the network or the disk: which listed
 * objects belong to a complete run (its `run.json` listed), which are job records, which are left
 * (a run without run.json, stray keys) and which are refused because their key would leave the
 * target folder; and, against the manifest of an earlier sync, which objects are already there.
 */
import path from 'node:path';
import type { BucketObject } from './bucket.ts';

/** What an earlier sync downloaded: key (relative to the prefix) → the object's size and ETag then. */
export interface SyncManifest {
  /** The `s3://bucket/prefix` it came from: a manifest of another location is not trusted. */
  where: string;
  files: Record<string, { size: number; etag: string }>;
}

export const JOBS_FOLDER = '.jobs';
/** GETs at once unless told otherwise: a few, so one slow object does not hold the rest. */
export const DEFAULT_PARALLEL = 4;

export interface SyncPlan {
  /** Complete runs by id: their objects, run.json last. */
  runs: Map<string, BucketObject[]>;
  /** `.jobs/<job id>.json` records. */
  jobs: BucketObject[];
  /** Ids of runs whose run.json is not listed (not uploaded yet, or never finished). */
  incomplete: string[];
  /** Keys that are neither a run's file nor a job record. */
  stray: string[];
  /** Keys that would not stay inside the folder, and why. */
  refused: { key: string; why: string }[];
}

/** Why a key cannot name a file inside the target folder, or undefined when it can. */
export function unsafeKey(key: string): string | undefined {
  if (key === '') return 'an empty key';
  if (key.startsWith('/')) return 'it starts with "/"';
  if (key.includes('\\')) return 'it holds "\\"';
  if (key.includes('\0')) return 'it holds a NUL character';
  for (const part of key.split('/')) {
    if (part === '') return 'it holds an empty part ("//" or a trailing "/")';
    if (part === '.' || part === '..') return `it holds a "${part}" part`;
    if (part.includes(':')) return 'it holds ":" (a drive or stream name on Windows)';
  }
  return undefined;
}

/** The local file a key maps to inside `dir`; throws when the key could leave it. */
export function localPathOf(dir: string, key: string): string {
  const why = unsafeKey(key);
  if (why) throw new Error(`refused object key "${key}": ${why}`);
  const root = path.resolve(dir);
  const file = path.resolve(root, ...key.split('/'));
  if (!file.startsWith(root + path.sep)) throw new Error(`refused object key "${key}": it leaves ${root}`);
  return file;
}

/** Sorts the listing into complete runs, job records, incomplete runs, stray and refused keys. */
export function planSync(objects: BucketObject[]): SyncPlan {
  const byRun = new Map<string, BucketObject[]>();
  const plan: SyncPlan = { runs: new Map(), jobs: [], incomplete: [], stray: [], refused: [] };
  for (const o of objects) {
    const why = unsafeKey(o.key);
    if (why) {
      plan.refused.push({ key: o.key, why });
      continue;
    }
    const parts = o.key.split('/');
    if (parts[0] === JOBS_FOLDER) {
      if (parts.length === 2 && parts[1]!.endsWith('.json')) plan.jobs.push(o);
      else plan.stray.push(o.key);
    } else if (parts.length < 2 || parts[0]!.startsWith('.')) plan.stray.push(o.key);
    else byRun.set(parts[0]!, [...(byRun.get(parts[0]!) ?? []), o]);
  }
  for (const [id, files] of byRun) {
    const runJson = files.find((f) => f.key === `${id}/run.json`);
    if (runJson) plan.runs.set(id, [...files.filter((f) => f !== runJson), runJson]);
    else plan.incomplete.push(id);
  }
  return plan;
}

/**
 * Whether an object must be fetched: it is not in the manifest, its size or ETag changed since,
 * or its local file is gone or has another size (`localSize`: undefined when missing).
 */
export function needsFetch(o: BucketObject, manifest: SyncManifest, localSize: number | undefined): boolean {
  const had = manifest.files[o.key];
  return !had || had.size !== o.size || had.etag !== o.etag || localSize !== o.size;
}

/** A single-part upload's ETag is the MD5 of its bytes (multipart ones end in `-<parts>`): its hex, or undefined. */
export function md5OfEtag(etag: string): string | undefined {
  return /^"?([0-9a-f]{32})"?$/i.exec(etag)?.[1]?.toLowerCase();
}

/** Keys the manifest holds that the bucket no longer has as part of a complete run or a job record. */
export function goneKeys(manifest: SyncManifest, wanted: Set<string>): string[] {
  return Object.keys(manifest.files).filter((k) => !wanted.has(k));
}
