/**
 * Child program of suspend.test.ts: suspends the pid given as argument through a real
 * ProcessFreezer (its registry in the config folder given as second argument), says "frozen"
 * on stdout, then waits to be killed — a crashed run that left a game suspended.
 */
import { ProcessFreezer, suspendedRegistry } from '../../electron/safety/suspended.ts';

const [pid, config] = process.argv.slice(2);
const freezer = new ProcessFreezer(suspendedRegistry(config!));
const stopped = await freezer.suspend(Number(pid));
process.stdout.write(`frozen ${JSON.stringify(stopped)}\n`);
setInterval(() => {}, 60_000);
