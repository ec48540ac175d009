import type { ScreenCapturer } from './types.ts';
import { NutCapturer } from './nut-capturer.ts';
import { ScreenshotDesktopCapturer } from './screenshot-desktop-capturer.ts';
import { Win32Capturer } from './win32-capturer.ts';

export * from './types.ts';
export type CaptureBackend = 'nut' | 'screenshot-desktop';

/**
 * nut-js is the default everywhere it loads (on Windows the same GDI grab in-process, over every
 * monitor: win32-capturer.ts); screenshot-desktop is the fallback.
 */
export function createCapturer(backend: CaptureBackend = 'nut'): ScreenCapturer {
  if (backend === 'screenshot-desktop') return new ScreenshotDesktopCapturer();
  return process.platform === 'win32' ? new Win32Capturer() : new NutCapturer();
}
