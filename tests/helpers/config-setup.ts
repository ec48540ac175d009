/**
 * Every suite gets a private config folder (GAMEPILOT_CONFIG_DIR) unless one is set: the
 * processes the tests start write their log file, settings and crash registries there, never
 * into the developer's own ~/.config/gamepilot.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

let made: string | undefined;

export function setup() {
  if (process.env.GAMEPILOT_CONFIG_DIR) return;
  made = mkdtempSync(path.join(tmpdir(), 'gp-test-config-'));
  process.env.GAMEPILOT_CONFIG_DIR = made;
  // Ours to divide: display-worker-setup.ts gives each worker of a display suite a folder in it.
  process.env.GAMEPILOT_TEST_CONFIG_MADE = made;
}

export function teardown() {
  if (made) rmSync(made, { recursive: true, force: true });
}
