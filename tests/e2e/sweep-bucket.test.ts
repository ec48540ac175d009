/**
 * A queued sweep across machines, for real: Redis on loopback, an S3-compatible server
 * (s3rver, SigV4 checked: tests/helpers/s3-server.ts) on loopback, and two `gamepilot worker`s,
 * each a host of its own (tests/helpers/isolated-host.ts: its own checkout copy, HOME, config,
 * temp and runs folders, displays, and an environment holding only PATH, the queue and the
 * bucket). The run folders reach the bucket run.json last; the sweep's summary gives each job's
 * time outside play and the upload throughput; `gamepilot report` reads the bucket as it reads
 * the same runs in a folder; a resumed sweep reruns nothing; the storage
 * server killed in the middle of an upload and started again loses nothing and stores nothing
 * twice; a worker with a wrong secret refuses to start.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listObjects, openBucket } from '../../electron/store/bucket.ts';
import { runCli, spawnCli } from '../helpers/cli.ts';
import { type IsolatedHost, isolatedHost } from '../helpers/isolated-host.ts';
import { followJson, type JsonChild } from '../helpers/json-lines.ts';
import { freePort, RedisServer } from '../helpers/redis.ts';
import { downloadBucket, S3Server } from '../helpers/s3-server.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-bucket-'));
const six = path.join(tmp, 'six.yaml');
writeFileSync(six, 'name: six\ngames: [2048, tictactoe]\nagents: [random]\ntrials: 3\nmax_steps: 6\n');
const s3 = new S3Server(path.join(tmp, 's3-data'), 'lab');
let redis: RedisServer;
let hosts: IsolatedHost[];
const started: ChildProcess[] = [];
const savedEnv = { ...process.env };

function followed(child: ChildProcess, onEvent: (e: any) => void = () => {}): JsonChild {
  started.push(child);
  return followJson(child, onEvent);
}

/** A worker on `host`, storing to `bucketUrl`; resolves once its display is up (ready to take jobs). */
async function worker(host: IsolatedHost, queue: string, bucketUrl: string, extra: string[] = []): Promise<JsonChild> {
  const args = ['worker', '--queue', redis.url, '--queue-name', queue, '--storage', bucketUrl];
  const w = followed(host.spawnCli([...args, '--runs-dir', host.runs, '--json', ...extra], s3.env()));
  await new Promise<void>((resolve, reject) => {
    const t = setInterval(() => {
      if (w.events.some((e) => e.type === 'worker')) resolve();
      else if (w.child.exitCode !== null) reject(new Error(`worker on ${host.name} exited: ${w.stderr()}`));
      else return;
      clearInterval(t);
    }, 50);
  });
  return w;
}

/** The sweep enqueued and followed from the test's own host, to its summary. */
async function sweepWait(file: string, queue: string): Promise<{ code: number | null; summary: any; f: JsonChild }> {
  const enq = await runCli(['sweep', file, '--queue', redis.url, '--queue-name', queue]);
  expect(enq.code, enq.stderr).toBe(0);
  const f = followed(
    spawnCli(['sweep', file, '--queue', redis.url, '--queue-name', queue, '--wait', '--json', '--runs-dir', tmp]),
  );
  const code = await f.exit;
  return { code, summary: f.events.at(-1)?.summary, f };
}

/**
 * A sweep (`yaml`, queued as `queue`) worked by one worker on `host`, with the S3 server started
 * again to hold the first request matching `hold` unanswered; resolves once that request is held.
 */
async function sweepWithHeldRequest(queue: string, yaml: string, host: IsolatedHost, bucketUrl: string, hold: string) {
  const file = path.join(tmp, `${queue}.yaml`);
  writeFileSync(file, yaml);
  await s3.kill();
  await s3.start({ hold });
  const seen = s3.events.length;
  const w = await worker(host, queue, bucketUrl);
  const done = sweepWait(file, queue);
  const held = await s3.waitFor((e) => e.held !== undefined && s3.events.indexOf(e) >= seen, 200_000);
  return { w, done, held: held.held! };
}

/** The objects under a prefix, and the JSON of one of them. */
const objects = async (url: string) => listObjects(openBucket(url));
async function objectJson(url: string, key: string): Promise<any> {
  const b = openBucket(url);
  const r = await b.client.send(new GetObjectCommand({ Bucket: b.bucket, Key: `${b.prefix}/${key}` }));
  return JSON.parse(await r.Body!.transformToString());
}

