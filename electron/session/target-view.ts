/**
 * The target window as the loop sees it and prepares it: where it is and which part is on the
 * screen (or what hides it), a minimized window shown before the run, the window raised over
 * whatever covers it before a capture, and checked again — still shown, still where the frame
 * was taken — before input is sent. A step looks at most once (Target.locate), and only when the
 * window's own events say it changed since the last look.
 */
import type { GuiAction } from '../actions/schema.ts';
import type { ScreenCapturer } from '../capture/capturer.ts';
import { encodeFrame, type EncodedFrame, type EncodeOptions } from '../capture/encode.ts';
import { windowsOver } from '../capture/occlusion.ts';
import { isClipped, visiblePart, type FrameGeometry } from '../input/coordinates.ts';
import type { Rect, WindowInfo, WindowManager } from '../../native/types.ts';
import { now, sleep } from '../util/time.ts';
import { CoverRepaint } from './cover-repaint.ts';
import { TargetGoneError, type Target } from './targets.ts';
import type { RunGate } from './run-gate.ts';
import type { SeenTarget } from './session-types.ts';

/** Actions that need no pointer: they go to the focused window wherever it is. */
const KEYBOARD_ONLY = new Set(['TYPING', 'PRESS', 'KEY_DOWN', 'KEY_UP', 'HOTKEY', 'WAIT', 'DONE', 'FAIL']);

/** The target as a look finds it; `visible` absent when nothing of it is on the screen, and `why` says what hides it. */
export interface Look {
  win: WindowInfo;
  visible?: Rect;
  why: string;
}

function sameRect(a: Rect, b: Rect) {
  return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
}

export class TargetView {
  /** The last clipping reported, so a partly off-screen window is announced once per change. */
  private clipNotice = '';

  constructor(
    private readonly deps: { target: Target; wm: WindowManager; capturer: ScreenCapturer },
    /** The run's stop: every wait here ends with it. */
    private readonly signal: AbortSignal,
    private readonly warn: (message: string) => void,
  ) {}

  /**
   * Where the target is and which part of it is on the screen (the step's one look at it): the
   * last look again unless the window's own events say it changed since (Target.locate), so a
   * window that holds still is not asked about at all.
   */
  async look(): Promise<Look> {
    const { target, capturer } = this.deps;
    let win: WindowInfo;
    try {
      win = await target.locate({ reuse: true });
    } catch (err) {
      if (err instanceof TargetGoneError) throw err;
      throw new TargetGoneError(`cannot locate the target window: ${(err as Error).message}`);
    }
    const name = `the target window "${target.label}"`;
    if (win.minimized) return { win, why: `${name} was minimized` };
    const screen = await capturer.screenBounds();
    const visible = visiblePart(win.bounds, screen);
    const b = win.bounds;
    if (!visible)
      return {
        win,
        why: `${name} is entirely off the screen (${b.width}×${b.height} at ${b.x},${b.y}; the screen is ${screen.width}×${screen.height})`,
      };
    return { win, visible, why: '' };
  }

  /**
   * The locate stage: waits while a person paused the run, or while the window cannot be seen
   * (minimized or entirely off the screen): then the run is paused with a warning until the
   * window is shown again. Raises the window when `raise()` says so. Returns where the window is
   * now; undefined once stopped.
   */
  async locate(gate: RunGate, o: { raise: () => boolean; quietMs: number }): Promise<SeenTarget | undefined> {
    let previous: Rect | undefined;
    for (;;) {
      await gate.pass();
      if (this.signal.aborted) return undefined;
      const t0 = now();
      const lookupsBefore = this.deps.target.lookups;
      const look = await this.look();
      if (look.visible) {
        if (gate.waitingForWindow) {
          // Window managers animate a restore: go on once the window stays put.
          const settled = previous && sameRect(previous, look.win.bounds);
          previous = look.win.bounds;
          if (!settled) {
            await sleep(100, this.signal);
            continue;
          }
          gate.shown();
        }
        // Minimized between the look and now: loop, and the next look pauses the run.
        if (o.raise() && !(await this.raise(look.win.id, o.quietMs))) continue;
        return { win: look.win, visible: look.visible, locateMs: now() - t0, lookupsBefore };
      }
      if (gate.hidden(look.why)) {
        if (look.win.minimized)
          await this.deps.wm
            .focus(look.win.id)
            .catch((err: Error) => this.warn(`cannot restore the window: ${err.message}`));
        else this.warn(`${look.why}; move it back onto the screen to go on`);
      }
      await sleep(250, this.signal);
    }
  }

