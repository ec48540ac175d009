/**
 * The target list through the core (what the picker shows), with real windows: minimized
 * windows are listed as such, thumbnails show a window only when nothing covers it (X11
 * without a compositor captures the screen's pixels), and a run whose window is minimized
 * pauses with a warning until the window is shown again.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GamepilotCore } from '../../electron/api/core.ts';
import { JsonFileSettingsStore, MemorySecretStore } from '../../electron/api/settings-store.ts';
import type { CoreEvent, WindowThumbnail } from '../../electron/api/contract.ts';
import { createWindowManager, type WindowInfo } from '../../native/index.ts';
import { activate, minimize, placeWindow, settled, solidWindow, startWindow, stop } from '../helpers/windows.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'gp-target-list-'));
let core: GamepilotCore;
const children: ChildProcess[] = [];
let game: WindowInfo;
let decoy: WindowInfo;

beforeAll(async () => {
  core = new GamepilotCore({
    wm: createWindowManager(),
    settings: new JsonFileSettingsStore(path.join(tmp, 'config', 'settings.json')),
    secrets: new MemorySecretStore(),
    runsDir: path.join(tmp, 'runs'),
    exportDir: path.join(tmp, 'exports'),
    shell: 'web',
    version: '0.0.0-test',
  });
  const g = await startWindow('/usr/games/sgt-fifteen', [], /^Fifteen/);
  children.push(g.child);
  game = await placeWindow(g.window.id, 900, 200);
  const d = await solidWindow('#ff00ff', 'gp-cover', { x: 1200, y: 600, width: 200, height: 150 });
  children.push(d.child);
  decoy = d.window;
});

afterAll(async () => {
  await core.stop();
  for (const c of children) await stop(c);
});

const thumbnail = (id: string) => core.handle('thumbnail', { windowId: id, maxSide: 320 }) as Promise<WindowThumbnail>;

async function magentaShare(dataUrl: string): Promise<number> {
  const { data, info } = await sharp(Buffer.from(dataUrl.split(',')[1]!, 'base64'))
    .raw()
    .toBuffer({ resolveWithObject: true });
  let n = 0;
  for (let i = 0; i < data.length; i += info.channels)
    if (data[i]! > 200 && data[i + 1]! < 60 && data[i + 2]! > 200) n++;
  return n / (info.width * info.height);
}

describe('thumbnails', () => {
  it('a window under another one gets no picture, and says what covers it', async () => {
    // The magenta window sits over the game's top-left corner.
    await placeWindow(decoy.id, game.bounds.x - 60, game.bounds.y - 40);
    activate(decoy.id);
    await settled(decoy.id);
    const t = await thumbnail(game.id);
    expect(t).toMatchObject({
      dataUrl: null,
      covered: true,
      coveredBy: ['gp-cover'],
      minimized: false,
      offScreen: false,
    });
  });

  it('a window above everything it overlaps is captured as it is', async () => {
    activate(game.id);
    await settled(game.id);
    const t = await thumbnail(game.id);
    expect(t).toMatchObject({ covered: false, minimized: false, offScreen: false, clipped: false });
    expect(t.dataUrl).toMatch(/^data:image\/jpeg;base64,/);
    expect(t.width / t.height).toBeCloseTo(game.bounds.width / game.bounds.height, 1);
    expect(await magentaShare(t.dataUrl!)).toBeLessThan(0.001);
    // A title bar counts too: the decoy's frame over the game, its client area beside it.
    const d = await placeWindow(decoy.id, game.bounds.x + 20, game.bounds.y + game.bounds.height + 2);
    activate(decoy.id);
    await settled(decoy.id);
    expect(d.bounds.y).toBeGreaterThanOrEqual(game.bounds.y + game.bounds.height);
    expect(d.frame!.y).toBeLessThan(game.bounds.y + game.bounds.height);
    expect((await thumbnail(game.id)).covered).toBe(true);
    await placeWindow(decoy.id, 100, 100);
  });

  it('a window partly off the screen shows its on-screen part', async () => {
    const w = await placeWindow(game.id, 1500, 300);
    const t = await thumbnail(game.id);
    expect(t).toMatchObject({ covered: false, clipped: true });
    const visibleWidth = 1600 - w.bounds.x;
    expect(t.width / t.height).toBeCloseTo(visibleWidth / w.bounds.height, 1);
    await placeWindow(game.id, 900, 200);
  });

  it('a minimized window is listed as minimized and has no picture', async () => {
    minimize(game.id);
    await settled(game.id);
    const { windows } = (await core.handle('listTargets', {})) as { windows: WindowInfo[] };
    expect(windows.find((w) => w.id === game.id)).toMatchObject({ minimized: true });
    expect(await thumbnail(game.id)).toMatchObject({ dataUrl: null, minimized: true, covered: false });
    activate(game.id);
    await settled(game.id);
  });
});

describe('a run through the core', () => {
  it('pauses with a warning while its window is minimized, and goes on when it is shown again', async () => {
    // A plain page: the random agent's clicks and keys cannot open menus or dialogs in it.
    const page = await solidWindow('#2050a0', 'gp-run-target', { x: 300, y: 500, width: 320, height: 240 });
    children.push(page.child);
    const target = page.window;
    const events: CoreEvent[] = [];
    const onEvent = (e: CoreEvent) => events.push(e);
    core.on('event', onEvent);
    const statuses = () => events.flatMap((e) => (e.type === 'state' ? [e.state.status] : []));
    const steps = () => events.filter((e) => e.type === 'step').length;
    try {
      await core.handle('startRun', {
        target: { windowId: target.id },
        agent: 'random',
        episodes: 1,
        maxSteps: 1000,
        paceMs: 150,
      });
      await expect.poll(steps, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);

      minimize(target.id);
      await expect.poll(() => core.state().status, { timeout: 20_000 }).toBe('paused');
      expect(
        events.some(
          (e) =>
            e.type === 'warning' &&
            /"gp-run-target" was minimized: the run is paused until the window is shown again/.test(e.message),
        ),
      ).toBe(true);
      const during = steps();
      await new Promise((r) => setTimeout(r, 1500));
      expect(steps()).toBeLessThanOrEqual(during + 1); // at most the step in flight when it was minimized
      expect((await createWindowManager().get(target.id))?.minimized).toBe(true);

      // Resume in the UI shows the window again and the run goes on.
      await core.handle('control', { action: 'resume' });
      await expect.poll(() => core.state().status, { timeout: 20_000 }).toBe('running');
      await expect.poll(steps, { timeout: 20_000 }).toBeGreaterThan(during + 2);
      expect((await createWindowManager().get(target.id))?.minimized).toBe(false);
      expect(statuses()).toEqual(expect.arrayContaining(['running', 'paused']));

      // Minimized again, then stopped while it waits: the run ends as stopped, not failed.
      const runId = core.state().run!.id;
      minimize(target.id);
      await expect.poll(() => core.state().status, { timeout: 20_000 }).toBe('paused');
      await core.handle('control', { action: 'stop' });
      expect(core.state().status).toBe('idle');
      const { runs } = (await core.handle('listRuns', {})) as { runs: { id: string; status: string }[] };
      expect(runs.find((r) => r.id === runId)?.status).toBe('stopped');
    } finally {
      await core.handle('control', { action: 'stop' });
      core.off('event', onEvent);
    }
    expect(core.state().lastError).toBeNull();
  });
});
