/**
 * `gamepilot` command line. The commands and their options are declared once in program.ts
 * (commander); this is the entry: undo what a crashed run left, open the log file, parse, run,
 * and turn the outcome into an exit code — 0 done, 1 failed while running, 2 called wrongly
 * (an unknown command or option, a bad value, options that do not fit together: the message and
 * the command's usage go to stderr). Human-readable progress goes to stderr; with --json,
 * stdout carries exactly one JSON object.
 */
import { Command, CommanderError } from 'commander';
import { recoverCrashLeftovers } from '../safety/recovery.ts';
import { defaultConfigDir } from '../util/paths.ts';
import { addSecret, closeLog, errorFields, log, openLogFile } from '../util/log.ts';
import { io } from './io.ts';
import { UsageError } from './options.ts';
import { buildProgram, idcCommand } from './program.ts';
import type { Actions, IdcFlags } from './command-flags.ts';
import { idcOptionsFrom } from './idc-command.ts';
import type { IdcOptions } from '../reflection/idc.ts';

/**
 * A command whose module is loaded when it runs: the bundle splits each into its own chunk, so
 * `gamepilot games` does not load the run loop, the model client or the sweep queue.
 */
function later<A extends unknown[]>(
  load: () => Promise<(...args: A) => Promise<number> | number>,
): (...args: A) => Promise<number> {
  return async (...args) => (await load())(...args);
}

const ACTIONS: Actions = {
  windows: later(async () => (await import('./list-commands.ts')).windowsCommand),
  games: later(async () => (await import('./list-commands.ts')).gamesCommand),
  run: later(async () => (await import('./run-command.ts')).runCommand),
  bench: later(async () => (await import('./list-commands.ts')).benchCommand),
  record: later(async () => (await import('./record-command.ts')).recordCommand),
  idc: later(async () => (await import('./idc-command.ts')).idcCommandAction),
  arena: later(async () => (await import('./arena-command.ts')).arenaCommand),
  leaderboard: later(async () => (await import('./list-commands.ts')).leaderboardCommand),
  export: later(async () => (await import('./export-command.ts')).exportCommand),
  report: later(async () => (await import('./report-command.ts')).reportCommand),
  sync: later(async () => (await import('./sync-command.ts')).syncCommand),
  video: later(async () => (await import('./list-commands.ts')).videoCommand),
  web: later(async () => (await import('./web-command.ts')).webCommand),
  mcp: later(async () => (await import('./mcp-command.ts')).mcpCommand),
  memoryList: later(async () => (await import('./memory-command.ts')).memoryListCommand),
  memoryClear: later(async () => (await import('./memory-command.ts')).memoryClearCommand),
  profiles: later(async () => (await import('./profile-command.ts')).profilesCommand),
  profileNew: later(async () => (await import('./profile-command.ts')).profileNewCommand),
  profileCheck: later(async () => (await import('./profile-check-command.ts')).profileCheckCommand),
  milestonesExtract: later(async () => (await import('./milestones-command.ts')).milestonesExtractCommand),
  milestonesJudge: later(async () => (await import('./milestones-command.ts')).milestonesJudgeCommand),
  milestonesLabel: later(async () => (await import('./milestones-command.ts')).milestonesLabelCommand),
  milestonesAgreement: later(async () => (await import('./milestones-command.ts')).milestonesAgreementCommand),
  errorsJudge: later(async () => (await import('./errors-command.ts')).errorsJudgeCommand),
  errorsLabel: later(async () => (await import('./errors-command.ts')).errorsLabelCommand),
  suite: later(async () => (await import('./suite-command.ts')).suiteCommand),
  sweep: later(async () => (await import('./sweep-command.ts')).sweepCommand),
  worker: later(async () => (await import('./sweep-command.ts')).workerCommand),
};
const COMMANDS = new Set([...Object.keys(ACTIONS), 'profile', 'memory', 'milestones', 'errors']);

/** Keys given on the command line, so the log never shows them (the logger scrubs registered secrets). */
function registerArgvSecrets(argv: string[]) {
  argv.forEach((a, i) => {
    if (a === '--api-key') addSecret(argv[i + 1]);
    else if (a.startsWith('--api-key=')) addSecret(a.slice('--api-key='.length));
  });
}

export async function main(argv: string[]): Promise<number> {
  const command = argv[0];
  const started = performance.now();
  if (command && COMMANDS.has(command)) {
    registerArgvSecrets(argv);
    openLogFile(defaultConfigDir(), { shell: command === 'web' ? 'web' : 'cli' }, (w) => io.progress(`warning: ${w}`));
    log().info({ argv, node: process.version, platform: process.platform }, `gamepilot ${command}`);
    // What a crashed Gamepilot left (stopped games, held keys) is undone before anything else; the web shell does it itself.
    if (command !== 'web') recoverCrashLeftovers(defaultConfigDir(), io.log);
  }
  let code = 0;
  const program = buildProgram(ACTIONS, (c) => (code = c));
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      code = err.exitCode === 0 ? 0 : 2;
      if (code) log().warn({ code: err.code }, err.message);
    } else {
      code = 1;
      io.log(`gamepilot ${command}: ${(err as Error).message}`);
      log().error(errorFields(err), `gamepilot ${command} failed`);
    }
  }
  log().info({ code, ms: Math.round(performance.now() - started) }, `gamepilot ${command ?? ''} ended`);
  await closeLog();
  return code;
}

/** `gamepilot idc` options through the same declaration (for tests); a bad value throws commander's error. */
export function parseIdcArgs(args: string[]): { options: Omit<IdcOptions, 'log'>; json: boolean } {
  let flags: IdcFlags | undefined;
  const program = new Command('gamepilot').exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  idcCommand(program).action((o: IdcFlags) => {
    flags = o;
  });
  program.parse(['idc', ...args], { from: 'user' });
  if (!flags) throw new UsageError('idc: no options parsed');
  return { options: idcOptionsFrom(flags), json: !!flags.json };
}
