/**
 * The sweep's bucket storage (electron/sweep/s3-storage.ts) against a real S3-compatible server
 * (s3rver, tests/helpers/s3-server.ts) with the real @aws-sdk/client-s3: the order objects land
 * in, multipart for files above 16 MiB, the bucket's listing as the proof of an upload, a server
 * killed in the middle of an upload, a worker stopped while it waits, wrong credentials and a
 * missing bucket. The queued sweep over the same storage is tests/e2e/sweep-bucket.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listObjects } from '../../electron/store/bucket.ts';
import type { JobOutcome } from '../../electron/sweep/job-run.ts';
import { S3Storage } from '../../electron/sweep/s3-storage.ts';
import { jobOutcome } from '../helpers/job-outcome.ts';
import { S3_SECRET, S3Server } from '../helpers/s3-server.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-s3-'));
const s3 = new S3Server(path.join(tmp, 'bucket-data'), 'lab');
const savedEnv = { ...process.env };

/** A run folder: a 20 MB file (three parts), two small ones, run.json. */
function runFolder(id: string, bigBytes = 20_000_000): string {
  const dir = path.join(tmp, 'staging', id);
  mkdirSync(path.join(dir, 'frames'), { recursive: true });
  writeFileSync(path.join(dir, 'frames', 'big.bin'), randomBytes(bigBytes));
  writeFileSync(path.join(dir, 'steps.jsonl'), '{"step":1}\n');
  writeFileSync(path.join(dir, 'frames', '000001.jpg'), randomBytes(5000));
  writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ id, status: 'completed' }));
  return dir;
}

function outcome(job: string): JobOutcome {
  return jobOutcome(job, { timing: { queued_s: 0.5, run_s: 2, store_s: 0, files: 0, bytes: 0 } });
}

/** Index in the server's log of the last successful PUT of `key` (−1: never). */
const lastPut = (key: string) => s3.putKeys().lastIndexOf(key);

beforeAll(async () => {
  await s3.start();
  Object.assign(process.env, s3.env());
});
afterAll(async () => {
  process.env = savedEnv;
  await s3.kill();
  rmSync(tmp, { recursive: true, force: true });
});

