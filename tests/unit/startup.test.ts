/**
 * What the desktop app says about itself (electron/app/startup.ts): the About item is reachable
 * on every platform, the About panel names the version and the runtime, and the crash reporter
 * never uploads. The bundle test (electron-app-bundle.test.ts) checks that the app uses them.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  aboutPanelOptions,
  appMenuTemplate,
  appTitle,
  CRASH_REPORTER,
  crashDumpsDir,
} from '../../electron/app/startup.ts';

describe('startup', () => {
  it('has an About item on every platform: the macOS app menu, Help elsewhere', () => {
    expect(appMenuTemplate('darwin')[0]).toEqual({ role: 'appMenu' }); // Electron's appMenu role holds About
    for (const platform of ['win32', 'linux'] as const) {
      const help = appMenuTemplate(platform).find((m) => m.role === 'help');
      expect(help?.submenu, platform).toEqual([{ role: 'about' }]);
    }
  });

  it('the About panel and the title carry the version; the panel credits the runtime it knows of', () => {
    expect(appTitle('1.2.3')).toBe('Gamepilot 1.2.3');
    expect(aboutPanelOptions('1.2.3', { electron: '45.5.0', chrome: '140.0', node: '22.20.0' })).toEqual({
      applicationName: 'Gamepilot',
      applicationVersion: '1.2.3',
      credits: 'Electron 45.5.0 · Chromium 140.0 · Node.js 22.20.0',
    });
    expect(aboutPanelOptions('1.2.3', {})).not.toHaveProperty('credits');
  });

  it('crash dumps stay in the config folder and are never uploaded', () => {
    expect(crashDumpsDir('/home/u/.config/gamepilot')).toBe(path.join('/home/u/.config/gamepilot', 'crashes'));
    expect(CRASH_REPORTER.uploadToServer).toBe(false);
    expect(CRASH_REPORTER).not.toHaveProperty('submitURL');
  });
});
