/**
 * Keyboard and mouse input on Windows through SendInput, in-process (koffi). Keys go as scan
 * codes (KEYEVENTF_SCANCODE, from MapVirtualKeyW) so games that read DirectInput or raw input
 * see them; text goes as Unicode characters. Every call is synchronous, so the exit handler
 * can release held keys with the same code (releaseWin32Sync).
 */
import type { InputBackend, MouseButton } from './types.ts';
import { type InputEvent, win32 } from './win32-api.ts';
import { keyStroke, needsVirtualKey, usScanCode } from './win32-keys.ts';

const INPUT_MOUSE = 0;
const INPUT_KEYBOARD = 1;
const KEYEVENTF_EXTENDEDKEY = 0x1;
const KEYEVENTF_KEYUP = 0x2;
const KEYEVENTF_UNICODE = 0x4;
const KEYEVENTF_SCANCODE = 0x8;
const MOUSEEVENTF_MOVE = 0x1;
const MOUSEEVENTF_WHEEL = 0x800;
const MOUSEEVENTF_HWHEEL = 0x1000;
const MOUSEEVENTF_VIRTUALDESK = 0x4000;
const MOUSEEVENTF_ABSOLUTE = 0x8000;
const WHEEL_DELTA = 120;
const MAPVK_VK_TO_VSC = 0;
const SM_SWAPBUTTON = 23;
const SM_XVIRTUALSCREEN = 76;
const SM_YVIRTUALSCREEN = 77;
const SM_CXVIRTUALSCREEN = 78;
const SM_CYVIRTUALSCREEN = 79;

const BUTTON_FLAGS: Record<MouseButton, { down: number; up: number }> = {
  left: { down: 0x2, up: 0x4 },
  right: { down: 0x8, up: 0x10 },
  middle: { down: 0x20, up: 0x40 },
};

const keyEvent = (wVk: number, wScan: number, dwFlags: number): InputEvent => ({
  type: INPUT_KEYBOARD,
  u: { ki: { wVk, wScan, dwFlags, time: 0, dwExtraInfo: 0 } },
});
const mouseEvent = (dx: number, dy: number, mouseData: number, dwFlags: number): InputEvent => ({
  type: INPUT_MOUSE,
  u: { mi: { dx, dy, mouseData, dwFlags, time: 0, dwExtraInfo: 0 } },
});

function send(events: InputEvent[]) {
  const api = win32();
  const sent = api.SendInput(events.length, events, api.koffi.sizeof('GP_INPUT'));
  if (sent !== events.length)
    throw new Error(
      `SendInput delivered ${sent} of ${events.length} events (error ${api.GetLastError()}): input is blocked — the focused program may run as administrator, or the desktop is locked`,
    );
}

/** The SendInput event of a key going down or up: by scan code where the key has one. */
export function keyInput(name: string, down: boolean): InputEvent {
  const stroke = keyStroke(name);
  if (!stroke) throw new Error(`no Windows key for "${name}"`);
  const flags = (stroke.extended ? KEYEVENTF_EXTENDEDKEY : 0) | (down ? 0 : KEYEVENTF_KEYUP);
  if (!needsVirtualKey(stroke.vk)) {
    const scan = win32().MapVirtualKeyW(stroke.vk, MAPVK_VK_TO_VSC) || usScanCode(stroke.vk) || 0;
    // Windows reads only wScan with KEYEVENTF_SCANCODE; Wine (8.0) needs wVk as well.
    if (scan) return keyEvent(stroke.vk, scan, flags | KEYEVENTF_SCANCODE);
  }
  return keyEvent(stroke.vk, 0, flags);
}

/** The physical button for a logical one: SendInput's "left" is the physical left button. */
function physical(which: MouseButton): MouseButton {
  if (which === 'middle' || !win32().GetSystemMetrics(SM_SWAPBUTTON)) return which;
  return which === 'left' ? 'right' : 'left';
}

export function win32KeyToggle(name: string, down: boolean): void {
  send([keyInput(name, down)]);
}

export function win32Button(state: 'down' | 'up', which: MouseButton): void {
  send([mouseEvent(0, 0, 0, BUTTON_FLAGS[physical(which)][state])]);
}

