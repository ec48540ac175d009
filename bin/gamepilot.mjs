#!/usr/bin/env node
// Runs the TypeScript CLI straight from the checkout (tsx compiles on the fly).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../electron/cli/main.ts');
const code = await main(process.argv.slice(2));
// The command is done and its files are written: exit now rather than wait for idle
// keep-alive sockets or helper handles to time out (a stopped run must end at once).
// stdout is flushed first, so a --json result is never cut short.
process.stdout.write('', () => process.exit(code));
