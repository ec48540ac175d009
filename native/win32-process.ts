/**
 * Windows processes in-process through koffi: the listing with parents (Toolhelp32 snapshot),
 * start times (GetProcessTimes), and suspend/resume (NtSuspendProcess/NtResumeProcess, the
 * calls a debugger's "suspend" uses; they nest, so each suspend needs one resume).
 */
import { INVALID_HANDLE, type ProcessEntry, win32 } from './win32-api.ts';

export interface Win32Process {
  pid: number;
  ppid: number;
  name: string;
}

const TH32CS_SNAPPROCESS = 0x2;
const PROCESS_SUSPEND_RESUME = 0x0800;
const PROCESS_QUERY_LIMITED_INFORMATION = 0x1000;
/** 100 ns FILETIME ticks from 1601-01-01 to the Unix epoch, in ms. */
const FILETIME_EPOCH_MS = 11_644_473_600_000;

/** Every process with its parent pid and image name ("winemine.exe"). */
export function win32Processes(): Win32Process[] {
  const api = win32();
  const snap = api.CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
  if (snap === null || snap === INVALID_HANDLE)
    throw new Error(`cannot list processes (CreateToolhelp32Snapshot failed, error ${api.GetLastError()})`);
  const out: Win32Process[] = [];
  try {
    const entry: Partial<ProcessEntry> = { dwSize: api.koffi.sizeof('GP_PROCESSENTRY32W') };
    for (let ok = api.Process32FirstW(snap, entry); ok; ok = api.Process32NextW(snap, entry)) {
      out.push({ pid: entry.th32ProcessID ?? 0, ppid: entry.th32ParentProcessID ?? 0, name: entry.szExeFile ?? '' });
    }
  } finally {
    api.CloseHandle(snap);
  }
  if (!out.length) throw new Error('cannot list processes (the snapshot listed none)');
  return out;
}

/** When the process started, in epoch ms; undefined when it is gone or not ours to query. */
export function win32ProcessStartMs(pid: number): number | undefined {
  const api = win32();
  const h = api.OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, false, pid);
  if (h === null) return undefined;
  try {
    const created = Buffer.alloc(8);
    const scratch = Buffer.alloc(8);
    if (!api.GetProcessTimes(h, created, scratch, scratch, scratch)) return undefined;
    const ticks = created.readBigUInt64LE(0);
    return Number(ticks / 10_000n) - FILETIME_EPOCH_MS;
  } finally {
    api.CloseHandle(h);
  }
}

function eachProcess(pids: number[], verb: 'suspend' | 'resume') {
  const api = win32();
  const failed: string[] = [];
  for (const pid of pids) {
    const h = api.OpenProcess(PROCESS_SUSPEND_RESUME, false, pid);
    if (h === null) {
      const code = api.GetLastError();
      // ERROR_INVALID_PARAMETER: no such process any more; nothing to do.
      if (code !== 87) failed.push(`${pid} (cannot open it, error ${code})`);
      continue;
    }
    try {
      const status = verb === 'suspend' ? api.NtSuspendProcess(h) : api.NtResumeProcess(h);
      if (status !== 0) failed.push(`${pid} (NTSTATUS 0x${(status >>> 0).toString(16)})`);
    } finally {
      api.CloseHandle(h);
    }
  }
  if (failed.length) throw new Error(`could not ${verb} ${failed.join(', ')}`);
}

/** Suspends every thread of each process; throws naming those that could not be suspended (the rest are). */
export function win32Suspend(pids: number[]): void {
  eachProcess(pids, 'suspend');
}

/** Resumes each process; synchronous, for exit handlers. */
export function win32Resume(pids: number[]): void {
  eachProcess(pids, 'resume');
}
