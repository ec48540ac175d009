/**
 * Holds a lock until killed: `file <path>` takes `<path>.lock` (util/file-lock.ts), `sweep <dir>`
 * the sweep lock of a `.sweep` folder (sweep/pool.ts). Prints the lock file's owner as JSON
 * once it holds it, then waits (a test SIGKILLs it: nothing gets to release the lock).
 */
import path from 'node:path';
import { lockFileOf, lockSync } from '../../electron/util/file-lock.ts';
import { currentOwner } from '../../electron/util/owner.ts';
import { takeSweepLock } from '../../electron/sweep/pool.ts';

const [kind, where] = process.argv.slice(2) as ['file' | 'sweep', string];
if (kind === 'file') lockSync(lockFileOf(where));
else takeSweepLock(where);
const lock = kind === 'file' ? lockFileOf(where) : path.join(where, 'lock.json');
process.stdout.write(`${JSON.stringify({ lock, owner: currentOwner() })}\n`);
setInterval(() => {}, 60_000);
