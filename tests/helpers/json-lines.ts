import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';

/** Calls `each` with every JSON line a child writes on `stream` (blank lines skipped). */
export function onJsonLines(stream: Readable, each: (value: any) => void) {
  let buf = '';
  stream.on('data', (d) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (line) each(JSON.parse(line));
    }
  });
}

/** A child whose stdout is JSON lines (`--json` sweeps and workers), collected as they come. */
export interface JsonChild {
  child: ChildProcess;
  events: any[];
  exit: Promise<number | null>;
  stderr: () => string;
}

/** Follows `child`: its events in order (each also shown to `onEvent` as it arrives), its stderr, its exit code. */
export function followJson(child: ChildProcess, onEvent: (e: any) => void = () => {}): JsonChild {
  const events: any[] = [];
  let stderr = '';
  onJsonLines(child.stdout!, (e) => {
    events.push(e);
    onEvent(e);
  });
  child.stderr!.on('data', (d) => (stderr += d));
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, events, exit, stderr: () => stderr };
}
