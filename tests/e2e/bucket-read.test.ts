/**
 * Reading a bucket back without the AWS CLI: runs made by the built CLI (the random agent on
 * built-in 2048) and a model run with frames, uploaded here into a real S3-compatible server
 * (s3rver, signatures checked) by an independent writer (@aws-sdk/client-s3, each run's run.json
 * last), beside a job record, a run cut short before its run.json and a stray key. `report`,
 * `leaderboard` and `export` given `--runs-dir s3://…` give what they give for a folder holding
 * the same runs, without reading the cut run; `gamepilot sync` prints progress, a second sync
 * GETs nothing and a deleted local file is fetched again, alone; a sync stopped (Ctrl+C) or
 * killed while a GET hangs resumes with exactly what was missing; a wrong secret fails within
 * 5 s naming the bucket and the endpoint, never the secret. Against a server written here: a
 * hostile one's keys (`run/../../escape`) write nothing outside the folder, and a connection
 * dropped halfway through an object is tried again until the file lands whole.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, runCli, watchCli } from '../helpers/cli.ts';
import { runWithSteps } from '../helpers/analysis-runs.ts';
import { S3_ACCESS_KEY, S3_SECRET, S3Server } from '../helpers/s3-server.ts';

const root = mkdtempSync(path.join(tmpdir(), 'gp-bucket-read-'));
/** The runs as a folder: what the bucket must read as. */
const src = path.join(root, 'runs');
const BUCKET = 'gp-runs';
const PREFIX = 'eval/week1';
const FROM = `s3://${BUCKET}/${PREFIX}`;
const s3 = new S3Server(path.join(root, 's3'), BUCKET);
const env = () => ({
  GAMEPILOT_CONFIG_DIR: path.join(root, 'config'),
  XDG_CACHE_HOME: path.join(root, 'cache'),
  ...s3.env(),
});
const CUT = 'run-cut-short';

/** Every file under `dir`, as paths relative to it with '/'. */
function filesUnder(dir: string, rel = ''): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const r = rel ? `${rel}/${e.name}` : e.name;
    return e.isDirectory() ? filesUnder(dir, r) : [r];
  });
}

/** `dir` (a sync's folder) holds exactly the uploaded run files, byte for byte, and its manifest. */
function expectSameFiles(dir: string) {
  expect(
    filesUnder(dir)
      .filter((f) => f !== '.bucket-sync.json')
      .sort(),
  ).toEqual(uploadOrder().sort());
  for (const f of uploadOrder()) expect(md5(path.join(dir, f)), f).toBe(md5(path.join(src, f)));
}

/** The run files as uploaded: every file of `src`, each run's run.json after its other files. */
function uploadOrder(): string[] {
  const files = filesUnder(src);
  const isRunJson = (f: string) => /^[^/]+\/run\.json$/.test(f);
  return [
    ...files.filter((f) => !isRunJson(f) && !f.startsWith('.jobs/')),
    ...files.filter(isRunJson),
    ...files.filter((f) => f.startsWith('.jobs/')),
  ];
}

/** How many requests the server has answered, every one of them logged (S3Server.settled). */
async function answered(): Promise<number> {
  await s3.settled();
  return s3.events.length;
}

/** Object keys (relative to the prefix) the server answered a GET for with success since event `from`. */
async function objectGets(from: number): Promise<string[]> {
  await s3.settled();
  const base = `/${BUCKET}/${PREFIX}/`;
  return s3.events
    .slice(from)
    .filter((e) => e.req === 'GET' && e.status === 200 && e.path?.startsWith(base))
    .map((e) => decodeURIComponent(e.path!.slice(base.length)))
    .sort();
}

const md5 = (file: string) => createHash('md5').update(readFileSync(file)).digest('hex');

