// Rewrites the README's command-line option reference from the commander declaration.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildProgram, type Actions } from '../electron/cli/program.ts';
import { optionReference, withReference } from '../electron/cli/reference.ts';

const README = path.resolve(import.meta.dirname, '..', 'README.md');
const program = buildProgram(new Proxy({} as Actions, { get: () => () => 0 }), () => {});
const before = readFileSync(README, 'utf8');
const after = withReference(before, optionReference(program));
if (after === before) console.log('README.md: the option reference is up to date');
else {
  writeFileSync(README, after);
  console.log('README.md: the option reference was rewritten');
}
