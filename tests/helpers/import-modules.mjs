// Imports every module named on the command line (paths from the checkout), then says how many loaded.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const files = process.argv.slice(2);
for (const f of files) await import(pathToFileURL(path.resolve(f)).href);
console.log(`${files.length} modules loaded`);
