/**
 * What a test file leaves behind. Every process a test file starts (Chromium, Xvfb, a game,
 * Redis, a worker, llama-server, a CLI) inherits GAMEPILOT_TEST_FILE from the file's worker, so
 * the processes still alive with that mark once the file's own hooks have run are ones it left.
 * Marked by environment, not by parentage: a detached Chromium or an Xvfb started with setsid
 * outlives the process that started it and is re-parented to init.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { processState } from '../../native/process.ts';

export const TEST_FILE_MARK = 'GAMEPILOT_TEST_FILE';

export interface Leftover {
  pid: number;
  /** The mark's value: `<worker pid>:<test file>`, the file's run that started it. */
  mark: string;
  state: string;
  command: string;
}

/**
 * Processes carrying a mark: `mark` exactly, or any mark whose file part is `file`; other than
 * `except` (the worker itself).
 */
export function markedProcesses(match: { mark?: string; file?: string }, except: readonly number[] = []): Leftover[] {
  const out: Leftover[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (except.includes(pid)) continue;
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
      const mark = env.find((e) => e.startsWith(`${TEST_FILE_MARK}=`))?.slice(TEST_FILE_MARK.length + 1);
      if (mark === undefined) continue;
      if (match.mark !== undefined && mark !== match.mark) continue;
      if (match.file !== undefined && mark.slice(mark.indexOf(':') + 1) !== match.file) continue;
      const state = processState(pid);
      if (state === undefined || state === 'Z') continue; // gone, or exited and not yet reaped
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').replace(/\0/g, ' ');
      // The head names the program, the tail its target (a view's --app URL, a run's folder).
      const shown = command.length > 320 ? `${command.slice(0, 160)} … ${command.slice(-160)}` : command;
      out.push({ pid, mark, state, command: shown });
    } catch {
      // gone while we looked, or not ours to read
    }
  }
  return out;
}

/**
 * Waits up to `graceMs` for the marked processes to end by themselves (a child told to stop in
 * an afterAll may take a moment), then kills what is left and returns it.
 */
export async function collectLeftovers(mark: string, except: readonly number[], graceMs: number): Promise<Leftover[]> {
  const until = Date.now() + graceMs;
  let left = markedProcesses({ mark }, except);
  while (left.length && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    left = markedProcesses({ mark }, except);
  }
  for (const p of left) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  return left;
}

/** One line per leftover, for an error message. */
export function describeLeftovers(left: readonly Leftover[]): string {
  return left.map((p) => `  pid ${p.pid} (${p.state}): ${p.command}`).join('\n');
}
