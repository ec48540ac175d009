/**
 * The recorder keeps its clock off the main thread: built-in 2048 is recorded in this process
 * while the main thread is blocked outright twice (a synchronous busy wait of 600 ms, the kind
 * of stall garbage collection, starting helper programs or a busy UI cause). Frames keep coming
 * during the stalls; with capture on the main thread a third of them would be missing.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWindowManager } from '../../native/index.ts';
import { getGame } from '../../games/index.ts';
import { BuiltinTarget } from '../../electron/session/targets.ts';
import { NutCapturer } from '../../electron/capture/nut-capturer.ts';
import { Recorder, DEFAULT_RECORDER } from '../../electron/recording/recorder.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { readSession } from '../../electron/store/session-files.ts';

const blockMainThread = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    /* a stall */
  }
};

describe('recorder threads', () => {
  it('keeps capturing while the main thread is blocked', { timeout: 90_000 }, async () => {
    const wm = createWindowManager();
    const target = await BuiltinTarget.open(getGame('2048'), wm, { x: 0, y: 0, width: 800, height: 600 });
    try {
      const recorder = new Recorder(
        { target, wm, capturer: new NutCapturer() },
        { participant: 't1', role: 'expert', trial: 1, stage: 'test', consent: true },
        { ...DEFAULT_RECORDER, fps: 20, durationS: 5 },
        mkdtempSync(path.join(tmpdir(), 'gp-rec-threads-')),
      );
      const started = new Promise<void>((r) => recorder.once('progress', () => r()));
      const done = recorder.start();
      await started;
      await new Promise((r) => setTimeout(r, 800));
      blockMainThread(600);
      await new Promise((r) => setTimeout(r, 800));
      blockMainThread(600);
      const s = await done;
      const asked = s.duration_s * 20;
      // 1.2 s of main-thread stalls are 24 % of the frames: capture on the main thread keeps at most 76 %.
      // The bound sits above that and leaves room for a machine that is itself stalling (a busy
      // 2-core CI box drops ~10 % late with no main-thread block at all).
      expect(s.frames, JSON.stringify(s)).toBeGreaterThan(asked * 0.8);
      expect(s.dropped / asked).toBeLessThan(0.2);
      expect(s.dropped).toBe(s.dropped_late + s.dropped_busy);
      // The index is in capture order with every frame on disk, and the replay steps point at them.
      const { session, frames: index, problems } = readSession(s.session_dir);
      expect(problems).toEqual([]);
      expect(index).toHaveLength(s.frames);
      expect(index.map((f) => f.i)).toEqual(index.map((_, k) => k));
      expect(index.every((f, k) => k === 0 || f.t >= index[k - 1]!.t)).toBe(true);
      const { steps } = readRun(s.session_dir);
      expect(steps.length).toBeGreaterThanOrEqual(8);
      const files = new Set(index.map((f) => f.file));
      expect(steps.every((st) => files.has(st.frame as string))).toBe(true);
      expect(session).toMatchObject({
        frames: s.frames,
        dropped: s.dropped,
        dropped_late: s.dropped_late,
        dropped_busy: s.dropped_busy,
        writers: s.writers,
      });
      console.log(
        `recorder with the main thread blocked 2 × 600 ms: ${s.frames} frames in ${s.duration_s} s, ${s.dropped} dropped (${s.dropped_late} late, ${s.dropped_busy} busy)`,
      );
    } finally {
      await target.close();
    }
  });
});