beforeAll(async () => {
  await s3.start();
  // Two runs played by the built CLI, a model run with frames, and a job record.
  for (const seed of ['1', '2']) {
    const r = await runCli(
      [
        'run',
        '--game',
        '2048',
        '--agent',
        'random',
        '--episodes',
        '1',
        '--max-steps',
        '5',
        '--seed',
        seed,
        '--runs-dir',
        src,
        '--json',
      ],
      { env: env() },
    );
    expect(r.code, r.stderr).toBe(0);
  }
  const model = await runWithSteps(src, {
    episodes: [{ score: 30, steps: [{ sent: 1 }, { sent: 1, refused: 1 }, { sent: 1, effect: 'none' }] }],
  });
  mkdirSync(path.join(src, '.jobs'));
  writeFileSync(
    path.join(src, '.jobs', 'job-0001.json'),
    JSON.stringify({
      job_id: 'job-0001',
      sweep: 'week1',
      status: 'completed',
      attempt: 1,
      run_id: path.basename(model),
    }),
  );

  const client = new S3Client({
    region: 'us-east-1',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: S3_ACCESS_KEY, secretAccessKey: S3_SECRET },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  const put = (key: string, body: Buffer | string) =>
    client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}/${key}`, Body: body }));
  for (const f of uploadOrder()) await put(f, readFileSync(path.join(src, f)));
  // A run whose upload was cut short before its run.json, and a key that is no run's.
  const played = readdirSync(src).find((d) => d !== '.jobs' && d !== path.basename(model))!;
  for (const f of filesUnder(path.join(src, played)).filter((f) => f !== 'run.json'))
    await put(`${CUT}/${f}`, readFileSync(path.join(src, played, f)));
  await put('notes.txt', 'not a run');
  client.destroy();
}, 120_000);

afterAll(async () => {
  await s3.kill();
  rmSync(root, { recursive: true, force: true });
});

describe('report, leaderboard and export from s3://', () => {
  it('report: the same data as from the folder, naming the bucket; the cut run is never read; a second report GETs nothing', async () => {
    const before = await answered();
    const fromBucket = await runCli(
      ['report', '--runs-dir', FROM, '--out', path.join(root, 'b.html'), '--json', path.join(root, 'b.json')],
      { env: env() },
    );
    expect(fromBucket.code, fromBucket.stderr).toBe(0);
    expect(fromBucket.stderr).toMatch(
      new RegExp(`sync .* 3/3 runs, ${uploadOrder().length}/${uploadOrder().length} files`),
    );
    expect(await objectGets(before)).toEqual(uploadOrder().sort());
    const fromFolder = await runCli(
      ['report', '--runs-dir', src, '--out', path.join(root, 'f.html'), '--json', path.join(root, 'f.json')],
      { env: env() },
    );
    expect(fromFolder.code, fromFolder.stderr).toBe(0);

    const b = JSON.parse(readFileSync(path.join(root, 'b.json'), 'utf8'));
    const f = JSON.parse(readFileSync(path.join(root, 'f.json'), 'utf8'));
    expect(b.runs_dir).toBe(FROM);
    expect(b.runs.counted).toBe(3);
    const { generated: _bg, runs_dir: _bd, ...bRest } = b;
    const { generated: _fg, runs_dir: _fd, ...fRest } = f;
    expect(bRest).toEqual(fRest);
    expect(readFileSync(path.join(root, 'b.html'), 'utf8')).toContain(FROM);
    expect(JSON.stringify(b)).not.toContain(CUT);
    expect(s3.events.filter((e) => e.path?.includes(CUT) && e.req === 'GET')).toEqual([]);

    const again = await answered();
    const second = await runCli(['report', '--runs-dir', FROM, '--out', path.join(root, 'b2.html')], { env: env() });
    expect(second.code, second.stderr).toBe(0);
    expect(await objectGets(again)).toEqual([]);
  });

  it('leaderboard --json: the same rows as from the folder', async () => {
    const fromBucket = await runCli(['leaderboard', '--runs-dir', FROM, '--json'], { env: env() });
    const fromFolder = await runCli(['leaderboard', '--runs-dir', src, '--json'], { env: env() });
    expect(fromBucket.code, fromBucket.stderr).toBe(0);
    expect(json(fromBucket).length).toBeGreaterThan(0);
    expect(json(fromBucket)).toEqual(json(fromFolder));
  });

  it('export: the same dataset as from the folder', async () => {
    const outB = path.join(root, 'ds-bucket');
    const outF = path.join(root, 'ds-folder');
    const fromBucket = await runCli(['export', '--runs-dir', FROM, '--out', outB, '--json'], { env: env() });
    const fromFolder = await runCli(['export', src, '--out', outF, '--json'], { env: env() });
    expect(fromBucket.code, fromBucket.stderr).toBe(0);
    expect(fromFolder.code, fromFolder.stderr).toBe(0);
    const { out: _b, ...b } = json(fromBucket);
    const { out: _f, ...f } = json(fromFolder);
    expect(b.runs).toBe(3);
    expect(b).toEqual(f);
    const files = filesUnder(outF).filter((x) => !x.startsWith('.parts/'));
    expect(filesUnder(outB).filter((x) => !x.startsWith('.parts/'))).toEqual(files);
    for (const x of files) expect(md5(path.join(outB, x)), x).toBe(md5(path.join(outF, x)));
  });
});

describe('gamepilot sync', () => {
  it('fetches the complete runs with progress, then nothing, then exactly a deleted file', async () => {
    const dir = path.join(root, 'synced');
    const before = await answered();
    const first = await runCli(['sync', FROM, dir, '--json'], { env: env() });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/sync [█░]{20} 0\/3 runs/);
    expect(first.stderr).toMatch(/sync █{20} 3\/3 runs/);
    const summary = json(first);
    expect(summary).toMatchObject({
      from: FROM,
      runs: 3,
      jobs: 1,
      fetched: uploadOrder().length,
      present: 0,
      incomplete: [CUT],
      stray: 1,
      refused: [],
    });
    expect(await objectGets(before)).toEqual(uploadOrder().sort());
    expectSameFiles(dir);

    const again = await answered();
    const second = await runCli(['sync', FROM, dir, '--json'], { env: env() });
    expect(second.code, second.stderr).toBe(0);
    expect(json(second)).toMatchObject({ fetched: 0, present: uploadOrder().length });
    expect(await objectGets(again)).toEqual([]);

    const frame = uploadOrder().find((f) => f.includes('/frames/'))!;
    rmSync(path.join(dir, frame));
    const third = await answered();
    const refetch = await runCli(['sync', FROM, dir, '--json'], { env: env() });
    expect(refetch.code, refetch.stderr).toBe(0);
    // The frame, and its run's run.json after it (a run is complete here only once its files are).
    const runJson = `${frame.split('/')[0]}/run.json`;
    expect(await objectGets(third)).toEqual([frame, runJson].sort());
    expect(md5(path.join(dir, frame))).toBe(md5(path.join(src, frame)));
  });

  it('a wrong secret fails within 5 s, naming the bucket and the endpoint, never the secret', async () => {
    const secret = 'wrong-secret-7f3a9c';
    const t0 = performance.now();
    const r = await runCli(['sync', FROM, path.join(root, 'never')], { env: { ...env(), ...s3.env(secret) } });
    const ms = performance.now() - t0;
    expect(r.code).toBe(1);
    expect(ms).toBeLessThan(5_000);
    expect(r.stderr).toContain(`bucket "${BUCKET}" at ${s3.endpoint}`);
    expect(r.stderr).toMatch(/refused the credentials \(403/);
    expect(r.stderr + r.stdout).not.toContain(secret);
    const report = await runCli(['report', '--runs-dir', FROM, '--out', path.join(root, 'never.html')], {
      env: { ...env(), ...s3.env(secret) },
    });
    expect(report.code).toBe(1);
    expect(report.stderr).toContain(`bucket "${BUCKET}" at ${s3.endpoint}`);
    expect(existsSync(path.join(root, 'never.html'))).toBe(false);
  });

  for (const [how, signal] of [
    ['stopped with Ctrl+C', 'SIGINT'],
    ['killed', 'SIGKILL'],
  ] as const)
    it(`${how} while a GET hangs, it resumes with exactly what was missing`, async () => {
      const dir = path.join(root, `interrupted-${signal}`);
      const held = uploadOrder().find((f) => f.endsWith('/steps.jsonl'))!;
      await s3.kill();
      const mark = s3.events.length;
      await s3.start({ hold: `^GET /${BUCKET}/${PREFIX}/${held.replace(/[.]/g, '\\.')}$` });
      const sync = watchCli(['sync', FROM, dir], env());
      await expect.poll(() => s3.events.slice(mark).some((e) => e.held), { timeout: 30_000 }).toBe(true);
      const runJson = `${held.split('/')[0]}/run.json`;
      const others = uploadOrder().filter((f) => f !== held && f !== runJson);
      // Every other file in place (renamed from its temp file) before the interruption.
      await expect.poll(() => others.filter((f) => !existsSync(path.join(dir, f))), { timeout: 30_000 }).toEqual([]);
      expect(existsSync(path.join(dir, runJson))).toBe(false);
      const t0 = performance.now();
      sync.child.kill(signal);
      const code = await sync.exited;
      if (signal === 'SIGINT') {
        expect(code).toBe(1);
        expect(performance.now() - t0).toBeLessThan(5_000);
        expect(sync.stdout()).toMatch(/stopped: run it again/);
      } else {
        // Killed before its manifest was saved: the files already here are known by their MD5 (ETag).
        rmSync(path.join(dir, '.bucket-sync.json'), { force: true });
      }
      await s3.kill();
      await s3.start();
      const before = await answered();
      const resumed = await runCli(['sync', FROM, dir, '--json'], { env: env() });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(await objectGets(before)).toEqual([held, runJson].sort());
      expectSameFiles(dir);
    });
});

/**
 * An S3 endpoint written here, for what s3rver cannot be made to do: list keys no honest writer
 * makes, or drop a connection halfway through an object. It serves `objects` (key → body) and
 * lists them with `listed` keys; `misbehave` may take over a GET (its n-th for that key, from 1).
 */
async function fakeS3(
  objects: Record<string, string>,
  listed: string[] = Object.keys(objects),
  misbehave: (key: string, n: number, res: http.ServerResponse) => boolean = () => false,
) {
  const gets: string[] = [];
  const etag = (body: string) => `"${createHash('md5').update(body).digest('hex')}"`;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (req.method === 'GET' && url.searchParams.get('list-type') === '2') {
      const contents = listed
        .map((k) => {
          const body = objects[k] ?? '';
          return `<Contents><Key>${k}</Key><Size>${body.length}</Size><ETag>${etag(body)}</ETag></Contents>`;
        })
        .join('');
      res.setHeader('content-type', 'application/xml');
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>b</Name><KeyCount>${listed.length}</KeyCount><IsTruncated>false</IsTruncated>${contents}</ListBucketResult>`,
      );
      return;
    }
    if (req.method === 'HEAD') return res.end();
    const key = url.pathname.split('/').slice(2).join('/');
    gets.push(key);
    if (misbehave(key, gets.filter((g) => g === key).length, res)) return;
    const body = objects[key] ?? '';
    res.setHeader('etag', etag(body));
    res.setHeader('content-length', body.length);
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    gets,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('servers that misbehave', () => {
  it('a hostile bucket: keys that would leave the folder are refused, named, and nothing is written outside it', async () => {
    const BODY = '{"hostile": true}';
    const KEYS = ['pre/r1/run.json', 'pre/r1/../../escape', 'pre/../up', 'pre/r1//abs', 'pre/r1/C:evil'];
    const server = await fakeS3(Object.fromEntries(KEYS.map((k) => [k, BODY])));
    try {
      const outside = mkdtempSync(path.join(root, 'hostile-'));
      const dir = path.join(outside, 'a', 'b');
      const r = await runCli(['sync', 's3://evil/pre', dir, '--json'], {
        env: { ...env(), AWS_ENDPOINT_URL: server.endpoint },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(
        json(r)
          .refused.map((x: { key: string }) => x.key)
          .sort(),
      ).toEqual(
        KEYS.slice(1)
          .map((k) => k.slice('pre/'.length))
          .sort(),
      );
      expect(r.stderr).toContain('refused object key "r1/../../escape"');
      expect(server.gets).toEqual(['pre/r1/run.json']);
      expect(filesUnder(outside).sort()).toEqual(['a/b/.bucket-sync.json', 'a/b/r1/run.json']);
      expect(existsSync(path.join(root, 'escape')) || existsSync(path.join(outside, 'escape'))).toBe(false);
      expect(statSync(path.join(dir, 'r1', 'run.json')).size).toBe(BODY.length);
    } finally {
      await server.close();
    }
  });

  it('a connection dropped halfway through an object: the GET is tried again and the file lands whole', async () => {
    const steps = `${'{"step": 1}\n'.repeat(2000)}`;
    const objects = { 'p/r1/steps.jsonl': steps, 'p/r1/run.json': '{"id": "r1"}' };
    const server = await fakeS3(objects, undefined, (key, n, res) => {
      if (key !== 'p/r1/steps.jsonl' || n > 1) return false;
      res.setHeader('content-length', steps.length);
      res.write(steps.slice(0, steps.length / 2), () => res.destroy());
      return true;
    });
    try {
      const dir = path.join(root, 'dropped');
      const r = await runCli(['sync', 's3://flaky/p', dir, '--json'], {
        env: { ...env(), AWS_ENDPOINT_URL: server.endpoint },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(json(r)).toMatchObject({ runs: 1, fetched: 2 });
      expect(server.gets).toEqual(['p/r1/steps.jsonl', 'p/r1/steps.jsonl', 'p/r1/run.json']);
      expect(readFileSync(path.join(dir, 'r1', 'steps.jsonl'), 'utf8')).toBe(steps);
      expect(readdirSync(dir).sort()).toEqual(['.bucket-sync.json', 'r1']);
    } finally {
      await server.close();
    }
  });
});
