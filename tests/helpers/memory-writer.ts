/**
 * A second memory-agent-like process on one memory scope: opens the store (as a run does at its
 * start), prints `ready`, waits for a line on stdin, then saves `count` memories of its own as
 * fast as it can, prints their ids as JSON and exits.
 */
import { MemoryStore } from '../../electron/agents/memory-store.ts';

const [configDir, scope, label, count] = process.argv.slice(2) as [string, string, string, string];
const store = MemoryStore.open(configDir, scope, (w) => process.stderr.write(`${w}\n`));
process.stdout.write('ready\n');
process.stdin.once('data', () => {
  const ids: string[] = [];
  for (let i = 0; i < Number(count); i++)
    ids.push(store.add({ text: `${label} learnt fact number ${i} about ${label}`, run: label, step: i }).id);
  process.stdout.write(`${JSON.stringify({ label, ids })}\n`);
  process.exit(0);
});
