/**
 * Child program of held-input.test.ts: holds a key down through a real ActionExecutor (held
 * input recorded in GAMEPILOT_CONFIG_DIR, released by the process exit handler) and prints the
 * outcome. Then, by default, on any line from stdin it calls process.exit(3) at once; killed
 * instead, it leaves the key down for the next start's recovery. With `--stop-hotkey` it holds Z
 * and waits for the global stop hotkey (Ctrl+Shift+F12), which releases every held key, as a
 * run stopping does, and exits.
 */
import { ActionExecutor } from '../../electron/input/executor.ts';
import { startStopHotkey } from '../../electron/input/hook-stop-hotkey.ts';
import { fullSizeGeometry } from '../../electron/input/coordinates.ts';

const hotkey = process.argv.includes('--stop-hotkey');
const executor = new ActionExecutor();
const geometry = fullSizeGeometry({ x: 0, y: 0, width: 200, height: 200 });
if (hotkey) {
  const stop = await startStopHotkey('CommandOrControl+Shift+F12', async () => {
    const released = await executor.releaseAll();
    stop();
    process.stdout.write(`stopped ${JSON.stringify(released)}\n`);
    process.exit(0);
  });
}
const key = hotkey ? 'z' : 'shift';
const outcomes = await executor.execute([{ kind: 'gui', type: 'KEY_DOWN', params: { key } }], geometry);
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
if (!hotkey) process.stdin.once('data', () => process.exit(3));