/** Absolute pointer move over the whole virtual desktop (0…65535 on each axis), then pinned to the exact pixel. */
export function win32Move(x: number, y: number): void {
  const api = win32();
  const vx = api.GetSystemMetrics(SM_XVIRTUALSCREEN);
  const vy = api.GetSystemMetrics(SM_YVIRTUALSCREEN);
  const vw = Math.max(1, api.GetSystemMetrics(SM_CXVIRTUALSCREEN));
  const vh = Math.max(1, api.GetSystemMetrics(SM_CYVIRTUALSCREEN));
  const norm = (v: number, origin: number, size: number) =>
    Math.min(65535, Math.max(0, Math.ceil(((v - origin) * 65536) / size)));
  send([
    mouseEvent(norm(x, vx, vw), norm(y, vy, vh), 0, MOUSEEVENTF_MOVE | MOUSEEVENTF_ABSOLUTE | MOUSEEVENTF_VIRTUALDESK),
  ]);
  // The normalized grid does not land on every pixel of every desktop size: make it exact.
  api.SetCursorPos(Math.round(x), Math.round(y));
}

export function win32Position(): { x: number; y: number } {
  const p: { x?: number; y?: number } = {};
  if (!win32().GetCursorPos(p)) throw new Error('GetCursorPos failed');
  return { x: p.x ?? 0, y: p.y ?? 0 };
}

export function win32Scroll(dx: number, dy: number): void {
  const events: InputEvent[] = [];
  // mouseData is a DWORD holding a signed delta: positive scrolls up (and right).
  if (dy) events.push(mouseEvent(0, 0, Math.round(-dy * WHEEL_DELTA) >>> 0, MOUSEEVENTF_WHEEL));
  if (dx) events.push(mouseEvent(0, 0, Math.round(dx * WHEEL_DELTA) >>> 0, MOUSEEVENTF_HWHEEL));
  if (events.length) send(events);
}

/** Text as Unicode characters (KEYEVENTF_UNICODE); line breaks and tabs as Enter and Tab. */
export function win32Type(text: string): void {
  const events: InputEvent[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\r' && text[i + 1] === '\n') continue;
    const named = ch === '\n' || ch === '\r' ? 'Return' : ch === '\t' ? 'Tab' : undefined;
    if (named) events.push(keyInput(named, true), keyInput(named, false));
    else {
      const unit = text.charCodeAt(i);
      events.push(keyEvent(0, unit, KEYEVENTF_UNICODE), keyEvent(0, unit, KEYEVENTF_UNICODE | KEYEVENTF_KEYUP));
    }
  }
  if (events.length) send(events);
}

/**
 * Lets go of held keys and buttons, synchronously (for the process exit handler). Items are
 * nut-js Key names and `mouse:left|right|middle`, as the executor tracks them.
 */
export function releaseWin32Sync(items: string[]): { released: string[]; unknown: string[] } {
  const released: string[] = [];
  const unknown: string[] = [];
  for (const item of items) {
    const button = item.startsWith('mouse:') ? item.slice('mouse:'.length) : undefined;
    if (button !== undefined ? !(button in BUTTON_FLAGS) : !keyStroke(item)) {
      unknown.push(item);
      continue;
    }
    try {
      if (button !== undefined) win32Button('up', button as MouseButton);
      else win32KeyToggle(item, false);
      released.push(item);
    } catch {
      /* keep releasing the rest */
    }
  }
  return { released, unknown };
}

/** The executor's input on Windows. */
export class Win32InputBackend implements InputBackend {
  readonly name = 'win32-sendinput';

  constructor() {
    win32(); // fail now, not at the first key, when the binding cannot load
  }

  async keyDown(key: string) {
    win32KeyToggle(key, true);
  }
  async keyUp(key: string) {
    win32KeyToggle(key, false);
  }
  async type(text: string) {
    win32Type(text);
  }
  async move(x: number, y: number) {
    win32Move(x, y);
  }
  async position() {
    return win32Position();
  }
  async button(state: 'down' | 'up', which: MouseButton) {
    win32Button(state, which);
  }
  async scroll(dx: number, dy: number) {
    win32Scroll(dx, dy);
  }
}
