/**
 * Electron Forge: packages the desktop app for Windows (Squirrel), macOS (DMG, zip) and
 * Linux (deb, zip). Native modules (libnut, sharp, uiohook) stay outside the asar archive.
 */
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
};

export default config;
