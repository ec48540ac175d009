/**
 * `gamepilot run …` parsed in-process, as the command line parses it: the flags the command's
 * action gets (checked there by runFrom, as the real action checks them before anything opens),
 * the exit code, and what went to stderr.
 */
import { CommanderError } from 'commander';
import { buildProgram } from '../../electron/cli/program.ts';
import type { Actions, RunFlags } from '../../electron/cli/command-flags.ts';
import { runFrom } from '../../electron/cli/run-command.ts';

export async function runFlags(
  argv: string[],
): Promise<{ code: number | undefined; flags?: RunFlags; stderr: string }> {
  let flags: RunFlags | undefined;
  const err: string[] = [];
  let code: number | undefined;
  const actions = new Proxy({} as Actions, {
    get: (_t, name) =>
      name === 'run'
        ? async (o: RunFlags) => {
            flags = o;
            runFrom(o); // the rules between flags
            return 0;
          }
        : () => 0,
  });
  const program = buildProgram(actions, (c) => (code = c), { writeOut: () => {}, writeErr: (s) => err.push(s) });
  try {
    await program.parseAsync(['run', ...argv], { from: 'user' });
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    code = 2;
  }
  return { code, ...(flags ? { flags } : {}), stderr: err.join('') };
}
