/**
 * Each test worker of a display suite plays on its own X display (display-setup.ts starts one
 * per worker) and keeps its own config folder (settings, logs, crash registries, the instance
 * lock), so two files that run at the same time never see each other's windows, input or files.
 * VITEST_POOL_ID (1 … maxWorkers) names the worker; it is unique among the files running at once.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';

const displays = inject('displays');
const worker = Math.max(1, Number(process.env.VITEST_POOL_ID) || 1);
if (displays.length) process.env.DISPLAY = displays[(worker - 1) % displays.length];
// Only a folder the suite made for itself is divided (config-setup.ts); one a person gave is used as it is.
const made = process.env.GAMEPILOT_TEST_CONFIG_MADE;
if (made && process.env.GAMEPILOT_CONFIG_DIR === made) {
  const own = path.join(made, `worker-${worker}`);
  mkdirSync(own, { recursive: true });
  process.env.GAMEPILOT_CONFIG_DIR = own;
}
