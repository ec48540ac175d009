/**
 * Input sent to a window from the profile editor (a tried semantic action, a tried reset), as a
 * run sends it: refused before anything reaches the window when the anti-cheat guard or the
 * caller's own check says no; then the window is focused, checked to be shown whole on the
 * screen, and the actions go through an ActionExecutor under the key policy and the person's hotkeys.
 */
import type { GuiAction } from '../actions/schema.ts';
import type { InputBackend, Rect, WindowInfo, WindowManager } from '../../native/types.ts';
import type { ProcInfo } from '../../native/process.ts';
import type { Profile } from '../profiles/profile-schema.ts';
import { ActionExecutor, type ActionOutcome } from '../input/executor.ts';
import type { GamepilotHotkeys } from '../input/accelerator.ts';
import { fullSizeGeometry, inputScaleFor, visiblePart } from '../input/coordinates.ts';
import { guardAntiCheat } from '../safety/anticheat.ts';
import { CodedError } from '../domain.ts';

export interface WindowInputDeps {
  wm: WindowManager;
  /** The OS input the actions go through (default: this OS's). */
  input?: InputBackend;
  /** The screen the window must lie on whole (the capturer's); unset: not checked. */
  screenBounds?: () => Promise<Rect>;
  /** The person's stop and take-over hotkeys from Settings, never pressed. */
  hotkeys?: () => GamepilotHotkeys;
  /** The machine's processes, for the anti-cheat guard (default: this machine's). */
  procs?: () => readonly ProcInfo[];
}

export interface WindowInput {
  /** The window as it was once focused. */
  window: WindowInfo;
  /** Sends actions laid out in the window's own pixels; keys still held are let go after. */
  send: (actions: GuiAction[], signal: AbortSignal) => Promise<ActionOutcome[]>;
}

/**
 * The window ready to take input. `check` sees the window's size before anything is sent (not
 * even focus) and throws to refuse; `onlyKeys` limits the keys (a model's move: the profile's
 * allowedKeys; a reset the person wrote: none).
 */
export async function openWindowInput(
  deps: WindowInputDeps,
  profile: Profile,
  windowId: string,
  o: { check?: (size: { width: number; height: number }) => void; onlyKeys?: string[] | undefined } = {},
): Promise<WindowInput> {
  const before = await deps.wm.get(windowId);
  if (!before) throw new CodedError('not-found', `window ${windowId} is gone`);
  o.check?.(before.bounds);
  // A try has no way to accept the anti-cheat risk: a run does (--accept-anticheat-risk, New run's box).
  try {
    guardAntiCheat({
      accepted: false,
      profileAntiCheat: profile.antiCheat,
      ...(deps.procs ? { procs: deps.procs } : {}),
    });
  } catch (err) {
    throw new CodedError(
      'bad-input',
      `${(err as Error).message}. A tried action is never sent there; nothing was sent`,
    );
  }
  await deps.wm.focus(windowId);
  // Where it is now: a minimized window was restored, and a window manager may have moved it.
  const w = await deps.wm.get(windowId);
  if (!w) throw new CodedError('not-found', `window ${windowId} is gone`);
  if (w.minimized) throw new CodedError('bad-input', `window ${windowId} stayed minimized; nothing was sent`);
  // Actions are in the whole window's pixels: a window partly off the screen would take clicks
  // meant for its hidden part at the screen's edge.
  const screen = await deps.screenBounds?.();
  const shown = screen && visiblePart(w.bounds, screen);
  if (screen && (shown?.width !== w.bounds.width || shown?.height !== w.bounds.height))
    throw new CodedError(
      'bad-input',
      `window ${windowId} is partly off the screen: move it onto the screen to try an action; nothing was sent`,
    );
  o.check?.(w.bounds);
  // Image pixel = window pixel.
  const geometry = { ...fullSizeGeometry(w.bounds), inputScale: inputScaleFor(process.platform, w.scaleFactor) };
  return {
    window: w,
    send: async (actions, signal) => {
      const executor = new ActionExecutor({
        allowedKeys: profile.actions.allowedHotkeys ?? [],
        onlyKeys: o.onlyKeys,
        hotkeys: deps.hotkeys?.(),
        ...(deps.input ? { input: deps.input } : {}),
      });
      try {
        return await executor.execute(actions, geometry, signal);
      } finally {
        await executor.releaseAll();
      }
    },
  };
}
