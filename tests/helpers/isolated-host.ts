/**
 * A machine of its own for a queue worker, on this one: its own checkout copy, HOME, config,
 * cache and temp folders, runs folder and (the worker starts them) displays, and an environment
 * that inherits nothing but PATH — so whatever two such workers share can only pass through what
 * the test hands both: the Redis URL and the bucket.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './cli.ts';

/** Left out of the copy: history and the suite's own output. */
const NOT_COPIED = new Set(['.git', 'test-artifacts']);

export interface IsolatedHost {
  name: string;
  root: string;
  checkout: string;
  home: string;
  tmp: string;
  runs: string;
  /** `gamepilot …` from this host's checkout, in this host's environment plus `extra`. */
  spawnCli(args: string[], extra?: Record<string, string>): ChildProcess;
}

/**
 * The checkout is copied as hard links (a second tree of names over the same files: about half
 * a second for node_modules' 33,000 files here), or, across filesystems, copied with its
 * node_modules linked.
 */
function copyCheckout(dest: string) {
  mkdirSync(dest, { recursive: true });
  for (const name of readdirSync(ROOT)) {
    if (NOT_COPIED.has(name)) continue;
    try {
      execFileSync('cp', ['-al', path.join(ROOT, name), dest]);
    } catch {
      if (name === 'node_modules') symlinkSync(path.join(ROOT, name), path.join(dest, name));
      else execFileSync('cp', ['-a', path.join(ROOT, name), dest]);
    }
  }
}

export function isolatedHost(parent: string, name: string): IsolatedHost {
  const root = path.join(parent, name);
  const dirs = {
    checkout: path.join(root, 'checkout'),
    home: path.join(root, 'home'),
    tmp: path.join(root, 'tmp'),
    runs: path.join(root, 'runs'),
  };
  for (const d of [dirs.home, dirs.tmp, dirs.runs]) mkdirSync(d, { recursive: true });
  copyCheckout(dirs.checkout);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    HOME: dirs.home,
    XDG_CONFIG_HOME: path.join(dirs.home, '.config'),
    XDG_CACHE_HOME: path.join(dirs.home, '.cache'),
    XDG_DATA_HOME: path.join(dirs.home, '.local', 'share'),
    TMPDIR: dirs.tmp,
  };
  return {
    name,
    root,
    ...dirs,
    spawnCli: (args, extra = {}) =>
      spawn(process.execPath, [path.join(dirs.checkout, 'bin', 'gamepilot.mjs'), ...args], {
        cwd: dirs.checkout,
        env: { ...env, ...extra },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
  };
}