/** Run folders in the bucket under `prefix`: run id → its files (relative). */
async function runsIn(url: string): Promise<Map<string, string[]>> {
  const runs = new Map<string, string[]>();
  for (const o of await objects(url)) {
    const [run, ...rest] = o.key.split('/');
    if (run === '.jobs') continue;
    runs.set(run!, [...(runs.get(run!) ?? []), rest.join('/')]);
  }
  return runs;
}

/** For each run under `prefix`: its run.json was the last of its files PUT, and its job record came after. */
function runJsonLast(prefix: string, runId: string, jobId: string) {
  const keys = s3.putKeys();
  const runJson = keys.lastIndexOf(`${prefix}/${runId}/run.json`);
  expect(runJson, `${runId}/run.json`).toBeGreaterThanOrEqual(0);
  for (const k of keys.filter((k) => k.startsWith(`${prefix}/${runId}/`) && !k.endsWith('/run.json')))
    expect(keys.lastIndexOf(k), k).toBeLessThan(runJson);
  expect(keys.lastIndexOf(`${prefix}/.jobs/${jobId}.json`)).toBeGreaterThan(runJson);
}

beforeAll(async () => {
  redis = new RedisServer(await freePort(), path.join(tmp, 'redis'));
  await redis.start();
  await s3.start();
  Object.assign(process.env, s3.env()); // the test's own reads of the bucket
  hosts = [isolatedHost(tmp, 'host-a'), isolatedHost(tmp, 'host-b')];
}, 60_000);

afterAll(async () => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await redis?.stop();
  await s3.kill();
  process.env = savedEnv;
  rmSync(tmp, { recursive: true, force: true });
});

