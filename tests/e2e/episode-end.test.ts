/**
 * Episodes on a real Debian game end when the game does (issue 38): sgt-mines under Xvfb +
 * openbox, played by the random baseline with the shipped profile. Its OCR end detector reads
 * DEAD! or COMPLETED! off the status line; the run stops playing there, keeps the frame, scores
 * that frame, presses the profile's reset key and checks a new board came up before the next
 * episode. A reset the game ignores ends the run failed, with the window kept. One game window
 * for the file.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../helpers/fake-openai.ts';
import { json, ROOT, runCli } from '../helpers/cli.ts';
import { startWindow, stop } from '../helpers/windows.ts';
import { readRun } from '../../electron/store/run-store.ts';
import type { WindowInfo } from '../../native/index.ts';

let mines: { child: ChildProcess; window: WindowInfo };
let server: FakeOpenAI;
const tmp = (p: string) => mkdtempSync(path.join(tmpdir(), p));
const t0 = Date.now();

beforeAll(async () => {
  // Only the screen reader asks (the random agent needs no model): it reads "won" off the frame.
  server = await new FakeOpenAI(() => ({ text: '{"value": 0, "level": null}' })).start();
  mines = await startWindow('/usr/games/sgt-mines', [], /^Mines$/);
});

afterAll(async () => {
  await stop(mines.child);
  await server.close();
  process.stdout.write(`episode-end.test.ts: ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
});

/** Grey pixels of a frame file of a run, and the share of them that differ between two files (by more than 16). */
async function grey(file: string) {
  return sharp(file).greyscale().raw().toBuffer({ resolveWithObject: true });
}
async function differ(a: string, b: string): Promise<number> {
  const [x, y] = await Promise.all([grey(a), grey(b)]);
  expect([x.info.width, x.info.height]).toEqual([y.info.width, y.info.height]);
  let n = 0;
  for (let i = 0; i < x.data.length; i++) if (Math.abs(x.data[i]! - y.data[i]!) > 16) n++;
  return n / x.data.length;
}

const randomRun = (out: string, more: string[]) =>
  runCli([
    'run',
    '--window',
    '^Mines$',
    '--agent',
    'random',
    '--model',
    'test-vlm', // the screen reader's
    '--base-url',
    server.baseURL,
    '--settle-ms',
    '20',
    '--keep-frames',
    'all',
    '--runs-dir',
    out,
    '--json',
    ...more,
  ]);

describe('sgt-mines played by the random baseline with the shipped profile', () => {
  it('ends each of 3 episodes on the lost (or won) board, keeps and scores that frame, and resets to a fresh board', async () => {
    server.requests.length = 0;
    const r = await randomRun(tmp('gp-end-'), ['--seed', '5', '--episodes', '3', '--max-steps', '120']);
    expect(r.code, r.stderr).toBe(0);
    const dir = json(r).run_dir as string;
    const { meta, steps } = readRun(dir);
    expect(meta.status).toBe('completed');
    expect(meta.episodes).toHaveLength(3);
    for (const ep of meta.episodes) {
      // The game ended well before the step limit, and the detector that saw it says what it read.
      expect(ep.end, JSON.stringify(ep)).toBe('game_over');
      expect(ep.steps).toBeLessThan(120);
      expect(ep.end_detector).toMatch(/^end\[0\] ocr: OCR read ".*(DEAD|COMPLETED)/);
      expect(ep.end_frame).toBe(`frames/e00${ep.episode}-end.jpg`);
      // No step was played after the end: the steps recorded are the episode's count.
      expect(steps.filter((s) => s.episode === ep.episode)).toHaveLength(ep.steps);
      // The score was read off the end frame: the reading of the episode's last step is of that picture.
      const readings = ep.screen_readings as { step: number }[];
      expect(readings.at(-1)!.step).toBe(ep.steps);
    }
    // The screen reader's last request of each episode carried the end frame's very bytes.
    const readerImages = server.requests
      .filter((q) => !q.body.stream)
      .map(
        (q) =>
          (q.body.messages[0].content as { type: string; image_url?: { url: string } }[]).find((c) => c.image_url)!,
      );
    const endImages = meta.episodes.map((ep) =>
      readFileSync(path.join(dir, ep.end_frame as string)).toString('base64'),
    );
    for (const img of endImages) expect(readerImages.map((c) => c.image_url!.url.split(',')[1])).toContain(img);
    // Each episode after the first starts from a fresh board: its first frame is the first episode's
    // fresh board (the program as it opened), and not the end frame before it.
    const first = (e: number) => path.join(dir, steps.find((s) => s.episode === e)!.frame as string);
    for (const e of [1, 2]) {
      const fromEnd = await differ(path.join(dir, meta.episodes[e - 1]!.end_frame as string), first(e));
      const fromFresh = await differ(first(0), first(e));
      process.stdout.write(
        `episode ${e}: first frame differs from the end frame before it in ${(fromEnd * 100).toFixed(1)} %, from a fresh board in ${(fromFresh * 100).toFixed(2)} %\n`,
      );
      expect(fromEnd).toBeGreaterThan(0.05);
      expect(fromFresh).toBeLessThan(0.01);
    }
  });

  it('a reset the game ignores ends the run failed: reset failed, in its timeout, with the window kept', async () => {
    const folder = tmp('gp-end-profile-');
    const file = path.join(folder, 'mines-bad-reset.yaml');
    const shipped = readFileSync(path.join(ROOT, 'games', 'sgt-mines', 'profile.yaml'), 'utf8');
    // z means nothing to Mines: the lost board stays.
    const bad = shipped
      .replace('id: sgt-mines', 'id: mines-bad-reset')
      .replace(/ {6}- press: n\n {4}timeout: 10/, '      - press: z\n    timeout: 3');
    expect(bad).toContain('press: z');
    writeFileSync(file, bad);
    const started = Date.now();
    const r = await randomRun(tmp('gp-end-bad-'), [
      '--profile',
      file,
      '--seed',
      '2',
      '--episodes',
      '2',
      '--max-steps',
      '120',
    ]);
    const seconds = (Date.now() - started) / 1000;
    expect(r.code, r.stderr).toBe(1);
    const dir = json(r).run_dir as string;
    const { meta } = readRun(dir);
    expect(meta.status).toBe('failed');
    expect(meta.error).toMatch(/^reset failed: no new game within 3 s: the end detector end\[0\] ocr still fires/);
    expect(meta.error).toContain('frames/e001-reset-failed.jpg');
    expect(meta.episodes).toHaveLength(1);
    expect(meta.episodes[0]!.end).toBe('game_over');
    // The kept frame is the lost board the reset left.
    expect(
      await differ(
        path.join(dir, meta.episodes[0]!.end_frame as string),
        path.join(dir, 'frames/e001-reset-failed.jpg'),
      ),
    ).toBeLessThan(0.01);
    expect(seconds).toBeLessThan(90);
  });
});