  /** A run may start on a minimized window: show it, or fail saying why it cannot. */
  async showMinimized() {
    const { target, wm } = this.deps;
    const win = await target.locate();
    if (!win.minimized) return;
    await wm.focus(win.id).catch(() => {});
    let previous: Rect | undefined;
    for (let i = 0; i < 30 && !this.signal.aborted; i++) {
      const w = await target.locate();
      // Shown, and no longer moving (window managers animate a restore).
      if (!w.minimized && previous && sameRect(previous, w.bounds)) {
        this.warn(`the target window "${target.label}" was minimized; restored it`);
        return;
      }
      previous = w.minimized ? undefined : w.bounds;
      await sleep(100, this.signal);
    }
    throw new Error(
      `the target window "${target.label}" is minimized and the window manager did not restore it within 3 s; show it and start again`,
    );
  }

  /** The window as it is now, encoded as the model's frames are; undefined when it cannot be seen. */
  async frameNow(encode: EncodeOptions): Promise<EncodedFrame | undefined> {
    try {
      const look = await this.look();
      if (!look.visible) return undefined;
      return await encodeFrame(await this.deps.capturer.grab(look.visible, { maxLongSide: encode.imageSize }), encode);
    } catch {
      return undefined;
    }
  }

  /** Says once (per change) that only part of the window is on the screen, and so in the image. */
  noticeClipping(g: FrameGeometry) {
    const v = g.visible ?? g.window;
    const notice = isClipped(g) ? `${v.width}×${v.height} of ${g.window.width}×${g.window.height}` : '';
    if (notice && notice !== this.clipNotice) {
      this.warn(
        `the target window "${this.deps.target.label}" is partly off the screen: the model sees only its visible ${notice} pixels, and actions on the hidden part are refused`,
      );
    }
    this.clipNotice = notice;
  }

  /**
   * Raises the target over what covers it, giving it keyboard focus, unless it has the focus or
   * nothing covers it: a capture sees an uncovered window as it is, and input that needs the
   * focus takes it just before it is sent (readyForInput). So a person who clicked another
   * window beside the game keeps it in front while the agent looks. Raising a minimized window
   * would undo what a person just did, so a minimized one is left alone: returns false.
   * (With command-line X tools a minimize in the few ms between the look and the raise can
   * still be undone; the window usually has focus already, and then nothing is raised.)
   * `quietMs`: how long the game must hold still once it repainted what was covered.
   */
  async raise(id: string, quietMs: number): Promise<boolean> {
    const { target, wm } = this.deps;
    if ((await wm.activeId()) === id) return true;
    const win = await target.locate({ reuse: true });
    if (win.minimized) return false;
    // A window over the game leaves its pixels in the part it covered until the game repaints
    // that part (no compositor): follow what the game draws from before the raise, and capture
    // once it has repainted (cover-repaint.ts; a loaded machine took hundreds of ms).
    const over = await windowsOver(wm, win, win.bounds).catch(() => undefined);
    if (over?.length === 0) return true; // known to be uncovered
    const covered = !!over?.length;
    const repaint = covered ? new CoverRepaint(wm) : undefined;
    repaint?.covered(id);
    try {
      await this.focus(id);
      await this.untilOnTop(win);
      await repaint?.uncovered(quietMs, this.signal);
    } finally {
      repaint?.close();
    }
    return true;
  }

  /**
   * Before input is sent: the window must still be shown (a person may have minimized it
   * while the model thought) and, for pointer actions, still where it was captured, or the
   * clicks would land on something else. Then it gets focus. Returns why not, if not.
   */
  async readyForInput(actions: GuiAction[], geometry: FrameGeometry, windowId: string): Promise<string | undefined> {
    const pointer = actions.some((a) => !KEYBOARD_ONLY.has(a.type));
    const active = (await this.deps.wm.activeId()) === windowId;
    if (active && !pointer) return undefined;
    const w = await this.deps.target.locate({ reuse: true }); // the window's events since the look say whether it moved
    if (w.minimized) return 'the target window was minimized before the actions applied; nothing was sent';
    if (pointer && !sameRect(w.bounds, geometry.window)) {
      return 'the target window moved or changed size after the capture; pointer actions were not sent';
    }
    if (!active) await this.focus(windowId);
    return undefined;
  }

  /** Raises the target; when that fails because the window is gone, says so plainly. */
  private async focus(id: string) {
    try {
      await this.deps.wm.focus(id);
    } catch (err) {
      await this.deps.target.locate(); // throws TargetGoneError when the window has vanished
      throw err;
    }
  }

  /**
   * Waits (at most `boundMs`) until the window manager has stacked nothing over the target. A
   * window manager may report the window active before it has restacked it, and a capture of
   * the screen then shows the window that still covers it (seen on a loaded 2-core machine).
   * Where stacking is unknown, or the bound passes (an always-on-top window), it goes on.
   */
  private async untilOnTop(win: WindowInfo, boundMs = 3000) {
    const t0 = now();
    while (now() - t0 < boundMs && !this.signal.aborted) {
      const over = await windowsOver(this.deps.wm, win, win.bounds).catch(() => undefined);
      if (!over?.length) return;
      await sleep(20, this.signal);
    }
  }
}
