/**
 * The X11 window backend: in-process through libX11 (native/x11/), or, when that library cannot
 * be loaded, the command-line tools (wmctrl, xwininfo, xprop, xdotool) with a warning.
 */
import { loadXlib } from './x11/xlib.ts';
import { XlibWindowManager } from './x11/windows.ts';
import { X11ToolsWindowManager } from './x11-tools.ts';
import type { WindowManager } from './types.ts';

let warned = false;

/** Whether libX11 (and XShm, XTest) load in this process; the reason when not. */
export function xlibAvailable(): { ok: true } | { ok: false; why: string } {
  try {
    loadXlib();
    return { ok: true };
  } catch (err) {
    return { ok: false, why: (err as Error).message };
  }
}

export function createX11WindowManager(): WindowManager {
  const can = xlibAvailable();
  if (can.ok) return new XlibWindowManager();
  if (!warned) {
    warned = true;
    process.emitWarning(`${can.why}; using wmctrl/xwininfo/xprop/xdotool instead, a process per call`, {
      code: 'GAMEPILOT_X11_TOOLS',
    });
  }
  return new X11ToolsWindowManager();
}
