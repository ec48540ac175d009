/**
 * Downloads a bucket location (`s3://bucket/prefix`, see bucket.ts) into a local folder laid out
 * like a runs folder: the files of every complete run (its run.json listed: workers upload it
 * last) and the `.jobs/` records. A run without run.json is being uploaded or was cut short: it
 * is left and counted, as are stray keys; a key that would leave the folder is refused.
 *
 * Each file lands atomically (a temp file in `<dir>/.bucket-sync-tmp/`, renamed into place) and a
 * run's run.json only after its other files, so a reader of the folder never sees half a run.
 * `<dir>/.bucket-sync.json` records what was downloaded (key → size and ETag); a later sync, or
 * one resumed after Ctrl+C or a kill, fetches only objects that are new, changed or missing here.
 */
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { writeFileAtomic } from '../util/atomic-file.ts';
import { allOrFirstError, semaphore } from '../util/concurrency.ts';
import { type Bucket, type BucketObject, bucketProblem, listObjects, retryTransient } from './bucket.ts';
import { keyOf } from './bucket-url.ts';
import {
  DEFAULT_PARALLEL,
  goneKeys,
  localPathOf,
  md5OfEtag,
  needsFetch,
  planSync,
  type SyncManifest,
} from './bucket-sync-plan.ts';

export const MANIFEST_FILE = '.bucket-sync.json';
const TEMP_FOLDER = '.bucket-sync-tmp';
/** Tries of one request when the server errs transiently (isTransient), with doubling waits. */
const TRIES = 4;
const FIRST_RETRY_MS = 250;
/** A GET may take 30 s plus 10 s a MB (100 kB/s) before it counts as stalled and is tried again. */
const REQUEST_BASE_MS = 30_000;
const REQUEST_MS_PER_BYTE = 0.01;
/** The manifest is saved at most this often while files arrive (and always at the end). */
const MANIFEST_EVERY_MS = 1_000;

export interface SyncCounts {
  done: number;
  total: number;
}

export interface SyncProgress {
  runs: SyncCounts;
  files: SyncCounts;
  bytes: SyncCounts;
}

export interface SyncSummary {
  /** `s3://bucket/prefix`. */
  from: string;
  dir: string;
  /** Complete runs in the bucket (all now here, unless stopped). */
  runs: number;
  jobs: number;
  /** Files downloaded by this sync, and their bytes. */
  fetched: number;
  bytes: number;
  /** Files already here from an earlier sync. */
  present: number;
  seconds: number;
  /** Runs in the bucket without run.json: not downloaded. */
  incomplete: string[];
  /** Keys that are neither a run's file nor a job record: not downloaded. */
  stray: number;
  /** Keys refused because they would leave the folder, and why. */
  refused: { key: string; why: string }[];
  /** Files of runs no longer complete in the bucket, removed here (prune). */
  removed: number;
  /** Stopped before the end (the signal): run again to fetch the rest. */
  stopped: boolean;
}

export interface SyncOptions {
  signal?: AbortSignal;
  /** GETs at once (default DEFAULT_PARALLEL). */
  parallel?: number;
  onProgress?: (p: SyncProgress) => void;
  /** Also remove files an earlier sync downloaded whose objects are gone (for a cache the sync owns). */
  prune?: boolean;
}

