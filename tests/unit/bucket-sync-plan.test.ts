/**
 * The decisions of a bucket sync without a bucket: which listed keys make a complete run, which
 * are left or refused, where a key lands in the folder (never outside it), and which objects an
 * earlier sync's manifest already covers.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  goneKeys,
  localPathOf,
  md5OfEtag,
  needsFetch,
  planSync,
  unsafeKey,
  type SyncManifest,
} from '../../electron/store/bucket-sync-plan.ts';

const obj = (key: string, size = 10, etag = '"e"') => ({ key, size, etag });

describe('planSync', () => {
  it('takes runs whose run.json is listed (run.json last) and job records; leaves cut runs and stray keys', () => {
    const plan = planSync([
      obj('a/run.json'),
      obj('a/steps.jsonl'),
      obj('a/frames/e0-s0.png'),
      obj('cut/steps.jsonl'),
      obj('.jobs/j1.json'),
      obj('.jobs/nested/j2.json'),
      obj('notes.txt'),
      obj('.hidden/run.json'),
    ]);
    expect([...plan.runs.keys()]).toEqual(['a']);
    expect(plan.runs.get('a')!.map((o) => o.key)).toEqual(['a/steps.jsonl', 'a/frames/e0-s0.png', 'a/run.json']);
    expect(plan.jobs.map((o) => o.key)).toEqual(['.jobs/j1.json']);
    expect(plan.incomplete).toEqual(['cut']);
    expect(plan.stray.sort()).toEqual(['.hidden/run.json', '.jobs/nested/j2.json', 'notes.txt']);
    expect(plan.refused).toEqual([]);
  });

  it('a frames/run.json is not the run.json that completes a run', () => {
    const plan = planSync([obj('a/frames/run.json'), obj('a/steps.jsonl')]);
    expect(plan.runs.size).toBe(0);
    expect(plan.incomplete).toEqual(['a']);
  });

  it('refuses keys that could leave the folder, saying why, and keeps the rest of their run', () => {
    const plan = planSync([
      obj('a/run.json'),
      obj('a/../../x'),
      obj('../y'),
      obj('a//z'),
      obj('/abs'),
      obj('a\\..\\w'),
    ]);
    expect(plan.refused.map((r) => r.key)).toEqual(['a/../../x', '../y', 'a//z', '/abs', 'a\\..\\w']);
    expect(plan.refused[0]!.why).toBe('it holds a ".." part');
    expect(plan.runs.get('a')!.map((o) => o.key)).toEqual(['a/run.json']);
  });
});

describe('localPathOf', () => {
  const dir = path.resolve('/tmp/sync-target');
  it('maps a key to a file inside the folder', () => {
    expect(localPathOf(dir, 'a/frames/e0-s1.png')).toBe(path.join(dir, 'a', 'frames', 'e0-s1.png'));
  });
  it.each(['a/../../etc/passwd', '..', '/etc/passwd', 'a/./b', 'C:/x', 'a\\b', 'a/b\0c', ''])('refuses %j', (key) => {
    expect(() => localPathOf(dir, key)).toThrow(/refused object key/);
    expect(unsafeKey(key)).toBeDefined();
  });
});

describe('needsFetch', () => {
  const manifest: SyncManifest = { where: 's3://b/p', files: { 'a/run.json': { size: 10, etag: '"e"' } } };
  it('skips an object the manifest has with the same size and ETag, its local file in place', () => {
    expect(needsFetch(obj('a/run.json'), manifest, 10)).toBe(false);
  });
  it('fetches a new object, a changed one, and one whose local file is gone or cut', () => {
    expect(needsFetch(obj('a/steps.jsonl'), manifest, 10)).toBe(true);
    expect(needsFetch(obj('a/run.json', 10, '"f"'), manifest, 10)).toBe(true);
    expect(needsFetch(obj('a/run.json', 11), manifest, 11)).toBe(true);
    expect(needsFetch(obj('a/run.json'), manifest, undefined)).toBe(true);
    expect(needsFetch(obj('a/run.json'), manifest, 4)).toBe(true);
  });
  it('names the keys a manifest holds that the bucket no longer offers', () => {
    expect(goneKeys(manifest, new Set(['b/run.json']))).toEqual(['a/run.json']);
    expect(goneKeys(manifest, new Set(['a/run.json']))).toEqual([]);
  });
});

describe('md5OfEtag', () => {
  it("reads a single-part upload's MD5, not a multipart ETag", () => {
    expect(md5OfEtag('"0CC175B9C0F1B6A831C399E269772661"')).toBe('0cc175b9c0f1b6a831c399e269772661');
    expect(md5OfEtag('"0cc175b9c0f1b6a831c399e269772661-3"')).toBeUndefined();
  });
});
