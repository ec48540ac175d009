/**
 * Electron Forge: packages the desktop app for Windows (Squirrel), macOS (DMG, zip) and
 * Linux (deb, zip). What ships is decided in scripts/package-contents.ts: the bundle
 * (dist-electron/), the renderer (dist/renderer/), prompts/, every games/<id>/profile.yaml and
 * package.json, at the layout electron/util/resources.ts reads inside resources/app.asar, plus
 * the packages the bundle imports and what they need; no sources, tests, docs or dev tools.
 * Native code (addons, sharp's libvips, a Windows capture helper) is unpacked from the asar.
 * The packaged binary's fuses are flipped so it cannot be turned into a general-purpose Node
 * runtime or debugged from outside, and runs only the app from its own, integrity-checked asar.
 * `npm run test:package` packages with a stand-in Electron and checks the result.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ForgeConfig } from '@electron-forge/shared-types';
import { MakerSquirrel } from '@electron-forge/maker-squirrel';
import { MakerZIP } from '@electron-forge/maker-zip';
import { MakerDeb } from '@electron-forge/maker-deb';
import { MakerDMG } from '@electron-forge/maker-dmg';
import { FusesPlugin } from '@electron-forge/plugin-fuses';
import { FuseV1Options, FuseVersion, type FuseV1Config } from '@electron/fuses';
import { packageIgnore } from './scripts/package-contents.ts';

const ROOT = path.dirname(fileURLToPath(import.meta.url));

export const FUSES = {
  version: FuseVersion.V1,
  // ELECTRON_RUN_AS_NODE must not turn the signed app into a plain Node runtime.
  [FuseV1Options.RunAsNode]: false,
  // Cookies on disk encrypted with the OS keychain key, like the API key.
  [FuseV1Options.EnableCookieEncryption]: true,
  // No NODE_OPTIONS (--require, --inspect…) and no --inspect/--inspect-brk arguments.
  [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
  [FuseV1Options.EnableNodeCliInspectArguments]: false,
  // The app code is the asar the packager hashed, and nothing outside it.
  [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
  [FuseV1Options.OnlyLoadAppFromAsar]: true,
} satisfies FuseV1Config;

/**
 * Left outside the asar (in app.asar.unpacked; Electron redirects reads there): what the OS
 * loads or runs itself, which it cannot do from inside an archive. Every native addon (koffi,
 * sharp, uiohook-napi, libnut, msgpackr-extract, jpeg-turbo) and every shared library, which
 * addons load from beside themselves (jpeg-turbo's libturbojpeg.so.0, libnut's MSVC runtime
 * DLLs on Windows); sharp's platform packages whole, since its addon finds libvips beside it; and screenshot-desktop's Windows helper, a .bat that compiles
 * and runs an .exe in its own folder. Matched against absolute paths, so `{.**,**}` also lets a
 * dot-folder (a ~/.cache checkout) match.
 */
export const UNPACK = `**/{.**,**}/**/{*.node,*.dll,*.dylib,*.so,*.so.*,node_modules/@img/**,node_modules/screenshot-desktop/lib/win32/**}`;

/** `npm run test:package`: packaging with a stand-in Electron, whose fuses cannot be flipped. */
const PACKAGE_TEST = process.env.GAMEPILOT_PACKAGE_TEST === '1';

const config: ForgeConfig = {
  packagerConfig: {
    name: 'Gamepilot',
    executableName: 'gamepilot',
    asar: { unpack: UNPACK },
    // Exactly what scripts/package-contents.ts lets through, node_modules included (Forge's
    // own pruning would keep every production dependency, renderer-only ones too).
    ignore: packageIgnore(ROOT),
    prune: false,
    // node_modules may be a symlink (a worktree sharing another checkout's): copy what it points at.
    derefSymlinks: true,
    // A folder holding electron-v<version>-<platform>-<arch>.zip, for packaging without a download.
    ...(process.env.GAMEPILOT_ELECTRON_ZIP_DIR ? { electronZipDir: process.env.GAMEPILOT_ELECTRON_ZIP_DIR } : {}),
    extendInfo: {
      NSAppleEventsUsageDescription: 'Gamepilot controls the game window you choose.',
    },
  },
  // Every native module shipped is a prebuilt N-API addon (koffi, sharp, uiohook-napi, libnut,
  // msgpackr-extract's napi build): one binary serves Node and every Electron, so nothing is
  // rebuilt. Otherwise @electron/rebuild runs node-gyp on those with a binding.gyp (uiohook-napi)
  // against Electron's headers, which it downloads: offline, packaging fails there.
  rebuildConfig: { onlyModules: [] },
  makers: [
    new MakerSquirrel({ name: 'gamepilot' }),
    new MakerZIP({}, ['darwin', 'linux']),
    new MakerDMG({ format: 'ULFO' }),
    new MakerDeb({
      options: { maintainer: 'Gamepilot', homepage: 'https://gamepilot.invalid', categories: ['Game', 'Development'] },
    }),
  ],
  // The fuses are bytes in the real Electron binary; the test's stand-in has none to flip.
  plugins: PACKAGE_TEST ? [] : [new FusesPlugin(FUSES)],
  hooks: {
    // Before `forge start` and packaging: the renderer (Vite) and the main/preload bundles (esbuild).
    generateAssets: async () => {
      execFileSync(
        process.execPath,
        [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'],
        {
          cwd: ROOT,
          stdio: 'inherit',
        },
      );
      execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-electron.mjs')], { cwd: ROOT, stdio: 'inherit' });
    },
  },
};

export default config;