describe('S3 storage against a real S3-compatible server', () => {
  it('uploads a run folder in order, large files in parts, each confirmed by the listing', async () => {
    const storage = S3Storage.fromUrl('s3://lab/p1');
    await storage.check();
    const dir = runFolder('run-a');
    const stored = await storage.put(dir, outcome('job-a'));
    await s3.settled();

    const objects = new Map((await listObjects(storage.bucket)).map((o) => [o.key, o.size]));
    expect(objects.get('run-a/frames/big.bin')).toBe(20_000_000);
    expect(objects.get('run-a/frames/000001.jpg')).toBe(5000);
    expect(objects.get('run-a/run.json')).toBe(readFileSync(path.join(dir, 'run.json')).length);
    // Multipart: created, three parts of ≤ 8 MiB, completed (POST, 3 × PUT, POST).
    const big = s3.events.filter((e) => e.path === '/lab/p1/run-a/frames/big.bin').map((e) => e.req);
    expect(big).toEqual(['POST', 'PUT', 'PUT', 'PUT', 'POST']);
    // run.json after every other file of the run, the job record after run.json.
    const keys = s3.putKeys();
    const runJson = lastPut('p1/run-a/run.json');
    for (const k of keys.filter((k) => k.startsWith('p1/run-a/') && k !== 'p1/run-a/run.json'))
      expect(lastPut(k), k).toBeLessThan(runJson);
    expect(lastPut('p1/.jobs/job-a.json')).toBeGreaterThan(runJson);
    // What the record says of the upload is what was uploaded.
    expect(stored.timing).toMatchObject({ queued_s: 0.5, run_s: 2, files: 4, retries: 0 });
    expect(stored.timing!.bytes).toBe(20_000_000 + 5000 + 11 + readFileSync(path.join(dir, 'run.json')).length);
    expect(stored.timing!.upload_s).toBeGreaterThan(0);
    const record = await storage.bucket.client.send(
      new GetObjectCommand({ Bucket: 'lab', Key: 'p1/.jobs/job-a.json' }),
    );
    expect(JSON.parse(await record.Body!.transformToString())).toEqual(stored);
    // A second put of the same job stores nothing more.
    await s3.settled();
    const before = s3.events.length;
    expect(await storage.put(runFolder('run-b', 10), outcome('job-a'))).toEqual(stored);
    await s3.settled();
    expect(s3.events.slice(before, -1).map((e) => e.req)).toEqual(['GET']);
  }, 60_000);

  it('waits out a server killed mid-upload, keeping the run folder, and completes it', async () => {
    const storage = S3Storage.fromUrl('s3://lab/p2');
    const dir = runFolder('run-k');
    // A part of the large file is never answered: the server dies with it in flight.
    await s3.kill();
    await s3.start({ hold: '^PUT /lab/p2/run-k/frames/big\\.bin$' });
    const seen = s3.events.length;
    const put = storage.put(dir, outcome('job-k'));
    await s3.waitFor((e) => e.held !== undefined && s3.events.indexOf(e) >= seen);
    await s3.kill();
    // While the server is away nothing of the run is complete in the bucket and the folder stays.
    expect(existsSync(path.join(dir, 'frames', 'big.bin'))).toBe(true);
    await s3.start();
    const stored = await put;
    await s3.settled();
    const objects = new Map((await listObjects(storage.bucket, 'run-k/')).map((o) => [o.key, o.size]));
    expect(objects.get('run-k/frames/big.bin')).toBe(20_000_000);
    expect(objects.get('run-k/run.json')).toBeGreaterThan(0);
    expect(stored.timing!.retries).toBeGreaterThanOrEqual(1);
    expect(lastPut('p2/.jobs/job-k.json')).toBeGreaterThan(lastPut('p2/run-k/run.json'));
    // Byte for byte what was sent.
    const got = await storage.bucket.client.send(
      new GetObjectCommand({ Bucket: 'lab', Key: 'p2/run-k/frames/big.bin' }),
    );
    expect(
      Buffer.from(await got.Body!.transformToByteArray()).equals(readFileSync(path.join(dir, 'frames', 'big.bin'))),
    ).toBe(true);
  }, 120_000);

  it('a file the bucket stored wrong is seen in its listing and sent again before run.json', async () => {
    await s3.kill();
    await s3.start({ corrupt: '^lab/p5/run-c/steps\\.jsonl$' });
    const storage = S3Storage.fromUrl('s3://lab/p5');
    const dir = runFolder('run-c', 10);
    const seen = s3.events.length;
    await storage.put(dir, outcome('job-c'));
    await s3.settled();
    expect(s3.events.slice(seen).some((e) => e.corrupted === 'lab/p5/run-c/steps.jsonl')).toBe(true);
    const objects = new Map((await listObjects(storage.bucket, 'run-c/')).map((o) => [o.key, o.size]));
    expect(objects.get('run-c/steps.jsonl')).toBe(readFileSync(path.join(dir, 'steps.jsonl')).length);
    // Sent twice, the second time after the listing showed it wrong, and both before run.json.
    const puts = s3.putKeys();
    const steps = puts.map((k, i) => (k === 'p5/run-c/steps.jsonl' ? i : -1)).filter((i) => i >= 0);
    expect(steps).toHaveLength(2);
    expect(steps[1]).toBeLessThan(lastPut('p5/run-c/run.json'));
    await s3.kill();
    await s3.start();
  }, 60_000);

  it('a stop while the server is away ends the upload at once, run.json never written', async () => {
    const stop = new AbortController();
    const storage = S3Storage.fromUrl('s3://lab/p3', stop.signal);
    const dir = runFolder('run-s', 10);
    await s3.kill();
    const put = storage.put(dir, outcome('job-s'));
    const settled = put.then(
      () => 'stored',
      (err: Error) => err.message,
    );
    // Refused until the storage itself has tried again (the SDK tries each request three times).
    await s3.refuse(4);
    const t0 = Date.now();
    stop.abort();
    expect(await settled).toMatch(/s3:\/\/lab\/p3: stopped while/);
    expect(Date.now() - t0).toBeLessThan(2000);
    await s3.start();
    const keys = (await listObjects(S3Storage.fromUrl('s3://lab/p3').bucket)).map((o) => o.key);
    expect(keys).not.toContain('run-s/run.json');
    expect(existsSync(path.join(dir, 'run.json'))).toBe(true);
  }, 60_000);

  it('refuses wrong credentials and a missing bucket within 5 s, naming the bucket, never the secret', async () => {
    for (const [url, secret, why] of [
      ['s3://lab/p4', 'not-the-secret', /refused the credentials \(403/],
      ['s3://no-such-bucket/p4', S3_SECRET, /does not exist/],
    ] as const) {
      Object.assign(process.env, s3.env(secret));
      const t0 = Date.now();
      const err = await S3Storage.fromUrl(url)
        .check()
        .then(
          () => undefined,
          (e: Error) => e.message,
        );
      expect(Date.now() - t0).toBeLessThan(5000);
      expect(err).toMatch(why);
      expect(err).toContain(`bucket "${url.slice(5).split('/')[0]}" at ${s3.endpoint}`);
      expect(err).not.toContain('not-the-secret');
    }
    Object.assign(process.env, s3.env());
  }, 30_000);
});
