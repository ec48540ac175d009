/**
 * Child program of held-input.test.ts: holds Shift down through a real ActionExecutor (held
 * input recorded in GAMEPILOT_CONFIG_DIR, released by the process exit handler), prints the
 * outcome, and on any line from stdin calls process.exit(3) at once. Killed instead, it leaves
 * the key down for the next start's recovery.
 */
import { ActionExecutor } from '../../electron/input/executor.ts';

const executor = new ActionExecutor();
const geometry = {
  window: { x: 0, y: 0, width: 200, height: 200 },
  imageScale: 1,
  imageWidth: 200,
  imageHeight: 200,
  inputScale: 1,
};
const outcomes = await executor.execute([{ kind: 'gui', type: 'KEY_DOWN', params: { key: 'shift' } }], geometry);
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
process.stdin.once('data', () => process.exit(3));
