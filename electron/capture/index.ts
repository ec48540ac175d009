import type { ScreenCapturer } from './capturer.ts';
import { NutCapturer } from './nut-capturer.ts';
import { ScreenshotDesktopCapturer } from './screenshot-desktop-capturer.ts';
import { Win32Capturer } from './win32-capturer.ts';
import { X11Capturer } from './x11-capturer.ts';
import { xlibAvailable } from '../../native/x11.ts';

export * from './capturer.ts';
export type CaptureBackend = 'auto' | 'x11' | 'nut' | 'screenshot-desktop';
export const CAPTURE_BACKENDS: readonly CaptureBackend[] = ['auto', 'x11', 'nut', 'screenshot-desktop'];

let warned = false;

/**
 * `auto`, the in-process grab of each OS: on Windows BitBlt over every monitor (win32-capturer.ts);
 * on Linux XShm over Gamepilot's own X connection (x11-capturer.ts) when libX11 loads, else nut-js
 * with a warning; nut-js on macOS. `nut` is nut-js itself; screenshot-desktop the slow fallback.
 */
export function createCapturer(backend: CaptureBackend = 'auto', platform = process.platform): ScreenCapturer {
  if (backend === 'screenshot-desktop') return new ScreenshotDesktopCapturer();
  if (backend === 'nut') return new NutCapturer();
  if (backend === 'x11') return new X11Capturer();
  if (platform === 'win32') return new Win32Capturer();
  if (platform !== 'linux') return new NutCapturer();
  const can = xlibAvailable();
  if (can.ok) return new X11Capturer();
  if (!warned) {
    warned = true;
    process.emitWarning(`${can.why}; capturing through nut-js instead`, { code: 'GAMEPILOT_X11_CAPTURE' });
  }
  return new NutCapturer();
}
