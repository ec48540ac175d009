import type { ScreenCapturer } from './types.ts';
import { NutCapturer } from './nut-capturer.ts';
import { ScreenshotDesktopCapturer } from './screenshot-desktop-capturer.ts';
import { X11Capturer } from './x11-capturer.ts';
import { xlibAvailable } from '../../native/x11.ts';

export * from './types.ts';
export type CaptureBackend = 'auto' | 'x11' | 'nut' | 'screenshot-desktop';
export const CAPTURE_BACKENDS: readonly CaptureBackend[] = ['auto', 'x11', 'nut', 'screenshot-desktop'];

let warned = false;

/**
 * `auto`: on Linux, XShm over Gamepilot's own X connection (x11) when libX11 loads, else nut-js
 * with a warning; nut-js on Windows and macOS. screenshot-desktop is the slow fallback everywhere.
 */
export function createCapturer(backend: CaptureBackend = 'auto'): ScreenCapturer {
  if (backend === 'screenshot-desktop') return new ScreenshotDesktopCapturer();
  if (backend === 'nut') return new NutCapturer();
  if (backend === 'x11') return new X11Capturer();
  if (process.platform !== 'linux') return new NutCapturer();
  const can = xlibAvailable();
  if (can.ok) return new X11Capturer();
  if (!warned) {
    warned = true;
    process.emitWarning(`${can.why}; capturing through nut-js instead`, { code: 'GAMEPILOT_X11_CAPTURE' });
  }
  return new NutCapturer();
}
