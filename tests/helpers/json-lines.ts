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
