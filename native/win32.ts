/**
 * Windows backend: user32 through a PowerShell helper (EnumWindows, GetClientRect +
 * ClientToScreen, GetDpiForWindow, SetForegroundWindow). Written against the Win32 API
 * documentation; not exercised by CI (no Windows machine here) — see README.
 */
import { run } from './exec.ts';
import type { WindowInfo, WindowManager } from './types.ts';

const PRELUDE = String.raw`
Add-Type @"
using System; using System.Text; using System.Runtime.InteropServices;
public static class GP {
  public delegate bool EnumProc(IntPtr h, IntPtr l);
  [DllImport("user32.dll")] public static extern bool EnumWindows(EnumProc f, IntPtr l);
  [DllImport("user32.dll")] public static extern bool IsWindowVisible(IntPtr h);
  [DllImport("user32.dll", CharSet=CharSet.Unicode)] public static extern int GetWindowText(IntPtr h, StringBuilder s, int n);
  [DllImport("user32.dll")] public static extern uint GetWindowThreadProcessId(IntPtr h, out uint pid);
  [StructLayout(LayoutKind.Sequential)] public struct RECT { public int L, T, R, B; }
  [StructLayout(LayoutKind.Sequential)] public struct POINT { public int X, Y; }
  [DllImport("user32.dll")] public static extern bool GetClientRect(IntPtr h, out RECT r);
  [DllImport("user32.dll")] public static extern bool ClientToScreen(IntPtr h, ref POINT p);
  [DllImport("user32.dll")] public static extern uint GetDpiForWindow(IntPtr h);
  [DllImport("user32.dll")] public static extern bool SetForegroundWindow(IntPtr h);
  [DllImport("user32.dll")] public static extern bool ShowWindow(IntPtr h, int cmd);
  [DllImport("user32.dll")] public static extern IntPtr GetForegroundWindow();
  [DllImport("user32.dll")] public static extern bool SetProcessDPIAware();
  public static string Describe(IntPtr h) {
    var sb = new StringBuilder(512); GetWindowText(h, sb, 512); uint pid; GetWindowThreadProcessId(h, out pid);
    RECT r; GetClientRect(h, out r); var p = new POINT(); ClientToScreen(h, ref p);
    return h.ToInt64() + "\t" + pid + "\t" + p.X + "\t" + p.Y + "\t" + (r.R - r.L) + "\t" + (r.B - r.T) + "\t" + GetDpiForWindow(h) + "\t" + sb.ToString();
  }
}
"@
[GP]::SetProcessDPIAware() | Out-Null
`;

function parseRow(line: string): WindowInfo | undefined {
  const [id, pid, x, y, w, h, dpi, ...title] = line.split('\t');
  if (!id || !w || !h) return undefined;
  return {
    id,
    pid: Number(pid),
    title: title.join('\t').trim(),
    bounds: { x: Number(x), y: Number(y), width: Number(w), height: Number(h) },
    scaleFactor: Number(dpi) / 96 || 1,
  };
}

async function ps(script: string): Promise<string> {
  return run('powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', PRELUDE + script], 15000);
}

export class Win32WindowManager implements WindowManager {
  readonly platform = 'win32';

  async list(): Promise<WindowInfo[]> {
    const out = await ps(`$rows = New-Object System.Collections.ArrayList
[GP]::EnumWindows({ param($h, $l) if ([GP]::IsWindowVisible($h)) { [void]$rows.Add([GP]::Describe($h)) }; $true }, [IntPtr]::Zero) | Out-Null
$rows -join "\n"`);
    return out
      .split(/\r?\n/)
      .map(parseRow)
      .filter((w): w is WindowInfo => !!w && w.title.length > 0 && w.bounds.width > 0);
  }

  async get(id: string): Promise<WindowInfo | undefined> {
    const out = await ps(`$h = [IntPtr]${Number(id)}; if ([GP]::IsWindowVisible($h)) { [GP]::Describe($h) }`);
    return parseRow(out.trim());
  }

  async focus(id: string): Promise<void> {
    await ps(
      `$h = [IntPtr]${Number(id)}; [GP]::ShowWindow($h, 9) | Out-Null; [GP]::SetForegroundWindow($h) | Out-Null`,
    );
  }

  async activeId(): Promise<string | undefined> {
    return (await ps('[GP]::GetForegroundWindow().ToInt64()')).trim() || undefined;
  }
}
