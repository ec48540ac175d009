/**
 * A TypeScript helper under tests/helpers run in its own Node process (`node --import tsx`),
 * with its stdout read line by line: for tests whose claim is about processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './cli.ts';

export interface TsChild {
  child: ChildProcess;
  /** The next stdout line (lines already seen are not offered again). */
  line(timeoutMs?: number): Promise<string>;
  /** Exit code, or the signal that ended it. */
  exited: Promise<number | NodeJS.Signals | null>;
}

export function spawnTs(helper: string, args: string[], env: Record<string, string> = {}): TsChild {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'tests', 'helpers', helper), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const waiting: ((l: string) => void)[] = [];
  let buf = '';
  child.stdout!.on('data', (d) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const l = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const w = waiting.shift();
      if (w) w(l);
      else lines.push(l);
    }
  });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  return {
    child,
    exited,
    line(timeoutMs = 30_000) {
      const l = lines.shift();
      if (l !== undefined) return Promise.resolve(l);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`${helper}: no line within ${timeoutMs} ms`)), timeoutMs);
        exited.then((e) => reject(new Error(`${helper} ended (${e}) before printing a line`)));
        waiting.push((x) => {
          clearTimeout(t);
          resolve(x);
        });
      });
    },
  };
}
