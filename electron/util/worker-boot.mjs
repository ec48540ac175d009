// Starts a TypeScript worker from the checkout (CLI, web shell, tests): registers tsx in this
// worker thread, then loads the module named in workerData. The app's bundle does not need it.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.__entry);
