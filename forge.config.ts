/**
 * Electron Forge: packages the desktop app for Windows (Squirrel), macOS (DMG, zip) and
 * Linux (deb, zip). Native modules (libnut, sharp, uiohook) stay outside the asar archive.
 */
import { execFileSync } from 'node:child_process';
import type { ForgeConfig } from '@electron-forge/shared-types';
import { MakerSquirrel } from '@electron-forge/maker-squirrel';
import { MakerZIP } from '@electron-forge/maker-zip';
import { MakerDeb } from '@electron-forge/maker-deb';
import { MakerDMG } from '@electron-forge/maker-dmg';
import { AutoUnpackNativesPlugin } from '@electron-forge/plugin-auto-unpack-natives';

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
    new MakerDeb({ options: { maintainer: 'Gamepilot', homepage: 'https://gamepilot.invalid', categories: ['Game', 'Development'] } }),
  ],
  plugins: [new AutoUnpackNativesPlugin({})],
  hooks: {
    // Before `forge start` and packaging: the renderer (Vite) and the main/preload bundles (esbuild).
    generateAssets: async () => {
      execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build'], { stdio: 'inherit' });
      execFileSync(process.execPath, ['scripts/build-electron.mjs'], { stdio: 'inherit' });
    },
  },
};

export default config;
