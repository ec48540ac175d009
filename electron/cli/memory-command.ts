/** `gamepilot memory list|clear`: the memory agent's long-term stores in the config folder. */
import { clearScope, listScopes, memoryFile } from '../agents/memory-store.ts';
import { defaultConfigDir } from '../util/paths.ts';
import { io } from './io.ts';
import { UsageError } from './options.ts';
import type { MemoryFlags } from './command-flags.ts';

export function memoryListCommand(o: MemoryFlags): number {
  const scopes = listScopes(defaultConfigDir());
  if (o.json) io.out(JSON.stringify({ scopes }));
  else if (!scopes.length) io.log(`no memory stores in ${defaultConfigDir()}/memory`);
  else
    for (const s of scopes)
      io.out(
        `${s.scope.padEnd(24)} ${s.memories < 0 ? 'damaged (moved aside when next used)' : `${s.memories} memories`}  ${s.bytes} bytes  ${s.file}`,
      );
  return 0;
}

export function memoryClearCommand(scope: string, o: MemoryFlags): number {
  let file: string;
  try {
    file = memoryFile(defaultConfigDir(), scope);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const cleared = clearScope(defaultConfigDir(), scope);
  if (o.json) io.out(JSON.stringify({ scope, cleared, file }));
  else io.log(`cleared ${cleared} memories of scope ${scope} (${file})`);
  return 0;
}
