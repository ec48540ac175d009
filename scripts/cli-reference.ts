// Rewrites the command-line option reference in docs/cli.md from the commander declaration
// (tests/unit/cli.test.ts fails when the page and the declaration disagree).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildProgram } from '../electron/cli/program.ts';
import type { Actions } from '../electron/cli/command-flags.ts';
import { optionReference, withReference } from '../electron/cli/reference.ts';

const CLI_DOC = path.resolve(import.meta.dirname, '..', 'docs', 'cli.md');

const program = buildProgram(new Proxy({} as Actions, { get: () => () => 0 }), () => {});
const before = readFileSync(CLI_DOC, 'utf8');
const after = withReference(before, optionReference(program));
if (after === before) console.log('docs/cli.md: the option reference is up to date');
else {
  writeFileSync(CLI_DOC, after);
  console.log('docs/cli.md: the option reference was rewritten');
}
