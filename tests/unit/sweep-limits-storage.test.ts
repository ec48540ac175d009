/**
 * The sweep's shared rate limiter (token buckets per provider), the gate's token estimates, the
 * folder storage's one-run-per-job rule, and the S3 key layout and multipart choice (the S3 path
 * is not tested against a bucket: none can run on these machines).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalRateLimiter, limitsFor } from '../../electron/sweep/rate-limit.ts';
import { estimateTokens, providerOf, usageIn } from '../../electron/sweep/model-gate.ts';
import { jobOutcome } from '../helpers/job-outcome.ts';
import { parseS3Url } from '../../electron/store/bucket-url.ts';
import { jobKey, runObjectKeys, uploadPlan, MULTIPART_THRESHOLD } from '../../electron/sweep/s3-storage.ts';
import { DirStorage } from '../../electron/sweep/storage.ts';
import type { JobOutcome } from '../../electron/sweep/job-run.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-sweep-unit-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('rate limits', () => {
  it('lets a minute’s worth through, then one request per 60/rpm seconds', () => {
    let now = 0;
    const rl = new LocalRateLimiter(() => now);
    const l = { rpm: 6 };
    for (let i = 0; i < 6; i++) expect(rl.tryTake('p', l, 100)).toBe(0);
    expect(rl.tryTake('p', l, 100)).toBe(10_000);
    now = 9_000;
    expect(rl.tryTake('p', l, 100)).toBe(1_000);
    now = 10_000;
    expect(rl.tryTake('p', l, 100)).toBe(0);
    expect(rl.tryTake('other', l, 100)).toBe(0); // providers have buckets of their own
  });

  it('counts tokens, and settles an estimate against the reported usage', async () => {
    const now = 0;
    const rl = new LocalRateLimiter(() => now);
    const l = { tpm: 1000 };
    expect(rl.tryTake('p', l, 800)).toBe(0);
    expect(rl.tryTake('p', l, 800)).toBe(36_000); // 600 more tokens at 1000/min
    await rl.settle('p', l, -700); // it used 100, not 800
    expect(rl.tryTake('p', l, 800)).toBe(0);
    expect(rl.tryTake('p', l, 5000)).toBeGreaterThan(0); // larger than a minute: waits for a full bucket
  });

  it('finds a provider’s limits by host, else the default', () => {
    const t = { 'api.openai.com': { rpm: 500 }, default: { rpm: 10 } };
    expect(limitsFor(t, providerOf('https://api.openai.com/v1'))).toEqual({ rpm: 500 });
    expect(limitsFor(t, providerOf('http://127.0.0.1:11434/v1'))).toEqual({ rpm: 10 });
    expect(limitsFor(undefined, 'x')).toEqual({});
  });

  it('estimates a request’s tokens and reads the usage the provider reports', () => {
    const body = {
      max_tokens: 300,
      messages: [
        { role: 'system', content: 'x'.repeat(400) },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAAA' } }] },
      ],
    };
    expect(estimateTokens(body)).toBe(100 + 1100 + 300);
    expect(usageIn('data: {"choices":[]}\n\ndata: {"usage":{"prompt_tokens":1200,"completion_tokens":80}}\n\n')).toBe(
      1280,
    );
    expect(usageIn('{"choices":[]}')).toBeUndefined();
  });
});

function outcome(id: string, runId: string): JobOutcome {
  return jobOutcome(id, { run_id: runId, worker: { host: 'h', pid: 1, display: ':1' } });
}

describe('folder storage', () => {
  it('stores the run then its record, and keeps one run per job when two workers finish it', async () => {
    const root = path.join(tmp, 'store');
    const st = new DirStorage(root);
    expect(await st.finished('j1')).toBeUndefined();
    for (const name of ['20260101T000000-a-1111', '20260101T000001-a-2222']) {
      const dir = path.join(tmp, 'work', name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'run.json'), '{}');
      await st.put(dir, outcome('j1', name));
    }
    expect((await st.finished('j1'))?.run_id).toBe('20260101T000000-a-1111');
    expect(readdirSync(root).filter((n) => !n.startsWith('.'))).toEqual(['20260101T000000-a-1111']);
    await expect(st.finished('../x')).rejects.toThrow(/bad job id/);
  });
});

describe('S3 storage layout', () => {
  it('parses s3://bucket/prefix and lays keys out like the folder, run.json last', () => {
    expect(parseS3Url('s3://lab-runs/sweeps/2026/')).toEqual({ bucket: 'lab-runs', prefix: 'sweeps/2026' });
    expect(parseS3Url('s3://lab-runs')).toEqual({ bucket: 'lab-runs', prefix: '' });
    expect(() => parseS3Url('s3://lab-runs/../x')).toThrow(/bad S3 prefix/);
    expect(() => parseS3Url('/tmp/x')).toThrow(/not an S3 location/);
    expect(jobKey('p', 'j1')).toBe('p/.jobs/j1.json');
    expect(jobKey('', 'j1')).toBe('.jobs/j1.json');
    const keys = runObjectKeys('p', 'r1', ['frames/e000-s00000.jpg', 'run.json', 'steps.jsonl']).map((k) => k.key);
    expect(keys).toEqual(['p/r1/frames/e000-s00000.jpg', 'p/r1/steps.jsonl', 'p/r1/run.json']);
  });

  it('uploads small files in one PUT and large ones in parts within S3’s 10 000-part limit', () => {
    expect(uploadPlan(1024)).toEqual({ kind: 'single' });
    expect(uploadPlan(MULTIPART_THRESHOLD)).toEqual({ kind: 'single' });
    expect(uploadPlan(MULTIPART_THRESHOLD + 1)).toEqual({ kind: 'multipart', partSize: 8 * 1024 * 1024, parts: 3 });
    const huge = uploadPlan(200 * 1024 ** 3);
    expect(huge.kind === 'multipart' && huge.parts).toBeLessThanOrEqual(10_000);
    expect(huge.kind === 'multipart' && huge.partSize * huge.parts).toBeGreaterThanOrEqual(200 * 1024 ** 3);
  });
});
