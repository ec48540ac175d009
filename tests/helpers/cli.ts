import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const BIN = path.join(ROOT, 'bin', 'gamepilot.mjs');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The flags of a model run against the test server (tests/helpers/fake-openai.ts): `--agent vlm --model test-vlm --base-url …`. */
export function testModelArgs(baseURL: string): string[] {
  return ['--agent', 'vlm', '--model', 'test-vlm', '--base-url', baseURL];
}

/** The same model run as a spec's fields (prepareRun takes a RunSpec): `agent vlm`, `model test-vlm`, the server's URL. */
export function testModelSpec(baseUrl: string): { agent: 'vlm'; model: string; baseUrl: string } {
  return { agent: 'vlm', model: 'test-vlm', baseUrl };
}

/** Runs `gamepilot …` as a user would, in its own process. */
export function runCli(
  args: string[],
  opts: { env?: Record<string, string>; timeoutMs?: number; cwd?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, opts.env, opts.cwd);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gamepilot ${args.join(' ')} timed out\n${stderr}`));
    }, opts.timeoutMs ?? 110_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export function spawnCli(args: string[], env: Record<string, string> = {}, cwd = ROOT): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Parses the one JSON object a `--json` command prints on stdout. */
export function json<T = any>(r: CliResult): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`stdout is not one JSON object (exit ${r.code}):\n${r.stdout}\n--- stderr ---\n${r.stderr}`);
  }
}

/** A `gamepilot …` process the test talks to while it runs: its output so far, its exit, a wait for a line. */
export interface WatchedCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  /** Waits until stderr matches (failing the test, with stderr, when it does not in `ms`). */
  waitFor(re: RegExp, ms?: number): Promise<void>;
}

export function watchCli(args: string[], env: Record<string, string> = {}): WatchedCli {
  const child = spawnCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async waitFor(re, ms = 60_000) {
      const t0 = Date.now();
      while (!re.test(stderr) && Date.now() - t0 < ms) await new Promise((r) => setTimeout(r, 50));
      if (!re.test(stderr)) throw new Error(`gamepilot ${args[0]}: no line matching ${re} in ${ms} ms\n${stderr}`);
    },
  };
}

/** The first line a child prints on stdout (`gamepilot mcp --http` prints its URL there); rejects when it exits first. */
export function firstStdoutLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0]!.trim());
    });
    child.on('exit', (c) => reject(new Error(`${child.spawnargs.join(' ')} exited with ${c}: ${err}`)));
  });
}
