/**
 * A process that starts a private display and dies before the display is ready (as a sweep
 * killed mid-start does): prints the display number it was given, or nothing.
 */
import { startPrivateDisplay } from '../../electron/sweep/display.ts';

const from = Number(process.argv[2] ?? 600);
void startPrivateDisplay({ from });
// Xvfb is up (its socket exists) but "ready" is not written yet: openbox's 0.4 s start is under way.
const socket = (n: number) => `/tmp/.X11-unix/X${n}`;
const { existsSync } = await import('node:fs');
for (;;) {
  for (let n = from; n < from + 20; n++)
    if (existsSync(socket(n))) {
      process.stdout.write(`${n}\n`, () => process.kill(process.pid, 'SIGKILL'));
      await new Promise(() => {});
    }
  await new Promise((r) => setTimeout(r, 5));
}
