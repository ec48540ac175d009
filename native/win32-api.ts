/**
 * The Win32 functions Gamepilot calls, bound in-process through koffi. Loaded on first use
 * only (koffi opens user32.dll and friends then), so this module imports on every OS.
 * Handles (HWND, HDC, HANDLE) are koffi pointers: bigint, or null for NULL.
 */
import { createRequire } from 'node:module';

type Koffi = typeof import('koffi');
export type Handle = bigint | null;

export interface Rect32 {
  left: number;
  top: number;
  right: number;
  bottom: number;
}
export interface Point32 {
  x: number;
  y: number;
}

/** An INPUT for SendInput: a mouse or a keyboard event. */
export type InputEvent =
  | { type: 0; u: { mi: { dx: number; dy: number; mouseData: number; dwFlags: number; time: 0; dwExtraInfo: 0 } } }
  | { type: 1; u: { ki: { wVk: number; wScan: number; dwFlags: number; time: 0; dwExtraInfo: 0 } } };

export interface ProcessEntry {
  dwSize: number;
  th32ProcessID: number;
  th32ParentProcessID: number;
  szExeFile: string;
}

interface WindowPlacement {
  length: number;
  flags: number;
  showCmd: number;
  ptMinPosition: Point32;
  ptMaxPosition: Point32;
  rcNormalPosition: Rect32;
}

export interface Win32Api {
  koffi: Koffi;
  // user32: windows
  EnumWindows(cb: (hwnd: bigint, lParam: bigint) => boolean, lParam: number): boolean;
  IsWindow(h: Handle): boolean;
  IsWindowVisible(h: Handle): boolean;
  IsIconic(h: Handle): boolean;
  GetWindowTextW(h: Handle, buf: Buffer, chars: number): number;
  GetWindowThreadProcessId(h: Handle, pid: number[]): number;
  GetClientRect(h: Handle, r: Partial<Rect32>): boolean;
  GetWindowRect(h: Handle, r: Partial<Rect32>): boolean;
  ClientToScreen(h: Handle, p: Point32): boolean;
  GetWindowLongW(h: Handle, index: number): number;
  GetWindowPlacement(h: Handle, wp: Partial<WindowPlacement>): boolean;
  AdjustWindowRectEx(r: Rect32, style: number, menu: boolean, exStyle: number): boolean;
  GetMenu(h: Handle): Handle;
  /** Windows 10 1607+; undefined where missing. */
  GetDpiForWindow?: (h: Handle) => number;
  SetProcessDpiAwarenessContext?: (ctx: bigint) => boolean;
  SetProcessDPIAware(): boolean;
  ShowWindow(h: Handle, cmd: number): boolean;
  SetForegroundWindow(h: Handle): boolean;
  BringWindowToTop(h: Handle): boolean;
  GetForegroundWindow(): Handle;
  GetWindow(h: Handle, cmd: number): Handle;
  AttachThreadInput(from: number, to: number, attach: boolean): boolean;
  // user32: input
  SendInput(count: number, inputs: InputEvent[], size: number): number;
  MapVirtualKeyW(code: number, mapType: number): number;
  GetCursorPos(p: Partial<Point32>): boolean;
  SetCursorPos(x: number, y: number): boolean;
  GetAsyncKeyState(vk: number): number;
  GetSystemMetrics(index: number): number;
  // user32 + gdi32: capture
  GetDC(h: Handle): Handle;
  ReleaseDC(h: Handle, dc: Handle): number;
  PrintWindow(h: Handle, dc: Handle, flags: number): boolean;
  CreateCompatibleDC(dc: Handle): Handle;
  CreateDIBSection(
    dc: Handle,
    info: Buffer,
    usage: number,
    bits: (bigint | null)[],
    section: Handle,
    offset: number,
  ): Handle;
  GdiFlush(): boolean;
  SelectObject(dc: Handle, obj: Handle): Handle;
  DeleteObject(obj: Handle): boolean;
  DeleteDC(dc: Handle): boolean;
  BitBlt(
    dst: Handle,
    x: number,
    y: number,
    w: number,
    h: number,
    src: Handle,
    sx: number,
    sy: number,
    rop: number,
  ): boolean;
  GetDeviceCaps(dc: Handle, index: number): number;
  // dwmapi (absent on some systems)
  DwmGetWindowAttribute?: (h: Handle, attr: number, out: Buffer, size: number) => number;
  // kernel32 + ntdll: processes
  GetCurrentThreadId(): number;
  GetLastError(): number;
  OpenProcess(access: number, inherit: boolean, pid: number): Handle;
  CloseHandle(h: Handle): boolean;
  GetProcessTimes(h: Handle, creation: Buffer, exit: Buffer, kernel: Buffer, user: Buffer): boolean;
  CreateToolhelp32Snapshot(flags: number, pid: number): Handle;
  Process32FirstW(snap: Handle, entry: Partial<ProcessEntry>): boolean;
  Process32NextW(snap: Handle, entry: Partial<ProcessEntry>): boolean;
  NtSuspendProcess(h: Handle): number;
  NtResumeProcess(h: Handle): number;
}

