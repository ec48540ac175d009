/**
 * Each test worker of a display suite plays on its own X display (display-setup.ts starts one
 * per worker) and keeps its own config folder (settings, logs, crash registries, the instance
 * lock), so two files that run at the same time never see each other's windows, input or files.
 * A worker claims the first display no live worker holds, with a lock file beside the suite's
 * config folder (electron/util/file-lock.ts: a dead holder's claim is taken over), for as long as
 * its process lives. VITEST_POOL_ID cannot name the display: in a run of several projects vitest
 * gave two e2e workers running at once the same id.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { type FileLock, tryLock } from '../../electron/util/file-lock.ts';

const displays = inject('displays');
const made = process.env.GAMEPILOT_TEST_CONFIG_MADE;
const claims = path.join(made ?? path.join(tmpdir(), 'gp-test-displays'), 'display-claims');

function claim(): { display: string; slot: number; lock: FileLock } {
  for (let round = 0; round < 600; round++) {
    for (const [slot, display] of displays.entries()) {
      const lock = tryLock(path.join(claims, `${display.replace(/\W/g, '_')}.lock`));
      if ('release' in lock) return { display, slot, lock };
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100); // a worker ending lets go in a moment
  }
  throw new Error(`no free test display among ${displays.join(', ')} within 60 s (claims in ${claims})`);
}

if (displays.length) {
  const { display, slot, lock } = claim();
  process.env.DISPLAY = display;
  process.on('exit', () => lock.release());
  // Only a folder the suite made for itself is divided (config-setup.ts); one a person gave is used as it is.
  if (made && process.env.GAMEPILOT_CONFIG_DIR === made) {
    const own = path.join(made, `worker-${slot + 1}`);
    mkdirSync(own, { recursive: true });
    process.env.GAMEPILOT_CONFIG_DIR = own;
  }
}
