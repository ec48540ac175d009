/** A tutorial video is decoded into a temporary folder that is gone once its frames are read, or once decoding fails. */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadTutorial } from '../../electron/scoring/trajectory.ts';
import { testVideo } from '../helpers/test-video.ts';

let saved: string | undefined;
let temp = '';
beforeEach(() => {
  saved = process.env.TMPDIR;
  temp = mkdtempSync(path.join(tmpdir(), 'gp-traj-tmp-'));
  process.env.TMPDIR = temp; // where the decoder's folder goes (os.tmpdir reads it each call)
});
afterEach(() => {
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
});
const leftovers = () => readdirSync(temp).filter((f) => f.startsWith('gamepilot-tutorial-'));

describe('a tutorial video', () => {
  it('is read into frames and leaves no decoded files behind', async () => {
    const video = testVideo(path.join(mkdtempSync(path.join(tmpdir(), 'gp-traj-')), 'v.mp4'), { seconds: 3 });
    const t = await loadTutorial(video, { fps: 1, maxSide: 128, maxFrames: 10 });
    expect(t.frames).toHaveLength(3);
    expect(t.frames.every((f) => f.dataUrl.startsWith('data:image/'))).toBe(true);
    expect(leftovers()).toEqual([]);
  });

  it('that cannot be decoded leaves none either', async () => {
    const bad = path.join(mkdtempSync(path.join(tmpdir(), 'gp-traj-')), 'bad.mp4');
    writeFileSync(bad, 'not a video');
    await expect(loadTutorial(bad, { fps: 1, maxSide: 128, maxFrames: 10 })).rejects.toThrow(/cannot decode/);
    expect(leftovers()).toEqual([]);
  });

  it('stops decoding on a stop, and leaves nothing behind', async () => {
    const video = testVideo(path.join(mkdtempSync(path.join(tmpdir(), 'gp-traj-')), 'long.mp4'), { seconds: 60 });
    const stop = new AbortController();
    const loading = loadTutorial(video, { fps: 25, maxSide: 1280, maxFrames: 10 }, stop.signal);
    stop.abort();
    await expect(loading).rejects.toThrow(/was stopped/);
    expect(leftovers()).toEqual([]);
  });
});
