import type { ScreenCapturer } from './types.ts';
import { NutCapturer } from './nut-capturer.ts';
import { ScreenshotDesktopCapturer } from './screenshot-desktop-capturer.ts';

export * from './types.ts';
export type CaptureBackend = 'nut' | 'screenshot-desktop';

/** nut-js is the default everywhere it loads; screenshot-desktop is the fallback. */
export function createCapturer(backend: CaptureBackend = 'nut'): ScreenCapturer {
  return backend === 'screenshot-desktop' ? new ScreenshotDesktopCapturer() : new NutCapturer();
}