describe('a queued sweep with two isolated workers and bucket storage', () => {
  const url = 's3://lab/six';

  it('stores six run folders in the bucket, run.json last, with the time outside play', async () => {
    const workers = await Promise.all(hosts.map((h) => worker(h, 'six', url)));
    const { code, summary, f } = await sweepWait(six, 'six');
    expect(code, f.stderr()).toBe(0);
    expect(summary).toMatchObject({ total: 6, completed: 6, failed: 0 });

    // Six run folders, each whole, each from the job it names, each stored once.
    await s3.settled();
    const runs = await runsIn(url);
    expect(runs.size).toBe(6);
    const jobs = new Set<string>();
    const pids = new Set<number>();
    for (const [run, files] of runs) {
      expect(files).toContain('run.json');
      expect(files).toContain('steps.jsonl');
      const meta = await objectJson(url, `${run}/run.json`);
      expect(meta.status).toBe('completed');
      const record = await objectJson(url, `.jobs/${meta.job.id}.json`);
      expect(record.run_id).toBe(run);
      runJsonLast('six', run, meta.job.id);
      jobs.add(meta.job.id);
      pids.add(meta.worker.pid);
    }
    expect(jobs.size).toBe(6);
    expect(pids).toEqual(new Set(workers.map((w) => w.child.pid)));
    // Nothing of a run stays on a worker once it is stored.
    for (const h of hosts) {
      const work = path.join(h.runs, '.sweep', 'work');
      expect(existsSync(work) ? readdirSync(work) : []).toEqual([]);
    }

    // Time outside play, per job and over the sweep, as the summary gives it.
    for (const j of summary.jobs) {
      expect(j.timing.queued_s, j.id).toBeGreaterThanOrEqual(0);
      expect(j.timing.store_s, j.id).toBeGreaterThan(0);
      expect(j.timing.upload_s, j.id).toBeGreaterThan(0);
      expect(j.timing.bytes, j.id).toBeGreaterThan(0);
    }
    const stored = [...runs.values()].reduce((a, files) => a + files.length, 0);
    expect(summary.outside_play).toMatchObject({ jobs: 6, files: stored, retries: 0 });
    expect(summary.outside_play.upload_mb_s).toBeGreaterThan(0);
    const objectBytes = (await objects(url)).filter((o) => !o.key.startsWith('.jobs/')).reduce((a, o) => a + o.size, 0);
    expect(summary.outside_play.bytes).toBe(objectBytes);
    process.stdout.write(`sweep-bucket: ${JSON.stringify(summary.outside_play)}\n`);

    for (const w of workers) w.child.kill('SIGINT');
    for (const w of workers) expect(await w.exit, w.stderr()).toBe(0);
  }, 400_000);

  it('the report built from the bucket equals the report of the same runs in a folder', async () => {
    const copy = path.join(tmp, 'downloaded');
    expect(await downloadBucket(url, copy)).toBeGreaterThan(0); // the test's own reader
    const env = { ...s3.env(), XDG_CACHE_HOME: path.join(tmp, 'cache') };
    const report = async (from: string, name: string) => {
      const json = path.join(tmp, `${name}.json`);
      const r = await runCli(['report', '--runs-dir', from, '--out', path.join(tmp, `${name}.html`), '--json', json], {
        env,
      });
      expect(r.code, r.stderr).toBe(0);
      const { generated: _g, runs_dir, ...rest } = JSON.parse(readFileSync(json, 'utf8'));
      return { runs_dir, rest };
    };
    const fromBucket = await report(url, 'from-bucket');
    const fromFolder = await report(copy, 'from-folder');
    expect(fromBucket.runs_dir).toBe(url);
    expect(fromBucket.rest.runs.counted).toBe(6);
    expect(fromBucket.rest).toEqual(fromFolder.rest);
  }, 120_000);

  it('bench --storage measures the upload throughput with a real run, and leaves nothing behind', async () => {
    const copy = path.join(tmp, 'downloaded');
    const r = await runCli(['bench', '--storage', 's3://lab/bench', '--runs-dir', copy, '--json'], { env: s3.env() });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    const newest = readdirSync(copy)
      .filter((n) => existsSync(path.join(copy, n, 'run.json')))
      .map((n) => JSON.parse(readFileSync(path.join(copy, n, 'run.json'), 'utf8')))
      .sort((a, b) => b.created.localeCompare(a.created))[0];
    expect(result.run).toBe(newest.id);
    expect(result.files).toBe((await runsIn(url)).get(newest.id)!.length);
    expect(result.rounds).toHaveLength(3);
    for (const round of result.rounds) expect(round.mb_s).toBeGreaterThan(0);
    expect(await objects('s3://lab/bench')).toEqual([]);
    process.stdout.write(`sweep-bucket bench: ${JSON.stringify(result)}\n`);
  }, 120_000);

  it('a resumed sweep finds every job in the bucket and reruns nothing', async () => {
    const before = await objects(url);
    const w = await worker(hosts[1]!, 'six-again', url, ['--max-jobs', '6']);
    const again = path.join(tmp, 'six-again.yaml');
    writeFileSync(again, readFileSync(six, 'utf8'));
    const { code, summary } = await sweepWait(again, 'six-again');
    expect(code).toBe(0);
    expect(summary).toMatchObject({ total: 6, completed: 6, failed: 0 });
    expect(await w.exit).toBe(0);
    expect(w.events.filter((e) => e.type === 'job-start')).toEqual([]);
    expect(w.events.filter((e) => e.type === 'job-end' && e.status === 'completed')).toHaveLength(6);
    expect(await objects(url)).toEqual(before);
  }, 200_000);

  it('the storage server killed mid-upload and restarted: every job stored once, complete', async () => {
    const killUrl = 's3://lab/kill';
    // The first run's steps.jsonl is held unanswered; the server is killed with it in flight.
    const { w, done, held } = await sweepWithHeldRequest(
      'two',
      'name: two\ngames: [2048]\nagents: [random]\ntrials: 2\nmax_steps: 6\n',
      hosts[0]!,
      killUrl,
      '^PUT /lab/kill/[^./][^/]*/steps\\.jsonl$',
    );
    await s3.kill();
    // While it is away the run waits on the worker, whole, and nothing of it is complete in the bucket.
    const runId = held.split('/')[3]!;
    const staged = readdirSync(path.join(hosts[0]!.runs, '.sweep', 'work'), { recursive: true }).map(String);
    expect(staged.some((p) => p.endsWith(`${runId}/run.json`))).toBe(true);
    // The outage lasts until the worker has been refused enough times to have retried on its own:
    // up to four uploads at once, each tried three times by the SDK before the storage tries again.
    await s3.refuse(13);
    await s3.start();

    const { code, summary } = await done;
    expect(code).toBe(0);
    expect(summary).toMatchObject({ total: 2, completed: 2, failed: 0 });
    await s3.settled();
    const runs = await runsIn(killUrl);
    expect(runs.size).toBe(2); // one run folder a job: the upload was retried, not the job
    for (const [run] of runs) {
      const meta = await objectJson(killUrl, `${run}/run.json`);
      expect(meta.job.attempt).toBe(1);
      const b = openBucket(killUrl);
      const r = await b.client.send(new GetObjectCommand({ Bucket: 'lab', Key: `kill/${run}/steps.jsonl` }));
      const lines = (await r.Body!.transformToString()).split('\n').filter(Boolean);
      expect(lines.length, `${run}: totals against steps.jsonl`).toBe(meta.totals.steps);
      runJsonLast('kill', run, meta.job.id);
    }
    const retried = summary.jobs.find((j: any) => j.run_id === runId);
    expect(retried.timing.retries).toBeGreaterThanOrEqual(1);
    expect(summary.outside_play.retries).toBeGreaterThanOrEqual(1);
    expect(w.events.filter((e) => e.type === 'job-start')).toHaveLength(2);
    w.child.kill('SIGINT');
    expect(await w.exit).toBe(0);
  }, 300_000);

  it('a worker with a wrong secret or a missing bucket refuses to start within 5 s, naming it', async () => {
    for (const [storage, secret, why] of [
      [url, 'a-wrong-secret', /refused the credentials/],
      ['s3://no-such-bucket/x', undefined, /does not exist/],
    ] as const) {
      const h = hosts[1]!;
      const t0 = Date.now();
      const w = followed(
        h.spawnCli(['worker', '--queue', redis.url, '--storage', storage, '--runs-dir', h.runs], s3.env(secret)),
      );
      const code = await w.exit;
      const ms = Date.now() - t0;
      expect(code).not.toBe(0);
      expect(ms, w.stderr()).toBeLessThan(5000);
      const bucket = storage.slice(5).split('/')[0]!;
      expect(w.stderr()).toContain(`bucket "${bucket}" at ${s3.endpoint}`);
      expect(w.stderr()).toMatch(why);
      expect(w.stderr()).not.toContain('a-wrong-secret');
      expect(w.events.filter((e) => e.type === 'worker')).toEqual([]); // no display started, no job taken
    }
  }, 60_000);
});

