/**
 * Where the command line writes: results on stdout (with --json exactly one JSON object),
 * people's progress on stderr. `log` lines also go to the log file; `progress` lines do not
 * (a run's steps are logged by the session itself, with its run id).
 */
import { log as logger } from '../util/log.ts';

export interface CliIo {
  /** A line for people on stderr, also kept in the log file. */
  log(s: string): void;
  /** A progress line on stderr only. */
  progress(s: string): void;
  /** A result line on stdout. */
  out(s: string): void;
}

export const io: CliIo = {
  log: (s) => {
    process.stderr.write(`${s}\n`);
    if (/^(warning|error)\b|: (failed|error)\b/i.test(s)) logger().warn(s);
    else logger().info(s);
  },
  progress: (s) => process.stderr.write(`${s}\n`),
  out: (s) => process.stdout.write(`${s}\n`),
};
