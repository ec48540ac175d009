/**
 * The one system-wide input hook (uiohook-napi) shared by the stop hotkey and the recorder:
 * started when the first listener arrives, stopped when the last one leaves.
 */
type Hook = typeof import('uiohook-napi');
export type HookEvent =
  | {
      kind: 'keydown' | 'keyup';
      t: number;
      keycode: number;
      ctrl: boolean;
      shift: boolean;
      alt: boolean;
      meta: boolean;
    }
  | { kind: 'mousedown' | 'mouseup' | 'mousemove'; t: number; x: number; y: number; button: number }
  | { kind: 'wheel'; t: number; x: number; y: number; rotation: number; direction: number; amount: number };

let loaded: Promise<Hook> | undefined;

/**
 * Event times from the X server's (or OS's) own clock, mapped to epoch ms. The offset is the
 * smallest (arrival − native time) seen so far, so a busy event loop does not make events late.
 */
let offset = Number.POSITIVE_INFINITY;
function eventTime(native: number): number {
  const now = Date.now();
  if (!Number.isFinite(native) || native <= 0) return now;
  offset = Math.min(offset, now - native);
  const t = native + offset;
  return t > now || now - t > 5000 ? now : t; // clock jumps: trust arrival time
}
const listeners = new Set<(e: HookEvent) => void>();

export function loadHook(): Promise<Hook> {
  loaded ??= import('uiohook-napi').then((mod) => {
    const { uIOhook } = mod;
    const send = (e: HookEvent) => {
      listeners.forEach((l) => {
        l(e);
      });
    };
    const mods = (e: { ctrlKey: boolean; shiftKey: boolean; altKey: boolean; metaKey: boolean }) => ({
      ctrl: e.ctrlKey,
      shift: e.shiftKey,
      alt: e.altKey,
      meta: e.metaKey,
    });
    uIOhook.on('keydown', (e) => send({ kind: 'keydown', t: eventTime(e.time), keycode: e.keycode, ...mods(e) }));
    uIOhook.on('keyup', (e) => send({ kind: 'keyup', t: eventTime(e.time), keycode: e.keycode, ...mods(e) }));
    uIOhook.on('mousedown', (e) =>
      send({ kind: 'mousedown', t: eventTime(e.time), x: e.x, y: e.y, button: Number(e.button) }),
    );
    uIOhook.on('mouseup', (e) =>
      send({ kind: 'mouseup', t: eventTime(e.time), x: e.x, y: e.y, button: Number(e.button) }),
    );
    uIOhook.on('mousemove', (e) => send({ kind: 'mousemove', t: eventTime(e.time), x: e.x, y: e.y, button: 0 }));
    uIOhook.on('wheel', (e) =>
      send({
        kind: 'wheel',
        t: eventTime(e.time),
        x: e.x,
        y: e.y,
        rotation: e.rotation,
        direction: e.direction,
        amount: e.amount,
      }),
    );
    return mod;
  });
  return loaded;
}

/** Subscribes to global input; returns the unsubscribe function. Throws when no hook is possible. */
export async function listenGlobalInput(listener: (e: HookEvent) => void): Promise<() => void> {
  const { uIOhook } = await loadHook();
  if (listeners.size === 0) {
    // uiohook aborts the whole process (SIGABRT, "XOpenDisplay failure!") without an X display:
    // find that out first, as an error the caller can report and go on without the hook.
    if (process.platform === 'linux') {
      try {
        const { xConnection } = await import('../../native/x11/xlib.ts');
        xConnection();
      } catch (err) {
        throw new Error(`the global input hook needs an X display: ${(err as Error).message}`);
      }
    }
    uIOhook.start();
  }
  listeners.add(listener);
  return () => {
    if (!listeners.delete(listener)) return;
    if (listeners.size === 0) uIOhook.stop();
  };
}

/** uiohook key code → the key name our action schema uses ("a", "up", "enter", "f5"). */
export async function keyNames(): Promise<Map<number, string>> {
  const { UiohookKey } = await loadHook();
  const special: Record<string, string> = {
    ArrowUp: 'up',
    ArrowDown: 'down',
    ArrowLeft: 'left',
    ArrowRight: 'right',
    Ctrl: 'ctrl',
    CtrlRight: 'rctrl',
    Alt: 'alt',
    AltRight: 'ralt',
    Shift: 'shift',
    ShiftRight: 'rshift',
    Meta: 'meta',
    MetaRight: 'meta',
    Escape: 'esc',
    Backquote: '`',
    BracketLeft: '[',
    BracketRight: ']',
    Semicolon: ';',
    Quote: "'",
    Comma: ',',
    Period: '.',
    Slash: '/',
    Backslash: '\\',
    Minus: '-',
    Equal: '=',
  };
  const map = new Map<number, string>();
  for (const [name, code] of Object.entries(UiohookKey as Record<string, number>)) {
    if (map.has(code)) continue;
    map.set(code, special[name] ?? name.toLowerCase());
  }
  return map;
}
