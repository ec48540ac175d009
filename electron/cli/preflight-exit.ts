/**
 * A pre-flight on the command line: a failed check is one line on stderr and exit code 2 — the
 * code of a usage error, without the usage text, which would bury the line.
 */
import { PreflightError } from '../session/preflight.ts';
import { namedAsFlags } from '../run-spec.ts';
import { io } from './io.ts';

/** Runs the check; returns 2 after saying why when it fails, undefined when it passes. */
export async function preflightExit(check: () => Promise<void>): Promise<number | undefined> {
  try {
    await check();
    return undefined;
  } catch (err) {
    if (!(err instanceof PreflightError)) throw err;
    io.log(`error: ${err.as(namedAsFlags)}`);
    return 2;
  }
}