export async function syncBucket(b: Bucket, dir: string, opts: SyncOptions = {}): Promise<SyncSummary> {
  const started = performance.now();
  const root = path.resolve(dir);
  const tmpDir = path.join(root, TEMP_FOLDER);
  mkdirSync(root, { recursive: true });
  removeDeadTemps(tmpDir);
  const manifest = readManifest(root, b.where);
  const stop = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;

  const plan = planSync(await withRetries(b, () => listObjects(b, '', signal), signal, 'list'));
  const wanted = [...[...plan.runs.values()].flat(), ...plan.jobs];
  const summary: SyncSummary = {
    from: b.where,
    dir: root,
    runs: plan.runs.size,
    jobs: plan.jobs.length,
    fetched: 0,
    bytes: 0,
    present: 0,
    seconds: 0,
    incomplete: plan.incomplete,
    stray: plan.stray.length,
    refused: plan.refused,
    removed: 0,
    stopped: false,
  };
  if (opts.prune) summary.removed = prune(root, manifest, new Set(wanted.map((o) => o.key)));

  const fetch = new Set<BucketObject>();
  for (const o of wanted)
    if (needsFetch(o, manifest, localSize(root, o.key)) && !(await adoptLocal(root, o, manifest))) fetch.add(o);
  // A run whose other files change gets its run.json again after them: until then it is not complete here.
  for (const files of plan.runs.values()) {
    const runJson = files.at(-1)!;
    if (files.some((f) => f !== runJson && fetch.has(f)) && !fetch.has(runJson)) {
      rmSync(localPathOf(root, runJson.key), { force: true });
      fetch.add(runJson);
    }
  }

  const progress: SyncProgress = {
    runs: { done: [...plan.runs.values()].filter((fs) => !fs.some((f) => fetch.has(f))).length, total: plan.runs.size },
    files: { done: wanted.length - fetch.size, total: wanted.length },
    bytes: { done: 0, total: wanted.reduce((n, o) => n + o.size, 0) },
  };
  progress.bytes.done = progress.bytes.total - [...fetch].reduce((n, o) => n + o.size, 0);
  summary.present = progress.files.done;
  opts.onProgress?.(structuredClone(progress));

  let savedAt = Date.now();
  const limit = semaphore(Math.max(1, opts.parallel ?? DEFAULT_PARALLEL));
  const get = (o: BucketObject) =>
    limit(async () => {
      const got = await fetchObject(b, o, localPathOf(root, o.key), tmpDir, signal);
      manifest.files[o.key] = got;
      summary.fetched++;
      summary.bytes += got.size;
      progress.files.done++;
      progress.bytes.done += o.size;
      if (Date.now() - savedAt >= MANIFEST_EVERY_MS) {
        saveManifest(root, manifest);
        savedAt = Date.now();
      }
    });
  const tasks = [
    ...[...plan.runs.values()].map(async (files) => {
      const runJson = files.at(-1)!;
      await allOrFirstError(files.filter((f) => f !== runJson && fetch.has(f)).map(get));
      if (!fetch.has(runJson)) return;
      await get(runJson);
      progress.runs.done++;
      opts.onProgress?.(structuredClone(progress));
    }),
    ...plan.jobs.filter((o) => fetch.has(o)).map(get),
  ];
  let failure: unknown;
  try {
    await allOrFirstError(
      tasks.map((t) =>
        t.catch((err) => {
          // One failure ends the rest (the sync fails as a whole) and is the one reported, not their aborts.
          if (!signal.aborted) failure = err;
          stop.abort();
          throw err;
        }),
      ),
    );
  } catch (err) {
    if (!opts.signal?.aborted) throw failure ?? err;
  } finally {
    saveManifest(root, manifest);
    try {
      rmdirSync(tmpDir);
    } catch {
      /* not made, or another sync into this folder is using it */
    }
  }
  summary.seconds = (performance.now() - started) / 1000;
  if (opts.signal?.aborted) return { ...summary, stopped: true };
  if (plan.jobs.some((o) => fetch.has(o))) opts.onProgress?.(structuredClone(progress));
  return summary;
}

