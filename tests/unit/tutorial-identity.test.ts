/** A tutorial's identity: a file's sha256 is its bytes'; a folder's follows its frames and steps, not its run.json. */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tutorialIdentity, tutorialSha256 } from '../../electron/store/tutorial-identity.ts';
import { tutorialWarnings } from '../../electron/report/tutorial-check.ts';
import type { RunMeta } from '../../electron/store/run-store.ts';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'gp-tutid-'));

describe('tutorialIdentity', () => {
  it("is a video's own sha256", () => {
    const file = path.join(tmp(), 'v.mp4');
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 17, 7); // more than one read chunk
    bytes[12345] = 1;
    writeFileSync(file, bytes);
    expect(tutorialIdentity(file)).toEqual({
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes: bytes.length,
      files: 1,
    });
  });

  it("follows a run folder's frames and steps, not its run.json", () => {
    const dir = tmp();
    mkdirSync(path.join(dir, 'frames'));
    writeFileSync(path.join(dir, 'frames', '000001.jpg'), 'a');
    writeFileSync(path.join(dir, 'frames', '000002.jpg'), 'b');
    writeFileSync(path.join(dir, 'steps.jsonl'), '{}\n');
    writeFileSync(path.join(dir, 'run.json'), '{"status":"completed"}');
    const before = tutorialIdentity(dir);
    expect(before.files).toBe(3);
    writeFileSync(path.join(dir, 'run.json'), '{"status":"completed","milestones":[]}');
    expect(tutorialIdentity(dir).sha256).toBe(before.sha256);
    writeFileSync(path.join(dir, 'frames', '000002.jpg'), 'c');
    expect(tutorialIdentity(dir).sha256).not.toBe(before.sha256);
    // the same bytes under swapped names are another tutorial
    writeFileSync(path.join(dir, 'frames', '000001.jpg'), 'c');
    writeFileSync(path.join(dir, 'frames', '000002.jpg'), 'a');
    const swapped = tutorialIdentity(dir).sha256;
    writeFileSync(path.join(dir, 'frames', '000001.jpg'), 'a');
    writeFileSync(path.join(dir, 'frames', '000002.jpg'), 'c');
    expect(tutorialIdentity(dir).sha256).not.toBe(swapped);
  });

  it('is null for what cannot be read', () => {
    expect(tutorialSha256(path.join(tmp(), 'missing.mp4'))).toBeNull();
  });
});

const meta = (over: Partial<RunMeta> & { config: Record<string, unknown> }): RunMeta =>
  ({
    id: `r${Math.random()}`,
    created: '2026-12-07T00:00:00Z',
    status: 'completed',
    game: '2048',
    target: { kind: 'builtin', label: '2048' },
    action_space: 'gui',
    episodes: [{ episode: 0, score: 10, steps: 1 }],
    ...over,
  }) as unknown as RunMeta;
const rookie = (sha: string | undefined) =>
  meta({
    kind: 'human',
    agent: 'human-rookie',
    model: null,
    stage: 'play-2',
    config: { role: 'rookie', stage: 'play-2', tutorial: '/t/a.mp4', ...(sha ? { tutorial_sha256: sha } : {}) },
  });
const agent = (sha: string | null, source: 'self-t' | 'self-f' = 'self-t') =>
  meta({
    kind: 'agent',
    agent: 'vlm',
    model: 'm',
    config: {},
    reflection: {
      mode: source,
      reflector_model: 'm',
      tutorial: '/t/b.mp4',
      tutorial_sha256: sha,
      lessons: [{ episode: 0, source }],
    },
  });

describe('tutorialWarnings', () => {
  it('names a title whose rookie and agent VR = Yes rows rest on different tutorials', () => {
    expect(tutorialWarnings([rookie('a'.repeat(64)), agent('a'.repeat(64))])).toEqual([]);
    const [w, ...rest] = tutorialWarnings([rookie('a'.repeat(64)), agent('b'.repeat(64))]);
    expect(rest).toEqual([]);
    expect(w).toMatch(
      /^2048 \(2048\): .*different tutorials — rookie: a{12} \(\/t\/a\.mp4\); agents: b{12} \(\/t\/b\.mp4\)$/,
    );
  });

  it('says when a hash is missing, and says nothing of rows without a tutorial', () => {
    expect(tutorialWarnings([rookie(undefined), agent('a'.repeat(64))])[0]).toMatch(
      /1 run\(s\) after the tutorial record no tutorial hash/,
    );
    expect(tutorialWarnings([rookie('a'.repeat(64)), agent('b'.repeat(64), 'self-f')])).toEqual([]);
    expect(tutorialWarnings([agent('b'.repeat(64))])).toEqual([]);
  });
});
