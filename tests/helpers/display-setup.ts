/**
 * Starts a private X display (Xvfb 1600×900 + openbox) for the suites that need real windows,
 * so tests never inject input into the developer's own desktop — the same private display a
 * sweep worker gets (electron/sweep/display.ts). GAMEPILOT_TEST_DISPLAY=:N reuses an existing
 * display instead.
 */
import { startPrivateDisplay, type PrivateDisplay } from '../../electron/sweep/display.ts';

let display: PrivateDisplay | undefined;

export async function setup() {
  if (process.env.GAMEPILOT_TEST_DISPLAY) {
    process.env.DISPLAY = process.env.GAMEPILOT_TEST_DISPLAY;
    return;
  }
  if (process.platform !== 'linux') return;
  display = await startPrivateDisplay({ size: '1600x900', from: 90 });
  process.env.DISPLAY = display.display;
}

export async function teardown() {
  await display?.close();
}
