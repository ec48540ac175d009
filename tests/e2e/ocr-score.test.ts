/**
 * A score read by OCR, without a model, off a real Debian game: sgt-puzzles' Fifteen opened on a
 * known layout (the gap inside the tray, so every arrow key moves a tile) counts its moves in its
 * status line. The model plays up, down, up, … one press a step; the profile reads "Moves: N"
 * from the status line's region with tesseract.js. The number in run.json is the number of
 * moves made — the one the game shows — and each reading keeps the text OCR saw.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, runCli } from '../helpers/cli.ts';
import { writeFifteenProfile } from '../helpers/profiles.ts';
import { startWindow, stop } from '../helpers/windows.ts';
import { readRun } from '../../electron/store/run-store.ts';
import type { WindowInfo } from '../../native/index.ts';

// Row-major, 0 = the gap at row 2, column 2: a tile on every side of it.
const LAYOUT = '4x4:1,2,3,4,5,0,6,7,9,10,11,8,13,14,15,12';
const STEPS = 7;
let fifteen: { child: ChildProcess; window: WindowInfo };
let server: FakeOpenAI;

beforeAll(async () => {
  let n = 0;
  server = await new FakeOpenAI((body) => {
    if (!body.stream) return { status: 500 }; // nothing may ask a model to read the score
    const key = n++ % 2 === 0 ? 'up' : 'down';
    return { text: answer(`slide ${key}`, [{ action_type: 'PRESS', parameters: { key } }]) };
  }).start();
  fifteen = await startWindow('/usr/games/sgt-fifteen', [LAYOUT], /^Fifteen$/);
  await new Promise((r) => setTimeout(r, 800)); // let GTK draw
});

afterAll(async () => {
  await stop(fifteen?.child);
  await server?.close();
});

describe('a score read by OCR off a real game window', () => {
  it('reads the move count sgt-fifteen shows, and scores it with the profile’s normaliser', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gp-ocr-'));
    const profile = path.join(dir, 'fifteen-moves.yaml');
    writeFifteenProfile(profile, {
      id: 'fifteen-moves',
      scoring: [
        'kind: screen',
        'read: the move count in the status line at the bottom',
        'reader: ocr',
        'region: { x: 0, y: 0.86, width: 0.7, height: 0.14 }',
        'normaliser: { divisor: 20 }',
        'combine: last',
        'everySteps: 3',
      ],
    });
    const r = await runCli(
      [
        'run',
        '--window-id',
        fifteen.window.id,
        '--profile',
        profile,
        '--agent',
        'vlm',
        '--model',
        'test-vlm',
        '--base-url',
        server.baseURL,
        '--max-steps',
        String(STEPS),
        '--runs-dir',
        dir,
        '--json',
        '--quiet',
      ],
      { timeoutMs: 180_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    const { meta, steps } = readRun(res.run_dir);
    // Every press moved a tile (the gap has a tile on each side, and up then down puts it back).
    expect(steps.flatMap((s) => s.outcomes ?? [])).toEqual(Array(STEPS).fill({ action: 'PRESS', ok: true }));
    const episode = meta.episodes[0] as unknown as { raw_score: number; screen_readings: Record<string, unknown>[] };
    expect(episode.raw_score).toBe(STEPS);
    expect(meta.episodes[0]!.score).toBe((STEPS / 20) * 100);
    // Every 3 steps (everySteps) the frame of the step just played is read — step 2's frame, taken
    // before its move, shows 2 moves — and at the end a fresh frame; each by OCR, with its text.
    expect(episode.screen_readings.map((x) => [x.step, x.reader, x.text])).toEqual([
      [2, 'ocr', 'Moves: 2'],
      [5, 'ocr', 'Moves: 5'],
      [STEPS, 'ocr', `Moves: ${STEPS}`],
    ]);
    for (const x of episode.screen_readings.slice(0, 2))
      expect(steps.find((st) => st.step === x.step)!.frame, 'the step whose frame was read').toBeTruthy();
    expect(meta.profile).toMatchObject({ scoring: { kind: 'screen', reader: 'ocr' } });
    expect(server.requests.filter((q) => !q.body.stream)).toHaveLength(0);
  });
});
