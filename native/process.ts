/**
 * Process primitives: listing, the tree under a pid, whether a pid may be suspended, and
 * suspending/resuming pids (SIGSTOP/SIGCONT on Linux and macOS, NtSuspendProcess/NtResumeProcess
 * on Windows). Who suspended what, and recovery after a crash, live in the core
 * (electron/safety/): this layer keeps no files.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { run } from './exec.ts';

/** Never suspended: system processes, shells and terminals, and what Gamepilot runs on (matched without a trailing .exe). */
const SYSTEM_NAMES =
  /^(systemd|init|launchd|kernel_task|WindowServer|loginwindow|Finder|Dock|Xorg|Xvfb|Xwayland|openbox|gnome-shell|kwin.*|mutter|xfwm4|dbus-daemon|pulseaudio|pipewire.*|sshd|node|electron|Gamepilot|System|System Idle Process|Registry|smss|csrss|wininit|winlogon|services|lsass|svchost|dwm|explorer|fontdrvhost|sihost|taskhostw|ctfmon|RuntimeBroker|conhost|cmd|powershell|pwsh|WindowsTerminal|OpenConsole)$/i;

export interface ProcInfo {
  pid: number;
  /** Parent pid; 0 where the listing does not say (Windows' tasklist). */
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

/** One field list per CSV line: quoted fields may hold commas and doubled quotes. */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let value = '';
    if (line[i] === '"') {
      for (i++; i < line.length; i++) {
        if (line[i] !== '"') value += line[i];
        else if (line[i + 1] === '"') value += line[++i];
        else {
          i++;
          break;
        }
      }
    } else {
      const end = line.indexOf(',', i);
      value = line.slice(i, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end;
    }
    fields.push(value);
    if (line[i] !== ',') return fields;
    i++;
  }
}

/**
 * Rows of `tasklist /FO CSV /NH` ("Image Name","PID","Session Name","Session#","Mem Usage").
 * tasklist gives no parent pid: ppid is 0, and `refusal` adds our own parent by process.ppid.
 */
export function parseTasklistCsv(text: string): ProcInfo[] {
  return text.split(/\r?\n/).flatMap((line) => {
    const [name, pid] = csvFields(line.trim());
    const n = Number(pid);
    // Lines that are no process ("INFO: No tasks are running…", blank ones) are skipped.
    return name && pid && /^\d+$/.test(pid) && Number.isSafeInteger(n) ? [{ pid: n, ppid: 0, name }] : [];
  });
}

function windowsProcs(): ProcInfo[] {
  let text: string;
  try {
    text = execFileSync('tasklist', ['/FO', 'CSV', '/NH'], { encoding: 'utf8', windowsHide: true, timeout: 15_000 });
  } catch (err) {
    throw new Error(`cannot list processes (tasklist failed: ${(err as Error).message})`);
  }
  const procs = parseTasklistCsv(text);
  if (!procs.length) throw new Error('cannot list processes (tasklist listed none)');
  return procs;
}

/** Every process with its name (and parent, where the OS says). Throws when no listing can be had. */
export function listProcesses(): ProcInfo[] {
  return process.platform === 'linux' ? linuxProcs() : process.platform === 'win32' ? windowsProcs() : psProcs();
}

/** The process and all its descendants, parents first. */
export function processTree(root: number, procs = listProcesses()): number[] {
  const out = [root];
  for (let i = 0; i < out.length; i++)
    for (const p of procs) if (p.ppid === out[i] && !out.includes(p.pid)) out.push(p.pid);
  return out;
}

/** Why this pid must not be suspended, or null when it may be. */
export function refusal(pid: number, procs = listProcesses()): string | null {
  if (!Number.isInteger(pid) || pid <= 1) return `pid ${pid} is not a game process`;
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  // Our parent even where the listing has no parents (Windows): the shell or app that started us.
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

/** SIGSTOP (or NtSuspendProcess) for each pid, parents first. Check `refusal` before. */
export async function suspendPids(pids: number[]): Promise<void> {
  if (process.platform === 'win32') {
    if (pids.length) await run('powershell.exe', ['-NoProfile', '-Command', WIN_SUSPEND('Suspend', pids)]);
  } else for (const p of pids) signal(p, 'SIGSTOP');
}

/** SIGCONT (or NtResumeProcess) for each pid; synchronous so exit handlers can use it. */
export function resumePids(pids: number[]) {
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
