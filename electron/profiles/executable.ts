/**
 * The executable name of a window's process, for profile matching: on Linux the first word of
 * its command line (a Windows game under Wine shows its .exe there), else the process name.
 */
import { readFileSync } from 'node:fs';
import { listProcesses } from '../../native/process.ts';

export function executableOf(pid: number | undefined): string | undefined {
  if (!pid) return undefined;
  try {
    if (process.platform === 'linux') {
      const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
      if (argv0) return argv0.split(/[\\/]/).pop();
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() || undefined;
    }
    return listProcesses().find((p) => p.pid === pid)?.name;
  } catch {
    return undefined; // gone, or not ours to read: match by title alone
  }
}
