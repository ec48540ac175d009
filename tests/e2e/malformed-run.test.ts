/**
 * A live run fed the malformed-answer corpus: every step records a clear error, no input
 * reaches the game or leaves the window, and the run goes on to the end.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI } from '../helpers/fake-openai.ts';
import { MALFORMED } from '../fixtures/malformed-outputs.ts';
import { prepareRun } from '../../electron/session/compose.ts';
import { parseRunSpec } from '../../electron/run-spec.ts';
import { testModelSpec } from '../helpers/cli.ts';
import type { SessionResult } from '../../electron/session/session-types.ts';
import { loadNut } from '../../electron/input/nut.ts';
import { readRun } from '../../electron/store/run-store.ts';

let server: FakeOpenAI;
beforeAll(async () => {
  server = await new FakeOpenAI((_b, i) => ({ text: MALFORMED[i]!.raw })).start();
});
afterAll(() => server.close());

describe('malformed model output in a live run', () => {
  it('records each as an error, injects nothing, and keeps going', async () => {
    const nut = await loadNut();
    await nut.mouse.setPosition(new nut.Point(5, 5)); // start outside the game window
    const { session, target } = await prepareRun(
      parseRunSpec({
        game: '2048',
        ...testModelSpec(server.baseURL),
        episodes: 1,
        maxSteps: MALFORMED.length,
        seed: 2,
        capture: 'nut',
        maxErrors: 1000,
        repairs: 0,
        maxRetries: 0,
      }),
      { outDir: mkdtempSync(path.join(tmpdir(), 'gp-bad-')) },
    );
    const pointer: { before?: { x: number; y: number }; after?: { x: number; y: number } }[] = [];
    let grid0 = '';
    session.on('frame', async (f) => {
      if (f.step === 0) grid0 = JSON.stringify((target.game!.instance.snapshot() as { grid: number[] }).grid);
      pointer[f.step] = { before: await nut.mouse.getPosition() };
    });
    let result: SessionResult;
    try {
      session.on('step', async (r) => (pointer[r.step]!.after = await nut.mouse.getPosition()));
      result = await session.run();
    } finally {
      await target.close();
    }
    expect(result.status).toBe('completed');
    const { steps } = readRun(session.store.dir);
    expect(steps).toHaveLength(MALFORMED.length);
    steps.forEach((s, i) => {
      const c = MALFORMED[i]!;
      expect(s.errors.length, c.name).toBeGreaterThan(0);
      expect(s.errors.join(' '), c.name).toMatch(c.expect);
      expect(s.view_inputs, c.name).toEqual([]);
      if (c.stage === 'parse') expect(s.actions, c.name).toEqual([]);
      else expect(s.errors.join(' ')).toMatch(/^refused /);
      expect(s.raw).toBe(c.raw);
    });
    // The pointer never moved: nothing was injected, inside or outside the window.
    for (const p of pointer) expect(p.after).toEqual(p.before);
    expect(JSON.stringify((target.game!.instance.snapshot() as { grid: number[] }).grid)).toBe(grid0);
  });
});
