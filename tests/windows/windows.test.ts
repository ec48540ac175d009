/**
 * The Windows window backend against a real Win32 game: listing and finding it, its client
 * rectangle, capture (compared with an independent capture of the same screen region), focus
 * and stacking with two instances, minimize and restore.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Win32Capturer } from '../../electron/capture/win32-capturer.ts';
import { findWindows } from '../../native/types.ts';
import { formatWindowId, parseWindowId, Win32WindowManager } from '../../native/win32.ts';
import { win32 } from '../../native/win32-api.ts';
import { Win32GdiCapture } from '../../native/win32-capture.ts';
import {
  clearObserver,
  colourCount,
  differingPixels,
  type Game,
  launchGame,
  referenceGrab,
  sleep,
  waitFor,
} from './helpers.ts';

const wm = new Win32WindowManager();
const capture = new Win32GdiCapture();
let game: Game;
let other: Game | undefined;

before(async () => {
  game = await launchGame(wm);
});
after(() => {
  game?.close();
  other?.close();
  clearObserver();
});

describe('listing and finding', () => {
  it('lists the game window with its pid, title, client area, frame and scale', async () => {
    const w = (await wm.list()).find((x) => x.id === game.window.id);
    assert.ok(w, 'the game window is listed');
    assert.equal(w.pid, game.pid);
    assert.ok(w.title.length > 0);
    assert.equal(w.minimized, false);
    assert.ok(w.bounds.width > 50 && w.bounds.height > 50, `a client area: ${JSON.stringify(w.bounds)}`);
    assert.ok(w.frame, 'the outer frame is known');
    const f = w.frame;
    assert.ok(
      f.x <= w.bounds.x &&
        f.y <= w.bounds.y &&
        f.x + f.width >= w.bounds.x + w.bounds.width &&
        f.y + f.height >= w.bounds.y + w.bounds.height,
      `the frame ${JSON.stringify(f)} holds the client area ${JSON.stringify(w.bounds)}`,
    );
    assert.ok(w.scaleFactor >= 1, `scale ${w.scaleFactor}`);
  });

  it('finds it by title; get() gives the same facts; an id that is no window gives undefined', async () => {
    const escaped = game.window.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const found = await findWindows(wm, new RegExp(`^${escaped}$`));
    assert.ok(found.some((w) => w.id === game.window.id));
    assert.deepEqual(await wm.get(game.window.id), game.window);
    assert.equal(await wm.get('0x7ffffff0'), undefined);
    assert.equal(await wm.get('not a window'), undefined);
  });

  it('writes ids as hex HWNDs that read back, in hex or decimal', () => {
    const h = parseWindowId(game.window.id);
    assert.ok(h);
    assert.equal(formatWindowId(h), game.window.id);
    assert.equal(parseWindowId(String(h)), h);
    assert.equal(parseWindowId('0x'), undefined);
    assert.equal(parseWindowId('-5'), undefined);
  });
});

describe('client rectangle and capture', () => {
  it('the screen at the client rectangle is what the window paints there (PrintWindow)', async () => {
    await wm.focus(game.window.id);
    const w = (await wm.get(game.window.id))!;
    // Raised just now: on a busy machine it shows its picture once it has repainted.
    let painted = capture.grabWindow(w.id);
    let differing = -1;
    await waitFor(
      'the window to paint, and the screen to show what it paints',
      () => {
        painted = capture.grabWindow(w.id);
        differing = differingPixels(capture.grab(w.bounds), painted);
        return colourCount(painted) > 3 && differing === 0;
      },
      5000,
    ).catch((e: Error) => assert.fail(`${e.message}: ${colourCount(painted)} colours, ${differing} pixels differ`));
    assert.deepEqual([painted.width, painted.height], [w.bounds.width, w.bounds.height]);
    // The check has teeth: one pixel off, and the pictures differ.
    const shifted = capture.grab({ ...w.bounds, x: w.bounds.x + 1 });
    assert.ok(differingPixels(shifted, painted) > 0);
  });

  it('captures exactly what an independent capture of the same screen region sees', async () => {
    const w = (await wm.get(game.window.id))!;
    // A region around the window: its frame, some desktop, and the client area.
    const region = { x: Math.max(0, w.bounds.x - 20), y: Math.max(0, w.bounds.y - 20), width: 320, height: 300 };
    const ours = capture.grab(region);
    const theirs = await referenceGrab(region);
    assert.ok(colourCount(ours) > 3);
    assert.equal(differingPixels(ours, theirs), 0, `pixels that differ from ${theirs.by}`);
    assert.ok(
      ours.data.every((v, i) => i % 4 !== 3 || v === 255),
      'every pixel is opaque',
    );
  });

  it("the app's capturer covers the whole desktop and refuses what lies beyond it", async () => {
    const capturer = new Win32Capturer();
    const nut = await import('@nut-tree-fork/nut-js');
    // One monitor here: the virtual desktop is the main screen, as libnut sees it.
    assert.deepEqual(await capturer.screenBounds(), {
      x: 0,
      y: 0,
      width: await nut.screen.width(),
      height: await nut.screen.height(),
    });
    const w = (await wm.get(game.window.id))!;
    const frame = await capturer.grab(w.bounds);
    assert.equal(frame.order, 'bgra');
    assert.equal(differingPixels(frame, capture.grab(w.bounds)), 0);
    await assert.rejects(capturer.grab({ ...w.bounds, x: -10 }), /reaches beyond the \d+×\d+ screen/);
  });

  it('refuses an empty region with a clear error', () => {
    assert.throws(() => capture.grab({ x: 0, y: 0, width: 0, height: 10 }), /empty region/);
  });
});

describe('focus and stacking', () => {
  it('raises and activates whichever of two game windows it is asked to, and reports the order', async () => {
    other = await launchGame(wm);
    for (const target of [game.window.id, other.window.id, game.window.id]) {
      const below = target === game.window.id ? other.window.id : game.window.id;
      await wm.focus(target);
      // Under Wine the window manager's answer to a switch arrives a moment later and may move
      // the order once more: what counts is where it settles.
      let seen = '';
      await waitFor(
        `${target} active and above ${below}`,
        async () => {
          const order = await wm.stacking();
          seen = `active ${await wm.activeId()}, order ${order.join(' ')}`;
          return seen.startsWith(`active ${target},`) && order.indexOf(target) > order.indexOf(below);
        },
        5000,
      ).catch((e: Error) => assert.fail(`${e.message} (last seen: ${seen})`));
    }
  });

  it('raises the active window when another one lies above it (a game started meanwhile without the focus)', async () => {
    assert.ok(other, 'the second game is running');
    await wm.focus(game.window.id);
    // Put the other game on top without activating it: what Windows does with a window a
    // background process opens while the game keeps the focus.
    const SetWindowPos = win32()
      .koffi.load('user32.dll')
      .func('bool __stdcall SetWindowPos(void *h, void *after, int x, int y, int cx, int cy, uint32_t flags)');
    const HWND_TOP = 0n;
    const SWP_NOSIZE_NOMOVE_NOACTIVATE = 0x1 | 0x2 | 0x10;
    assert.ok(SetWindowPos(parseWindowId(other.window.id), HWND_TOP, 0, 0, 0, 0, SWP_NOSIZE_NOMOVE_NOACTIVATE));
    const before = await wm.stacking();
    assert.equal(await wm.activeId(), game.window.id, 'the game kept the focus');
    assert.ok(before.indexOf(other.window.id) > before.indexOf(game.window.id), `other above in ${before.join(' ')}`);
    await wm.focus(game.window.id);
    const after = await wm.stacking();
    assert.ok(after.indexOf(game.window.id) > after.indexOf(other.window.id), `game above in ${after.join(' ')}`);
  });

  it('focusing an id that is no window fails clearly', async () => {
    await assert.rejects(wm.focus('0x7ffffff0'), /no window 0x7ffffff0/);
  });
});

describe('minimized windows', () => {
  it('are listed as minimized with the size they will have, and focus restores them', async () => {
    const id = game.window.id;
    const h = parseWindowId(id)!;
    win32().ShowWindow(h, 6); // SW_MINIMIZE
    const minimized = await waitFor('the window minimized', async () => {
      const w = await wm.get(id);
      return w?.minimized ? w : undefined;
    });
    // Wine reports the minimize at once; the window manager's iconify follows.
    await sleep(300);
    assert.deepEqual(
      [minimized.bounds.width, minimized.bounds.height],
      [game.window.bounds.width, game.window.bounds.height],
    );
    assert.throws(() => capture.grabWindow(id), /minimized/);
    await wm.focus(id);
    const shown = await waitFor('the window restored', async () => {
      const w = await wm.get(id);
      return w && !w.minimized ? w : undefined;
    });
    assert.deepEqual(shown.bounds, game.window.bounds);
  });
});
