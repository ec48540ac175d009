// `node --import ./tests/helpers/fake-electron.mjs dist-electron/main.mjs [args]`: the built app
// under plain Node, with a stand-in for Electron (the binary cannot run here). `electron` —
// imported by the bundle or required by a CommonJS dependency — resolves to
// fake-electron-module.mjs, which records what the app asks of Electron (FAKE_ELECTRON_LOG) and
// takes commands from the test over the IPC channel. The process looks like a packaged app's:
// argv without the script (the first argument is argv[1], as Squirrel passes it), and, with
// FAKE_ELECTRON_PLATFORM / FAKE_ELECTRON_EXEC_PATH, another platform and executable.
import { registerHooks } from 'node:module';
import path from 'node:path';

const fake = new URL('./fake-electron-module.mjs', import.meta.url).href;

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'electron' || specifier === 'electron/main') return { url: fake, shortCircuit: true };
    return next(specifier, context);
  },
});

process.env.FAKE_ELECTRON_ENTRY ??= path.resolve(process.argv[1] ?? '.');
process.argv.splice(1, 1);
if (process.env.FAKE_ELECTRON_PLATFORM)
  Object.defineProperty(process, 'platform', { value: process.env.FAKE_ELECTRON_PLATFORM });
if (process.env.FAKE_ELECTRON_EXEC_PATH) process.execPath = process.env.FAKE_ELECTRON_EXEC_PATH;
