/**
 * The same `gamepilot run` drives a real third-party window (Debian's gnome-2048) by title:
 * only that window is captured (even under another window), keys land in it, steps are recorded.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, runCli, testModelArgs } from '../helpers/cli.ts';
import { magentaShare, solidWindow, startWindow, stop } from '../helpers/windows.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { createWindowManager, type WindowInfo } from '../../native/index.ts';
import { NutCapturer } from '../../electron/capture/nut-capturer.ts';
import { toRgb } from '../../electron/capture/encode.ts';

const KEYS = ['left', 'up', 'right', 'down', 'left', 'up'];
let server: FakeOpenAI;
let game: { child: ChildProcess; window: WindowInfo };
let decoy: { child: ChildProcess; window: WindowInfo };

beforeAll(async () => {
  server = await new FakeOpenAI((_b, i) => ({
    text: answer('slide', [{ action_type: 'PRESS', parameters: { key: KEYS[i % KEYS.length] } }]),
  })).start();
  game = await startWindow('/usr/games/gnome-2048', [], /^GNOME 2048$/);
  await new Promise((r) => setTimeout(r, 1000)); // let GTK draw the first board
  // A magenta window over the game: the harness must raise the game before capturing.
  const b = game.window.bounds;
  decoy = await solidWindow('#ff00ff', 'gp-decoy', { x: b.x + 40, y: b.y + 40, width: 300, height: 300 });
});

afterAll(async () => {
  await stop(decoy.child);
  await stop(game.child);
  await server.close();
});

describe('gamepilot run --window (third-party game)', () => {
  it('captures only the game window, lands keys in it and records every step', async () => {
    // Before the run the decoy really covers part of the game.
    const raw = await new NutCapturer().grab(game.window.bounds);
    const rgb = toRgb(raw);
    const png = await sharp(rgb.data, { raw: { width: raw.width, height: raw.height, channels: rgb.channels } })
      .png()
      .toBuffer();
    expect(await magentaShare(png)).toBeGreaterThan(0.05);

    const out = mkdtempSync(path.join(tmpdir(), 'gp-ext-'));
    // Unprofiled (gnome-2048 has a shipped profile): a window no profile describes scores null.
    const r = await runCli([
      'run',
      '--window',
      '^GNOME 2048$',
      '--no-profile',
      ...testModelArgs(server.baseURL),
      '--max-steps',
      '6',
      '--runs-dir',
      out,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const res = json(r);
    expect(res.episodes).toEqual([{ episode: 0, score: null, steps: 6, end: 'max_steps' }]);
    expect(res.mean).toBeNull();

    const { meta, steps } = readRun(res.run_dir);
    expect(meta.target).toMatchObject({ kind: 'window', label: 'GNOME 2048' });
    expect(steps).toHaveLength(6);
    const hashes = new Set<string>();
    for (const s of steps) {
      // Exactly the game's client area, at its own position.
      expect(s.window).toEqual(game.window.bounds);
      expect(s.frame_size).toMatchObject({ width: game.window.bounds.width, height: game.window.bounds.height });
      expect(s.errors).toEqual([]);
      expect(s.outcomes).toEqual([{ action: 'PRESS', ok: true }]);
      expect(s.window_lookups).toBeLessThanOrEqual(1); // a step asks where its window is at most once
      const file = path.join(res.run_dir, s.frame!);
      expect(await magentaShare(file)).toBeLessThan(0.001);
      hashes.add(readFileSync(file).toString('base64'));
    }
    // Asked only when the window's own events said it changed: the raise over the decoy in the
    // first step restacked it (the next step looks again); after that it holds still, and the
    // steps reuse the last look (the keys change its pixels, not its place, size, state or title).
    expect(steps.slice(2).map((s) => s.window_lookups)).toEqual([0, 0, 0, 0]);
    // The keys moved the tiles: the game's own pixels changed between steps.
    expect(hashes.size).toBeGreaterThanOrEqual(3);
    // Each step whose next frame differs from its own is recorded as having changed the window
    // (nothing in gnome-2048 moves by itself), with the time to the window's first draw.
    const frames = steps.map((s) => readFileSync(path.join(res.run_dir, s.frame!)).toString('base64'));
    for (let i = 0; i + 1 < steps.length; i++) {
      if (frames[i] === frames[i + 1]) continue;
      expect(steps[i]!.effect, `step ${i}: ${JSON.stringify(steps[i]!.settle)}`).toBe('changed');
      expect(steps[i]!.effect_ms).toBeGreaterThanOrEqual(0);
    }
    // Each request carried a frame of exactly that window.
    expect(server.requests).toHaveLength(6);
  });

  it('says clearly when no window matches, and lists what is open', async () => {
    const r = await runCli([
      'run',
      '--window',
      '^No Such Game$',
      '--max-steps',
      '1',
      '--runs-dir',
      mkdtempSync(path.join(tmpdir(), 'gp-ext-')),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no window title matches/);
    expect(r.stderr).toMatch(/GNOME 2048/);
  });

  it('follows the window when it moves between steps', async () => {
    const moves = new FakeOpenAI(async (_b, i) => {
      if (i === 1) execFileSync('xdotool', ['windowmove', String(parseInt(game.window.id, 16)), '60', '90']);
      return {
        text: answer('slide', [{ action_type: 'PRESS', parameters: { key: KEYS[i % KEYS.length] } }]),
        delayMs: 300,
      };
    });
    await moves.start();
    try {
      const r = await runCli([
        'run',
        '--window',
        '^GNOME 2048$',
        '--agent',
        'vlm',
        '--model',
        'test-vlm',
        '--base-url',
        moves.baseURL,
        '--max-steps',
        '4',
        '--runs-dir',
        mkdtempSync(path.join(tmpdir(), 'gp-ext-')),
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      const { steps } = readRun(json(r).run_dir);
      const first = steps[0]!.window!;
      const last = steps.at(-1)!.window!;
      expect(last).not.toEqual(first);
      expect([last.width, last.height]).toEqual([first.width, first.height]);
      const now = (await createWindowManager().get(game.window.id))!.bounds;
      expect(last).toEqual(now);
      expect(steps.every((s) => s.errors.length === 0)).toBe(true);
    } finally {
      await moves.close();
    }
  });

  it('ends with a clear error, files intact, when the window vanishes mid-run', async () => {
    const victim = await solidWindow('#3366cc', 'gp-vanishing', { x: 900, y: 100, width: 300, height: 200 });
    const srv = new FakeOpenAI(async (_b, i) => {
      if (i === 1) await stop(victim.child);
      return { text: answer('press', [{ action_type: 'PRESS', parameters: { key: 'space' } }]) };
    });
    await srv.start();
    try {
      const r = await runCli([
        'run',
        '--window',
        '^gp-vanishing$',
        '--agent',
        'vlm',
        '--model',
        'test-vlm',
        '--base-url',
        srv.baseURL,
        '--max-steps',
        '6',
        '--runs-dir',
        mkdtempSync(path.join(tmpdir(), 'gp-ext-')),
        '--json',
      ]);
      expect(r.code).toBe(1);
      const res = json(r);
      expect(res.status).toBe('failed');
      expect(res.error).toMatch(/the target window "gp-vanishing" is gone/);
      const { meta, steps } = readRun(res.run_dir);
      expect(meta.status).toBe('failed');
      expect(steps.length).toBeGreaterThanOrEqual(1);
    } finally {
      await srv.close();
      await stop(victim.child);
    }
  });
});
