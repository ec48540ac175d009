/**
 * Lets go of held keys and mouse buttons synchronously (nut-js's own API is async, which a
 * process `exit` handler cannot wait for): through libnut's native binding, and on Windows
 * through SendInput by scan code, as the executor pressed them there. Items are nut-js Key
 * names ("LeftShift") and `mouse:left|right|middle`, as the executor tracks them.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { releaseWin32Sync } from '../../native/win32-input.ts';

interface LibnutPaths {
  libnut: string;
  binding: string;
  shared: string;
}
export interface Released {
  released: string[];
  /** Items that name no key or button: nothing to release. */
  unknown: string[];
  error?: string;
}
interface Libnut {
  keyToggle(key: string, direction: 'up' | 'down', modifiers?: string[]): void;
  mouseToggle(direction: 'up' | 'down', button: string): void;
}

/**
 * Loads libnut with `load` and releases each item: returns those released and those that name
 * no key or button libnut knows. It refers to no outside name: it also runs, as its source
 * text, in a child process (see releaseHeldInChild).
 */
function releaseWithLibnut(load: (id: string) => unknown, paths: LibnutPaths, items: string[]): Released {
  const { DefaultKeyboardAction } = load(paths.libnut) as {
    DefaultKeyboardAction: { keyLookup(k: number): string | undefined };
  };
  const { Key } = load(paths.shared) as { Key: Record<string, number | string> };
  const { libnut } = load(paths.binding) as { libnut: Libnut };
  const released: string[] = [];
  const unknown: string[] = [];
  for (const item of items) {
    try {
      if (item.startsWith('mouse:')) {
        const button = item.slice('mouse:'.length);
        if (button !== 'left' && button !== 'right' && button !== 'middle') {
          unknown.push(item);
          continue;
        }
        libnut.mouseToggle('up', button);
      } else {
        const code = Key[item];
        const native = typeof code === 'number' ? DefaultKeyboardAction.keyLookup(code) : undefined;
        if (!native) {
          unknown.push(item);
          continue;
        }
        libnut.keyToggle(native, 'up', []);
      }
      released.push(item);
    } catch {
      /* keep releasing the rest */
    }
  }
  return { released, unknown };
}

/** Where libnut and nut-js's Key enum load from: resolved through nut-js, whose dependencies they are. */
function modulePaths(): LibnutPaths {
  const fromNut = createRequire(createRequire(import.meta.url).resolve('@nut-tree-fork/nut-js'));
  return {
    libnut: fromNut.resolve('@nut-tree-fork/libnut'),
    binding: fromNut.resolve('@nut-tree-fork/libnut/dist/import_libnut'),
    shared: fromNut.resolve('@nut-tree-fork/shared'),
  };
}

/**
 * In this process, synchronously. Only for a process that has already injected input: its
 * display connection is known to work (libnut crashes the process when it cannot open one).
 */
export function releaseHeldSync(items: string[]): Released {
  if (!items.length) return { released: [], unknown: [] };
  if (process.platform === 'win32') return releaseWin32Sync(items);
  return releaseWithLibnut(createRequire(import.meta.url), modulePaths(), items);
}

/**
 * In a short-lived child process, for recovery at start: if the display cannot be reached,
 * libnut's crash takes down the child, not this command. Returns what was released. (In this
 * process on Windows.)
 */
export function releaseHeldInChild(items: string[]): Released {
  if (!items.length) return { released: [], unknown: [] };
  // SendInput cannot take the process down with it: no helper needed on Windows.
  if (process.platform === 'win32') {
    try {
      return releaseWin32Sync(items);
    } catch (err) {
      return { released: [], unknown: [], error: (err as Error).message };
    }
  }
  if (process.platform === 'linux' && !process.env.DISPLAY)
    return { released: [], unknown: [], error: 'no DISPLAY to send the key releases to' };
  const script = `process.stdout.write(JSON.stringify((${releaseWithLibnut.toString()})(require, ${JSON.stringify(modulePaths())}, ${JSON.stringify(items)})));`;
  const r = spawnSync(process.execPath, ['-e', script], {
    encoding: 'utf8',
    timeout: 15_000,
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
  });
  if (r.status === 0) {
    try {
      return JSON.parse(r.stdout) as Released;
    } catch {
      /* fall through to the error below */
    }
  }
  const why =
    r.error?.message ??
    (r.signal
      ? `the release helper died of ${r.signal} (is the display reachable?)`
      : `the release helper failed: ${r.stderr.trim().split('\n').pop() ?? r.status}`);
  return { released: [], unknown: [], error: why };
}
