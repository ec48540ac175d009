/**
 * Which window a run plays, with real windows under Xvfb + openbox: several windows with one
 * title, a target that closes while another match is open, windows partly off the screen or
 * larger than it, and minimized windows (before and during a run).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FakeOpenAI, answer } from '../helpers/fake-openai.ts';
import { json, runCli } from '../helpers/cli.ts';
import { activate, clickProbeWindow, minimize, placeWindow, settled, startWindow, stop } from '../helpers/windows.ts';
import { readRun } from '../../electron/store/run-store.ts';
import { createWindowManager, type WindowInfo } from '../../native/index.ts';

const FIFTEEN = '/usr/games/sgt-fifteen';
const started: ChildProcess[] = [];
const servers: FakeOpenAI[] = [];
const out = () => mkdtempSync(path.join(tmpdir(), 'gp-targets-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const press = (key = 'left') => ({ text: answer('slide a tile', [{ action_type: 'PRESS', parameters: { key } }]) });

async function open(cmd: string, title: RegExp, at?: { x: number; y: number }): Promise<WindowInfo> {
  const w = await startWindow(cmd, [], title);
  started.push(w.child);
  return at ? placeWindow(w.window.id, at.x, at.y) : w.window;
}

async function model(respond: ConstructorParameters<typeof FakeOpenAI>[0]): Promise<FakeOpenAI> {
  const s = await new FakeOpenAI(respond).start();
  servers.push(s);
  return s;
}

const vlm = (server: FakeOpenAI) => ['--agent', 'vlm', '--model', 'test-vlm', '--base-url', server.baseURL];

afterEach(async () => {
  for (const c of started.splice(0)) await stop(c);
  for (const s of servers.splice(0)) await s.close();
});

afterAll(async () => {
  for (const c of started.splice(0)) await stop(c);
});

describe('several windows with one title', () => {
  it('refuses an ambiguous --window, listing each match with its id; --window-id picks one', async () => {
    const a = await open(FIFTEEN, /^Fifteen/, { x: 100, y: 120 });
    const b = await open(FIFTEEN, /^Fifteen/, { x: 700, y: 160 });

    const r = await runCli([
      'run',
      '--window',
      '^Fifteen',
      '--agent',
      'random',
      '--max-steps',
      '1',
      '--runs-dir',
      out(),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/2 windows match/);
    expect(r.stderr).toContain(a.id);
    expect(r.stderr).toContain(b.id);
    expect(r.stderr).toMatch(/--window-id/);

    const server = await model(() => press());
    const ok = await runCli([
      'run',
      '--window-id',
      b.id,
      ...vlm(server),
      '--max-steps',
      '2',
      '--runs-dir',
      out(),
      '--json',
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    const { meta, steps } = readRun(json(ok).run_dir);
    expect(meta.target).toMatchObject({ kind: 'window', window_id: b.id });
    expect(steps).toHaveLength(2);
    for (const s of steps) expect(s.window).toEqual(b.bounds);
  });

  it('says which ids exist when --window-id names none', async () => {
    const a = await open(FIFTEEN, /^Fifteen/);
    const r = await runCli([
      'run',
      '--window-id',
      '0x7ffffff0',
      '--agent',
      'random',
      '--max-steps',
      '1',
      '--runs-dir',
      out(),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no window with id 0x7ffffff0/);
    expect(r.stderr).toContain(a.id);
  });

  it('ends the run when its window closes, never moving on to another window with the same title', async () => {
    const a = await open(FIFTEEN, /^Fifteen/, { x: 100, y: 120 });
    let b: WindowInfo | undefined;
    const server = await model(async (_body, i) => {
      if (i === 0) b = await open(FIFTEEN, /^Fifteen/, { x: 760, y: 200 }); // a second match appears…
      if (i === 1) {
        await stop(started[0]!); // …and the target closes while the model thinks
        const wm = createWindowManager();
        while (await wm.get(a.id)) await sleep(50);
        return { text: answer('nothing to do yet', []) }; // no input: the next step finds the window gone
      }
      return press();
    });
    const r = await runCli([
      'run',
      '--window',
      '^Fifteen',
      ...vlm(server),
      '--repairs',
      '0',
      '--max-steps',
      '6',
      '--runs-dir',
      out(),
      '--json',
    ]);
    expect(r.code).toBe(1);
    const res = json(r);
    expect(res.status).toBe('failed');
    expect(res.error).toMatch(/the target window "Fifteen" is gone/);
    const { meta, steps } = readRun(res.run_dir);
    expect(meta.status).toBe('failed');
    expect(b).toBeDefined();
    // Every recorded step was of the first window; the second one was never played.
    expect(steps.length).toBeGreaterThanOrEqual(1);
    for (const s of steps) expect(s.window).toEqual(a.bounds);
    expect(server.requests.length).toBeLessThanOrEqual(2);
  });
});

/** The centre of the green square in a frame the model was sent, in that image's pixels. */
async function greenCentre(
  dataUrl: string,
): Promise<{ x: number; y: number; width: number; height: number } | undefined> {
  const { data, info } = await sharp(Buffer.from(dataUrl.split(',')[1]!, 'base64'))
    .raw()
    .toBuffer({ resolveWithObject: true });
  let sx = 0,
    sy = 0,
    n = 0;
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const i = (y * info.width + x) * info.channels;
      if (data[i]! < 90 && data[i + 1]! > 190 && data[i + 2]! < 90) {
        sx += x;
        sy += y;
        n++;
      }
    }
  }
  return n ? { x: Math.round(sx / n), y: Math.round(sy / n), width: info.width, height: info.height } : undefined;
}

