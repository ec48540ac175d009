/**
 * The Electron app's entry (dist-electron/main.mjs): what must happen before the app itself
 * loads, in this order.
 * 1. Squirrel.Windows events: the installer starts the app with --squirrel-install (or
 *    -updated, -uninstall, -obsolete); electron-squirrel-startup makes or removes the shortcuts
 *    and this launch quits at once.
 * 2. The single-instance lock: a second launch quits at once; the first gets 'second-instance'
 *    and brings its control window forward (shell.ts).
 * 3. The crash reporter: dumps in the config folder's crashes/ (startup.ts), never uploaded.
 * Only then is the app (shell.ts, with the core and its native modules) imported.
 */
import { app, crashReporter } from 'electron';
import { createRequire } from 'node:module';
import { defaultConfigDir } from '../util/paths.ts';
import { CRASH_REPORTER, crashDumpsDir } from './startup.ts';

// CommonJS that does its work when loaded, so it is required here rather than imported (an
// import would be hoisted); its export is true when this launch was a Squirrel event.
const squirrelEvent = createRequire(import.meta.url)('electron-squirrel-startup') as boolean;

if (squirrelEvent || !app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.setPath('crashDumps', crashDumpsDir(defaultConfigDir())); // before start(): it reads the path once
  crashReporter.start(CRASH_REPORTER);
  import('./shell.ts')
    .then((shell) => shell.runApp())
    .catch((err: unknown) => {
      console.error(err);
      app.exit(1);
    });
}
