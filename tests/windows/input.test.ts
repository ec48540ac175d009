/**
 * Input on Windows through the executor and its backend (SendInput by scan code): a click
 * opens a cell where it lands, the pointer goes exactly where the action maps, a key reaches
 * the focused game (F2: new game), and held keys are really down until released.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ActionExecutor } from '../../electron/input/executor.ts';
import type { FrameGeometry } from '../../electron/input/coordinates.ts';
import { HeldInputTracker, heldInputRegistry } from '../../electron/safety/held-input.ts';
import type { WindowInfo } from '../../native/types.ts';
import { Win32WindowManager } from '../../native/win32.ts';
import { win32 } from '../../native/win32-api.ts';
import { Win32GdiCapture } from '../../native/win32-capture.ts';
import { Win32InputBackend } from '../../native/win32-input.ts';
import { differingPixels, type Game, inputState, launchGame, sleep, waitFor } from './helpers.ts';

const VK_LSHIFT = 0xa0;
const VK_LCONTROL = 0xa2;
const isDown = (vk: number) => (win32().GetAsyncKeyState(vk) & 0x8000) !== 0;

const wm = new Win32WindowManager();
const capture = new Win32GdiCapture();
const config = mkdtempSync(path.join(os.tmpdir(), 'gp-win-input-'));
const executor = new ActionExecutor({ heldInput: new HeldInputTracker(heldInputRegistry(config)) });
let game: Game;
let w: WindowInfo;

/** The frame as the model would see it: the whole client area, unscaled. */
const geometry = (): FrameGeometry => ({
  window: w.bounds,
  imageScale: 1,
  imageWidth: w.bounds.width,
  imageHeight: w.bounds.height,
  inputScale: 1,
});

before(async () => {
  game = await launchGame(wm);
  await wm.focus(game.window.id);
  w = (await wm.get(game.window.id))!;
});
after(async () => {
  await executor.releaseAll();
  game?.close();
});

describe('the executor on Windows', () => {
  it('uses the SendInput backend', () => {
    assert.equal(new Win32InputBackend().name, 'win32-sendinput');
  });

  it('moves the pointer exactly where the action maps', async () => {
    const [moved] = await executor.execute([{ kind: 'gui', type: 'MOVE_TO', params: { x: 10, y: 12 } }], geometry());
    assert.deepEqual(moved, { action: 'MOVE_TO', ok: true, at: { x: w.bounds.x + 10, y: w.bounds.y + 12 } });
    assert.deepEqual(await new Win32InputBackend().position(), { x: w.bounds.x + 10, y: w.bounds.y + 12 });
  });

  it('a click opens a cell: the pixels change where it clicked', async () => {
    const before = capture.grab(w.bounds);
    // Low in the middle of the window: on the board of a Minesweeper.
    const x = Math.round(w.bounds.width / 2);
    const y = w.bounds.height - 30;
    const [click] = await executor.execute([{ kind: 'gui', type: 'CLICK', params: { x, y } }], geometry());
    assert.deepEqual(click, { action: 'CLICK', ok: true, at: { x: w.bounds.x + x, y: w.bounds.y + y } });
    const around = { x: x - 8, y: y - 8, width: 16, height: 16 };
    await waitFor(
      'the clicked cell to open',
      () => differingPixels(before, capture.grab(w.bounds), around) > 0,
      5000,
    ).catch(async (e: Error) => {
      const at = { x: w.bounds.x + x, y: w.bounds.y + y };
      assert.fail(`${e.message} (${await inputState(wm, game, w.bounds, at)})`);
    });
  });

  it('a key reaches the focused game: F2 starts a new game, the board as it was at the start', async () => {
    const opened = capture.grab(w.bounds);
    const [f2] = await executor.execute([{ kind: 'gui', type: 'PRESS', params: { key: 'F2' } }], geometry());
    assert.deepEqual(f2, { action: 'PRESS', ok: true });
    await waitFor('a new board', () => differingPixels(opened, capture.grab(w.bounds)) > 0, 5000).catch(
      async (e: Error) => assert.fail(`${e.message} (${await inputState(wm, game, w.bounds)})`),
    );
    // A fresh board is a fresh launch's picture: the same as another instance's at start.
    const fresh = await launchGame(wm);
    try {
      await wm.focus(game.window.id);
      // The fresh one is now covered by ours: PrintWindow still gets its picture.
      const theirs = capture.grabWindow(fresh.window.id);
      let differing = -1;
      await waitFor(
        'our new board on screen to look like a freshly started game',
        () => {
          differing = differingPixels(capture.grab(w.bounds), theirs);
          return differing === 0;
        },
        5000,
      ).catch((e: Error) => assert.fail(`${e.message}: ${differing} pixels differ`));
    } finally {
      fresh.close();
      await waitFor('the fresh game gone', async () => !(await wm.get(fresh.window.id)));
    }
  });

  it('holds keys down until they are released, and releaseAll lets go of every one', async () => {
    // Wine sets Shift, Ctrl and Alt to the X server's state whenever the X focus moves
    // (KeymapNotify), and SendInput never presses X keys: let the focus settle first.
    await wm.focus(game.window.id);
    await sleep(300);
    const g = geometry();
    await executor.execute(
      [
        { kind: 'gui', type: 'KEY_DOWN', params: { key: 'shift' } },
        { kind: 'gui', type: 'KEY_DOWN', params: { key: 'ctrl' } },
      ],
      g,
    );
    assert.ok(isDown(VK_LSHIFT) && isDown(VK_LCONTROL), 'both keys are down');
    assert.deepEqual(executor.held().sort(), ['LeftControl', 'LeftShift']);
    await executor.execute([{ kind: 'gui', type: 'KEY_UP', params: { key: 'shift' } }], g);
    assert.ok(!isDown(VK_LSHIFT) && isDown(VK_LCONTROL));
    assert.deepEqual(await executor.releaseAll(), ['LeftControl']);
    assert.ok(!isDown(VK_LCONTROL));
  });

  it('presses and releases a mouse button held across actions', async () => {
    const VK_LBUTTON = 0x01;
    const g = geometry();
    await executor.execute([{ kind: 'gui', type: 'MOVE_TO', params: { x: 5, y: 5 } }], g);
    await executor.execute([{ kind: 'gui', type: 'MOUSE_DOWN', params: {} }], g);
    assert.ok(isDown(VK_LBUTTON), 'the left button is down');
    await executor.execute([{ kind: 'gui', type: 'MOUSE_UP', params: {} }], g);
    assert.ok(!isDown(VK_LBUTTON));
  });
});