describe('windows partly off the screen or larger than it (screen 1600×900)', () => {
  const cases = [
    {
      name: 'off the left and top edges',
      at: { x: -260, y: -120 },
      size: { width: 700, height: 500 },
      square: { x: 330, y: 200 },
    },
    {
      name: 'off the right and bottom edges',
      at: { x: 1250, y: 640 },
      size: { width: 700, height: 500 },
      square: { x: 120, y: 90 },
    },
    {
      name: 'larger than the screen',
      at: { x: -150, y: -80 },
      size: { width: 1900, height: 1100 },
      square: { x: 1200, y: 700 },
    },
  ];

  it.each(cases)(
    '$name: the model sees the on-screen part and its click lands where it aimed',
    async ({ at, size, square }) => {
      const probe = await clickProbeWindow('gp-probe', { x: 200, y: 150, ...size }, square);
      started.push(probe.child);
      const win = await placeWindow(probe.window.id, at.x, at.y, size);
      const b = win.bounds;
      const visible = {
        x: Math.max(0, b.x),
        y: Math.max(0, b.y),
        width: Math.min(1600, b.x + b.width) - Math.max(0, b.x),
        height: Math.min(900, b.y + b.height) - Math.max(0, b.y),
      };
      expect(visible.width).toBeLessThan(b.width); // the case really is clipped

      let seen: Awaited<ReturnType<typeof greenCentre>>;
      const server = await model(async (body) => {
        seen = await greenCentre(FakeOpenAI.images(body)[0]!);
        return {
          text: answer(
            'click the green square',
            seen
              ? [{ action_type: 'CLICK', parameters: { x: seen.x, y: seen.y } }]
              : [{ action_type: 'WAIT', parameters: { duration: 0 } }],
          ),
        };
      });
      const r = await runCli([
        'run',
        '--window',
        '^gp-probe$',
        ...vlm(server),
        '--max-steps',
        '1',
        '--runs-dir',
        out(),
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/partly off the screen/);
      const { steps } = readRun(json(r).run_dir);
      const s = steps[0]!;
      expect(s.window).toEqual(b);
      expect(s.captured).toEqual(visible);
      expect(s.errors).toEqual([]);
      // The image is the visible part (scaled to at most 1280 on its long side).
      const scale = Math.min(1, 1280 / Math.max(visible.width, visible.height));
      expect(s.frame_size).toMatchObject({
        width: Math.round(visible.width * scale),
        height: Math.round(visible.height * scale),
      });
      expect(seen).toBeDefined();
      expect(s.outcomes).toEqual([expect.objectContaining({ action: 'CLICK', ok: true })]);
      // The page got the press on its square, at the screen point the image point maps to.
      const title = (await settled(win.id)).title;
      const m = /^gp-probe (hit|miss) 1 (-?\d+),(-?\d+)$/.exec(title);
      expect(m, title).not.toBeNull();
      expect(m![1]).toBe('hit');
      expect(Number(m![2])).toBe(visible.x + Math.floor(seen!.x / scale));
      expect(Number(m![3])).toBe(visible.y + Math.floor(seen!.y / scale));
    },
  );

  it('a click is not sent when the window moved while the model was thinking', async () => {
    const probe = await clickProbeWindow('gp-probe', { x: 300, y: 150, width: 500, height: 400 }, { x: 200, y: 150 });
    started.push(probe.child);
    const win = await placeWindow(probe.window.id, 300, 150);
    const server = await model(async (body) => {
      const seen = await greenCentre(FakeOpenAI.images(body)[0]!);
      await placeWindow(win.id, 700, 350); // a person drags the window away meanwhile
      return {
        text: answer('click the green square', [{ action_type: 'CLICK', parameters: { x: seen!.x, y: seen!.y } }]),
      };
    });
    const r = await runCli([
      'run',
      '--window',
      '^gp-probe$',
      ...vlm(server),
      '--max-steps',
      '1',
      '--runs-dir',
      out(),
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const s = readRun(json(r).run_dir).steps[0]!;
    expect(s.outcomes).toEqual([
      {
        action: 'CLICK',
        ok: false,
        error: expect.stringMatching(/moved or changed size after the capture; pointer actions were not sent/),
      },
    ]);
    // The look before the click asked the window system again because the window said it moved
    // (the step's own look could reuse the one made as the run started).
    expect(s.window_lookups).toBeGreaterThanOrEqual(1);
    expect(s.window_lookups).toBeLessThanOrEqual(2);
    expect((await settled(win.id)).title).toBe('gp-probe'); // no press reached the page
  });
});

describe('minimized windows', () => {
  it('are listed as minimized by `gamepilot windows`', async () => {
    const a = await open(FIFTEEN, /^Fifteen/, { x: 200, y: 200 });
    minimize(a.id);
    await settled(a.id);
    const listed = json<WindowInfo[]>(await runCli(['windows', '--json'])).find((w) => w.id === a.id);
    expect(listed).toMatchObject({ id: a.id, minimized: true });
    const text = (await runCli(['windows'])).stdout.split('\n').find((l) => l.startsWith(a.id));
    expect(text).toMatch(/\[minimized\]$/);
  });

  it('a run restores a minimized target and plays it', async () => {
    const a = await open(FIFTEEN, /^Fifteen/, { x: 200, y: 200 });
    minimize(a.id);
    expect((await settled(a.id)).minimized).toBe(true);
    const server = await model(() => press());
    const r = await runCli([
      'run',
      '--window',
      '^Fifteen',
      ...vlm(server),
      '--max-steps',
      '2',
      '--runs-dir',
      out(),
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/was minimized; restored it/);
    expect((await createWindowManager().get(a.id))?.minimized).toBe(false);
    const { steps } = readRun(json(r).run_dir);
    expect(steps.map((s) => s.outcomes)).toEqual([[{ action: 'PRESS', ok: true }], [{ action: 'PRESS', ok: true }]]);
  });

  it('minimizing mid-run pauses the run (nothing sent, the window left minimized) until it is shown again', async () => {
    const a = await open(FIFTEEN, /^Fifteen/, { x: 200, y: 200 });
    let leftMinimized: boolean | undefined;
    const server = await model(async (_body, i) => {
      if (i === 1) {
        // A person minimizes the game while the model thinks, and shows it again later.
        minimize(a.id);
        await settled(a.id);
        setTimeout(async () => {
          leftMinimized = (await createWindowManager().get(a.id))?.minimized;
          activate(a.id);
        }, 2500);
      }
      return press();
    });
    const r = await runCli([
      'run',
      '--window-id',
      a.id,
      ...vlm(server),
      '--max-steps',
      '4',
      '--runs-dir',
      out(),
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r).status).toBe('completed');
    expect(r.stderr).toMatch(/"Fifteen" was minimized: the run is paused until the window is shown again/);
    expect(r.stderr).toMatch(/shown again: the run goes on/);
    expect(leftMinimized).toBe(true);
    const { meta, steps } = readRun(json(r).run_dir);
    expect(meta.status).toBe('completed');
    expect(steps).toHaveLength(4);
    expect(steps[1]!.outcomes).toEqual([
      {
        action: 'PRESS',
        ok: false,
        error: expect.stringMatching(/minimized before the actions applied; nothing was sent/),
      },
    ]);
    for (const s of [steps[0]!, steps[2]!, steps[3]!]) expect(s.outcomes).toEqual([{ action: 'PRESS', ok: true }]);
  });
});
