/**
 * A private X display (Xvfb + openbox) for one sweep worker or one test run, so inputs never
 * cross between workers and no desktop is needed. Both servers run under a small shell in a
 * process group of their own that holds our end of a pipe: when we close it — or die, even by
 * SIGKILL — the shell kills the whole group, so no Xvfb outlives its owner.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface PrivateDisplay {
  /** e.g. ":101" */
  display: string;
  /** The process group (the shell's pid) holding Xvfb and openbox. */
  pgid: number;
  close(): Promise<void>;
}

export interface DisplayOptions {
  /** Screen size, e.g. "1280x800". */
  size?: string;
  /** First display number tried. */
  from?: number;
  /** Start openbox (a window manager: focus, raise, decorations like a desktop). */
  windowManager?: boolean;
}

// $1 display number, $2 screen WxHxD, $3 1 = start openbox. Exit 3: the number was taken.
// SIGPIPE ignored: an owner that dies while the display starts closes the pipe before "ready" is
// written, and the shell must still reach its cleanup instead of dying of the write (found by
// the chaos test: a sweep killed mid-start left Xvfb and openbox running).
const SCRIPT = `
trap '' PIPE
Xvfb ":$1" -screen 0 "$2" -nolisten tcp -ac </dev/null >/dev/null 2>&1 &
x=$!
n=0
while [ ! -S "/tmp/.X11-unix/X$1" ]; do
  kill -0 $x 2>/dev/null || exit 3
  n=$((n+1)); [ $n -gt 300 ] && { kill $x; exit 4; }
  sleep 0.05
done
sleep 0.2
kill -0 $x 2>/dev/null || exit 3
[ "$(tr -d ' \\n' < "/tmp/.X$1-lock" 2>/dev/null)" = "$x" ] || { kill $x; exit 3; }
if [ "$3" = 1 ]; then DISPLAY=":$1" openbox </dev/null >/dev/null 2>&1 & sleep 0.4; fi
echo ready
cat >/dev/null
kill -TERM 0
`;

function taken(n: number): boolean {
  return existsSync(`/tmp/.X11-unix/X${n}`) || existsSync(`/tmp/.X${n}-lock`);
}

function tryDisplay(n: number, size: string, wm: boolean): Promise<ChildProcess | 'taken'> {
  return new Promise((resolve, reject) => {
    const sh = spawn('sh', ['-c', SCRIPT, 'gamepilot-display', String(n), `${size}x24`, wm ? '1' : '0'], {
      detached: true,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let out = '';
    sh.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('ready')) resolve(sh);
    });
    sh.on('error', reject);
    sh.on('exit', (code) => {
      if (code === 3) resolve('taken');
      else reject(new Error(`Xvfb :${n} did not start (exit ${code}; are the xvfb and openbox packages installed?)`));
    });
  });
}

export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export function killGroup(pgid: number, signal: NodeJS.Signals = 'SIGTERM') {
  try {
    process.kill(-pgid, signal);
  } catch {
    /* already gone */
  }
}

/** Starts Xvfb (+ openbox) on the first free display number from `from`. */
export async function startPrivateDisplay(opts: DisplayOptions = {}): Promise<PrivateDisplay> {
  if (process.platform !== 'linux') throw new Error('private displays need Linux (Xvfb)');
  const size = opts.size ?? '1280x800';
  for (let n = opts.from ?? 100; n < 1000; n++) {
    if (taken(n)) continue;
    const sh = await tryDisplay(n, size, opts.windowManager ?? true);
    if (sh === 'taken') continue;
    sh.stdout!.removeAllListeners('data');
    sh.stdout!.resume();
    const pgid = sh.pid!;
    const exited = new Promise<void>((r) => (sh.exitCode !== null ? r() : sh.once('exit', () => r())));
    return {
      display: `:${n}`,
      pgid,
      async close() {
        sh.stdin!.end();
        await exited;
        // The shell is gone; wait for the group (Xvfb, openbox) to go too, forcing it after 3 s.
        const started = Date.now();
        while (groupAlive(pgid)) {
          if (Date.now() - started > 3000) killGroup(pgid, 'SIGKILL');
          await new Promise((r) => setTimeout(r, 25));
        }
      },
    };
  }
  throw new Error('no free X display number');
}
