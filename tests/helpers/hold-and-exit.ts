/**
 * Presses Shift down through a real ActionExecutor, prints the outcome, and on any line from
 * stdin calls process.exit(3) at once: only the process `exit` handler can release the key.
 */
import { ActionExecutor } from '../../electron/input/executor.ts';
import { fullSizeGeometry } from '../../electron/input/coordinates.ts';

const executor = new ActionExecutor();
const geometry = fullSizeGeometry({ x: 0, y: 0, width: 200, height: 200 });
const outcomes = await executor.execute([{ kind: 'gui', type: 'KEY_DOWN', params: { key: 'shift' } }], geometry);
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
process.stdin.once('data', () => process.exit(3));
