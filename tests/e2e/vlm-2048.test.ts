/**
 * The VLM agent plays built-in 2048 in GUI mode against a local OpenAI-compatible server:
 * the server receives a frame of the game window per step, its answers reach the real
 * window as key presses, and the engine state changes exactly as those keys dictate.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { prepareRun } from '../../electron/session/compose.ts';
import { parseRunSpec } from '../../electron/run-spec.ts';
import { testModelSpec } from '../helpers/cli.ts';
import { slide, type Direction } from '../../games/g2048/rules.ts';
import { readRun } from '../../electron/store/run-store.ts';

const DIRS: Direction[] = ['left', 'up', 'right', 'down', 'left', 'left', 'up', 'down'];
let server: FakeOpenAI;
const sent: Direction[] = [];

beforeAll(async () => {
  server = await new FakeOpenAI((_body, i) => {
    const dir = DIRS[i % DIRS.length]!;
    sent.push(dir);
    return {
      text: answer(`The tiles would merge if I move ${dir}.`, [{ action_type: 'PRESS', parameters: { key: dir } }]),
      thinking: 'hmm, let me look',
    };
  }).start();
});
afterAll(() => server.close());

describe('VLM agent on built-in 2048 (GUI)', () => {
  it('sends a frame per step and its key presses move the real board', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'gp-vlm-'));
    const { session, target } = await prepareRun(
      parseRunSpec({
        game: '2048',
        ...testModelSpec(server.baseURL),
        episodes: 1,
        maxSteps: 8,
        seed: 11,
        capture: 'nut',
        apiKey: 'sk-test-secret',
        maxRetries: 0,
      }),
      { outDir: out },
    );
    const game = target.game!;
    const before: number[][] = [];
    const checks: { dir: Direction; prev: number[]; next: number[]; noopsBefore: number; noopsAfter: number }[] = [];
    let noops = 0;
    const tokens: string[] = [];
    session.on('frame', () => {
      before.push([...(game.instance.snapshot() as { grid: number[] }).grid]);
      noops = (game.instance.snapshot() as { noops: number }).noops;
    });
    session.on('token', (t) => tokens.push(t.text));
    session.on('step', (rec) => {
      const snap = game.instance.snapshot() as { grid: number[]; noops: number };
      checks.push({
        dir: sent[rec.step]!,
        prev: before[rec.step]!,
        next: [...snap.grid],
        noopsBefore: noops,
        noopsAfter: snap.noops,
      });
    });
    try {
      const result = await session.run();
      expect(result.status).toBe('completed');
    } finally {
      await target.close();
    }

    // One request per step, each with one JPEG frame of the game window.
    expect(server.requests).toHaveLength(8);
    const win = readRun(session.store.dir).steps[0]!.window!;
    for (const req of server.requests) {
      const images = FakeOpenAI.images(req.body);
      expect(images).toHaveLength(1);
      expect(images[0]).toMatch(/^data:image\/jpeg;base64,/);
      const meta = await sharp(Buffer.from(images[0]!.split(',')[1]!, 'base64')).metadata();
      expect([meta.width, meta.height]).toEqual([win.width, win.height]);
      expect(req.body.stream).toBe(true);
      expect(req.body.messages[0].role).toBe('system');
      expect(req.body.messages[0].content).toMatch(/2048/);
    }

    // The engine state followed the keys: slid as the key says, plus one new tile when it moved.
    expect(checks).toHaveLength(8);
    for (const c of checks) {
      const r = slide(c.prev, c.dir);
      if (!r.moved) {
        expect(c.next).toEqual(c.prev);
        expect(c.noopsAfter).toBe(c.noopsBefore + 1);
        continue;
      }
      const diff = c.next.map((v, i) => [v, r.grid[i]!] as const).filter(([a, b]) => a !== b);
      expect(diff).toHaveLength(1);
      expect(diff[0]![1]).toBe(0);
      expect([2, 4]).toContain(diff[0]![0]);
    }
    expect(checks.some((c) => slide(c.prev, c.dir).moved)).toBe(true);

    // Reasoning streamed token by token; tokens and the raw answer are on record; the key is not.
    expect(tokens.length).toBeGreaterThan(8);
    const { meta, steps } = readRun(session.store.dir);
    expect(steps[0]!.reasoning).toMatch(/merge/);
    expect(steps[0]!.tokens!.input).toBe(1000);
    expect(meta.totals.tokens_in).toBe(8000);
    expect(JSON.stringify(meta)).not.toContain('sk-test-secret');
    for (const s of steps)
      expect(s.view_inputs).toEqual([
        { type: 'key', key: `Arrow${sent[s.step]![0]!.toUpperCase()}${sent[s.step]!.slice(1)}` },
      ]);
  });
});
