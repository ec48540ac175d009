/**
 * The recorder's window watcher thread: asks the OS ten times a second which window has focus
 * (keys typed into another window must not be kept) and twice a second where the target window
 * is. On X11 each question starts a helper program, and starting a process stalls the thread
 * that does it, so this runs here rather than on the thread that keeps the capture on time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createWindowManager } from '../../native/index.ts';
import type { WatchReport, WatchSetup } from './window-watch.ts';

const port = parentPort!;
const setup = workerData as WatchSetup;
const wm = createWindowManager();
let windowId = setup.windowId;
let stopped = false;
port.on('message', (m: { windowId?: string; stop?: true }) => {
  if (m.stop) stopped = true;
  if (m.windowId) windowId = m.windowId;
});

const send = (r: WatchReport) => port.postMessage(r);
for (let n = 0; !stopped; n++) {
  const t0 = Date.now();
  try {
    if (n % setup.boundsEvery === 0) {
      const w = await wm.get(windowId);
      send(
        !w
          ? { kind: 'gone', id: windowId }
          : w.minimized
            ? { kind: 'minimized', id: w.id }
            : { kind: 'bounds', id: w.id, bounds: w.bounds },
      );
    }
    send({ kind: 'focus', focused: (await wm.activeId()) === windowId });
  } catch (err) {
    send({ kind: 'error', message: (err as Error).message });
  }
  await new Promise((r) => setTimeout(r, Math.max(0, setup.focusMs - (Date.now() - t0))));
}
port.close();
