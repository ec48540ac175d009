import { execFile } from 'node:child_process';

/** Runs a helper program and returns its stdout; rejects with its stderr on failure. */
export function run(cmd: string, args: string[], timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { timeout: timeoutMs, maxBuffer: 8 * 1024 * 1024, windowsHide: true },
      (err, stdout, stderr) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'ENOENT') reject(new Error(`${cmd} is not installed (needed for window control on this OS)`));
          else reject(new Error(`${cmd} ${args.join(' ')}: ${String(stderr || err.message).trim()}`));
        } else resolve(String(stdout));
      },
    );
  });
}