/** The size of the local copy of `key`, or undefined when there is none. */
function localSize(root: string, key: string): number | undefined {
  try {
    const s = statSync(localPathOf(root, key));
    return s.isFile() ? s.size : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A local file the manifest does not know (a sync killed before it saved the manifest, or files
 * copied here by hand) that has the object's size and MD5 (a single-part ETag): taken as it is.
 */
async function adoptLocal(root: string, o: BucketObject, manifest: SyncManifest): Promise<boolean> {
  const md5 = md5OfEtag(o.etag);
  if (!md5 || manifest.files[o.key] || localSize(root, o.key) !== o.size) return false;
  const hash = createHash('md5');
  for await (const chunk of createReadStream(localPathOf(root, o.key))) hash.update(chunk as Buffer);
  if (hash.digest('hex') !== md5) return false;
  manifest.files[o.key] = { size: o.size, etag: o.etag };
  return true;
}

/** Removes the local files of keys no longer wanted, each run's run.json before its other files. */
function prune(root: string, manifest: SyncManifest, wanted: Set<string>): number {
  const gone = goneKeys(manifest, wanted).sort(
    (a, b) => Number(b.endsWith('/run.json')) - Number(a.endsWith('/run.json')),
  );
  for (const key of gone) {
    rmSync(localPathOf(root, key), { force: true });
    delete manifest.files[key];
  }
  return gone.length;
}

async function fetchObject(
  b: Bucket,
  o: BucketObject,
  file: string,
  tmpDir: string,
  signal: AbortSignal,
): Promise<{ size: number; etag: string }> {
  return withRetries(
    b,
    async () => {
      const limit = AbortSignal.timeout(Math.ceil(REQUEST_BASE_MS + o.size * REQUEST_MS_PER_BYTE));
      const abortSignal = AbortSignal.any([signal, limit]);
      mkdirSync(tmpDir, { recursive: true });
      const tmp = path.join(tmpDir, `${process.pid}-${randomBytes(6).toString('hex')}`);
      try {
        const r = await b.client.send(new GetObjectCommand({ Bucket: b.bucket, Key: keyOf(b.prefix, o.key) }), {
          abortSignal,
        });
        const out = createWriteStream(tmp, { flags: 'wx', flush: true });
        await pipeline(r.Body as Readable, out, { signal: abortSignal });
        const expected = r.ContentLength ?? o.size;
        if (out.bytesWritten !== expected)
          throw new Error(`${o.key}: ${out.bytesWritten} of ${expected} bytes arrived`); // a network error: tried again
        mkdirSync(path.dirname(file), { recursive: true });
        renameSync(tmp, file);
        const sameObject = unquoted(r.ETag ?? o.etag) === unquoted(o.etag) && expected === o.size;
        return sameObject ? { size: o.size, etag: o.etag } : { size: expected, etag: r.ETag ?? '' };
      } catch (err) {
        rmSync(tmp, { force: true });
        // A request that stalled past its limit is tried again; a stop is not.
        if (limit.aborted && !signal.aborted)
          throw Object.assign(new Error(`${o.key}: no answer in time`), { name: 'TimeoutError' });
        throw err;
      }
    },
    signal,
    o.key,
  );
}

function unquoted(etag: string): string {
  return etag.replace(/^"|"$/g, '');
}

/** Runs `fn`, trying again with doubling waits while it fails transiently; a final failure names the bucket. */
async function withRetries<T>(b: Bucket, fn: () => Promise<T>, signal: AbortSignal, what: string): Promise<T> {
  try {
    return await retryTransient(fn, {
      signal,
      waitMs: (n) => FIRST_RETRY_MS * 2 ** n * (0.5 + Math.random()),
      giveUp: (n) => n + 1 >= TRIES,
    });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new Error(`cannot ${what === 'list' ? 'list' : `fetch ${what} of`} ${b.where}: ${bucketProblem(b, err)}`);
  }
}

function readManifest(root: string, where: string): SyncManifest {
  try {
    const m = JSON.parse(readFileSync(path.join(root, MANIFEST_FILE), 'utf8')) as SyncManifest;
    if (m.where === where && m.files && typeof m.files === 'object') return m;
  } catch {
    /* none yet, or unreadable: every object is checked against the local files */
  }
  return { where, files: {} };
}

function saveManifest(root: string, manifest: SyncManifest): void {
  writeFileAtomic(path.join(root, MANIFEST_FILE), `${JSON.stringify(manifest)}\n`);
}

/** Temp files of syncs whose process is gone (killed mid-download). */
function removeDeadTemps(tmpDir: string): void {
  if (!existsSync(tmpDir)) return;
  for (const name of readdirSync(tmpDir)) {
    const pid = Number(name.split('-')[0]);
    if (!isAlive(pid)) rmSync(path.join(tmpDir, name), { force: true });
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
