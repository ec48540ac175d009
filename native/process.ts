/**
 * Process primitives: listing, the tree under a pid, whether a pid may be suspended, and
 * suspending/resuming pids (SIGSTOP/SIGCONT on Linux and macOS, NtSuspendProcess/NtResumeProcess
 * on Windows). Who suspended what, and recovery after a crash, live in the core
 * (electron/safety/): this layer keeps no files.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { win32ProcessStartMs, win32Processes, win32Resume, win32Suspend } from './win32-process.ts';

/** Never suspended: system processes, shells and terminals, and what Gamepilot runs on (matched without a trailing .exe). */
const SYSTEM_NAMES =
  /^(systemd|init|launchd|kernel_task|WindowServer|loginwindow|Finder|Dock|Xorg|Xvfb|Xwayland|openbox|gnome-shell|kwin.*|mutter|xfwm4|dbus-daemon|pulseaudio|pipewire.*|sshd|node|electron|Gamepilot|System|System Idle Process|Registry|smss|csrss|wininit|winlogon|services|lsass|svchost|dwm|explorer|fontdrvhost|sihost|taskhostw|ctfmon|RuntimeBroker|conhost|cmd|powershell|pwsh|WindowsTerminal|OpenConsole)$/i;

export interface ProcInfo {
  pid: number;
  /** Parent pid; 0 where the listing does not say. On Windows it may name a parent that has since exited. */
  ppid: number;
  name: string;
  state?: string;
}

function linuxProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const [state, ppid] = stat.slice(close + 2).split(' ');
      out.push({ pid: Number(d), ppid: Number(ppid), name: stat.slice(stat.indexOf('(') + 1, close), state: state! });
    } catch {
      /* the process ended while we looked */
    }
  }
  return out;
}

function psProcs(): ProcInfo[] {
  const text = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,stat=,comm='], { encoding: 'utf8' });
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [pid, ppid, state, ...name] = l.trim().split(/\s+/);
      return { pid: Number(pid), ppid: Number(ppid), state: state!, name: path.basename(name.join(' ')) };
    });
}

/** Every process with its name (and parent, where the OS says). Throws when no listing can be had. */
export function listProcesses(): ProcInfo[] {
  return process.platform === 'linux' ? linuxProcs() : process.platform === 'win32' ? win32Processes() : psProcs();
}

/**
 * The process and all its descendants, parents first. Windows keeps a parent's pid after the
 * parent exits and reuses pids: there a child that started before its listed parent is not its child.
 */
export function processTree(root: number, procs = listProcesses()): number[] {
  const started = process.platform === 'win32' ? win32ProcessStartMs : () => undefined;
  const isChild = (child: number, parent: number) => {
    const c = started(child);
    const p = started(parent);
    return c === undefined || p === undefined || c >= p;
  };
  const out = [root];
  for (let i = 0; i < out.length; i++)
    for (const p of procs) if (p.ppid === out[i] && !out.includes(p.pid) && isChild(p.pid, p.ppid)) out.push(p.pid);
  return out;
}

/** Why this pid must not be suspended, or null when it may be. */
export function refusal(pid: number, procs = listProcesses()): string | null {
  if (!Number.isInteger(pid) || pid <= 1) return `pid ${pid} is not a game process`;
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  // Our parent even where the listing misses it: the shell or app that started us.
  const ours = new Set<number>([process.pid, process.ppid]);
  const climbed = new Set<number>();
  for (let p = byPid.get(process.pid); p && p.ppid > 0 && !climbed.has(p.pid); p = byPid.get(p.ppid)) {
    climbed.add(p.pid);
    ours.add(p.ppid);
  }
  for (const c of processTree(process.pid, procs)) ours.add(c);
  if (ours.has(pid)) return `pid ${pid} belongs to Gamepilot itself`;
  const name = byPid.get(pid)?.name;
  if (name && SYSTEM_NAMES.test(name.replace(/\.exe$/i, '')))
    return `pid ${pid} (${name}) is a system or shell process`;
  if (process.platform !== 'win32' && process.getuid && process.getuid() !== 0 && existsSync(`/proc/${pid}/status`)) {
    const uid = /Uid:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    if (uid !== undefined && Number(uid) !== process.getuid()) return `pid ${pid} belongs to another user`;
  }
  return null;
}

/** Linux process state letter ('T' = stopped), for checks and tests. */
export function processState(pid: number): string | undefined {
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    } catch {
      return undefined;
    }
  }
  return psProcs().find((p) => p.pid === pid)?.state?.[0];
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGSTOP (or NtSuspendProcess) for each pid, parents first. Check `refusal` before. */
export async function suspendPids(pids: number[]): Promise<void> {
  if (process.platform === 'win32') win32Suspend(pids);
  else for (const p of pids) signal(p, 'SIGSTOP');
}

/** SIGCONT (or NtResumeProcess) for each pid; synchronous so exit handlers can use it. */
export function resumePids(pids: number[]) {
  if (process.platform === 'win32') win32Resume(pids);
  else for (const p of pids) signal(p, 'SIGCONT');
}

function signal(pid: number, sig: NodeJS.Signals) {
  try {
    process.kill(pid, sig);
  } catch {
    /* gone already */
  }
}
