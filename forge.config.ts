/**
 * Electron Forge: packages the desktop app for Windows (Squirrel), macOS (DMG, zip) and
 * Linux (deb, zip). Native modules (libnut, sharp, uiohook) stay outside the asar archive.
 * The packaged binary's fuses are flipped so it cannot be turned into a general-purpose Node
 * runtime or debugged from outside, and runs only the app from its own, integrity-checked asar.
 */
import { execFileSync } from 'node:child_process';
import type { ForgeConfig } from '@electron-forge/shared-types';
import { MakerSquirrel } from '@electron-forge/maker-squirrel';
import { MakerZIP } from '@electron-forge/maker-zip';
import { MakerDeb } from '@electron-forge/maker-deb';
import { MakerDMG } from '@electron-forge/maker-dmg';
import { AutoUnpackNativesPlugin } from '@electron-forge/plugin-auto-unpack-natives';
import { FusesPlugin } from '@electron-forge/plugin-fuses';
import { FuseV1Options, FuseVersion, type FuseV1Config } from '@electron/fuses';

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

const config: ForgeConfig = {
  packagerConfig: {
    name: 'Gamepilot',
    executableName: 'gamepilot',
    asar: { unpack: '**/{*.node,libnut*,sharp*,@img/**,uiohook*}' },
    extraResource: ['prompts'],
    extendInfo: {
      NSAppleEventsUsageDescription: 'Gamepilot controls the game window you choose.',
    },
  },
  rebuildConfig: {},
  makers: [
    new MakerSquirrel({ name: 'gamepilot' }),
    new MakerZIP({}, ['darwin', 'linux']),
    new MakerDMG({ format: 'ULFO' }),
    new MakerDeb({
      options: { maintainer: 'Gamepilot', homepage: 'https://gamepilot.invalid', categories: ['Game', 'Development'] },
    }),
  ],
  plugins: [new AutoUnpackNativesPlugin({}), new FusesPlugin(FUSES)],
  hooks: {
    // Before `forge start` and packaging: the renderer (Vite) and the main/preload bundles (esbuild).
    generateAssets: async () => {
      execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build'], { stdio: 'inherit' });
      execFileSync(process.execPath, ['scripts/build-electron.mjs'], { stdio: 'inherit' });
    },
  },
};

export default config;