describe('a worker stopped while its bucket is away', () => {
  it('ends at once, gives the job back without using up an attempt, and stores the run it played when it takes the job again', async () => {
    const stopUrl = 's3://lab/stop';
    // retries: 0 — one attempt only: were the stop counted as a failure, the job would fail.
    const {
      w: first,
      done,
      held,
    } = await sweepWithHeldRequest(
      'one',
      'name: one\ngames: [2048]\nagents: [random]\ntrials: 1\nmax_steps: 6\nretries: 0\n',
      hosts[0]!,
      stopUrl,
      '^PUT /lab/stop/[^./][^/]*/steps\\.jsonl$',
    );
    const playedRun = held.split('/')[3]!;
    await s3.kill();
    const t0 = Date.now();
    first.child.kill('SIGINT');
    expect(await first.exit, first.stderr()).toBe(0);
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(first.events.some((e) => e.type === 'job-end')).toBe(false);

    await s3.start();
    // Nothing of the run counts as stored: files may be there, its run.json and job record are not.
    const partial = await runsIn(stopUrl);
    expect([...partial.values()].flat()).not.toContain('run.json');
    expect((await objects(stopUrl)).filter((o) => o.key.startsWith('.jobs/'))).toEqual([]);
    // The same host takes the job again: the run it played is stored, not played again.
    const again = await worker(hosts[0]!, 'one', stopUrl, ['--max-jobs', '1']);
    const { code, summary } = await done;
    expect(code).toBe(0);
    expect(summary).toMatchObject({ total: 1, completed: 1, failed: 0 });
    expect(await again.exit).toBe(0);
    expect(again.events.filter((e) => e.type === 'job-start')).toEqual([]);
    await s3.settled();
    const runs = await runsIn(stopUrl);
    expect([...runs.keys()]).toEqual([playedRun]); // the cut upload completed, nothing left half-stored
    expect(runs.get(playedRun)).toContain('run.json');
    const meta = await objectJson(stopUrl, `${playedRun}/run.json`);
    expect(meta.worker.pid).toBe(first.child.pid);
    expect(readdirSync(path.join(hosts[0]!.runs, '.sweep', 'work'))).toEqual([]);
  }, 300_000);

  it('stopped while it waits on the bucket for a job’s record, it gives the job back too', async () => {
    const waitUrl = 's3://lab/wait';
    // The record read before a job starts is held, never answered.
    const { w: first, done } = await sweepWithHeldRequest(
      'wait',
      'name: wait\ngames: [2048]\nagents: [random]\ntrials: 1\nmax_steps: 6\nretries: 0\n',
      hosts[1]!,
      waitUrl,
      '^GET /lab/wait/\\.jobs/',
    );
    const t0 = Date.now();
    first.child.kill('SIGINT');
    expect(await first.exit, first.stderr()).toBe(0);
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(first.events.filter((e) => e.type === 'job-start' || e.type === 'job-end')).toEqual([]);

    await s3.kill();
    await s3.start();
    const second = await worker(hosts[1]!, 'wait', waitUrl, ['--max-jobs', '1']);
    const { code, summary } = await done;
    expect(code).toBe(0);
    expect(summary).toMatchObject({ total: 1, completed: 1, failed: 0 });
    expect(await second.exit).toBe(0);
  }, 300_000);
});