/** INVALID_HANDLE_VALUE as koffi hands it back: (HANDLE)-1. */
export const INVALID_HANDLE = (1n << 64n) - 1n;

const DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2 = -4n;
let api: Win32Api | undefined;

/** The bound functions (bound on the first call); throws off Windows or when koffi cannot load. */
export function win32(): Win32Api {
  if (api) return api;
  if (process.platform !== 'win32') throw new Error('the Win32 backend runs on Windows only');
  const koffi = createRequire(import.meta.url)('koffi') as Koffi;
  api = bind(koffi);
  // Physical pixels everywhere (window rectangles, the cursor, captures): without this a
  // scaled display answers in logical coordinates.
  if (!api.SetProcessDpiAwarenessContext?.(DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2)) api.SetProcessDPIAware();
  return api;
}

function bind(koffi: Koffi): Win32Api {
  const user32 = koffi.load('user32.dll');
  const gdi32 = koffi.load('gdi32.dll');
  const kernel32 = koffi.load('kernel32.dll');
  const ntdll = koffi.load('ntdll.dll');
  const optional = <T>(declare: () => T): T | undefined => {
    try {
      return declare();
    } catch {
      return undefined;
    }
  };
  const dwmapi = optional(() => koffi.load('dwmapi.dll'));

  // Type names are global in koffi: prefixed so they cannot clash with another binding's.
  koffi.struct('GP_RECT', { left: 'int32_t', top: 'int32_t', right: 'int32_t', bottom: 'int32_t' });
  koffi.struct('GP_POINT', { x: 'int32_t', y: 'int32_t' });
  koffi.struct('GP_WINDOWPLACEMENT', {
    length: 'uint32_t',
    flags: 'uint32_t',
    showCmd: 'uint32_t',
    ptMinPosition: 'GP_POINT',
    ptMaxPosition: 'GP_POINT',
    rcNormalPosition: 'GP_RECT',
  });
  const mouseInput = koffi.struct('GP_MOUSEINPUT', {
    dx: 'int32_t',
    dy: 'int32_t',
    mouseData: 'uint32_t',
    dwFlags: 'uint32_t',
    time: 'uint32_t',
    dwExtraInfo: 'uintptr_t',
  });
  const keybdInput = koffi.struct('GP_KEYBDINPUT', {
    wVk: 'uint16_t',
    wScan: 'uint16_t',
    dwFlags: 'uint32_t',
    time: 'uint32_t',
    dwExtraInfo: 'uintptr_t',
  });
  const hardwareInput = koffi.struct('GP_HARDWAREINPUT', {
    uMsg: 'uint32_t',
    wParamL: 'uint16_t',
    wParamH: 'uint16_t',
  });
  koffi.struct('GP_INPUT', {
    type: 'uint32_t',
    u: koffi.union({ mi: mouseInput, ki: keybdInput, hi: hardwareInput }),
  });
  koffi.struct('GP_PROCESSENTRY32W', {
    dwSize: 'uint32_t',
    cntUsage: 'uint32_t',
    th32ProcessID: 'uint32_t',
    th32DefaultHeapID: 'uintptr_t',
    th32ModuleID: 'uint32_t',
    cntThreads: 'uint32_t',
    th32ParentProcessID: 'uint32_t',
    pcPriClassBase: 'int32_t',
    dwFlags: 'uint32_t',
    szExeFile: koffi.array('char16_t', 260, 'String'),
  });
  koffi.proto('bool __stdcall GP_WNDENUMPROC(void *hwnd, intptr_t lParam)');

  const f = (lib: ReturnType<Koffi['load']>, proto: string) => lib.func(proto);
  return {
    koffi,
    EnumWindows: f(user32, 'bool __stdcall EnumWindows(GP_WNDENUMPROC *cb, intptr_t lParam)'),
    IsWindow: f(user32, 'bool __stdcall IsWindow(void *h)'),
    IsWindowVisible: f(user32, 'bool __stdcall IsWindowVisible(void *h)'),
    IsIconic: f(user32, 'bool __stdcall IsIconic(void *h)'),
    GetWindowTextW: f(user32, 'int __stdcall GetWindowTextW(void *h, _Out_ void *buf, int chars)'),
    GetWindowThreadProcessId: f(user32, 'uint32_t __stdcall GetWindowThreadProcessId(void *h, _Out_ uint32_t *pid)'),
    GetClientRect: f(user32, 'bool __stdcall GetClientRect(void *h, _Out_ GP_RECT *r)'),
    GetWindowRect: f(user32, 'bool __stdcall GetWindowRect(void *h, _Out_ GP_RECT *r)'),
    ClientToScreen: f(user32, 'bool __stdcall ClientToScreen(void *h, _Inout_ GP_POINT *p)'),
    GetWindowLongW: f(user32, 'int32_t __stdcall GetWindowLongW(void *h, int index)'),
    GetWindowPlacement: f(user32, 'bool __stdcall GetWindowPlacement(void *h, _Inout_ GP_WINDOWPLACEMENT *wp)'),
    AdjustWindowRectEx: f(
      user32,
      'bool __stdcall AdjustWindowRectEx(_Inout_ GP_RECT *r, uint32_t style, bool menu, uint32_t exStyle)',
    ),
    GetMenu: f(user32, 'void * __stdcall GetMenu(void *h)'),
    GetDpiForWindow: optional(() => f(user32, 'uint32_t __stdcall GetDpiForWindow(void *h)')),
    SetProcessDpiAwarenessContext: optional(() =>
      f(user32, 'bool __stdcall SetProcessDpiAwarenessContext(intptr_t ctx)'),
    ),
    SetProcessDPIAware: f(user32, 'bool __stdcall SetProcessDPIAware()'),
    ShowWindow: f(user32, 'bool __stdcall ShowWindow(void *h, int cmd)'),
    SetForegroundWindow: f(user32, 'bool __stdcall SetForegroundWindow(void *h)'),
    BringWindowToTop: f(user32, 'bool __stdcall BringWindowToTop(void *h)'),
    GetForegroundWindow: f(user32, 'void * __stdcall GetForegroundWindow()'),
    GetWindow: f(user32, 'void * __stdcall GetWindow(void *h, uint32_t cmd)'),
    AttachThreadInput: f(user32, 'bool __stdcall AttachThreadInput(uint32_t from, uint32_t to, bool attach)'),
    SendInput: f(user32, 'uint32_t __stdcall SendInput(uint32_t count, GP_INPUT *inputs, int size)'),
    MapVirtualKeyW: f(user32, 'uint32_t __stdcall MapVirtualKeyW(uint32_t code, uint32_t mapType)'),
    GetCursorPos: f(user32, 'bool __stdcall GetCursorPos(_Out_ GP_POINT *p)'),
    SetCursorPos: f(user32, 'bool __stdcall SetCursorPos(int x, int y)'),
    GetAsyncKeyState: f(user32, 'int16_t __stdcall GetAsyncKeyState(int vk)'),
    GetSystemMetrics: f(user32, 'int __stdcall GetSystemMetrics(int index)'),
    GetDC: f(user32, 'void * __stdcall GetDC(void *h)'),
    ReleaseDC: f(user32, 'int __stdcall ReleaseDC(void *h, void *dc)'),
    PrintWindow: f(user32, 'bool __stdcall PrintWindow(void *h, void *dc, uint32_t flags)'),
    CreateCompatibleDC: f(gdi32, 'void * __stdcall CreateCompatibleDC(void *dc)'),
    CreateDIBSection: f(
      gdi32,
      'void * __stdcall CreateDIBSection(void *dc, const void *info, uint32_t usage, _Out_ void **bits, void *section, uint32_t offset)',
    ),
    GdiFlush: f(gdi32, 'bool __stdcall GdiFlush()'),
    SelectObject: f(gdi32, 'void * __stdcall SelectObject(void *dc, void *obj)'),
    DeleteObject: f(gdi32, 'bool __stdcall DeleteObject(void *obj)'),
    DeleteDC: f(gdi32, 'bool __stdcall DeleteDC(void *dc)'),
    BitBlt: f(
      gdi32,
      'bool __stdcall BitBlt(void *dst, int x, int y, int w, int h, void *src, int sx, int sy, uint32_t rop)',
    ),
    GetDeviceCaps: f(gdi32, 'int __stdcall GetDeviceCaps(void *dc, int index)'),
    DwmGetWindowAttribute: dwmapi
      ? optional(() =>
          f(dwmapi, 'int32_t __stdcall DwmGetWindowAttribute(void *h, uint32_t attr, _Out_ void *out, uint32_t size)'),
        )
      : undefined,
    GetCurrentThreadId: f(kernel32, 'uint32_t __stdcall GetCurrentThreadId()'),
    GetLastError: f(kernel32, 'uint32_t __stdcall GetLastError()'),
    OpenProcess: f(kernel32, 'void * __stdcall OpenProcess(uint32_t access, bool inherit, uint32_t pid)'),
    CloseHandle: f(kernel32, 'bool __stdcall CloseHandle(void *h)'),
    GetProcessTimes: f(
      kernel32,
      'bool __stdcall GetProcessTimes(void *h, _Out_ void *creation, _Out_ void *exit, _Out_ void *kernel, _Out_ void *user)',
    ),
    CreateToolhelp32Snapshot: f(kernel32, 'void * __stdcall CreateToolhelp32Snapshot(uint32_t flags, uint32_t pid)'),
    Process32FirstW: f(kernel32, 'bool __stdcall Process32FirstW(void *snap, _Inout_ GP_PROCESSENTRY32W *entry)'),
    Process32NextW: f(kernel32, 'bool __stdcall Process32NextW(void *snap, _Inout_ GP_PROCESSENTRY32W *entry)'),
    NtSuspendProcess: f(ntdll, 'int32_t __stdcall NtSuspendProcess(void *h)'),
    NtResumeProcess: f(ntdll, 'int32_t __stdcall NtResumeProcess(void *h)'),
  } as Win32Api;
}
