import type { WindowManager } from './types.ts';
import { createX11WindowManager } from './x11.ts';
import { Win32WindowManager } from './win32.ts';
import { MacWindowManager } from './macos.ts';

export * from './types.ts';

/** The window backend for this OS. Wayland sessions are served through XWayland windows only. */
export function createWindowManager(platform: NodeJS.Platform = process.platform): WindowManager {
  if (platform === 'win32') return new Win32WindowManager();
  if (platform === 'darwin') return new MacWindowManager();
  return createX11WindowManager();
}
