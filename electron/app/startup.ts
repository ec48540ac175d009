/**
 * What the desktop app tells users about itself, as plain data (no `electron` import, so tests
 * check it as it is): its name with the version, the About panel, the application menu that
 * leads to it, and where the crash reporter keeps its dumps (locally, never uploaded).
 */
import path from 'node:path';

export const PRODUCT_NAME = 'Gamepilot';

/** The control window's title: the product and its version, e.g. "Gamepilot 0.1.0". */
export function appTitle(version: string): string {
  return `${PRODUCT_NAME} ${version}`;
}

/** Electron's crash dumps (minidumps): in the config folder, beside gamepilot.log. */
export function crashDumpsDir(configDir: string): string {
  return path.join(configDir, 'crashes');
}

/**
 * crashReporter.start's options: dumps are written to the crashDumps folder and stay there —
 * no upload, so no submitURL (Electron requires one only when uploadToServer is true).
 */
export const CRASH_REPORTER = { productName: PRODUCT_NAME, uploadToServer: false } as const;

/** app.setAboutPanelOptions: the version, and what it runs on (credits show on macOS and Windows). */
export function aboutPanelOptions(version: string, versions: { electron?: string; chrome?: string; node?: string }) {
  const runtime = [
    versions.electron && `Electron ${versions.electron}`,
    versions.chrome && `Chromium ${versions.chrome}`,
    versions.node && `Node.js ${versions.node}`,
  ].filter(Boolean);
  return {
    applicationName: PRODUCT_NAME,
    applicationVersion: version,
    ...(runtime.length ? { credits: runtime.join(' · ') } : {}),
  };
}

type MenuRole = 'appMenu' | 'fileMenu' | 'editMenu' | 'viewMenu' | 'windowMenu' | 'help' | 'about';

/**
 * The application menu: Electron's standard menus, with an About item (the macOS app menu has
 * one; on Windows and Linux it is under Help, where Electron's default menu links to
 * electronjs.org instead).
 */
export function appMenuTemplate(platform: NodeJS.Platform): { role: MenuRole; submenu?: { role: MenuRole }[] }[] {
  const standard = [{ role: 'fileMenu' }, { role: 'editMenu' }, { role: 'viewMenu' }, { role: 'windowMenu' }] as const;
  if (platform === 'darwin') return [{ role: 'appMenu' }, ...standard];
  return [...standard, { role: 'help', submenu: [{ role: 'about' }] }];
}
