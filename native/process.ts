/**
 * Suspends and resumes a game's process tree: SIGSTOP/SIGCONT on Linux and macOS,
 * NtSuspendProcess/NtResumeProcess on Windows. Refuses to touch this app, its ancestors and
 * children, and system processes. Every suspended pid is written to a registry file first, so
 * a crashed run can be recovered (`recoverSuspended`) and nothing is left stopped.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { run } from './exec.ts';

const SYSTEM_NAMES = /^(systemd|init|launchd|kernel_task|WindowServer|loginwindow|Finder|Dock|explorer\.exe|csrss\.exe|winlogon\.exe|dwm\.exe|lsass\.exe|services\.exe|svchost\.exe|Xorg|Xvfb|Xwayland|openbox|gnome-shell|kwin.*|mutter|xfwm4|dbus-daemon|pulseaudio|pipewire.*|sshd|node|electron|Gamepilot)$/i;

interface ProcInfo {
  pid: number;
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
  return text.split('\n').filter(Boolean).map((l) => {
    const [pid, ppid, state, ...name] = l.trim().split(/\s+/);
    return { pid: Number(pid), ppid: Number(ppid), state: state!, name: path.basename(name.join(' ')) };
  });
}

export function listProcesses(): ProcInfo[] {
  return process.platform === 'linux' ? linuxProcs() : process.platform === 'win32' ? [] : psProcs();
}

/** The process and all its descendants, parents first. */
export function processTree(root: number, procs = listProcesses()): number[] {
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const p of procs) if (p.ppid === out[i] && !out.includes(p.pid)) out.push(p.pid);
  return out;
}

/** Why this pid must not be suspended, or null when it may be. */
export function refusal(pid: number, procs = listProcesses()): string | null {
  if (!Number.isInteger(pid) || pid <= 1) return `pid ${pid} is not a game process`;
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const ours = new Set<number>([process.pid]);
  for (let p = byPid.get(process.pid); p && p.ppid > 0 && !ours.has(p.ppid); p = byPid.get(p.ppid)) ours.add(p.ppid);
  for (const c of processTree(process.pid, procs)) ours.add(c);
  if (ours.has(pid)) return `pid ${pid} belongs to Gamepilot itself`;
  const name = byPid.get(pid)?.name;
  if (name && SYSTEM_NAMES.test(name)) return `pid ${pid} (${name}) is a system or shell process`;
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

/** The pids a crash could leave stopped, kept on disk while they are. */
export class SuspendedRegistry {
  constructor(readonly file: string) {}

  read(): number[] {
    try {
      const v = JSON.parse(readFileSync(this.file, 'utf8')) as { pids?: unknown };
      return Array.isArray(v.pids) ? v.pids.filter((p): p is number => Number.isInteger(p)) : [];
    } catch {
      return [];
    }
  }

  write(pids: number[]) {
    mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify({ pids: [...new Set(pids)], note: 'processes Gamepilot suspended; resumed on the next start if a crash left them stopped' }));
    renameSync(tmp, this.file);
  }
}

const WIN_SUSPEND = (verb: 'Suspend' | 'Resume', pids: number[]) => `
Add-Type @"
using System; using System.Runtime.InteropServices;
public static class GPProc {
  [DllImport("ntdll.dll")] public static extern int Nt${verb}Process(IntPtr h);
  [DllImport("kernel32.dll")] public static extern IntPtr OpenProcess(int a, bool i, int pid);
  [DllImport("kernel32.dll")] public static extern bool CloseHandle(IntPtr h);
}
"@
foreach ($p in @(${pids.join(',')})) { $h = [GPProc]::OpenProcess(0x0800, $false, $p); if ($h -ne [IntPtr]::Zero) { [GPProc]::Nt${verb}Process($h) | Out-Null; [GPProc]::CloseHandle($h) | Out-Null } }`;

export class ProcessFreezer {
  private stopped = new Set<number>();

  constructor(private readonly registry: SuspendedRegistry) {}

  /** Suspends `pid` and its children; throws with the reason when refused. Returns the pids stopped. */
  async suspend(pid: number): Promise<number[]> {
    const procs = listProcesses();
    const why = refusal(pid, procs);
    if (why) throw new Error(`will not suspend: ${why}`);
    const tree = process.platform === 'win32' ? [pid] : processTree(pid, procs).filter((p) => !refusal(p, procs));
    this.registry.write([...this.registry.read(), ...tree]);
    tree.forEach((p) => this.stopped.add(p));
    if (process.platform === 'win32') await run('powershell.exe', ['-NoProfile', '-Command', WIN_SUSPEND('Suspend', tree)]);
    else for (const p of tree) signal(p, 'SIGSTOP');
    return tree;
  }

  /** Resumes everything this freezer stopped. Synchronous on POSIX so exit handlers can use it. */
  resumeAll(): number[] {
    const pids = [...this.stopped].reverse();
    resumePids(pids);
    this.stopped.clear();
    const left = this.registry.read().filter((p) => !pids.includes(p));
    this.registry.write(left);
    return pids;
  }

  get suspended(): number[] {
    return [...this.stopped];
  }
}

/** SIGCONT (or NtResumeProcess) for each pid; synchronous so exit handlers can use it. */
function resumePids(pids: number[]) {
  if (process.platform === 'win32') {
    if (pids.length) execFileSync('powershell.exe', ['-NoProfile', '-Command', WIN_SUSPEND('Resume', pids)]);
  } else for (const p of pids) signal(p, 'SIGCONT');
}

function signal(pid: number, sig: NodeJS.Signals) {
  try {
    process.kill(pid, sig);
  } catch {
    /* gone already */
  }
}

/** After a crash: resumes any pid the registry still lists. Returns the pids it resumed. */
export function recoverSuspended(registry: SuspendedRegistry): number[] {
  const pids = registry.read().filter(alive);
  resumePids(pids);
  if (existsSync(registry.file)) registry.write([]);
  return pids;
}
