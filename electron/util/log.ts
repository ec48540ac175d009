/**
 * The one logger of the core (pino). A shell (the CLI, the web shell, the app) opens it once
 * with `openLogFile`: JSON lines go to `gamepilot.log` in the config folder, rotated by size
 * (`gamepilot.1.log` … older), so a person can attach the file to a bug report. Until a shell
 * opens it (and in tests) the logger is silent. Human progress stays on stderr; this file is
 * additional.
 *
 * Secrets never reach the file: fields named like keys are redacted, and every line is
 * scrubbed of the values registered with `addSecret` (OPENAI_API_KEY, --api-key, the key saved
 * in Settings) and of bearer tokens, as a net under whatever a message happens to quote.
 */
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { pino, stdTimeFunctions, type Logger } from 'pino';
import { createStream, type RotatingFileStream } from 'rotating-file-stream';

export type { Logger };

export const LOG_FILE = 'gamepilot.log';
const REDACTED = '[redacted]';

const secrets = new Set<string>();
let root: Logger = pino({ enabled: false });
let stream: RotatingFileStream | undefined;
let file: string | undefined;

/** The process's logger (silent until a shell opened the log file). */
export function log(): Logger {
  return root;
}

/** The log file this process writes, if any. */
export function logFile(): string | undefined {
  return file;
}

/** A value (an API key) that must never appear in the log, whatever quotes it. */
export function addSecret(value: string | undefined | null): void {
  // Very short values would blank out ordinary text; no real key is that short.
  if (value && value.trim().length >= 4) secrets.add(value.trim());
}

/** `line` with every registered secret and bearer token replaced. */
export function scrubSecrets(line: string): string {
  let out = line;
  for (const s of secrets) {
    // The secret as written, and JSON-escaped once, twice, three times (a JSON text inside a field).
    for (let form = s, depth = 0; depth < 4; depth++) {
      if (out.includes(form)) out = out.split(form).join(REDACTED);
      const next = JSON.stringify(form).slice(1, -1);
      if (next === form) break;
      form = next;
    }
  }
  return out.replace(/(\bBearer\s+)[^\s"'\\]+/gi, `$1${REDACTED}`);
}

export interface LogFileOptions {
  /** Which shell writes: cli, web or app (on every line). */
  shell: 'cli' | 'web' | 'app';
  /** Rotate when the file reaches this size (rotating-file-stream syntax; default 5M). */
  size?: string;
  /** Rotated files kept (default 5). */
  keep?: number;
  level?: pino.Level;
}

/**
 * Starts writing the log to `<dir>/gamepilot.log` and returns its path. A failure to open the
 * file (a read-only folder) leaves the logger silent and is reported once through `warn`; it
 * never stops the command.
 */
export function openLogFile(dir: string, opts: LogFileOptions, warn: (s: string) => void = () => {}): string {
  if (stream) return file!;
  addSecret(process.env.OPENAI_API_KEY);
  file = path.join(dir, LOG_FILE);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    warn(`no log file (${(err as Error).message})`);
    return file;
  }
  const s = createStream((index) => (index ? `gamepilot.${index}.log` : LOG_FILE), {
    path: dir,
    size: (opts.size ?? '5M') as '5M',
    rotate: opts.keep ?? 5,
    mode: 0o600,
  });
  let failed = false;
  s.on('error', (err) => {
    if (failed) return;
    failed = true;
    root = pino({ enabled: false });
    warn(`the log file ${file} cannot be written (${err.message}); logging stopped`);
  });
  stream = s;
  root = pino(
    {
      level: opts.level ?? 'info',
      base: { pid: process.pid, shell: opts.shell },
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: {
        paths: [
          'apiKey',
          'api_key',
          '*.apiKey',
          '*.api_key',
          '*.*.apiKey',
          'headers.authorization',
          '*.headers.authorization',
        ],
        censor: REDACTED,
      },
      hooks: { streamWrite: scrubSecrets },
    },
    s,
  );
  return file;
}

/** Flushes and closes the log file (before the process exits: its writes are asynchronous). */
export async function closeLog(): Promise<void> {
  const s = stream;
  if (!s) return;
  stream = undefined;
  root = pino({ enabled: false });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 2000); // a stuck disk must not hold the exit forever
    s.end(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A one-line description of an error for a log line: message and stack. */
export function errorFields(err: unknown): { err: { message: string; stack?: string } } {
  const e = err instanceof Error ? err : new Error(String(err));
  return { err: { message: e.message, ...(e.stack ? { stack: e.stack } : {}) } };
}
